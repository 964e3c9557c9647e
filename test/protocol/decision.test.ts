import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { CompactSign, base64url, compactVerify, importJWK, type JWK } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/protocol/canonical-json';
import {
  DECISION_IAT_SKEW_SECONDS,
  DECISION_TYP,
  decisionClaimsSchema,
  digestSummary,
  digestTerms,
  generateSigningKeyPair,
  publicJwkSchema,
  publicJwkThumbprint,
  signCompactJws,
  signDecision,
  verifyCompactJws,
  verifyDecision,
  type DecisionClaims,
  type ExpectedOperation,
  type SigningKeyPair,
  type VerifyDecisionOptions,
} from '../../src/protocol/decision';
import { CountersignError, isCountersignError, type ErrorCode } from '../../src/protocol/errors';

// ------------------------------------------------------------------------------------------------
// Fixtures: JOSE known-answer vectors from RFC 7515, 8037 and 7638 (sources: test/fixtures/jose/README.md).

function fixture<T>(name: string): T {
  return JSON.parse(readFileSync(new URL(`../fixtures/jose/${name}`, import.meta.url), 'utf8')) as T;
}

interface Rfc7515Vector {
  id: string;
  alg: string;
  protected_header_octets: string;
  protected_b64u: string;
  payload_octets: string;
  payload_b64u: string;
  jwk?: JWK;
  signature_b64u: string;
  compact: string;
}
const rfc7515 = fixture<{ vectors: Rfc7515Vector[] }>('rfc7515-appendix-a.json');
const rfc8037 = fixture<{
  private_jwk: JWK;
  public_jwk: JWK;
  thumbprint_input: string;
  thumbprint_sha256_hex: string;
  thumbprint_b64u: string;
  jws: { protected_header_octets: string; protected_b64u: string; payload_octets: string; payload_b64u: string; signature_b64u: string; compact: string };
}>('rfc8037-ed25519.json');
const rfc7638 = fixture<{ jwk: JWK; thumbprint_input: string; thumbprint_b64u: string }>('rfc7638-thumbprint.json');

function vector(id: string): Rfc7515Vector {
  const found = rfc7515.vectors.find((v) => v.id === id);
  if (found === undefined) throw new Error(`fixture ${id} missing`);
  return found;
}

const utf8 = (s: string): Uint8Array<ArrayBuffer> => new TextEncoder().encode(s);
const text = (b: Uint8Array): string => new TextDecoder().decode(b);

/** Resolve to the CountersignError `promise` rejects with, failing the test on anything else. */
async function rejection(promise: Promise<unknown>): Promise<CountersignError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof CountersignError) return error;
    throw new Error(`expected a CountersignError, got ${String(error)}`, { cause: error });
  }
  throw new Error('expected a rejection, but the promise resolved');
}

async function expectError(promise: Promise<unknown>, code: ErrorCode, field: string | RegExp): Promise<CountersignError> {
  const error = await rejection(promise);
  expect(error.code).toBe(code);
  if (typeof field === 'string') expect(error.message).toContain(field);
  else expect(error.message).toMatch(field);
  return error;
}

// ------------------------------------------------------------------------------------------------
// The seed's operation (spec section 3) and a decision about it.

const operation = {
  operation_id: 'exc_5Rt2',
  revision: '1791487200-k3Jd9Qx2mW8v',
  summary:
    'Exchange the Stormline Jacket (M) on order ord_7Hk2 for the Stormline Insulated Jacket (M), for $70.00 more, charged to the card used for the order.',
  terms: {
    order_id: 'ord_7Hk2',
    item_id: 'itm_4Qa',
    replacement_sku: 'stormline-insulated-m',
    price_difference: { amount: '70.00', currency: 'USD' },
  },
  expires_at: '2026-10-08T12:20:00-07:00',
} satisfies ExpectedOperation;

const company = { name: 'Stormline Outfitters', origin: 'https://shop.example' };
/** 40 minutes before the seed's expiry (19:20Z). */
const NOW = new Date('2026-10-08T18:40:00Z');
const NOW_S = Math.floor(NOW.getTime() / 1000);
/** An approval request's nonce: 32 bytes, canonical base64url (bridge.ts nonceSchema). */
const NONCE = base64url.encode(new Uint8Array(32).fill(7));

let extension: SigningKeyPair;
let extensionEs256: SigningKeyPair;
let agent: SigningKeyPair;
let attacker: SigningKeyPair;

beforeAll(async () => {
  // The extension's key is non-extractable (docs/bridge-protocol.md, section 10 "The signed decision"): only it can sign.
  extension = await generateSigningKeyPair({ extractable: false });
  extensionEs256 = await generateSigningKeyPair({ extractable: false, subtle: withoutEd25519(crypto.subtle) });
  agent = await generateSigningKeyPair({ extractable: false });
  attacker = await generateSigningKeyPair({ extractable: false });
});

async function claimsFor(op: ExpectedOperation = operation, overrides: Partial<DecisionClaims> = {}): Promise<DecisionClaims> {
  return {
    v: 1,
    status: 'approved',
    operation_id: op.operation_id,
    revision: op.revision,
    summary_sha256: await digestSummary(op.summary),
    terms_sha256: await digestTerms(op.terms),
    company: { ...company },
    aud: agent.thumbprint,
    nonce: NONCE,
    iat: NOW_S - 5,
    expires_at: op.expires_at,
    ...overrides,
  };
}

function options(overrides: Partial<VerifyDecisionOptions['expected']> = {}, key: SigningKeyPair = extension): VerifyDecisionOptions {
  return {
    pinnedKey: key.publicJwk,
    expected: { operation, company, audience: agent.thumbprint, nonce: NONCE, ...overrides },
    now: NOW,
  };
}

async function signed(overrides: Partial<DecisionClaims> = {}, key: SigningKeyPair = extension): Promise<string> {
  return signDecision(await claimsFor(operation, overrides), key.privateKey, key.alg, key.thumbprint);
}

/**
 * A compact JWS with any header and payload, signed by `key` outside our wrapper: how an attacker
 * would build one. Ed25519 keys sign the JWS signing input (RFC 7515 section 5.1) with WebCrypto
 * directly, because jose's signer itself refuses headers such as `crit` or `b64`; HMAC goes
 * through jose.
 */
async function forge(header: Record<string, unknown>, payload: unknown, key: CryptoKey | Uint8Array): Promise<string> {
  const bytes = typeof payload === 'string' ? utf8(payload) : utf8(JSON.stringify(payload));
  if (key instanceof Uint8Array) return new CompactSign(bytes).setProtectedHeader(header as { alg: string }).sign(key);
  const input = `${base64url.encode(JSON.stringify(header))}.${base64url.encode(bytes)}`;
  const signature = new Uint8Array(await crypto.subtle.sign({ name: 'Ed25519' }, key, utf8(input)));
  return `${input}.${base64url.encode(signature)}`;
}

/** A SubtleCrypto whose engine "lacks" Ed25519, as older Chromium and Firefox did. */
function withoutEd25519(real: SubtleCrypto): SubtleCrypto {
  const isEd = (algorithm: unknown): boolean =>
    algorithm === 'Ed25519' || (typeof algorithm === 'object' && algorithm !== null && (algorithm as { name?: unknown }).name === 'Ed25519');
  return {
    generateKey: (algorithm: unknown, extractable: boolean, usages: KeyUsage[]) => {
      if (isEd(algorithm)) return Promise.reject(new DOMException('Unrecognized algorithm name', 'NotSupportedError'));
      return real.generateKey(algorithm as EcKeyGenParams, extractable, usages);
    },
    sign: real.sign.bind(real),
    verify: real.verify.bind(real),
    exportKey: real.exportKey.bind(real),
  } as unknown as SubtleCrypto;
}

// ------------------------------------------------------------------------------------------------

describe('JOSE known answers (test/fixtures/jose, provenance in its README)', () => {
  it('RFC 8037 A.4: Ed25519 JWS re-signed byte for byte with a non-extractable key', async () => {
    const { d, x, kty, crv } = rfc8037.private_jwk;
    const key = await crypto.subtle.importKey('jwk', { kty, crv, d, x }, { name: 'Ed25519' }, false, ['sign']);
    expect(key.extractable).toBe(false);
    expect(base64url.encode(rfc8037.jws.protected_header_octets)).toBe(rfc8037.jws.protected_b64u);
    const jws = await signCompactJws({ alg: 'EdDSA' }, utf8(rfc8037.jws.payload_octets), key);
    expect(jws).toBe(rfc8037.jws.compact);
  });

  it('RFC 8037 A.5: the Ed25519 JWS verifies against the pinned public key', async () => {
    const pinned = publicJwkSchema.parse(rfc8037.public_jwk);
    const { header, payload } = await verifyCompactJws(rfc8037.jws.compact, pinned);
    expect(header).toEqual({ alg: 'EdDSA' });
    expect(text(payload)).toBe(rfc8037.jws.payload_octets);
  });

  it('RFC 8037 A.3: Ed25519 thumbprint recomputed', async () => {
    expect(await publicJwkThumbprint(rfc8037.public_jwk)).toBe(rfc8037.thumbprint_b64u);
    expect(Buffer.from(rfc8037.thumbprint_b64u, 'base64url').toString('hex')).toBe(rfc8037.thumbprint_sha256_hex);
    expect(canonicalJson(publicJwkSchema.parse(rfc8037.public_jwk))).toBe(rfc8037.thumbprint_input);
  });

  it('RFC 7638 3.1: RSA thumbprint recomputed (kid and alg members ignored)', async () => {
    expect(await publicJwkThumbprint(rfc7638.jwk)).toBe(rfc7638.thumbprint_b64u);
    const { e, kty, n } = rfc7638.jwk;
    expect(canonicalJson({ e, kty, n })).toBe(rfc7638.thumbprint_input);
  });

  it('RFC 7515 A.2: RS256 re-signed byte for byte and verified (the library our wrapper stands on)', async () => {
    const v = vector('rfc7515-A.2');
    if (v.jwk === undefined) throw new Error('fixture has no key');
    const privateKey = await importJWK(v.jwk, 'RS256', { extractable: false });
    const resigned = await new CompactSign(utf8(v.payload_octets)).setProtectedHeader({ alg: 'RS256' }).sign(privateKey);
    expect(resigned).toBe(v.compact);
    const { n, e } = v.jwk;
    const { payload } = await compactVerify(v.compact, await importJWK({ kty: 'RSA', n, e }, 'RS256'), { algorithms: ['RS256'] });
    // The RFC's payload has CRLFs: verification is over the base64url given, never a re-serialisation.
    expect(text(payload)).toBe(v.payload_octets);
  });

  it('RFC 7515 A.2: an RSA key cannot be pinned, and an RS256 JWS is refused for an Ed25519 pin', async () => {
    const v = vector('rfc7515-A.2');
    const { n, e } = v.jwk ?? {};
    await expectError(verifyDecision(v.compact, { ...options(), pinnedKey: { kty: 'RSA', n, e } }), 'ERR_KEY_INVALID', 'pinnedKey');
    await expectError(verifyDecision(v.compact, options()), 'ERR_DECISION_INVALID', 'header.alg');
  });

  it('RFC 7515 A.3: ES256 verified only (ECDSA is randomised), through the pinned-key verifier', async () => {
    const v = vector('rfc7515-A.3');
    const { kty, crv, x, y } = v.jwk ?? {};
    const pinned = publicJwkSchema.parse({ kty, crv, x, y });
    const { header, payload } = await verifyCompactJws(v.compact, pinned);
    expect(header).toEqual({ alg: 'ES256' });
    expect(text(payload)).toBe(v.payload_octets);
  });

  it('RFC 7515 A.3: the key with its private member d is refused as a pin', async () => {
    const v = vector('rfc7515-A.3');
    await expectError(verifyDecision(v.compact, { ...options(), pinnedKey: v.jwk }), 'ERR_KEY_INVALID', 'pinnedKey.d');
  });

  it('RFC 7515 A.5: an unsecured JWS (alg "none") is rejected by verifyDecision', async () => {
    const v = vector('rfc7515-A.5');
    await expectError(verifyDecision(v.compact, options()), 'ERR_DECISION_INVALID', 'header.alg: "none"');
    const pinned = publicJwkSchema.parse(rfc8037.public_jwk);
    await expectError(verifyCompactJws(v.compact, pinned), 'ERR_DECISION_INVALID', '"none"');
  });

  it('RFC 7515 A.1 (HS256) and A.4 (ES512) are refused: only the pinned key type\'s algorithm', async () => {
    const pinned = publicJwkSchema.parse(rfc8037.public_jwk);
    for (const id of ['rfc7515-A.1', 'rfc7515-A.4']) {
      await expectError(verifyCompactJws(vector(id).compact, pinned), 'ERR_DECISION_INVALID', 'header.alg');
    }
  });
});

describe('digests (docs/bridge-protocol.md: SHA-256 of the exact summary and of the RFC 8785 canonical terms)', () => {
  it('digestSummary is base64url SHA-256 of the UTF-8 bytes (FIPS 180-2 "abc")', async () => {
    expect(await digestSummary('abc')).toBe('ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0');
    const summary = 'Échange **veste** — 70,00 $\r\n';
    expect(await digestSummary(summary)).toBe(createHash('sha256').update(summary, 'utf8').digest('base64url'));
  });

  it('digestSummary does not normalise: NFC and NFD spellings differ', async () => {
    expect(await digestSummary('caf\u00e9')).not.toBe(await digestSummary('cafe\u0301'));
  });

  it('digestSummary refuses an unpaired surrogate (it would hash like U+FFFD)', async () => {
    await expectError(digestSummary('pay \ud800 now'), 'ERR_ARGUMENT_INVALID', 'summary');
  });

  it('digestTerms hashes the canonical JSON; no terms is null', async () => {
    const expected = createHash('sha256').update(canonicalJson(operation.terms), 'utf8').digest('base64url');
    expect(await digestTerms(operation.terms)).toBe(expected);
    expect(await digestTerms(undefined)).toBeNull();
    await expectError(digestTerms([] as unknown as Record<string, unknown>), 'ERR_ARGUMENT_INVALID', 'terms');
    await expectError(digestTerms({ amount: Number.NaN }), 'ERR_ARGUMENT_INVALID', 'canonicalJson');
  });
});

describe('public keys and key generation (docs/bridge-protocol.md, "Pairing and keys")', () => {
  it('publicJwkSchema keeps only kty, crv, x (and y), dropping metadata', () => {
    expect(publicJwkSchema.parse({ ...rfc8037.public_jwk, kid: 'k', use: 'sig', key_ops: ['verify'], ext: true, alg: 'EdDSA' })).toEqual(
      rfc8037.public_jwk,
    );
  });

  it.each([
    ['a private Ed25519 key (d)', () => rfc8037.private_jwk, 'key.d'],
    ['a private P-256 key (d)', () => vector('rfc7515-A.3').jwk, 'key.d'],
    ['an RSA key', () => vector('rfc7515-A.2').jwk, 'key'],
    ['a symmetric key', () => ({ kty: 'oct', k: 'AyM1Sy' }), 'key'],
    ['X25519', () => ({ ...rfc8037.public_jwk, crv: 'X25519' }), 'key.crv'],
    ['P-384', () => ({ kty: 'EC', crv: 'P-384', x: 'a', y: 'b' }), 'key.crv'],
    ['a short x', () => ({ ...rfc8037.public_jwk, x: 'AAAA' }), 'key.x'],
    ['a non-canonical x (unused bits set)', () => ({ ...rfc8037.public_jwk, x: `${(rfc8037.public_jwk.x ?? '').slice(0, 42)}p` }), 'key.x'],
    ['an alg that is not the key type\'s', () => ({ ...rfc8037.public_jwk, alg: 'ES256' }), 'key.alg'],
  ])('publicJwkThumbprint and the pin refuse %s', async (_title, make, field) => {
    await expectError(publicJwkThumbprint(make()), 'ERR_KEY_INVALID', field);
  });

  it('generateSigningKeyPair prefers Ed25519 and honours extractable: false', async () => {
    const pair = await generateSigningKeyPair({ extractable: false });
    expect(pair.alg).toBe('EdDSA');
    expect(pair.privateKey.extractable).toBe(false);
    await expect(crypto.subtle.exportKey('jwk', pair.privateKey)).rejects.toThrow();
    expect(Object.keys(pair.publicJwk).sort()).toEqual(['crv', 'kty', 'x']);
    expect(pair.thumbprint).toBe(await publicJwkThumbprint(pair.publicJwk));
  });

  it('generateSigningKeyPair falls back to ES256 when the engine lacks Ed25519', async () => {
    const pair = await generateSigningKeyPair({ extractable: false, subtle: withoutEd25519(crypto.subtle) });
    expect(pair.alg).toBe('ES256');
    expect(pair.publicJwk).toMatchObject({ kty: 'EC', crv: 'P-256' });
    expect(pair.privateKey.algorithm).toMatchObject({ name: 'ECDSA', namedCurve: 'P-256' });
    expect(pair.privateKey.extractable).toBe(false);
  });
});

describe('signDecision: the exact format', () => {
  it('header is {alg, typ, kid} in that order; payload members in the documented order', async () => {
    const claims = await claimsFor(operation, { jti: 'dec_1' });
    const jws = await signDecision(claims, extension.privateKey, 'EdDSA', extension.thumbprint);
    const [h, p] = jws.split('.') as [string, string, string];
    expect(text(base64url.decode(h))).toBe(`{"alg":"EdDSA","typ":"${DECISION_TYP}","kid":"${extension.thumbprint}"}`);
    expect(Object.keys(JSON.parse(text(base64url.decode(p))) as object)).toEqual([
      'v', 'status', 'operation_id', 'revision', 'summary_sha256', 'terms_sha256', 'company', 'aud', 'nonce', 'iat', 'expires_at', 'jti',
    ]);
  });

  it('Ed25519 decisions are deterministic: same claims, same bytes', async () => {
    const claims = await claimsFor();
    const a = await signDecision(claims, extension.privateKey, 'EdDSA', extension.thumbprint);
    const b = await signDecision({ ...claims, company: { origin: company.origin, name: company.name } }, extension.privateKey, 'EdDSA', extension.thumbprint);
    expect(a).toBe(b);
  });

  it('refuses a key of the wrong type for alg, or a public key', async () => {
    const claims = await claimsFor();
    await expectError(signDecision(claims, extension.privateKey, 'ES256', extension.thumbprint), 'ERR_KEY_INVALID', 'privateKey');
    await expectError(signDecision(claims, extension.publicKey, 'EdDSA', extension.thumbprint), 'ERR_KEY_INVALID', 'privateKey');
    await expectError(signDecision(claims, extension.privateKey, 'HS256' as 'EdDSA', extension.thumbprint), 'ERR_KEY_INVALID', 'alg');
    await expectError(signDecision(claims, extension.privateKey, 'EdDSA', 'not-a-thumbprint'), 'ERR_KEY_INVALID', 'kid');
  });

  it.each([
    ['operation_id', { operation_id: 'has space' }],
    ['summary_sha256', { summary_sha256: 'abc' }],
    ['company.origin', { company: { name: 'Shop', origin: 'https://shop.example/path' } }],
    ['company.name', { company: { name: 'Shop \ud800', origin: 'https://shop.example' } }],
    ['nonce', { nonce: 'short' }],
    ['iat', { iat: 1.5 }],
    ['expires_at', { expires_at: '2026-10-08 12:20:00' }],
  ])('refuses claims that fail the schema, naming %s', async (field, overrides) => {
    const claims = { ...(await claimsFor()), ...overrides } as DecisionClaims;
    await expectError(signDecision(claims, extension.privateKey, 'EdDSA', extension.thumbprint), 'ERR_DECISION_INVALID', `decision.${field}`);
  });

  it('refuses an unknown claim (strict schema)', async () => {
    const claims = { ...(await claimsFor()), admin: true } as DecisionClaims;
    await expectError(signDecision(claims, extension.privateKey, 'EdDSA', extension.thumbprint), 'ERR_DECISION_INVALID', 'admin');
  });

  it('spec 3 "Expiry": refuses to sign a decision taken after expires_at', async () => {
    const claims = await claimsFor(operation, { iat: Date.parse('2026-10-08T19:20:01Z') / 1000 });
    await expectError(signDecision(claims, extension.privateKey, 'EdDSA', extension.thumbprint), 'ERR_DECISION_EXPIRED', 'decision.iat');
  });
});

describe('verifyDecision: round trips', () => {
  it('an Ed25519 decision from a fresh non-extractable key verifies and returns its claims', async () => {
    const claims = await claimsFor();
    const jws = await signDecision(claims, extension.privateKey, extension.alg, extension.thumbprint);
    expect(await verifyDecision(jws, options())).toEqual(claims);
    expect(decisionClaimsSchema.parse(claims)).toEqual(claims);
  });

  it('an ES256 decision (engine without Ed25519) verifies against its P-256 pin', async () => {
    expect(extensionEs256.alg).toBe('ES256');
    const claims = await claimsFor();
    const jws = await signDecision(claims, extensionEs256.privateKey, 'ES256', extensionEs256.thumbprint);
    expect(await verifyDecision(jws, options({}, extensionEs256))).toEqual(claims);
  });

  it('spec 3: an operation without terms signs terms_sha256 null and verifies', async () => {
    const { terms: _terms, ...bare } = operation;
    const claims = await claimsFor(bare);
    expect(claims.terms_sha256).toBeNull();
    const jws = await signDecision(claims, extension.privateKey, 'EdDSA', extension.thumbprint);
    expect((await verifyDecision(jws, options({ operation: bare }))).terms_sha256).toBeNull();
    // The agent asked about terms the window did not show: that is not the same operation.
    await expectError(verifyDecision(jws, options()), 'ERR_DECISION_MISMATCH', 'decision.terms_sha256');
  });

  it('a signed decline verifies (and says declined): the caller branches on status', async () => {
    const jws = await signed({ status: 'declined' });
    expect((await verifyDecision(jws, options())).status).toBe('declined');
  });

  it('RFC 8785: terms with their keys in another order still verify', async () => {
    const jws = await signed();
    const reordered = {
      price_difference: { currency: 'USD', amount: '70.00' },
      replacement_sku: 'stormline-insulated-m',
      item_id: 'itm_4Qa',
      order_id: 'ord_7Hk2',
    };
    expect(JSON.stringify(reordered)).not.toBe(JSON.stringify(operation.terms));
    await expect(verifyDecision(jws, options({ operation: { ...operation, terms: reordered } }))).resolves.toMatchObject({ status: 'approved' });
  });

  it('expires_at boundary: verifying at exactly expires_at is accepted (section 3: "the last time")', async () => {
    const jws = await signed();
    await expect(verifyDecision(jws, { ...options(), now: new Date('2026-10-08T19:20:00Z') })).resolves.toBeDefined();
  });

  it('iat within the allowed clock skew is accepted', async () => {
    const jws = await signed({ iat: NOW_S + DECISION_IAT_SKEW_SECONDS });
    await expect(verifyDecision(jws, options())).resolves.toBeDefined();
  });
});

describe('verifyDecision: every claim must equal what the agent asked about (docs/agent-sdk.md: "any mismatch is an error")', () => {
  const cases: [string, string, () => Partial<VerifyDecisionOptions['expected']>][] = [
    ['spec 3 operation_id', 'decision.operation_id', () => ({ operation: { ...operation, operation_id: 'exc_5Rt3' } })],
    ['spec 5 "an approval covers one revision": revision', 'decision.revision', () => ({ operation: { ...operation, revision: '1791487200-k3Jd9Qx2mW8w' } })],
    ['spec 5 summary changed by one character', 'decision.summary_sha256', () => ({ operation: { ...operation, summary: operation.summary.replace('$70.00', '$70.01') } })],
    ['spec 5 terms changed', 'decision.terms_sha256', () => ({ operation: { ...operation, terms: { ...operation.terms, price_difference: { amount: '700.00', currency: 'USD' } } } })],
    ['spec 5 Company name', 'decision.company.name', () => ({ company: { ...company, name: 'Stormline Outfitter' } })],
    ['spec 5 Company origin', 'decision.company.origin', () => ({ company: { ...company, origin: 'https://shop.example.evil' } })],
    ['aud (another agent\'s key)', 'decision.aud', () => ({ audience: attacker.thumbprint })],
    ['request nonce', 'decision.nonce', () => ({ nonce: 'another-nonce-0123456789' })],
    ['spec 3 expires_at', 'decision.expires_at', () => ({ operation: { ...operation, expires_at: '2026-10-08T12:30:00-07:00' } })],
    ['spec 3 expires_at, same instant spelled differently', 'decision.expires_at', () => ({ operation: { ...operation, expires_at: '2026-10-08T19:20:00Z' } })],
  ];

  it.each(cases)('%s differs → ERR_DECISION_MISMATCH', async (_title, field, expected) => {
    const jws = await signed();
    await expectError(verifyDecision(jws, options(expected())), 'ERR_DECISION_MISMATCH', field);
  });

  const payloadEdits: [string, (c: Record<string, unknown>) => void][] = [
    ['operation_id', (c) => (c['operation_id'] = 'exc_5Rt3')],
    ['revision', (c) => (c['revision'] = 'other-revision')],
    ['summary_sha256', (c) => (c['summary_sha256'] = 'ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0')],
    ['terms_sha256', (c) => (c['terms_sha256'] = null)],
    ['company.name', (c) => (c['company'] = { ...company, name: 'Other' })],
    ['company.origin', (c) => (c['company'] = { ...company, origin: 'https://evil.example' })],
    ['aud', (c) => (c['aud'] = attacker.thumbprint)],
    ['nonce', (c) => (c['nonce'] = 'another-nonce-0123456789')],
    ['expires_at', (c) => (c['expires_at'] = '2027-10-08T12:20:00-07:00')],
    ['status', (c) => (c['status'] = 'approved')],
  ];

  it.each(payloadEdits)('%s edited in a signed payload, signature kept → ERR_DECISION_INVALID (signature)', async (_field, edit) => {
    const jws = await signed({ status: 'declined' });
    const [h, p, s] = jws.split('.') as [string, string, string];
    const claims = JSON.parse(text(base64url.decode(p))) as Record<string, unknown>;
    edit(claims);
    const tampered = `${h}.${base64url.encode(JSON.stringify(claims))}.${s}`;
    await expectError(verifyDecision(tampered, options()), 'ERR_DECISION_INVALID', 'signature');
  });
});

describe('verifyDecision: only the pinned key, only its algorithm (RFC 8725 3.1, 3.2)', () => {
  it('"a wrong key": a decision signed by a different key (kid claiming the pinned one) is rejected', async () => {
    const jws = await signDecision(await claimsFor(), attacker.privateKey, 'EdDSA', extension.thumbprint);
    await expectError(verifyDecision(jws, options()), 'ERR_DECISION_INVALID', 'signature');
  });

  it('a header jwk pointing at the attacker key is refused, never used', async () => {
    const header = { alg: 'EdDSA', typ: DECISION_TYP, kid: attacker.thumbprint, jwk: attacker.publicJwk };
    const jws = await forge(header, await claimsFor(), attacker.privateKey);
    // The forgery is self-consistent: jose would accept it if it trusted the embedded key.
    await expect(compactVerify(jws, await importJWK(attacker.publicJwk, 'EdDSA'))).resolves.toBeDefined();
    await expectError(verifyDecision(jws, options()), 'ERR_DECISION_INVALID', '"jwk" is not allowed');
  });

  it.each([
    ['jku', { jku: 'https://evil.example/jwks.json' }],
    ['x5u', { x5u: 'https://evil.example/cert.pem' }],
    ['x5c', { x5c: ['MIIB'] }],
    ['crit', { crit: ['exp'], exp: 1 }],
    ['b64', { b64: false, crit: ['b64'] }],
  ])('a header with %s is refused', async (member, extra) => {
    const header = { alg: 'EdDSA', typ: DECISION_TYP, kid: extension.thumbprint, ...extra };
    const jws = await forge(header, await claimsFor(), extension.privateKey);
    const error = await expectError(verifyDecision(jws, options()), 'ERR_DECISION_INVALID', 'is not allowed');
    expect(error.message).toMatch(new RegExp(`"(${member}|crit|exp)"`));
  });

  it('alg confusion: HS256 keyed with the pinned public key is refused', async () => {
    const pinned = extension.publicJwk;
    for (const secret of [base64url.decode(pinned.x), utf8(JSON.stringify(pinned))]) {
      const jws = await forge({ alg: 'HS256', typ: DECISION_TYP, kid: extension.thumbprint }, await claimsFor(), secret);
      await expectError(verifyDecision(jws, options()), 'ERR_DECISION_INVALID', 'header.alg');
    }
  });

  it('alg confusion: ES256 against an Ed25519 pin, and EdDSA against a P-256 pin, are refused', async () => {
    const es = await signDecision(await claimsFor(), extensionEs256.privateKey, 'ES256', extension.thumbprint);
    await expectError(verifyDecision(es, options()), 'ERR_DECISION_INVALID', 'header.alg');
    const ed = await signed();
    await expectError(verifyDecision(ed, options({}, extensionEs256)), 'ERR_DECISION_INVALID', 'header.alg');
  });

  it('the fully-specified "Ed25519" alg name is refused too: one algorithm per pinned key type', async () => {
    const jws = await forge({ alg: 'Ed25519', typ: DECISION_TYP, kid: extension.thumbprint }, await claimsFor(), extension.privateKey);
    await expectError(verifyDecision(jws, options()), 'ERR_DECISION_INVALID', 'header.alg');
  });

  it('alg "none" with a valid decision payload is refused', async () => {
    const header = base64url.encode(JSON.stringify({ alg: 'none', typ: DECISION_TYP, kid: extension.thumbprint }));
    const payload = base64url.encode(JSON.stringify(await claimsFor()));
    await expectError(verifyDecision(`${header}.${payload}.`, options()), 'ERR_DECISION_INVALID', 'header.alg: "none"');
  });

  it('typ and kid must be the decision type and the pinned key thumbprint', async () => {
    const claims = await claimsFor();
    const wrongTyp = await forge({ alg: 'EdDSA', typ: 'JWT', kid: extension.thumbprint }, claims, extension.privateKey);
    await expectError(verifyDecision(wrongTyp, options()), 'ERR_DECISION_INVALID', 'header.typ');
    const noTyp = await forge({ alg: 'EdDSA', kid: extension.thumbprint }, claims, extension.privateKey);
    await expectError(verifyDecision(noTyp, options()), 'ERR_DECISION_INVALID', 'header.typ');
    const wrongKid = await signDecision(claims, extension.privateKey, 'EdDSA', attacker.thumbprint);
    await expectError(verifyDecision(wrongKid, options()), 'ERR_DECISION_INVALID', 'header.kid');
  });

  it('a non-canonical signature spelling (unused bits of the last character set) is refused', async () => {
    const jws = await signed();
    const last = jws.at(-1) ?? '';
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    // 64 signature bytes are 86 characters; the last one carries 4 unused bits.
    const sibling = alphabet[alphabet.indexOf(last) + 1] ?? '';
    const twin = `${jws.slice(0, -1)}${sibling}`;
    expect(Buffer.from(base64url.decode(twin.split('.')[2] ?? ''))).toEqual(Buffer.from(base64url.decode(jws.split('.')[2] ?? '')));
    await expectError(verifyDecision(twin, options()), 'ERR_DECISION_INVALID', 'signature');
  });

  it('a signed payload that is not a decision is refused by the schema, naming the member', async () => {
    const claims = { ...(await claimsFor()), v: 2 };
    const jws = await forge({ alg: 'EdDSA', typ: DECISION_TYP, kid: extension.thumbprint }, claims, extension.privateKey);
    await expectError(verifyDecision(jws, options()), 'ERR_DECISION_INVALID', 'decision.v');
    const notJson = await forge({ alg: 'EdDSA', typ: DECISION_TYP, kid: extension.thumbprint }, 'approved', extension.privateKey);
    await expectError(verifyDecision(notJson, options()), 'ERR_DECISION_INVALID', 'payload');
  });

  it.each([
    ['not three parts', 'a.b'],
    ['four parts', 'a.b.c.d'],
    ['padding', 'eyJhbGciOiJFZERTQSJ9=.e30.AA'],
    ['too long', `${'A'.repeat(20_000)}.e30.AA`],
  ])('malformed input (%s) is ERR_DECISION_INVALID', async (_title, jws) => {
    await expectError(verifyDecision(jws, options()), 'ERR_DECISION_INVALID', 'decision');
  });
});

describe('verifyDecision: time and replay', () => {
  it('"an expired operation": now after expires_at → ERR_DECISION_EXPIRED', async () => {
    const jws = await signed();
    await expectError(verifyDecision(jws, { ...options(), now: new Date('2026-10-08T19:20:00.001Z') }), 'ERR_DECISION_EXPIRED', 'decision.expires_at');
  });

  it('spec 3 "Expiry": a decision taken after expires_at is expired even if now is earlier', async () => {
    const late = { ...(await claimsFor()), iat: Date.parse('2026-10-08T19:21:00Z') / 1000 };
    const jws = await forge({ alg: 'EdDSA', typ: DECISION_TYP, kid: extension.thumbprint }, late, extension.privateKey);
    await expectError(verifyDecision(jws, { ...options(), now: new Date('2026-10-08T19:19:00Z') }), 'ERR_DECISION_EXPIRED', 'decision.iat');
  });

  it('a future iat (beyond the skew) → ERR_DECISION_INVALID', async () => {
    const jws = await signed({ iat: NOW_S + DECISION_IAT_SKEW_SECONDS + 1 });
    await expectError(verifyDecision(jws, options()), 'ERR_DECISION_INVALID', 'decision.iat');
  });

  it('"a replayed nonce": the second verification of a nonce → ERR_DECISION_REPLAYED', async () => {
    const seenNonces = new Set<string>();
    const jws = await signed();
    await verifyDecision(jws, { ...options(), seenNonces });
    expect(seenNonces.has(NONCE)).toBe(true);
    await expectError(verifyDecision(jws, { ...options(), seenNonces }), 'ERR_DECISION_REPLAYED', 'decision.nonce');
    // Even a fresh, otherwise valid decision cannot reuse an accepted nonce.
    const again = await signed({ iat: NOW_S - 1, jti: 'dec_2' });
    await expectError(verifyDecision(again, { ...options(), seenNonces }), 'ERR_DECISION_REPLAYED', 'decision.nonce');
  });

  it('a rejected decision does not use up the nonce of the real one', async () => {
    const seenNonces = new Set<string>();
    const forged = await signDecision(await claimsFor(), attacker.privateKey, 'EdDSA', extension.thumbprint);
    await expectError(verifyDecision(forged, { ...options(), seenNonces }), 'ERR_DECISION_INVALID', 'signature');
    const mismatched = await signed({ revision: 'other' });
    await expectError(verifyDecision(mismatched, { ...options(), seenNonces }), 'ERR_DECISION_MISMATCH', 'decision.revision');
    expect(seenNonces.size).toBe(0);
    await expect(verifyDecision(await signed(), { ...options(), seenNonces })).resolves.toBeDefined();
  });

  it('a P-256 pin whose point is not on the curve is ERR_KEY_INVALID', async () => {
    const jws = await signed({}, extensionEs256);
    const offCurve = { kty: 'EC', crv: 'P-256', x: base64url.encode(new Uint8Array(32).fill(1)), y: base64url.encode(new Uint8Array(32).fill(2)) };
    await expectError(verifyDecision(jws, { ...options({}, extensionEs256), pinnedKey: offCurve }), 'ERR_KEY_INVALID', 'pinnedKey');
  });

  it('a seenNonces that throws surfaces as a CountersignError, never a foreign one', async () => {
    const seenNonces = { has: (): boolean => { throw new TypeError('store closed'); }, add: (): void => undefined };
    const error = await expectError(verifyDecision(await signed(), { ...options(), seenNonces }), 'ERR_ARGUMENT_INVALID', 'decision');
    expect(error.cause).toBeInstanceOf(TypeError);
  });

  it('signCompactJws refuses header members the verifier would refuse', async () => {
    const header = { alg: 'EdDSA', jwk: extension.publicJwk } as unknown as { alg: string };
    await expectError(signCompactJws(header, utf8('x'), extension.privateKey), 'ERR_ARGUMENT_INVALID', 'header');
  });

  it('an invalid now is ERR_ARGUMENT_INVALID', async () => {
    await expectError(verifyDecision(await signed(), { ...options(), now: new Date(Number.NaN) }), 'ERR_ARGUMENT_INVALID', 'now');
  });
});

describe('property: any single-byte mutation of a decision fails verification with a CountersignError', () => {
  it('300 random single-byte mutations of an Ed25519 decision', async () => {
    const jws = await signed();
    await verifyDecision(jws, options());
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: jws.length - 1 }), fc.integer({ min: 0, max: 255 }), async (index, byte) => {
        fc.pre(jws.charCodeAt(index) !== byte);
        const mutated = `${jws.slice(0, index)}${String.fromCharCode(byte)}${jws.slice(index + 1)}`;
        const error = await rejection(verifyDecision(mutated, options()));
        expect(isCountersignError(error)).toBe(true);
        expect(['ERR_DECISION_INVALID', 'ERR_DECISION_MISMATCH']).toContain(error.code);
      }),
      { numRuns: 300 },
    );
  });

  it('200 random single-byte mutations of an ES256 decision', async () => {
    const jws = await signed({}, extensionEs256);
    const opts = options({}, extensionEs256);
    await verifyDecision(jws, opts);
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: jws.length - 1 }), fc.integer({ min: 0, max: 255 }), async (index, byte) => {
        fc.pre(jws.charCodeAt(index) !== byte);
        const mutated = `${jws.slice(0, index)}${String.fromCharCode(byte)}${jws.slice(index + 1)}`;
        const error = await rejection(verifyDecision(mutated, opts));
        expect(error.code).toBe('ERR_DECISION_INVALID');
      }),
      { numRuns: 200 },
    );
  });

  it('every mutation of the last signature character is refused (exhaustive)', async () => {
    const jws = await signed();
    for (let byte = 0; byte < 256; byte += 1) {
      if (jws.charCodeAt(jws.length - 1) === byte) continue;
      const error = await rejection(verifyDecision(`${jws.slice(0, -1)}${String.fromCharCode(byte)}`, options()));
      expect(error.code).toBe('ERR_DECISION_INVALID');
    }
  });
});

// ------------------------------------------------------------------------------------------------
// verifyCompactJws: which check refuses what (each with its own message, so that a check that is
// dropped fails here even where jose would refuse the token later anyway).

describe('verifyCompactJws, check by check', () => {
  let pair: SigningKeyPair;
  beforeAll(async () => {
    pair = await generateSigningKeyPair({ extractable: false });
  });
  const b64 = (value: unknown) => base64url.encode(typeof value === 'string' ? value : JSON.stringify(value));
  const token = (header: unknown, signature = 'AAAA') => `${b64(header)}.${b64({ a: 1 })}.${signature}`;
  const refused = (jws: unknown, message: string | RegExp) => expectError(verifyCompactJws(jws as string, pair.publicJwk), 'ERR_DECISION_INVALID', message);

  it('refuses what is not a three-part string of at most MAX_DECISION_JWS_LENGTH characters', async () => {
    await refused(5, 'expected a compact JWS string');
    await refused('a'.repeat(16 * 1024 + 1), 'longer than 16384 characters');
    await refused('a'.repeat(16 * 1024), 'three base64url parts');
    await refused('a.b', 'three base64url parts');
    await refused('a.b.c.d', 'three base64url parts');
  });

  it('refuses a header that is not an object, or names a member beyond alg, typ and kid', async () => {
    await refused(token([1]), 'expected a JSON object');
    await refused(token({ alg: 'EdDSA', jwk: pair.publicJwk }), '"jwk" is not allowed');
    await refused(token({ alg: 'EdDSA', abcdefghijklmnop: 1 }), '"abcdefghijklmnop" is not allowed');
    await refused(token({ alg: 'EdDSA', abcdefghijklmnopq: 1 }), 'an unknown member is not allowed');
    await refused(token({ alg: 'EdDSA', 'x y': 1 }), 'an unknown member is not allowed');
    await refused(token({ alg: 'EdDSA', 'x\u202E': 1 }), 'an unknown member is not allowed');
  });

  it('refuses an alg, typ or kid that is not a string', async () => {
    await refused(token({ alg: 1 }), 'header.alg: expected a string');
    await refused(token({ alg: 'EdDSA', typ: 1 }), 'header.typ: expected a string');
    await refused(token({ alg: 'EdDSA', kid: 1 }), 'header.kid: expected a string');
    await refused(token({ alg: 'ES256' }), 'expected "EdDSA"');
  });

  it('refuses an empty signature before any verifier sees it, and a bad one after', async () => {
    await refused(token({ alg: 'EdDSA' }, ''), 'decision signature: missing');
    await refused(token({ alg: 'EdDSA' }, 'AA=='), 'decision signature: expected unpadded base64url');
    await refused(token({ alg: 'EdDSA' }, 'AB'), 'decision signature: not the canonical base64url encoding');
    await refused(token({ alg: 'EdDSA' }), 'does not verify with the pinned key');
  });

  it('returns exactly the header members that were signed', async () => {
    const payload = new TextEncoder().encode('{}');
    const bare = await signCompactJws({ alg: 'EdDSA' }, payload, pair.privateKey);
    expect(Object.keys((await verifyCompactJws(bare, pair.publicJwk)).header)).toEqual(['alg']);
    const full = await signCompactJws({ alg: 'EdDSA', typ: DECISION_TYP, kid: 'k' }, payload, pair.privateKey);
    expect((await verifyCompactJws(full, pair.publicJwk)).header).toStrictEqual({ alg: 'EdDSA', typ: DECISION_TYP, kid: 'k' });
  });

  it('signCompactJws refuses a key that is not a private key of the algorithm', async () => {
    const payload = new TextEncoder().encode('{}');
    await expectError(signCompactJws({ alg: 'EdDSA' }, payload, null as unknown as CryptoKey), 'ERR_KEY_INVALID', 'expected a private Ed25519 CryptoKey');
    await expectError(signCompactJws({ alg: 'ES256' }, payload, pair.privateKey), 'ERR_KEY_INVALID', 'expected a private ECDSA P-256 CryptoKey');
    await expectError(signCompactJws({ alg: 'EdDSA' }, payload, pair.publicKey), 'ERR_KEY_INVALID', 'privateKey');
    await expectError(signCompactJws({ alg: 'EdDSA', typ: 5 } as unknown as { alg: string }, payload, pair.privateKey), 'ERR_ARGUMENT_INVALID', 'header.typ: expected a string');
  });
});

describe('what each refusal says (the field, what was expected, what came)', () => {
  it.each([
    ['operation_id', { operation: { ...operation, operation_id: 'exc_5Rt3' } }, 'decision.operation_id: does not match the operation asked about'],
    ['revision', { operation: { ...operation, revision: '1791487200-k3Jd9Qx2mW8w' } }, 'decision.revision: does not match the revision asked about (spec section 5: an approval covers one revision)'],
    ['summary', { operation: { ...operation, summary: `${operation.summary} ` } }, "decision.summary_sha256: does not match the SHA-256 of the operation's summary"],
    ['terms', { operation: { ...operation, terms: { order_id: 'ord_7Hk2' } } }, "decision.terms_sha256: does not match the SHA-256 of the operation's canonical terms"],
    ['Company name', { company: { ...company, name: 'Other' } }, 'decision.company.name: does not match the Company asked for'],
    ['Company origin', { company: { ...company, origin: 'https://other.example' } }, 'decision.company.origin: does not match the Company asked for'],
    ['audience', { audience: 'A'.repeat(43) }, "decision.aud: does not match this agent's key thumbprint"],
    ['nonce', { nonce: 'B'.repeat(43) }, 'decision.nonce: does not match the nonce of this request'],
    ['expires_at', { operation: { ...operation, expires_at: '2026-10-08T19:20:00Z' } }, "decision.expires_at: does not match the operation's expires_at"],
  ] as const)('a different %s', async (_title, expected, message) => {
    const error = await rejection(verifyDecision(await signed(), options(expected)));
    expect({ code: error.code, message: error.message }).toEqual({ code: 'ERR_DECISION_MISMATCH', message });
  });

  it.each([
    ['options', () => null, 'options: expected an object, got null'],
    ['options.expected', () => ({ ...options(), expected: 'x' }), 'options.expected: expected an object, got a string of 1 character'],
    ['options.expected.operation', () => ({ ...options(), expected: { ...options().expected, operation: [] } }), 'options.expected.operation: expected an object, got an array of 0 items'],
    ['options.expected.company', () => ({ ...options(), expected: { ...options().expected, company: undefined } }), 'options.expected.company: expected an object, got nothing'],
  ])('refuses %s that is not an object, before reading the decision', async (_title, make, message) => {
    const error = await rejection(verifyDecision(await signed(), make() as unknown as VerifyDecisionOptions));
    expect({ code: error.code, message: error.message }).toEqual({ code: 'ERR_ARGUMENT_INVALID', message });
  });

  it('refuses a summary that is not a string, and terms RFC 8785 cannot write, saying why', async () => {
    const notText = await rejection(digestSummary(7 as unknown as string));
    expect({ code: notText.code, message: notText.message }).toEqual({ code: 'ERR_ARGUMENT_INVALID', message: 'summary: expected a string, got a number' });
    const own = await rejection(digestTerms({ amount: Number.NaN }));
    expect(own.message).toBe('canonicalJson: value.amount: expected a finite number, got NaN');
    const thrown = new Error('getter failed');
    const unreadable = await rejection(digestTerms({ get amount(): string { throw thrown; } }));
    expect({ code: unreadable.code, message: unreadable.message, cause: unreadable.cause }).toEqual({
      code: 'ERR_ARGUMENT_INVALID',
      message: 'canonicalJson: value: expected JSON data, got a value that cannot be read',
      cause: thrown,
    });
  });

  it('gives a refusal without a cause no cause member at all', async () => {
    const error = await rejection(verifyCompactJws(`${base64url.encode('[1]')}.${base64url.encode('{}')}.AAAA`, extension.publicJwk));
    expect(error.code).toBe('ERR_DECISION_INVALID');
    expect(Object.hasOwn(error, 'cause')).toBe(false);
  });
});

describe('decision bytes that are almost JSON', () => {
  const segment = (bytes: Uint8Array) => base64url.encode(bytes);

  it('refuses a header that starts with a byte order mark (JSON text has none, RFC 8259 section 8.1)', async () => {
    const header = new Uint8Array([0xef, 0xbb, 0xbf, ...utf8(JSON.stringify({ alg: 'EdDSA', typ: DECISION_TYP }))]);
    await expectError(verifyCompactJws(`${segment(header)}.${segment(utf8('{}'))}.AAAA`, extension.publicJwk), 'ERR_DECISION_INVALID', 'decision header: expected UTF-8 JSON');
  });

  it('refuses a header that is not UTF-8, instead of reading it with U+FFFD', async () => {
    const header = new Uint8Array([...utf8('{"alg":"EdDSA","typ":"'), 0xff, ...utf8('"}')]);
    await expectError(verifyCompactJws(`${segment(header)}.${segment(utf8('{}'))}.AAAA`, extension.publicJwk), 'ERR_DECISION_INVALID', 'decision header: expected UTF-8 JSON');
  });
});

describe('signing keys and the algorithm they are used with', () => {
  it('refuses an ECDSA key of another curve for ES256, and an ECDSA key for EdDSA', async () => {
    const p384 = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-384' }, false, ['sign', 'verify']);
    await expectError(signCompactJws({ alg: 'ES256' }, utf8('{}'), p384.privateKey), 'ERR_KEY_INVALID', 'privateKey: expected a private ECDSA P-256 CryptoKey usable for "sign"');
    await expectError(signCompactJws({ alg: 'EdDSA' }, utf8('{}'), extensionEs256.privateKey), 'ERR_KEY_INVALID', 'privateKey: expected a private Ed25519 CryptoKey usable for "sign"');
  });

  it('refuses an ECDH P-256 key for ES256 (the curve alone is not enough)', async () => {
    const ecdh = await crypto.subtle.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, false, ['deriveBits']);
    await expectError(signCompactJws({ alg: 'ES256' }, utf8('{}'), ecdh.privateKey), 'ERR_KEY_INVALID', 'privateKey: expected a private ECDSA P-256');
  });

  it('signs a decision taken at the very second of expires_at, and refuses one a second later', async () => {
    const expiresS = Date.parse(operation.expires_at) / 1000;
    await expect(signed({ iat: expiresS })).resolves.toMatch(/^ey/);
    await expectError(signed({ iat: expiresS + 1 }), 'ERR_DECISION_EXPIRED', 'decision.iat: after the');
  });

  it('refuses a kid that is not a key thumbprint', async () => {
    await expectError(
      signDecision(await claimsFor(), extension.privateKey, extension.alg, 'not-a-thumbprint'),
      'ERR_KEY_INVALID',
      "kid: expected the key's RFC 7638 thumbprint",
    );
  });
});

describe('signCompactJws and verifyCompactJws, guard by guard', () => {
  it('refuses a header that is not an object, and a member beyond alg, typ and kid, before any key is used', async () => {
    const refusal = async (header: unknown) => {
      const error = await rejection(signCompactJws(header as { alg: string }, utf8('{}'), extension.privateKey));
      return { code: error.code, message: error.message };
    };
    expect(await refusal(null)).toEqual({ code: 'ERR_ARGUMENT_INVALID', message: 'header: expected an object, got null' });
    expect(await refusal({ alg: 'EdDSA', jwk: 'x' })).toEqual({ code: 'ERR_ARGUMENT_INVALID', message: 'header: expected only alg, typ and kid, got jwk' });
  });

  it('leaves out a header member that is undefined', async () => {
    const jws = await signCompactJws({ alg: 'EdDSA', typ: undefined, kid: 'k' }, utf8('{}'), extension.privateKey);
    expect(JSON.parse(text(base64url.decode(jws.split('.')[0]!)))).toEqual({ kid: 'k', alg: 'EdDSA' });
  });

  it('reports a key WebCrypto cannot sign with as ERR_KEY_INVALID, with the reason as cause', async () => {
    const lookalike = { type: 'private', algorithm: { name: 'Ed25519' }, usages: ['sign'] } as unknown as CryptoKey;
    const error = await rejection(signCompactJws({ alg: 'EdDSA' }, utf8('{}'), lookalike));
    expect({ code: error.code, message: error.message }).toEqual({ code: 'ERR_KEY_INVALID', message: 'privateKey: signing failed' });
    expect(error.cause).toBeInstanceOf(Error);
  });

  it('names the part that is not base64url', async () => {
    const header = base64url.encode(JSON.stringify({ alg: 'EdDSA' }));
    await expectError(verifyCompactJws(`${header}=.e30.AAAA`, extension.publicJwk), 'ERR_DECISION_INVALID', /^decision header: expected unpadded base64url$/);
    await expectError(verifyCompactJws(`${header}.e30=.AAAA`, extension.publicJwk), 'ERR_DECISION_INVALID', /^decision payload: expected unpadded base64url$/);
  });

  it('keeps why the header is not JSON as the cause', async () => {
    const error = await rejection(verifyCompactJws(`${base64url.encode('{"alg":')}.e30.AAAA`, extension.publicJwk));
    expect(error.message).toBe('decision header: expected UTF-8 JSON');
    expect(error.cause).toBeInstanceOf(SyntaxError);
  });

  it('names pinnedKey when the pinned key is not a public key', async () => {
    await expectError(verifyCompactJws('a.b.c', { kty: 'oct' }), 'ERR_KEY_INVALID', /^pinnedKey/);
  });
});

describe('decision times, to the second', () => {
  it('verifies a decision taken at the very second the operation expires, checked at that instant', async () => {
    const expiresMs = Date.parse(operation.expires_at);
    const jws = await signed({ iat: expiresMs / 1000 });
    await expect(verifyDecision(jws, { ...options(), now: new Date(expiresMs) })).resolves.toMatchObject({ iat: expiresMs / 1000 });
  });

  it('says the operation has expired, and names an Invalid Date as such', async () => {
    const jws = await signed();
    const late = await rejection(verifyDecision(jws, { ...options(), now: new Date('2026-10-08T19:20:00.001Z') }));
    expect(late.message).toBe('decision.expires_at: the operation has expired');
    const invalid = await rejection(verifyDecision(jws, { ...options(), now: new Date(Number.NaN) }));
    expect({ code: invalid.code, message: invalid.message }).toEqual({ code: 'ERR_ARGUMENT_INVALID', message: 'options.now: expected a valid Date, got an Invalid Date' });
  });

  it('refuses to sign a decision taken after the operation expired, saying so', async () => {
    const expiresS = Date.parse(operation.expires_at) / 1000;
    const error = await rejection(signed({ iat: expiresS + 1 }));
    expect(error.message).toBe("decision.iat: after the operation's expires_at; an expired operation cannot be decided");
  });

  it('refuses a kid that is not a string even when it reads as a thumbprint', async () => {
    const kid = { toString: () => extension.thumbprint } as unknown as string;
    await expectError(signDecision(await claimsFor(), extension.privateKey, extension.alg, kid), 'ERR_KEY_INVALID', "kid: expected the key's RFC 7638 thumbprint");
  });
});

describe('a pinned key WebCrypto cannot import', () => {
  it('is ERR_KEY_INVALID, with the import error as cause (a P-256 point that is not on the curve)', async () => {
    const offCurve = { kty: 'EC', crv: 'P-256', x: `${'A'.repeat(42)}E`, y: `${'A'.repeat(42)}E` };
    const jws = `${base64url.encode(JSON.stringify({ alg: 'ES256' }))}.e30.AAAA`;
    const error = await rejection(verifyCompactJws(jws, offCurve));
    expect({ code: error.code, message: error.message }).toEqual({ code: 'ERR_KEY_INVALID', message: 'pinnedKey: not a usable public key' });
    expect(error.cause).toBeDefined();
  });
});
