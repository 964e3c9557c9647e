import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/protocol/canonical-json';
import { decisionClaimsSchema } from '../../src/protocol/decision';
import { CountersignError } from '../../src/protocol/errors';
import { passkeyAssertionSchema, passkeyChallengeBase64url, passkeyCredentialSchema, verifyPasskeyAssertion, type PasskeyCredential } from '../../src/protocol/passkey';

// Known-answer vectors (test/fixtures/passkey/README.md): our own, made once with fixed software
// passkeys, and the WebAuthn Level 3 specification's authentication vectors (section 16).

interface Vector {
  id: string;
  description: string;
  credential: PasskeyCredential;
  claims: Record<string, unknown> | null;
  challenge_base64url: string;
  origin: string;
  previous_sign_count: number;
  assertion: Record<string, string>;
  expected: 'valid' | 'invalid';
  expected_sign_count?: number;
  error_code?: string;
  error_contains?: string;
  source?: { section_url: string; example_url: string; hex: Record<string, string> };
}

interface Fixture {
  keys: Record<string, { public_key: string; private_key_pkcs8: string } | string>;
  vectors: Vector[];
  webauthn_level3: { vectors: Vector[] };
}

const fixture = JSON.parse(readFileSync(new URL('../fixtures/passkey/vectors.json', import.meta.url), 'utf8')) as Fixture;
const own = fixture.vectors;
const w3c = fixture.webauthn_level3.vectors;

const fromB64u = (text: string): Buffer => Buffer.from(text, 'base64url');

async function outcome(v: Vector): Promise<{ signCount: number } | CountersignError> {
  try {
    return await verifyPasskeyAssertion(v.assertion, { credential: v.credential, challenge: fromB64u(v.challenge_base64url), origin: v.origin, previousSignCount: v.previous_sign_count });
  } catch (error) {
    if (error instanceof CountersignError) return error;
    throw error;
  }
}

async function expectOutcome(v: Vector): Promise<void> {
  const got = await outcome(v);
  if (v.expected === 'valid') {
    expect(got, v.id).not.toBeInstanceOf(CountersignError);
    expect((got as { signCount: number }).signCount).toBe(v.expected_sign_count);
  } else {
    expect(got, v.id).toBeInstanceOf(CountersignError);
    expect((got as CountersignError).code).toBe(v.error_code);
    expect((got as CountersignError).message).toContain(v.error_contains);
  }
}

describe('the vector file', () => {
  it('has valid and invalid vectors of both algorithms, each id once', () => {
    const all = [...own, ...w3c];
    expect(new Set(all.map((v) => v.id)).size).toBe(all.length);
    for (const alg of [-7, -8]) {
      expect(own.some((v) => v.credential.alg === alg && v.expected === 'valid')).toBe(true);
      expect(own.some((v) => v.credential.alg === alg && v.expected === 'invalid')).toBe(true);
    }
    expect(w3c.map((v) => v.id)).toEqual(['w3c-webauthn-3-16.2', 'w3c-webauthn-3-16.3', 'w3c-webauthn-3-16.4', 'w3c-webauthn-3-16.5', 'w3c-webauthn-3-16.6', 'w3c-webauthn-3-16.11']);
  });

  it('holds credentials and assertions our schemas accept, and realistic decision claims', () => {
    for (const v of [...own, ...w3c]) {
      expect(passkeyCredentialSchema.safeParse(v.credential).success, v.id).toBe(true);
      expect(passkeyAssertionSchema.safeParse(v.assertion).success, v.id).toBe(true);
      if (v.claims !== null) expect(decisionClaimsSchema.safeParse(v.claims).success, v.id).toBe(true);
    }
  });

  it('gives each own vector the challenge of its claims: SHA-256 of their RFC 8785 canonical JSON', async () => {
    for (const v of own) {
      expect(await passkeyChallengeBase64url(v.claims), v.id).toBe(v.challenge_base64url);
      const digest = createHash('sha256').update(canonicalJson(v.claims), 'utf8').digest('base64url');
      expect(digest, v.id).toBe(v.challenge_base64url);
    }
  });

  it('carries the software passkeys that signed the own vectors', () => {
    const keys = fixture.keys as Record<string, { public_key: string }>;
    expect(own.filter((v) => v.expected === 'valid').every((v) => [keys['es256']?.public_key, keys['ed25519']?.public_key].includes(v.credential.public_key))).toBe(true);
  });

  it('transcribes the specification values unchanged: each base64url member is the hex the specification prints', () => {
    for (const v of w3c) {
      const hex = v.source!.hex;
      expect(fromB64u(v.assertion['credential_id']!).toString('hex'), v.id).toBe(hex['credential_id']);
      expect(fromB64u(v.credential.credential_id).toString('hex'), v.id).toBe(hex['credential_id']);
      expect(fromB64u(v.assertion['authenticator_data']!).toString('hex'), v.id).toBe(hex['authenticator_data']);
      expect(fromB64u(v.assertion['client_data_json']!).toString('hex'), v.id).toBe(hex['client_data_json']);
      expect(fromB64u(v.assertion['signature']!).toString('hex'), v.id).toBe(hex['signature']);
      expect(fromB64u(v.challenge_base64url).toString('hex'), v.id).toBe(hex['challenge']);
      // The SPKI ends with the COSE key's coordinates: x (and y for P-256).
      expect(fromB64u(v.credential.public_key).toString('hex').endsWith(`${hex['credential_public_key_x']}${hex['credential_public_key_y'] ?? ''}`), v.id).toBe(true);
      // rpIdHash of every specification vector is SHA-256("example.org"), the host of its rp_id.
      expect(hex['authenticator_data']!.slice(0, 64)).toBe(createHash('sha256').update('example.org').digest('hex'));
    }
  });
});

describe('own vectors', () => {
  for (const v of own) {
    it(`${v.id}: ${v.expected}`, async () => {
      await expectOutcome(v);
    });
  }
});

describe('WebAuthn Level 3 section 16 vectors', () => {
  for (const v of w3c) {
    it(`${v.id}: ${v.expected}`, async () => {
      await expectOutcome(v);
    });
  }

  it('checks their signatures: with one signature bit flipped, each is refused as a bad signature instead', async () => {
    // The refusals above (UV clear, crossOrigin true) come after the signature check, so they
    // show the signature verified; this shows the signature was really checked.
    for (const v of w3c) {
      const signature = fromB64u(v.assertion['signature']!);
      signature[signature.length - 1]! ^= 0x01;
      const got = await outcome({ ...v, assertion: { ...v.assertion, signature: signature.toString('base64url') } });
      expect(got, v.id).toBeInstanceOf(CountersignError);
      expect((got as CountersignError).message, v.id).toMatch(/^signature: expected the pinned passkey's signature/);
    }
  });
});
