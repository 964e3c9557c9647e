import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/protocol/canonical-json';
import { CountersignError, type ErrorCode } from '../../src/protocol/errors';
import * as protocol from '../../src/protocol/index';
import {
  PASSKEY_ALGORITHMS,
  parseAuthenticatorData,
  passkeyAssertionSchema,
  passkeyChallenge,
  passkeyChallengeBase64url,
  passkeyCredentialSchema,
  verifyPasskeyAssertion,
  type PasskeyAlg,
  type PasskeyAssertion,
  type PasskeyCredential,
  type VerifyPasskeyAssertionOptions,
} from '../../src/protocol/passkey';

// A software authenticator, written here from WebAuthn Level 3 section 6.1 (authenticator data)
// and section 6.5.5 (assertion signatures), makes assertions the way Chromium's does, so every
// check of verifyPasskeyAssertion can be failed on its own.

const subtle = globalThis.crypto.subtle;
const ORIGIN = 'chrome-extension://lgniibfabfejleheaiiigjhkekhagbcj';
const BARE_ID = 'lgniibfabfejleheaiiigjhkekhagbcj';
/** The one style of a validation message: `<field path>: expected <what>, got <what>`. */
const STYLE = /^[\w.[\]"-]+: expected .+, got .+$/;

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
const b64u = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64url');
const fromB64u = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'base64url'));
const sha256 = (bytes: Uint8Array | string): Uint8Array => new Uint8Array(createHash('sha256').update(bytes).digest());
function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
function flipBit(text: string, byte: number, bit = 0): string {
  const bytes = fromB64u(text);
  bytes[byte < 0 ? bytes.length + byte : byte]! ^= 1 << bit;
  return b64u(bytes);
}

/** One INTEGER in DER: leading zeros dropped, a 0x00 sign byte added when the high bit is set. */
function derInteger(value: Uint8Array): Uint8Array {
  let start = 0;
  while (start < value.length - 1 && value[start] === 0) start++;
  const magnitude = value.subarray(start);
  const body = (magnitude[0]! & 0x80) !== 0 ? concat(new Uint8Array([0]), magnitude) : magnitude;
  return concat(new Uint8Array([0x02, body.length]), body);
}
/** WebCrypto's raw r || s as the DER Ecdsa-Sig-Value authenticators send. */
function rawToDer(raw: Uint8Array): Uint8Array {
  const body = concat(derInteger(raw.subarray(0, 32)), derInteger(raw.subarray(32)));
  return concat(new Uint8Array([0x30, body.length]), body);
}

interface Authenticator {
  alg: PasskeyAlg;
  privateKey: CryptoKey;
  credential: PasskeyCredential;
}

async function makeAuthenticator(alg: PasskeyAlg, rpId = ORIGIN): Promise<Authenticator> {
  const algorithm: EcKeyGenParams | Algorithm = alg === -7 ? { name: 'ECDSA', namedCurve: 'P-256' } : { name: 'Ed25519' };
  const pair = (await subtle.generateKey(algorithm, true, ['sign', 'verify'])) as CryptoKeyPair;
  const publicKey = new Uint8Array(await subtle.exportKey('spki', pair.publicKey));
  const credential = { credential_id: b64u(globalThis.crypto.getRandomValues(new Uint8Array(16))), public_key: b64u(publicKey), alg, rp_id: rpId, registered_at: '2026-09-14T09:12:44Z' };
  return { alg, privateKey: pair.privateKey, credential };
}

interface Ceremony {
  challenge?: Uint8Array;
  origin?: string;
  type?: string;
  /** Members of clientDataJSON to set (undefined: leave the member out). */
  clientData?: Record<string, unknown>;
  /** The exact clientDataJSON bytes, instead of the JSON built from the members above. */
  clientDataJson?: Uint8Array;
  rpId?: string;
  flags?: number;
  signCount?: number;
  /** Bytes after the 37 of authenticator data (attested credential data or extensions). */
  trailing?: Uint8Array;
  /** Sign authenticatorData || clientDataJSON instead of || SHA-256(clientDataJSON). */
  unhashed?: boolean;
  /** For ES256: send WebCrypto's raw r || s, or transform it, instead of DER. */
  signatureFormat?: (raw: Uint8Array) => Uint8Array;
}

const CHALLENGE = sha256('the claims of some decision');

async function ceremony(authenticator: Authenticator, c: Ceremony = {}): Promise<PasskeyAssertion> {
  const members: Record<string, unknown> = { type: c.type ?? 'webauthn.get', challenge: b64u(c.challenge ?? CHALLENGE), origin: c.origin ?? ORIGIN, crossOrigin: false, ...c.clientData };
  for (const key of Object.keys(members)) if (members[key] === undefined) delete members[key];
  const clientDataJson = c.clientDataJson ?? utf8(JSON.stringify(members));
  const count = c.signCount ?? 1;
  const authenticatorData = concat(sha256(c.rpId ?? authenticator.credential.rp_id), new Uint8Array([c.flags ?? 0x05]), new Uint8Array([count >>> 24, (count >>> 16) & 255, (count >>> 8) & 255, count & 255]), c.trailing ?? new Uint8Array());
  const signed = concat(authenticatorData, c.unhashed ? clientDataJson : sha256(clientDataJson));
  const algorithm = authenticator.alg === -7 ? { name: 'ECDSA', hash: 'SHA-256' } : { name: 'Ed25519' };
  const raw = new Uint8Array(await subtle.sign(algorithm, authenticator.privateKey, signed as Uint8Array<ArrayBuffer>));
  const signature = authenticator.alg === -7 ? (c.signatureFormat ?? rawToDer)(raw) : (c.signatureFormat ?? ((s: Uint8Array) => s))(raw);
  return { credential_id: authenticator.credential.credential_id, authenticator_data: b64u(authenticatorData), client_data_json: b64u(clientDataJson), signature: b64u(signature) };
}

function options(authenticator: Authenticator, o: Partial<VerifyPasskeyAssertionOptions> = {}): VerifyPasskeyAssertionOptions {
  return { credential: authenticator.credential, challenge: CHALLENGE, origin: ORIGIN, ...o };
}

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

/** The code, the message (in full, or matching a pattern), and the house style of the message. */
async function expectError(promise: Promise<unknown>, code: ErrorCode, message: string | RegExp): Promise<CountersignError> {
  const error = await rejection(promise);
  expect(error.code).toBe(code);
  if (typeof message === 'string') expect(error.message).toBe(message);
  else expect(error.message).toMatch(message);
  expect(error.message).toMatch(STYLE);
  return error;
}

const BAD_SIGNATURE = "signature: expected the pinned passkey's signature over authenticatorData and the SHA-256 of clientDataJSON, got one that does not verify";
const DER_REFUSED = /^signature: expected a DER-encoded ECDSA signature \(ES256\), got \d+ bytes that are not$/;

let es256: Authenticator;
let ed25519: Authenticator;
beforeAll(async () => {
  es256 = await makeAuthenticator(-7);
  ed25519 = await makeAuthenticator(-8);
});

describe('verifyPasskeyAssertion: valid assertions', () => {
  it('accepts an ES256 assertion with a DER signature, as authenticators send it', async () => {
    expect(await verifyPasskeyAssertion(await ceremony(es256, { signCount: 7 }), options(es256, { previousSignCount: 6 }))).toEqual({ signCount: 7, userVerified: true });
  });

  it('accepts an Ed25519 assertion with its raw 64-byte signature', async () => {
    expect(await verifyPasskeyAssertion(await ceremony(ed25519, { signCount: 3 }), options(ed25519))).toEqual({ signCount: 3, userVerified: true });
  });

  it('accepts a DER integer shorter than 32 bytes, left-padded back to 32 (about 1 signature in 128)', async () => {
    let short: PasskeyAssertion | undefined;
    for (let i = 0; i < 5000 && short === undefined; i++) {
      const assertion = await ceremony(es256, { signatureFormat: (raw) => rawToDer(raw) });
      const der = fromB64u(assertion.signature);
      if (der[3]! < 32 || der[der[3]! + 5]! < 32) short = assertion;
    }
    expect(short).toBeDefined();
    expect((await verifyPasskeyAssertion(short, options(es256))).userVerified).toBe(true);
  });

  it('accepts members Chromium may add to clientDataJSON: it is parsed, never compared with a template', async () => {
    const other_keys_can_be_added_here = 'do not compare clientDataJSON against a template. See https://goo.gl/yabPex';
    const assertion = await ceremony(es256, { clientData: { other_keys_can_be_added_here, extraData: 'more' } });
    expect((await verifyPasskeyAssertion(assertion, options(es256))).userVerified).toBe(true);
  });

  it('accepts clientDataJSON without crossOrigin, and members in another order', async () => {
    const clientDataJson = utf8(JSON.stringify({ origin: ORIGIN, challenge: b64u(CHALLENGE), type: 'webauthn.get' }));
    expect((await verifyPasskeyAssertion(await ceremony(ed25519, { clientDataJson }), options(ed25519))).userVerified).toBe(true);
  });

  it('accepts BE and BS set (a synced passkey), and extension data announced by ED', async () => {
    await verifyPasskeyAssertion(await ceremony(ed25519, { flags: 0x1d }), options(ed25519));
    await verifyPasskeyAssertion(await ceremony(ed25519, { flags: 0x85, trailing: new Uint8Array([0xa0]) }), options(ed25519));
  });

  it('takes the challenge of a decision from passkeyChallenge, as the approval window does', async () => {
    const claims = { v: 1, status: 'approved', nonce: b64u(sha256('nonce')), company: { origin: 'https://stormline.example', name: 'Stormline' } };
    const challenge = await passkeyChallenge(claims);
    const assertion = await ceremony(es256, { challenge });
    expect((await verifyPasskeyAssertion(assertion, options(es256, { challenge }))).userVerified).toBe(true);
  });
});

describe('verifyPasskeyAssertion: each check, failed alone', () => {
  it('refuses a challenge of other claims', async () => {
    await expectError(verifyPasskeyAssertion(await ceremony(es256, { challenge: sha256('other claims') }), options(es256)), 'ERR_PASSKEY_INVALID', "clientDataJSON.challenge: expected the hash of this decision's claims, got another");
    await expectError(verifyPasskeyAssertion(await ceremony(ed25519, { clientData: { challenge: 42 } }), options(ed25519)), 'ERR_PASSKEY_INVALID', "clientDataJSON.challenge: expected the hash of this decision's claims, got a number");
  });

  it('refuses the same challenge spelled otherwise (padded, standard base64)', async () => {
    const padded = `${b64u(CHALLENGE)}=`;
    await expectError(verifyPasskeyAssertion(await ceremony(ed25519, { clientData: { challenge: padded } }), options(ed25519)), 'ERR_PASSKEY_INVALID', /^clientDataJSON\.challenge: /);
  });

  it('refuses another origin, and names the expected one only', async () => {
    const other = 'chrome-extension://abcdefghijklmnopabcdefghijklmnop';
    await expectError(verifyPasskeyAssertion(await ceremony(es256, { origin: other }), options(es256)), 'ERR_PASSKEY_INVALID', `clientDataJSON.origin: expected "${ORIGIN}", got another origin`);
    await expectError(verifyPasskeyAssertion(await ceremony(es256, { origin: `${ORIGIN}/` }), options(es256)), 'ERR_PASSKEY_INVALID', /^clientDataJSON\.origin: expected .*, got another origin$/);
    await expectError(verifyPasskeyAssertion(await ceremony(es256, { clientData: { origin: undefined } }), options(es256)), 'ERR_PASSKEY_INVALID', /^clientDataJSON\.origin: expected .*, got nothing$/);
  });

  it('refuses type webauthn.create (a registration), and any other type', async () => {
    await expectError(verifyPasskeyAssertion(await ceremony(ed25519, { type: 'webauthn.create' }), options(ed25519)), 'ERR_PASSKEY_INVALID', 'clientDataJSON.type: expected "webauthn.get", got "webauthn.create"');
    await expectError(verifyPasskeyAssertion(await ceremony(ed25519, { type: 'something.else' }), options(ed25519)), 'ERR_PASSKEY_INVALID', 'clientDataJSON.type: expected "webauthn.get", got a string of 14 characters');
  });

  it('refuses crossOrigin true (an assertion made in a frame), and a crossOrigin that is not a boolean', async () => {
    await expectError(verifyPasskeyAssertion(await ceremony(es256, { clientData: { crossOrigin: true } }), options(es256)), 'ERR_PASSKEY_INVALID', 'clientDataJSON.crossOrigin: expected false or no member, got true');
    await expectError(verifyPasskeyAssertion(await ceremony(es256, { clientData: { crossOrigin: 'false' } }), options(es256)), 'ERR_PASSKEY_INVALID', 'clientDataJSON.crossOrigin: expected false or no member, got a string of 5 characters');
  });

  it('refuses a topOrigin', async () => {
    await expectError(verifyPasskeyAssertion(await ceremony(es256, { clientData: { topOrigin: 'https://evil.example' } }), options(es256)), 'ERR_PASSKEY_INVALID', /^clientDataJSON\.topOrigin: expected no member .*, got a string of 20 characters$/);
  });

  it('refuses rpIdHash of the bare extension ID: the RP ID of an extension page is its whole origin', async () => {
    await expectError(verifyPasskeyAssertion(await ceremony(ed25519, { rpId: BARE_ID }), options(ed25519)), 'ERR_PASSKEY_INVALID', `authenticatorData.rpIdHash: expected the SHA-256 of the RP ID "${ORIGIN}", got another`);
    await expectError(verifyPasskeyAssertion(await ceremony(ed25519, { rpId: `${ORIGIN}/` }), options(ed25519)), 'ERR_PASSKEY_INVALID', /^authenticatorData\.rpIdHash: /);
  });

  it('refuses UV clear: the person was not verified', async () => {
    await expectError(verifyPasskeyAssertion(await ceremony(es256, { flags: 0x01 }), options(es256)), 'ERR_PASSKEY_INVALID', 'authenticatorData.flags: expected UV (user verified), got UP only');
    await expectError(verifyPasskeyAssertion(await ceremony(es256, { flags: 0x19 }), options(es256)), 'ERR_PASSKEY_INVALID', 'authenticatorData.flags: expected UV (user verified), got UP only');
  });

  it('refuses UP clear', async () => {
    await expectError(verifyPasskeyAssertion(await ceremony(ed25519, { flags: 0x04 }), options(ed25519)), 'ERR_PASSKEY_INVALID', 'authenticatorData.flags: expected UP (user present), got UV without UP');
    await expectError(verifyPasskeyAssertion(await ceremony(ed25519, { flags: 0x00 }), options(ed25519)), 'ERR_PASSKEY_INVALID', 'authenticatorData.flags: expected UP (user present), got neither UP nor UV');
  });

  it('refuses BS without BE, and AT in an assertion', async () => {
    await expectError(verifyPasskeyAssertion(await ceremony(ed25519, { flags: 0x15 }), options(ed25519)), 'ERR_PASSKEY_INVALID', 'authenticatorData.flags: expected BS (backed up) clear when BE (backup eligible) is clear, got BS set');
    await expectError(verifyPasskeyAssertion(await ceremony(ed25519, { flags: 0x45, trailing: new Uint8Array(20) }), options(ed25519)), 'ERR_PASSKEY_INVALID', 'authenticatorData.flags: expected AT clear (an assertion carries no attested credential data), got AT set');
  });

  it('refuses authenticator data whose length does not fit its flags', async () => {
    await expectError(verifyPasskeyAssertion(await ceremony(ed25519, { trailing: new Uint8Array([0xa0]) }), options(ed25519)), 'ERR_PASSKEY_INVALID', 'authenticatorData: expected 37 bytes when neither AT nor ED is set, got 38');
    await expectError(verifyPasskeyAssertion(await ceremony(ed25519, { flags: 0x85 }), options(ed25519)), 'ERR_PASSKEY_INVALID', 'authenticatorData: expected data after the first 37 bytes when AT or ED is set, got none');
    const assertion = await ceremony(ed25519);
    const short = b64u(fromB64u(assertion.authenticator_data).subarray(0, 36));
    await expectError(verifyPasskeyAssertion({ ...assertion, authenticator_data: short }, options(ed25519)), 'ERR_PASSKEY_INVALID', 'authenticatorData: expected at least 37 bytes, got 36');
  });

  it('refuses one bit flipped in authenticatorData, in the signature or in clientDataJSON (ES256 and Ed25519)', async () => {
    for (const authenticator of [es256, ed25519]) {
      const assertion = await ceremony(authenticator, { signCount: 5 });
      const opts = options(authenticator);
      await expectError(verifyPasskeyAssertion({ ...assertion, authenticator_data: flipBit(assertion.authenticator_data, 36, 1) }, opts), 'ERR_PASSKEY_INVALID', BAD_SIGNATURE);
      await expectError(verifyPasskeyAssertion({ ...assertion, authenticator_data: flipBit(assertion.authenticator_data, 32, 2) }, opts), 'ERR_PASSKEY_INVALID', BAD_SIGNATURE);
      await expectError(verifyPasskeyAssertion({ ...assertion, authenticator_data: flipBit(assertion.authenticator_data, 0) }, opts), 'ERR_PASSKEY_INVALID', BAD_SIGNATURE);
      await expectError(verifyPasskeyAssertion({ ...assertion, signature: flipBit(assertion.signature, -1) }, opts), 'ERR_PASSKEY_INVALID', BAD_SIGNATURE);
      await expectError(verifyPasskeyAssertion({ ...assertion, signature: flipBit(assertion.signature, -20, 5) }, opts), 'ERR_PASSKEY_INVALID', BAD_SIGNATURE);
      await expectError(verifyPasskeyAssertion({ ...assertion, client_data_json: flipBit(assertion.client_data_json, 30) }, opts), 'ERR_PASSKEY_INVALID', BAD_SIGNATURE);
    }
  });

  it('refuses clientDataJSON signed unhashed', async () => {
    for (const authenticator of [es256, ed25519]) {
      await expectError(verifyPasskeyAssertion(await ceremony(authenticator, { unhashed: true }), options(authenticator)), 'ERR_PASSKEY_INVALID', BAD_SIGNATURE);
    }
  });

  it('refuses an assertion by another passkey, even with its own valid signature', async () => {
    const stranger = await makeAuthenticator(-7);
    const assertion = await ceremony(stranger);
    await expectError(verifyPasskeyAssertion(assertion, options(es256)), 'ERR_PASSKEY_INVALID', "assertion.credential_id: expected the pinned passkey's id, got another");
    await expectError(verifyPasskeyAssertion({ ...assertion, credential_id: es256.credential.credential_id }, options(es256)), 'ERR_PASSKEY_INVALID', BAD_SIGNATURE);
  });

  it('refuses a sign count that does not grow, and accepts 0 after 0', async () => {
    const seven = await ceremony(es256, { signCount: 7 });
    await expectError(verifyPasskeyAssertion(seven, options(es256, { previousSignCount: 7 })), 'ERR_PASSKEY_INVALID', 'authenticatorData.signCount: expected more than 7 (the count of the last accepted assertion), got 7');
    await expectError(verifyPasskeyAssertion(seven, options(es256, { previousSignCount: 9 })), 'ERR_PASSKEY_INVALID', 'authenticatorData.signCount: expected more than 9 (the count of the last accepted assertion), got 7');
    const zero = await ceremony(es256, { signCount: 0 });
    await expectError(verifyPasskeyAssertion(zero, options(es256, { previousSignCount: 7 })), 'ERR_PASSKEY_INVALID', 'authenticatorData.signCount: expected more than 7 (the count of the last accepted assertion), got 0');
    expect(await verifyPasskeyAssertion(zero, options(es256, { previousSignCount: 0 }))).toEqual({ signCount: 0, userVerified: true });
    expect(await verifyPasskeyAssertion(zero, options(es256))).toEqual({ signCount: 0, userVerified: true });
    expect((await verifyPasskeyAssertion(seven, options(es256, { previousSignCount: 0 }))).signCount).toBe(7);
    const max = await ceremony(es256, { signCount: 0xffffffff });
    expect((await verifyPasskeyAssertion(max, options(es256, { previousSignCount: 0xfffffffe }))).signCount).toBe(0xffffffff);
  });

  it('refuses clientDataJSON that is not UTF-8 JSON of an object', async () => {
    const notJson = await ceremony(es256, { clientDataJson: utf8('type=webauthn.get') });
    await expectError(verifyPasskeyAssertion(notJson, options(es256)), 'ERR_PASSKEY_INVALID', 'clientDataJSON: expected UTF-8 JSON, got 17 bytes that are not');
    const notUtf8 = await ceremony(es256, { clientDataJson: concat(utf8('{"type":"webauthn.get","x":"'), new Uint8Array([0xff]), utf8('"}')) });
    await expectError(verifyPasskeyAssertion(notUtf8, options(es256)), 'ERR_PASSKEY_INVALID', /^clientDataJSON: expected UTF-8 JSON, got \d+ bytes that are not$/);
    const bom = await ceremony(es256, { clientDataJson: concat(new Uint8Array([0xef, 0xbb, 0xbf]), utf8(JSON.stringify({ type: 'webauthn.get', challenge: b64u(CHALLENGE), origin: ORIGIN }))) });
    await expectError(verifyPasskeyAssertion(bom, options(es256)), 'ERR_PASSKEY_INVALID', /^clientDataJSON: expected UTF-8 JSON/);
    const array = await ceremony(es256, { clientDataJson: utf8('["webauthn.get"]') });
    await expectError(verifyPasskeyAssertion(array, options(es256)), 'ERR_PASSKEY_INVALID', 'clientDataJSON: expected a JSON object, got an array of 1 item');
  });
});

describe('verifyPasskeyAssertion: ES256 signature encoding', () => {
  const malformed: Array<[string, (der: Uint8Array, raw: Uint8Array) => Uint8Array]> = [
    ['raw r || s instead of DER', (_der, raw) => raw],
    ['a trailing byte after the sequence', (der) => { const out = concat(der, new Uint8Array([0])); out[1]! += 1; return out; }],
    ['a trailing byte outside the sequence length', (der) => concat(der, new Uint8Array([0]))],
    ['a sequence length one short', (der) => { const out = der.slice(); out[1]! -= 1; return out; }],
    ['another outer tag (SET)', (der) => { const out = der.slice(); out[0] = 0x31; return out; }],
    ['another integer tag', (der) => { const out = der.slice(); out[2] = 0x03; return out; }],
    ['a long-form length', (der) => concat(new Uint8Array([0x30, 0x81, der[1]!]), der.subarray(2))],
    ['r with a needless leading zero', (der) => {
      const rLength = der[3]!;
      const r = der.subarray(4, 4 + rLength);
      const padded = concat(new Uint8Array([0x02, rLength + 1, 0x00]), r);
      const body = concat(padded, der.subarray(4 + rLength));
      return concat(new Uint8Array([0x30, body.length]), body);
    }],
    ['r made negative (sign byte dropped)', (der) => {
      if (der[4] !== 0) return new Uint8Array([0x30, 0x06, 0x02, 0x01, 0x80, 0x02, 0x01, 0x01]);
      const rLength = der[3]!;
      const body = concat(new Uint8Array([0x02, rLength - 1]), der.subarray(5, 4 + rLength), der.subarray(4 + rLength));
      return concat(new Uint8Array([0x30, body.length]), body);
    }],
    ['s missing', (der) => { const rEnd = 4 + der[3]!; return concat(new Uint8Array([0x30, rEnd - 2]), der.subarray(2, rEnd)); }],
    ['r of 33 bytes without a sign byte', () => concat(new Uint8Array([0x30, 0x26, 0x02, 0x21, 0x01]), new Uint8Array(32).fill(1), new Uint8Array([0x02, 0x01, 0x01]))],
    ['an empty integer', () => new Uint8Array([0x30, 0x06, 0x02, 0x00, 0x02, 0x02, 0x01, 0x01])],
    ['a single byte', () => new Uint8Array([0x30])],
  ];

  for (const [name, mutate] of malformed) {
    it(`refuses malformed DER: ${name}`, async () => {
      const assertion = await ceremony(es256, { signatureFormat: (raw) => mutate(rawToDer(raw), raw) });
      await expectError(verifyPasskeyAssertion(assertion, options(es256)), 'ERR_PASSKEY_INVALID', DER_REFUSED);
    });
  }

  it('refuses a DER signature whose integers are valid but wrong (r = s = 1)', async () => {
    const assertion = await ceremony(es256, { signatureFormat: () => new Uint8Array([0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01]) });
    await expectError(verifyPasskeyAssertion(assertion, options(es256)), 'ERR_PASSKEY_INVALID', BAD_SIGNATURE);
  });

  it('refuses an Ed25519 signature that is not 64 bytes, or that is DER-wrapped', async () => {
    await expectError(verifyPasskeyAssertion(await ceremony(ed25519, { signatureFormat: (s) => s.subarray(0, 63) }), options(ed25519)), 'ERR_PASSKEY_INVALID', 'signature: expected 64 bytes (Ed25519), got 63');
    await expectError(verifyPasskeyAssertion(await ceremony(ed25519, { signatureFormat: rawToDer }), options(ed25519)), 'ERR_PASSKEY_INVALID', /^signature: expected 64 bytes \(Ed25519\), got 7\d$/);
  });
});

describe('verifyPasskeyAssertion: the assertion schema', () => {
  let valid: PasskeyAssertion;
  beforeAll(async () => {
    valid = await ceremony(ed25519);
  });

  it('refuses what is not an assertion object', async () => {
    await expectError(verifyPasskeyAssertion(null, options(ed25519)), 'ERR_PASSKEY_INVALID', /^assertion: expected .*, got null$/);
    await expectError(verifyPasskeyAssertion('assertion', options(ed25519)), 'ERR_PASSKEY_INVALID', /^assertion: expected .*, got a string/);
  });

  it('refuses a missing member, naming it', async () => {
    for (const member of ['credential_id', 'authenticator_data', 'client_data_json', 'signature'] as const) {
      const { [member]: _gone, ...rest } = valid;
      await expectError(verifyPasskeyAssertion(rest, options(ed25519)), 'ERR_PASSKEY_INVALID', new RegExp(`^assertion\\.${member}: expected unpadded canonical base64url of 1 to \\d+ bytes, got nothing$`));
    }
  });

  it('refuses an unknown member', async () => {
    await expectError(verifyPasskeyAssertion({ ...valid, userHandle: 'abc' }, options(ed25519)), 'ERR_PASSKEY_INVALID', 'assertion: expected no other members, got member userHandle');
  });

  it('refuses base64url that is not canonical: padding, standard alphabet, white space, unused bits set, empty', async () => {
    // An Ed25519 signature is 64 bytes: 86 characters, the last one with 4 unused bits (so B and C set some).
    const signature = valid.signature;
    for (const spelling of [`${signature}==`, signature.replace(/-/g, '+').replace(/_/g, '/').padEnd(signature.length + 1, '+'), ` ${signature}`, `${signature.slice(0, -1)}${signature.endsWith('B') ? 'C' : 'B'}`, '']) {
      if (spelling === signature) continue;
      await expectError(verifyPasskeyAssertion({ ...valid, signature: spelling }, options(ed25519)), 'ERR_PASSKEY_INVALID', /^assertion\.signature: expected unpadded canonical base64url of 1 to 256 bytes, got /);
    }
    await expectError(verifyPasskeyAssertion({ ...valid, client_data_json: 42 }, options(ed25519)), 'ERR_PASSKEY_INVALID', 'assertion.client_data_json: expected unpadded canonical base64url of 1 to 4096 bytes, got a number');
  });

  it('refuses oversized members before decoding them', async () => {
    const big = (bytes: number): string => b64u(new Uint8Array(bytes));
    await expectError(verifyPasskeyAssertion({ ...valid, signature: big(257) }, options(ed25519)), 'ERR_PASSKEY_INVALID', 'assertion.signature: expected unpadded canonical base64url of 1 to 256 bytes, got 343 characters');
    await expectError(verifyPasskeyAssertion({ ...valid, authenticator_data: big(1025) }, options(ed25519)), 'ERR_PASSKEY_INVALID', 'assertion.authenticator_data: expected unpadded canonical base64url of 1 to 1024 bytes, got 1367 characters');
    await expectError(verifyPasskeyAssertion({ ...valid, client_data_json: big(4097) }, options(ed25519)), 'ERR_PASSKEY_INVALID', 'assertion.client_data_json: expected unpadded canonical base64url of 1 to 4096 bytes, got 5463 characters');
    await expectError(verifyPasskeyAssertion({ ...valid, credential_id: big(1024) }, options(ed25519)), 'ERR_PASSKEY_INVALID', 'assertion.credential_id: expected unpadded canonical base64url of 1 to 1023 bytes, got 1366 characters');
    await expectError(verifyPasskeyAssertion({ ...valid, signature: 'A'.repeat(1_000_000) }, options(ed25519)), 'ERR_PASSKEY_INVALID', /got 1000000 characters$/);
  });

  it('accepts members at their largest sizes as far as the schema goes', () => {
    const at = (bytes: number): string => b64u(new Uint8Array(bytes));
    expect(passkeyAssertionSchema.safeParse({ credential_id: at(1023), authenticator_data: at(1024), client_data_json: at(4096), signature: at(256) }).success).toBe(true);
  });
});

describe('verifyPasskeyAssertion: options', () => {
  it('refuses options it does not take, with ERR_ARGUMENT_INVALID', async () => {
    const assertion = await ceremony(es256);
    await expectError(verifyPasskeyAssertion(assertion, null as unknown as VerifyPasskeyAssertionOptions), 'ERR_ARGUMENT_INVALID', 'options: expected an object, got null');
    await expectError(verifyPasskeyAssertion(assertion, options(es256, { challenge: CHALLENGE.subarray(0, 16) })), 'ERR_ARGUMENT_INVALID', 'options.challenge: expected the 32 bytes of passkeyChallenge(claims), got 16 bytes');
    await expectError(verifyPasskeyAssertion(assertion, options(es256, { challenge: b64u(CHALLENGE) as unknown as Uint8Array })), 'ERR_ARGUMENT_INVALID', 'options.challenge: expected the 32 bytes of passkeyChallenge(claims), got a string of 43 characters');
    await expectError(verifyPasskeyAssertion(assertion, options(es256, { origin: '' })), 'ERR_ARGUMENT_INVALID', "options.origin: expected the approval window's origin, got a string of 0 characters");
    for (const previousSignCount of [-1, 1.5, 2 ** 32, Number.NaN]) {
      await expectError(verifyPasskeyAssertion(assertion, options(es256, { previousSignCount })), 'ERR_ARGUMENT_INVALID', /^options\.previousSignCount: expected an integer from 0 to 4294967295, got /);
    }
    await expectError(verifyPasskeyAssertion(assertion, options(es256, { credential: { ...es256.credential, alg: -257 as PasskeyAlg } })), 'ERR_ARGUMENT_INVALID', 'options.credential.alg: expected -7 (ES256) or -8 (EdDSA), got a number that is not');
  });

  it('fails closed when an option throws while read', async () => {
    const assertion = await ceremony(es256);
    const hostile = { credential: es256.credential, challenge: CHALLENGE, get origin(): string { throw new Error('boom'); } };
    await expectError(verifyPasskeyAssertion(assertion, hostile), 'ERR_ARGUMENT_INVALID', 'options: expected values that can be read, got one that threw, so the assertion was not verified');
  });

  it('checks the key it is given against the alg: a key of the other type is refused before use', async () => {
    const assertion = await ceremony(es256);
    await expectError(verifyPasskeyAssertion(assertion, options(es256, { credential: { ...es256.credential, alg: -8 } })), 'ERR_ARGUMENT_INVALID', 'options.credential.public_key: expected the SPKI DER of an Ed25519 public key (alg -8), 44 bytes, got another key');
  });

  it('refuses a P-256 key that is not on the curve as a key WebCrypto cannot import', async () => {
    const spki = fromB64u(es256.credential.public_key);
    spki[90]! ^= 0x01; // y no longer matches x
    const error = await rejection(verifyPasskeyAssertion(await ceremony(es256), options(es256, { credential: { ...es256.credential, public_key: b64u(spki) } })));
    expect(error.code).toBe('ERR_KEY_INVALID');
    expect(error.message).toBe("credential.public_key: expected a P-256 public key (alg -7), 91 bytes this engine's WebCrypto can import, got one it refused");
  });
});

describe('https origins', () => {
  it('hash the host as the RP ID, as for a web page (with or without a port)', async () => {
    for (const [rpId, host] of [['https://approvals.example', 'approvals.example'], ['https://approvals.example:8443', 'approvals.example']] as const) {
      const web = await makeAuthenticator(-8, rpId);
      const assertion = await ceremony(web, { rpId: host, origin: rpId });
      expect((await verifyPasskeyAssertion(assertion, options(web, { origin: rpId }))).userVerified).toBe(true);
      await expectError(verifyPasskeyAssertion(await ceremony(web, { origin: rpId }), options(web, { origin: rpId })), 'ERR_PASSKEY_INVALID', `authenticatorData.rpIdHash: expected the SHA-256 of the RP ID "${host}", got another`);
    }
  });
});

describe('passkeyCredentialSchema', () => {
  it('accepts the credentials of both algorithms and the three kinds of origin', async () => {
    expect(passkeyCredentialSchema.parse(es256.credential)).toEqual(es256.credential);
    expect(passkeyCredentialSchema.parse(ed25519.credential)).toEqual(ed25519.credential);
    for (const rp_id of ['moz-extension://0d3b5f8c-8a8e-4f4e-9d1a-1f0d6b3c2a11', 'https://approvals.example', 'https://approvals.example:8443']) {
      expect(passkeyCredentialSchema.safeParse({ ...ed25519.credential, rp_id }).success).toBe(true);
    }
  });

  it('refuses an rp_id that is not an origin', () => {
    for (const rp_id of [BARE_ID, `${ORIGIN}/`, `${ORIGIN}/approve.html`, 'http://approvals.example', 'https://', 'chrome-extension://', `chrome-extension://${'a'.repeat(190)}`, '']) {
      const result = passkeyCredentialSchema.safeParse({ ...ed25519.credential, rp_id });
      expect(result.success, rp_id).toBe(false);
    }
  });

  it('refuses another alg, a key of the wrong shape, an invalid registered_at, extra members', () => {
    const bad = [
      { ...es256.credential, alg: -257 },
      { ...es256.credential, alg: '-7' },
      { ...es256.credential, public_key: ed25519.credential.public_key },
      { ...es256.credential, public_key: b64u(fromB64u(es256.credential.public_key).subarray(0, 90)) },
      { ...es256.credential, registered_at: '2026-02-30T00:00:00Z' },
      { ...es256.credential, registered_at: '2026-09-14 09:12:44' },
      { ...es256.credential, private_key: 'x' },
      { ...es256.credential, credential_id: '' },
    ];
    for (const credential of bad) expect(passkeyCredentialSchema.safeParse(credential).success, JSON.stringify(credential).slice(0, 80)).toBe(false);
  });
});

describe('parseAuthenticatorData', () => {
  it('reads rpIdHash, every flag and the big-endian signCount (section 6.1)', () => {
    const rpIdHash = sha256(ORIGIN);
    const parsed = parseAuthenticatorData(concat(rpIdHash, new Uint8Array([0x1d, 0x01, 0x02, 0x03, 0x04])));
    expect(parsed).toEqual({ rpIdHash, flags: { up: true, uv: true, be: true, bs: true, at: false, ed: false }, signCount: 0x01020304 });
    expect(parseAuthenticatorData(concat(rpIdHash, new Uint8Array([0xc0, 0xff, 0xff, 0xff, 0xff, 0xa0]))).flags).toEqual({ up: false, uv: false, be: false, bs: false, at: true, ed: true });
    expect(parseAuthenticatorData(concat(rpIdHash, new Uint8Array([0xc0, 0xff, 0xff, 0xff, 0xff, 0xa0]))).signCount).toBe(0xffffffff);
  });

  it('reads a view into a larger buffer at its own offset', () => {
    const backing = concat(new Uint8Array(7), sha256(ORIGIN), new Uint8Array([0x05, 0, 0, 0, 9]));
    expect(parseAuthenticatorData(backing.subarray(7)).signCount).toBe(9);
  });

  it('refuses fewer than 37 bytes, and what is not bytes', () => {
    expect(() => parseAuthenticatorData(new Uint8Array(36))).toThrow(expect.objectContaining({ code: 'ERR_PASSKEY_INVALID', message: 'authenticatorData: expected at least 37 bytes, got 36' }));
    expect(() => parseAuthenticatorData('bytes' as unknown as Uint8Array)).toThrow(expect.objectContaining({ code: 'ERR_ARGUMENT_INVALID' }));
  });
});

describe('passkeyChallenge', () => {
  const claims = { v: 1, status: 'approved', operation_id: 'exc_5Rt2', company: { name: 'Stormline', origin: 'https://stormline.example' }, iat: 1791486900 };

  it('is the SHA-256 of the UTF-8 RFC 8785 canonical JSON of the claims, whatever their member order', async () => {
    const expected = sha256(utf8(canonicalJson(claims)));
    expect(await passkeyChallenge(claims)).toEqual(expected);
    const reordered = { iat: claims.iat, company: { origin: claims.company.origin, name: claims.company.name }, operation_id: claims.operation_id, status: claims.status, v: claims.v };
    expect(await passkeyChallenge(reordered)).toEqual(expected);
    expect(await passkeyChallengeBase64url(claims)).toBe(b64u(expected));
    expect(await passkeyChallengeBase64url(claims)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('changes with any claim', async () => {
    expect(await passkeyChallengeBase64url({ ...claims, status: 'declined' })).not.toBe(await passkeyChallengeBase64url(claims));
  });

  it('refuses what is not a claims object, or not JSON', async () => {
    await expectError(passkeyChallenge('claims'), 'ERR_ARGUMENT_INVALID', "claims: expected the decision's claims object, got a string of 6 characters");
    await expectError(passkeyChallenge([claims]), 'ERR_ARGUMENT_INVALID', "claims: expected the decision's claims object, got an array of 1 item");
    const notJson = await rejection(passkeyChallenge({ ...claims, iat: Number.NaN }));
    expect(notJson.code).toBe('ERR_ARGUMENT_INVALID');
    expect(notJson.message).toBe('canonicalJson: value.iat: expected a finite number, got NaN');
  });
});

describe('exports', () => {
  it('names COSE ES256 and EdDSA, and exports the passkey API from src/protocol', () => {
    expect(PASSKEY_ALGORITHMS).toEqual([-7, -8]);
    expect(protocol.verifyPasskeyAssertion).toBe(verifyPasskeyAssertion);
    expect(protocol.passkeyChallenge).toBe(passkeyChallenge);
    expect(protocol.passkeyChallengeBase64url).toBe(passkeyChallengeBase64url);
    expect(protocol.parseAuthenticatorData).toBe(parseAuthenticatorData);
    expect(protocol.passkeyCredentialSchema).toBe(passkeyCredentialSchema);
    expect(protocol.passkeyAssertionSchema).toBe(passkeyAssertionSchema);
    expect(protocol.ERROR_CODES).toContain('ERR_PASSKEY_INVALID');
  });
});
