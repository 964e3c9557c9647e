import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { agentToExtensionMessage, bridgePublicJwkSchema, jwkThumbprint, parseBridgeMessage } from '../../src/protocol/bridge';
import { generateSigningKeyPair, publicJwkSchema as decisionPublicJwkSchema, publicJwkThumbprint } from '../../src/protocol/decision';
import { isCountersignError } from '../../src/protocol/errors';
import { ED25519_JWK_ALGS, parsePublicJwk, publicJwkSchema } from '../../src/protocol/jwk';

/**
 * One public-JWK rule (src/protocol/jwk.ts) for the keys the bridge carries and the key a decision
 * is pinned to. `alg` is optional; on an Ed25519 key it may be "EdDSA" (RFC 8037 section 3.1) or the
 * fully specified "Ed25519" (RFC 9864), which WebCrypto's exportKey writes; on a P-256 key only
 * "ES256". Anything else is refused everywhere alike.
 */

const rfc8037 = JSON.parse(readFileSync(new URL('../fixtures/jose/rfc8037-ed25519.json', import.meta.url), 'utf8')) as {
  public_jwk: { kty: 'OKP'; crv: 'Ed25519'; x: string };
  thumbprint_b64u: string;
};
const ed = { kty: rfc8037.public_jwk.kty, crv: rfc8037.public_jwk.crv, x: rfc8037.public_jwk.x };
const p256 = { kty: 'EC', crv: 'P-256', x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU', y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0' };

function hello(agentKey: unknown): unknown {
  return { type: 'hello', v: 2, id: 'h1', versions: [2], agent_name: 'Desk agent', agent_key: agentKey };
}

/** Whether the bridge (a `hello`), the decision verifier and the thumbprint all take `jwk`. */
async function acceptedEverywhere(jwk: unknown): Promise<boolean[]> {
  const viaBridge = parseBridgeMessage(agentToExtensionMessage, hello(jwk)).ok;
  const viaDecision = decisionPublicJwkSchema.safeParse(jwk).success;
  const viaThumbprint = await publicJwkThumbprint(jwk).then(
    () => true,
    (error: unknown) => (isCountersignError(error) && error.code === 'ERR_KEY_INVALID' ? false : Promise.reject(error)),
  );
  return [viaBridge, viaDecision, viaThumbprint];
}

describe('public JWKs: one rule for the bridge and for decisions', () => {
  it('the bridge and decision.ts use the same schema object', () => {
    expect(bridgePublicJwkSchema).toBe(publicJwkSchema);
    expect(decisionPublicJwkSchema).toBe(publicJwkSchema);
  });

  it.each([
    ['no alg', undefined],
    ['alg "EdDSA" (RFC 8037)', 'EdDSA'],
    ['alg "Ed25519" (RFC 9864, what WebCrypto exports)', 'Ed25519'],
  ])('an Ed25519 key with %s is accepted everywhere, as the same key', async (_title, alg) => {
    const jwk = alg === undefined ? ed : { ...ed, alg };
    expect(await acceptedEverywhere(jwk)).toEqual([true, true, true]);
    expect(parsePublicJwk(jwk)).toEqual(ed);
    expect(await jwkThumbprint(jwk)).toBe(rfc8037.thumbprint_b64u);
    expect(await publicJwkThumbprint(jwk)).toBe(rfc8037.thumbprint_b64u);
  });

  it('the Ed25519 alg list is exactly "EdDSA" and "Ed25519"', () => {
    expect([...ED25519_JWK_ALGS]).toEqual(['EdDSA', 'Ed25519']);
  });

  it.each([
    ['an Ed25519 key with alg "ES256"', { ...ed, alg: 'ES256' }],
    ['an Ed25519 key with alg "none"', { ...ed, alg: 'none' }],
    ['an Ed25519 key with alg "eddsa" (case matters)', { ...ed, alg: 'eddsa' }],
    ['a P-256 key with alg "EdDSA"', { ...p256, alg: 'EdDSA' }],
    ['a P-256 key with alg "Ed25519"', { ...p256, alg: 'Ed25519' }],
  ])('%s is refused everywhere, naming alg', async (_title, jwk) => {
    expect(await acceptedEverywhere(jwk)).toEqual([false, false, false]);
    expect(() => parsePublicJwk(jwk)).toThrow(/key\.alg/);
  });

  it('a P-256 key with no alg or "ES256" is accepted everywhere', async () => {
    expect(await acceptedEverywhere(p256)).toEqual([true, true, true]);
    expect(await acceptedEverywhere({ ...p256, alg: 'ES256' })).toEqual([true, true, true]);
  });

  it('what our own code emits is accepted: a WebCrypto export, and generateSigningKeyPair\'s publicJwk', async () => {
    const pair = await crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify']);
    const exported = await crypto.subtle.exportKey('jwk', pair.publicKey);
    expect(await acceptedEverywhere(exported)).toEqual([true, true, true]);
    const generated = await generateSigningKeyPair({ extractable: false });
    expect(await acceptedEverywhere(generated.publicJwk)).toEqual([true, true, true]);
  });
});
