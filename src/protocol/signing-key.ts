import { B64U_PATTERN } from './base64url';
import { CountersignError, isCountersignError } from './errors';
import { isObject } from './issues';
import { PRIVATE_JWK_MEMBERS, jwkThumbprint, parsePublicJwk, thumbprintOfInput, type PublicJwk } from './jwk';
import { subtle } from './webcrypto';

/**
 * The signing keys of decisions (docs/bridge-protocol.md, section 10 "The signed decision"): the
 * algorithms they use, their RFC 7638 thumbprints (`kid`, `aud`) and how a key pair is made. Apart
 * from decision.ts, which re-exports all of it, so that file stays about the decision itself.
 * The thumbprint itself is computed in jwk.ts, which the bridge shares.
 */

/** The signature algorithms of the extension's key: Ed25519, or P-256 where the engine lacks it. */
export const DECISION_ALGORITHMS = ['EdDSA', 'ES256'] as const;
export type DecisionAlg = (typeof DECISION_ALGORITHMS)[number];

/** The one JWS algorithm a pinned key is used with. */
export function algForKey(jwk: PublicJwk): DecisionAlg {
  return jwk.kty === 'OKP' ? 'EdDSA' : 'ES256';
}

/**
 * The RFC 7638 JWK thumbprint (SHA-256, base64url) of a public key: the `kid` of the extension's
 * decisions and the `aud` that names an agent. Ed25519 and P-256 keys are checked with
 * `publicJwkSchema`; an RSA public key (`n`, `e`) is accepted too, since RFC 7638's own example is
 * one. A JWK with private members is refused, so a private key never becomes an identifier by
 * mistake.
 */
export async function publicJwkThumbprint(jwk: unknown): Promise<string> {
  if (!isObject(jwk) || jwk['kty'] !== 'RSA') return jwkThumbprint(jwk);
  for (const member of PRIVATE_JWK_MEMBERS) {
    if (member in jwk) throw new CountersignError('ERR_KEY_INVALID', `key.${member}: expected no private key material (never accepted where a public key is expected), got some`);
  }
  const n = jwk['n'];
  const e = jwk['e'];
  if (typeof n !== 'string' || !B64U_PATTERN.test(n)) throw new CountersignError('ERR_KEY_INVALID', 'key.n: expected a base64url string');
  if (typeof e !== 'string' || !B64U_PATTERN.test(e)) throw new CountersignError('ERR_KEY_INVALID', 'key.e: expected a base64url string');
  // RFC 7638 section 3.2: an RSA key's required members are e, kty and n, in that order.
  return thumbprintOfInput(`{"e":"${e}","kty":"RSA","n":"${n}"}`);
}

export interface SigningKeyPair {
  alg: DecisionAlg;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  publicJwk: PublicJwk;
  /** RFC 7638 thumbprint of `publicJwk`: the `kid` to sign with. */
  thumbprint: string;
}

const PROBE = new TextEncoder().encode('countersign key probe');

async function tryEd25519(s: SubtleCrypto, extractable: boolean): Promise<CryptoKeyPair | undefined> {
  try {
    const pair = (await s.generateKey({ name: 'Ed25519' }, extractable, ['sign', 'verify']));
    // Some engines shipped Ed25519 key generation before signing worked; prove a round trip.
    const signature = await s.sign({ name: 'Ed25519' }, pair.privateKey, PROBE);
    if (!(await s.verify({ name: 'Ed25519' }, pair.publicKey, signature, PROBE))) return undefined;
    return pair;
  } catch {
    return undefined;
  }
}

/**
 * Generate a signing key pair with WebCrypto: Ed25519, with ES256 (P-256) only as a fallback; the
 * extension's key is non-extractable, the agent's is not (src/agent/keys.ts). Ed25519 is
 * feature-detected by generating and using a key; an engine without it gets ECDSA P-256.
 * `extractable` applies to the private key (the public key of a WebCrypto pair is always
 * extractable). `subtle` is injectable for tests only.
 */
export async function generateSigningKeyPair(options: { extractable: boolean; subtle?: SubtleCrypto }): Promise<SigningKeyPair> {
  const s = options.subtle ?? subtle();
  let alg: DecisionAlg = 'EdDSA';
  let pair = await tryEd25519(s, options.extractable);
  try {
    if (pair === undefined) {
      alg = 'ES256';
      pair = (await s.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, options.extractable, ['sign', 'verify']));
    }
    const publicJwk = parsePublicJwk(await s.exportKey('jwk', pair.publicKey), 'publicKey');
    return { alg, privateKey: pair.privateKey, publicKey: pair.publicKey, publicJwk, thumbprint: await publicJwkThumbprint(publicJwk) };
  } catch (cause) {
    if (isCountersignError(cause)) throw cause;
    throw new CountersignError('ERR_KEY_INVALID', 'could not generate an Ed25519 or ECDSA P-256 signing key', { cause });
  }
}

