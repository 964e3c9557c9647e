import * as z from 'zod';
import { base64urlEncode } from './base64url';
import { base64url32Schema } from './text-schemas';
import { parseWith } from './parse-with';
import { sha256 } from './webcrypto';

/**
 * Public keys as JWKs (RFC 7517): the agent keys and the extension key that cross the bridge
 * (docs/bridge-protocol.md, section 2 "Conventions", Keys) and the key a decision is verified with
 * (decision.ts). One schema for both, so a key the bridge carries is a key a decision can be
 * pinned to, and the other way round.
 *
 * No jose here: the bridge bundle stays free of it. decision.ts adds the jose-based helpers.
 */

/** Members that make a JWK private or symmetric (RFC 7518 section 6). None may be pinned or sent. */
export const PRIVATE_JWK_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;

/**
 * A public key that carries a private member is refused, not cleaned: an agent that leaks its
 * private key in `hello` must fail loudly, and the relay must not carry the secret further.
 */
const noPrivateMember = z.undefined({ error: 'expected no private key material (never accepted where a public key is expected)' }).optional();
const noPrivateMembers = {
  d: noPrivateMember,
  p: noPrivateMember,
  q: noPrivateMember,
  dp: noPrivateMember,
  dq: noPrivateMember,
  qi: noPrivateMember,
  oth: noPrivateMember,
  k: noPrivateMember,
} satisfies Record<(typeof PRIVATE_JWK_MEMBERS)[number], z.ZodType>;

/**
 * The `alg` values an Ed25519 public JWK may carry. RFC 8037 section 3.1 names it "EdDSA";
 * RFC 9864 adds the fully specified "Ed25519", which is what WebCrypto's `exportKey('jwk')` writes
 * (Node 20 and the browsers): `generateSigningKeyPair` (decision.ts) parses its own export with
 * this schema, so refusing "Ed25519" would refuse our own keys.
 */
export const ED25519_JWK_ALGS = ['EdDSA', 'Ed25519'] as const;
/** The one `alg` of a P-256 public JWK (RFC 7518 section 3.1). */
export const P256_JWK_ALG = 'ES256';

/**
 * A public key of an agent or of the extension: Ed25519 (RFC 8037), or ECDSA P-256 as the fallback
 * (RFC 7518 section 6.2). Metadata members (`kid`, `use`, `key_ops`, `ext`) are dropped. `alg` is
 * optional; when present it must name the key type's algorithm, so a JWK cannot ask for a different
 * algorithm than its key (alg confusion). The JWS algorithm is always derived from the key type
 * (decision.ts `algForKey`), never from this member.
 * Output: exactly `{ kty, crv, x }` or `{ kty, crv, x, y }` (the RFC 7638 members).
 */
export const publicJwkSchema = z
  .discriminatedUnion(
    'kty',
    [
      z.object({
        kty: z.literal('OKP'),
        crv: z.literal('Ed25519', { error: 'expected "Ed25519"' }),
        x: base64url32Schema,
        alg: z.enum(ED25519_JWK_ALGS, { error: 'expected "EdDSA" or "Ed25519" for an Ed25519 key, or no alg' }).optional(),
        ...noPrivateMembers,
      }),
      z.object({
        kty: z.literal('EC'),
        crv: z.literal('P-256', { error: 'expected "P-256"' }),
        x: base64url32Schema,
        y: base64url32Schema,
        alg: z.literal(P256_JWK_ALG, { error: 'expected "ES256" for a P-256 key, or no alg' }).optional(),
        ...noPrivateMembers,
      }),
    ],
    { error: 'expected an Ed25519 ("OKP") or P-256 ("EC") public key' },
  )
  .transform((jwk): PublicJwk => (jwk.kty === 'OKP' ? { kty: 'OKP', crv: 'Ed25519', x: jwk.x } : { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y }));

export type PublicJwk = { kty: 'OKP'; crv: 'Ed25519'; x: string } | { kty: 'EC'; crv: 'P-256'; x: string; y: string };

/** Parse a public JWK, or throw ERR_KEY_INVALID naming the member. */
export function parsePublicJwk(value: unknown, root = 'key'): PublicJwk {
  return parseWith(publicJwkSchema, value, 'ERR_KEY_INVALID', root);
}

/** RFC 7638 section 3.2: the required members only, sorted, no whitespace. */
export function thumbprintInput(jwk: unknown): string {
  const key = parsePublicJwk(jwk);
  return key.kty === 'OKP'
    ? `{"crv":"Ed25519","kty":"OKP","x":"${key.x}"}`
    : `{"crv":"P-256","kty":"EC","x":"${key.x}","y":"${key.y}"}`;
}

/** The RFC 7638 JWK thumbprint (SHA-256, base64url) of an Ed25519 or P-256 public key. */
export async function jwkThumbprint(jwk: unknown): Promise<string> {
  return thumbprintOfInput(thumbprintInput(jwk));
}

/**
 * RFC 7638 section 3.1: the SHA-256 of a thumbprint input (section 3.2's JSON of the required
 * members), base64url. The one place a thumbprint is hashed, for every key type.
 */
export async function thumbprintOfInput(input: string): Promise<string> {
  return base64urlEncode(await sha256(new TextEncoder().encode(input)));
}
