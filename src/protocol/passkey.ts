import * as z from 'zod';
import { B64U_PATTERN, base64urlDecode, base64urlEncode } from './base64url';
import { canonicalJson } from './canonical-json';
import { CountersignError, isCountersignError } from './errors';
import { describeNumber, describeValue, isObject } from './issues';
import { parseWith } from './parse-with';
import { RFC3339_RULE, checkRfc3339 } from './rfc3339';
import { sha256, subtle } from './webcrypto';

/**
 * Passkey-verified decisions: after the person clicks Approve, the approval window asks their
 * passkey for a WebAuthn assertion (`navigator.credentials.get` with `userVerification:
 * 'required'`) whose challenge is the SHA-256 of the decision's claims, and whoever relies on the
 * decision (the agent SDK, the extension's own background) checks that assertion as a WebAuthn
 * relying party would (Web Authentication Level 3, section 7.2 "Verifying an Authentication
 * Assertion"). A decision then carries proof that a person who passed user verification (a
 * fingerprint, a face, a PIN) confirmed exactly these claims, not merely that the extension's key
 * signed them.
 *
 * Format, for agents in other languages (test/fixtures/passkey/ has vectors):
 *
 *   challenge = SHA-256(UTF-8(RFC 8785 canonical JSON of the decision's claims)), 32 bytes
 *   credential (pinned): { credential_id, public_key (SPKI DER), alg: -7 | -8, rp_id, registered_at }
 *   assertion: { credential_id, authenticator_data, client_data_json, signature }
 *   binary members are unpadded canonical base64url (RFC 4648 section 5)
 *
 * The RP ID of an extension page is its whole origin, `chrome-extension://<id>`: that is what
 * Chromium hashes into authenticator data (measured), not the bare ID. For an `https://` origin
 * the RP ID is its host, as for any web page (section 5.5, `rpId` defaults to the origin's
 * effective domain).
 *
 * Isomorphic (browser and Node): WebCrypto (`globalThis.crypto.subtle`), zod and src/protocol
 * only. Errors never echo the values that failed: client data and signatures come from outside.
 */

/** COSE algorithms a passkey may use (IANA COSE registry): -7 ES256 (P-256, SHA-256), -8 EdDSA (Ed25519). */
export const PASSKEY_ALGORITHMS = [-7, -8] as const;
export type PasskeyAlg = (typeof PASSKEY_ALGORITHMS)[number];

/** Credential IDs are at most 1023 bytes (section 4, "Credential ID"). */
const MAX_CREDENTIAL_ID_BYTES = 1023;
/** An assertion's authenticator data is 37 bytes plus any extension outputs; a KiB is ample. */
const MAX_AUTHENTICATOR_DATA_BYTES = 1024;
/** Chromium's clientDataJSON is about 150 bytes, more with keys it may add; 4 KiB bounds the parse. */
const MAX_CLIENT_DATA_JSON_BYTES = 4096;
/** A DER ES256 signature is at most 72 bytes and an Ed25519 one 64; 256 leaves room and no more. */
const MAX_SIGNATURE_BYTES = 256;
/** A public key as SPKI DER: 91 bytes for P-256, 44 for Ed25519. */
const MAX_PUBLIC_KEY_BYTES = 1024;
/** rpIdHash (32) + flags (1) + signCount (4): section 6.1, "Authenticator Data". */
const AUTHENTICATOR_DATA_HEADER_BYTES = 37;

function invalid(message: string, cause?: unknown): CountersignError {
  return new CountersignError('ERR_PASSKEY_INVALID', message, cause === undefined ? undefined : { cause });
}

function argumentInvalid(message: string): CountersignError {
  return new CountersignError('ERR_ARGUMENT_INVALID', message);
}

// ---------------------------------------------------------------------------------------------
// Schemas

/** Canonical base64url, so one value has one spelling and comparing strings compares bytes. */
function isCanonicalBase64url(value: string): boolean {
  if (!B64U_PATTERN.test(value)) return false;
  try {
    base64urlDecode(value);
    return true;
  } catch {
    return false;
  }
}

/**
 * Unpadded canonical base64url of 1 to `maxBytes` bytes. The length is checked on the text before
 * anything is decoded, so an oversized value costs nothing.
 */
function base64urlBytesSchema(maxBytes: number) {
  const rule = `expected unpadded canonical base64url of 1 to ${maxBytes} bytes`;
  const maxCharacters = Math.ceil((maxBytes * 4) / 3);
  return z.string({ error: rule }).superRefine((value, ctx) => {
    if (value.length === 0 || value.length > maxCharacters) {
      ctx.addIssue({ code: 'custom', message: `${rule}, got ${value.length} characters`, input: value });
    } else if (!isCanonicalBase64url(value)) {
      ctx.addIssue({ code: 'custom', message: rule, input: value });
    }
  });
}

const RP_ID_RULE = 'the origin the passkey was registered from: "chrome-extension://<id>", "moz-extension://<id>" or "https://<host>", 1 to 200 characters';
/** An origin as the browser serializes it: no path, no trailing slash (which no rpIdHash would match). */
const RP_ID_PATTERN = /^(?:(?:chrome|moz)-extension:\/\/[A-Za-z0-9-]+|https:\/\/[a-z0-9.-]+(?::[0-9]{1,5})?)$/;

/** The alg of a COSE key and the fixed start of its SPKI DER (RFC 5480 section 2; RFC 8410 section 4). */
const SPKI_PREFIXES: Readonly<Record<PasskeyAlg, { name: string; prefix: readonly number[]; length: number }>> = {
  // SEQUENCE { SEQUENCE { id-ecPublicKey, prime256v1 }, BIT STRING { 0x04 (uncompressed) x y } }
  [-7]: {
    name: 'a P-256 public key (alg -7), 91 bytes',
    prefix: [0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00, 0x04],
    length: 91,
  },
  // SEQUENCE { SEQUENCE { id-Ed25519 }, BIT STRING { 32 bytes } }
  [-8]: { name: 'an Ed25519 public key (alg -8), 44 bytes', prefix: [0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00], length: 44 },
};

function spkiFits(publicKey: string, alg: PasskeyAlg): boolean {
  const { prefix, length } = SPKI_PREFIXES[alg];
  if (!isCanonicalBase64url(publicKey)) return false;
  const bytes = base64urlDecode(publicKey);
  return bytes.length === length && prefix.every((byte, i) => bytes[i] === byte);
}

/**
 * The passkey an agent pins, as the extension registered it: `public_key` is what
 * `AuthenticatorAttestationResponse.getPublicKey()` returns (SPKI DER), `alg` what
 * `getPublicKeyAlgorithm()` returns, `rp_id` the origin of the page that called `create()`.
 */
export const passkeyCredentialSchema = z
  .strictObject({
    credential_id: base64urlBytesSchema(MAX_CREDENTIAL_ID_BYTES),
    public_key: base64urlBytesSchema(MAX_PUBLIC_KEY_BYTES),
    alg: z.literal(PASSKEY_ALGORITHMS, { error: 'expected -7 (ES256) or -8 (EdDSA)' }),
    rp_id: z.string({ error: `expected ${RP_ID_RULE}` }).max(200, { error: `expected ${RP_ID_RULE}` }).regex(RP_ID_PATTERN, { error: `expected ${RP_ID_RULE}` }),
    registered_at: z.string({ error: `expected ${RFC3339_RULE}` }).superRefine((value, ctx) => {
      const check = checkRfc3339(value);
      if (!check.ok) ctx.addIssue({ code: 'custom', message: check.reason, input: value });
    }),
  })
  .superRefine((credential, ctx) => {
    // The key must be of the alg's type: a credential never asks for another algorithm than its key.
    if (!spkiFits(credential.public_key, credential.alg)) {
      ctx.addIssue({ code: 'custom', path: ['public_key'], message: `expected the SPKI DER of ${SPKI_PREFIXES[credential.alg].name}, got another key`, input: credential.public_key });
    }
  });
export type PasskeyCredential = z.output<typeof passkeyCredentialSchema>;

/** What the approval window passes on from `navigator.credentials.get()`: the response's three buffers and the credential's id. */
export const passkeyAssertionSchema = z.strictObject({
  credential_id: base64urlBytesSchema(MAX_CREDENTIAL_ID_BYTES),
  authenticator_data: base64urlBytesSchema(MAX_AUTHENTICATOR_DATA_BYTES),
  client_data_json: base64urlBytesSchema(MAX_CLIENT_DATA_JSON_BYTES),
  signature: base64urlBytesSchema(MAX_SIGNATURE_BYTES),
});
export type PasskeyAssertion = z.output<typeof passkeyAssertionSchema>;

// ---------------------------------------------------------------------------------------------
// The challenge

/**
 * The challenge of the passkey confirmation of a decision: SHA-256 of the UTF-8 bytes of the RFC
 * 8785 canonical JSON of its claims. Canonical JSON makes it independent of member order, so the
 * window, the background and an agent in any language compute the same 32 bytes. Section 13.4.3
 * ("Cryptographic Challenges") asks for challenges nobody can guess: the claims carry the request's
 * random 32-byte nonce.
 */
export async function passkeyChallenge(claims: unknown): Promise<Uint8Array> {
  if (!isObject(claims)) throw argumentInvalid(`claims: expected the decision's claims object, got ${describeValue(claims)}`);
  return sha256(new TextEncoder().encode(canonicalJson(claims)));
}

/** `passkeyChallenge` as clientDataJSON spells it: unpadded base64url (section 5.8.1, `challenge`). */
export async function passkeyChallengeBase64url(claims: unknown): Promise<string> {
  return base64urlEncode(await passkeyChallenge(claims));
}

// ---------------------------------------------------------------------------------------------
// Authenticator data (section 6.1)

export interface AuthenticatorData {
  rpIdHash: Uint8Array;
  /** UP user present, UV user verified, BE backup eligible, BS backed up, AT attested credential data, ED extension data. */
  flags: { up: boolean; uv: boolean; be: boolean; bs: boolean; at: boolean; ed: boolean };
  signCount: number;
}

/**
 * The fixed part of authenticator data: rpIdHash (32 bytes), flags (1), signCount (4, big-endian).
 * Attested credential data and extensions, flagged by AT and ED, are not read; bytes after the
 * fixed part are refused when neither flag announces them, and required when one does.
 */
export function parseAuthenticatorData(bytes: Uint8Array): AuthenticatorData {
  if (!(bytes instanceof Uint8Array)) throw argumentInvalid(`bytes: expected a Uint8Array, got ${describeValue(bytes)}`);
  if (bytes.length < AUTHENTICATOR_DATA_HEADER_BYTES) throw invalid(`authenticatorData: expected at least ${AUTHENTICATOR_DATA_HEADER_BYTES} bytes, got ${bytes.length}`);
  const flagByte = bytes[32] as number;
  const flags = {
    up: (flagByte & 0x01) !== 0,
    uv: (flagByte & 0x04) !== 0,
    be: (flagByte & 0x08) !== 0,
    bs: (flagByte & 0x10) !== 0,
    at: (flagByte & 0x40) !== 0,
    ed: (flagByte & 0x80) !== 0,
  };
  const announced = flags.at || flags.ed;
  if (!announced && bytes.length > AUTHENTICATOR_DATA_HEADER_BYTES) {
    throw invalid(`authenticatorData: expected ${AUTHENTICATOR_DATA_HEADER_BYTES} bytes when neither AT nor ED is set, got ${bytes.length}`);
  }
  if (announced && bytes.length === AUTHENTICATOR_DATA_HEADER_BYTES) {
    throw invalid(`authenticatorData: expected data after the first ${AUTHENTICATOR_DATA_HEADER_BYTES} bytes when AT or ED is set, got none`);
  }
  const signCount = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(33, false);
  return { rpIdHash: bytes.slice(0, 32), flags, signCount };
}

// ---------------------------------------------------------------------------------------------
// Signatures: ES256 assertion signatures are DER, EdDSA ones the raw 64 bytes (section 6.5.5,
// "Signature Formats for Packed Attestation, FIDO U2F Attestation, and Assertion Signatures")

/**
 * One INTEGER of an Ecdsa-Sig-Value (RFC 3279 section 2.2.3) in DER (X.690 section 8.3): positive
 * and minimal, so one signature has one encoding. Returns its value without the sign byte.
 */
function readDerInteger(der: Uint8Array, at: number): { value: Uint8Array; next: number } | undefined {
  if (der[at] !== 0x02) return undefined;
  const length = der[at + 1];
  if (length === undefined || length < 1 || length > 33) return undefined;
  const start = at + 2;
  const end = start + length;
  if (end > der.length) return undefined;
  const value = der.subarray(start, end);
  const first = value[0] as number;
  if ((first & 0x80) !== 0) return undefined; // negative
  if (length > 1 && first === 0 && ((value[1] as number) & 0x80) === 0) return undefined; // a needless leading zero
  const magnitude = length > 1 && first === 0 ? value.subarray(1) : value;
  if (magnitude.length > 32) return undefined;
  return { value: magnitude, next: end };
}

/**
 * DER `SEQUENCE { r INTEGER, s INTEGER }` to the raw r || s (32 bytes each) WebCrypto verifies.
 * Handing WebCrypto the DER itself makes `verify` return false with no error, so a wrong
 * conversion would look like a bad signature; anything that is not strict DER is refused here.
 */
function ecdsaDerToRaw(der: Uint8Array): Uint8Array | undefined {
  // 72 bytes at most (two 33-byte integers), so the length is always in DER's one-byte short form.
  if (der.length < 8 || der.length > 72 || der[0] !== 0x30 || der[1] !== der.length - 2) return undefined;
  const r = readDerInteger(der, 2);
  if (r === undefined) return undefined;
  const s = readDerInteger(der, r.next);
  if (s === undefined || s.next !== der.length) return undefined;
  const raw = new Uint8Array(64);
  raw.set(r.value, 32 - r.value.length);
  raw.set(s.value, 64 - s.value.length);
  return raw;
}

async function importCredentialKey(credential: PasskeyCredential): Promise<CryptoKey> {
  const algorithm = credential.alg === -7 ? { name: 'ECDSA', namedCurve: 'P-256' } : { name: 'Ed25519' };
  try {
    return await subtle().importKey('spki', base64urlDecode(credential.public_key) as Uint8Array<ArrayBuffer>, algorithm, false, ['verify']);
  } catch (cause) {
    if (isCountersignError(cause)) throw cause;
    throw new CountersignError('ERR_KEY_INVALID', `credential.public_key: expected ${SPKI_PREFIXES[credential.alg].name} this engine's WebCrypto can import, got one it refused`, { cause });
  }
}

const BAD_SIGNATURE = "signature: expected the pinned passkey's signature over authenticatorData and the SHA-256 of clientDataJSON, got one that does not verify";

/** Section 7.2: the signature covers authenticatorData || SHA-256(clientDataJSON), the bytes exactly as received. */
async function checkSignature(credential: PasskeyCredential, authenticatorData: Uint8Array, clientDataJson: Uint8Array, signature: Uint8Array): Promise<void> {
  let raw: Uint8Array;
  if (credential.alg === -7) {
    const converted = ecdsaDerToRaw(signature);
    if (converted === undefined) throw invalid(`signature: expected a DER-encoded ECDSA signature (ES256), got ${signature.length} bytes that are not`);
    raw = converted;
  } else {
    if (signature.length !== 64) throw invalid(`signature: expected 64 bytes (Ed25519), got ${signature.length}`);
    raw = signature;
  }
  const clientDataHash = await sha256(clientDataJson);
  const signed = new Uint8Array(authenticatorData.length + clientDataHash.length);
  signed.set(authenticatorData);
  signed.set(clientDataHash, authenticatorData.length);
  const key = await importCredentialKey(credential);
  const algorithm = credential.alg === -7 ? { name: 'ECDSA', hash: 'SHA-256' } : { name: 'Ed25519' };
  let valid: boolean;
  try {
    valid = await subtle().verify(algorithm, key, raw as Uint8Array<ArrayBuffer>, signed);
  } catch (cause) {
    throw invalid(BAD_SIGNATURE, cause);
  }
  if (!valid) throw invalid(BAD_SIGNATURE);
}

// ---------------------------------------------------------------------------------------------
// Client data (section 5.8.1, "Client Data Used in WebAuthn Signatures")

/**
 * Parsed, never compared with a template: browsers may add members (Chromium once added
 * `other_keys_can_be_added_here`; the specification's own test vectors carry `extraData`), and
 * sections 5.8.1.1 and 5.8.1.2 fix the order of the first members only.
 */
function parseClientData(bytes: Uint8Array): Record<string, unknown> {
  let parsed: unknown;
  try {
    // fatal: invalid UTF-8 is refused, not replaced; ignoreBOM keeps a BOM, which JSON.parse refuses.
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes));
  } catch (cause) {
    throw invalid(`clientDataJSON: expected UTF-8 JSON, got ${bytes.length} bytes that are not`, cause);
  }
  if (!isObject(parsed)) throw invalid(`clientDataJSON: expected a JSON object, got ${describeValue(parsed)}`);
  return parsed;
}

/** A value the message may name because it is one of ours, or its type and size otherwise. */
function named(value: unknown, known: readonly string[]): string {
  return typeof value === 'string' && known.includes(value) ? JSON.stringify(value) : describeValue(value);
}

function checkClientData(clientData: Record<string, unknown>, challenge: string, origin: string): void {
  const { type, challenge: gotChallenge, origin: gotOrigin, crossOrigin, topOrigin } = clientData;
  if (type !== 'webauthn.get') throw invalid(`clientDataJSON.type: expected "webauthn.get", got ${named(type, ['webauthn.create', 'payment.get'])}`);
  if (gotChallenge !== challenge) {
    throw invalid(`clientDataJSON.challenge: expected the hash of this decision's claims, got ${typeof gotChallenge === 'string' ? 'another' : describeValue(gotChallenge)}`);
  }
  if (gotOrigin !== origin) throw invalid(`clientDataJSON.origin: expected ${JSON.stringify(origin)}, got ${typeof gotOrigin === 'string' ? 'another origin' : describeValue(gotOrigin)}`);
  // The approval window is a top-level page of the extension: an assertion made inside a frame
  // of another origin is not the person confirming in that window.
  if (crossOrigin !== undefined && crossOrigin !== false) {
    throw invalid(`clientDataJSON.crossOrigin: expected false or no member, got ${crossOrigin === true ? 'true' : describeValue(crossOrigin)}`);
  }
  if (topOrigin !== undefined) throw invalid(`clientDataJSON.topOrigin: expected no member (it comes only with crossOrigin true), got ${describeValue(topOrigin)}`);
}

// ---------------------------------------------------------------------------------------------
// Verification

/**
 * The RP ID (section 4) whose SHA-256 is rpIdHash. A page that calls `get()` without `rpId` uses
 * its origin's effective domain (section 5.5): the host of a web origin. For an extension page
 * Chromium uses the whole origin, `chrome-extension://<id>` (measured: not SHA-256 of the ID).
 */
function relyingPartyId(rpId: string): string {
  if (!rpId.startsWith('https://')) return rpId;
  return rpId.slice('https://'.length).replace(/:[0-9]+$/, '');
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

async function checkAuthenticatorData(authData: AuthenticatorData, rpId: string): Promise<void> {
  const expectedRpId = relyingPartyId(rpId);
  if (!sameBytes(authData.rpIdHash, await sha256(new TextEncoder().encode(expectedRpId)))) {
    throw invalid(`authenticatorData.rpIdHash: expected the SHA-256 of the RP ID ${JSON.stringify(expectedRpId)}, got another`);
  }
  const { up, uv, be, bs, at } = authData.flags;
  if (!up) throw invalid(`authenticatorData.flags: expected UP (user present), got ${uv ? 'UV without UP' : 'neither UP nor UV'}`);
  // The window asked for userVerification 'required'; a browser may still return UV clear (for
  // 'discouraged', or from a hostile page), so the flag is checked here, not trusted (section 7.2).
  if (!uv) throw invalid('authenticatorData.flags: expected UV (user verified), got UP only');
  if (bs && !be) throw invalid('authenticatorData.flags: expected BS (backed up) clear when BE (backup eligible) is clear, got BS set');
  if (at) throw invalid('authenticatorData.flags: expected AT clear (an assertion carries no attested credential data), got AT set');
}

/**
 * Section 6.1.1: a count that does not grow may mean a cloned authenticator. Authenticators that
 * keep no count always report 0 (many synced passkeys do); 0 after 0 is accepted.
 */
function checkSignCount(signCount: number, previous: number): void {
  if ((previous > 0 || signCount > 0) && signCount <= previous) {
    throw invalid(`authenticatorData.signCount: expected more than ${previous} (the count of the last accepted assertion), got ${signCount}`);
  }
}

export interface VerifyPasskeyAssertionOptions {
  /** The passkey pinned for this extension. The only key the assertion is checked with. */
  credential: PasskeyCredential;
  /** `passkeyChallenge(claims)` of the decision this assertion must confirm, computed by the verifier. */
  challenge: Uint8Array;
  /** The origin the approval window runs at, `chrome-extension://<id>`. */
  origin: string;
  /** signCount of the last assertion accepted from this passkey; 0 or absent for none. */
  previousSignCount?: number;
}

interface CheckedOptions {
  credential: PasskeyCredential;
  challenge: string;
  origin: string;
  previousSignCount: number;
}

function checkOptions(options: VerifyPasskeyAssertionOptions): CheckedOptions {
  if (!isObject(options)) throw argumentInvalid(`options: expected an object, got ${describeValue(options)}`);
  const credential = parseWith(passkeyCredentialSchema, options.credential, 'ERR_ARGUMENT_INVALID', 'options.credential');
  const { challenge, origin, previousSignCount = 0 } = options;
  if (!(challenge instanceof Uint8Array) || challenge.length !== 32) {
    throw argumentInvalid(`options.challenge: expected the 32 bytes of passkeyChallenge(claims), got ${challenge instanceof Uint8Array ? `${challenge.length} bytes` : describeValue(challenge)}`);
  }
  if (typeof origin !== 'string' || origin.length === 0) throw argumentInvalid(`options.origin: expected the approval window's origin, got ${describeValue(origin)}`);
  if (!Number.isInteger(previousSignCount) || previousSignCount < 0 || previousSignCount > 0xffffffff) {
    throw argumentInvalid(`options.previousSignCount: expected an integer from 0 to 4294967295, got ${describeNumber(previousSignCount)}`);
  }
  return { credential, challenge: base64urlEncode(challenge), origin, previousSignCount };
}

export interface VerifiedPasskeyAssertion {
  /** The new signature counter: store it, and pass it as `previousSignCount` next time. */
  signCount: number;
  userVerified: true;
}

/**
 * Verify a passkey assertion over a decision as a WebAuthn relying party (section 7.2), against
 * the one pinned credential. The signature is checked first, right after the credential id: every
 * later check then reads bytes the passkey signed, and a tampered assertion is reported as such,
 * whichever byte was changed. Every check must pass; the order only decides which failure is named.
 *
 * Errors (all CountersignError):
 * - ERR_PASSKEY_INVALID: the assertion fails the schema or any check; the message names the field.
 * - ERR_ARGUMENT_INVALID: `options` is not what this function takes, or one of its getters threw.
 * - ERR_KEY_INVALID: the engine's WebCrypto cannot import the pinned key (no Ed25519, say).
 */
export async function verifyPasskeyAssertion(assertion: unknown, options: VerifyPasskeyAssertionOptions): Promise<VerifiedPasskeyAssertion> {
  try {
    return await verifyUnguarded(assertion, options);
  } catch (cause) {
    // Fail closed, and with our error type only: a getter that throws is never a verified assertion.
    if (isCountersignError(cause)) throw cause;
    throw new CountersignError('ERR_ARGUMENT_INVALID', 'options: expected values that can be read, got one that threw, so the assertion was not verified', { cause });
  }
}

async function verifyUnguarded(assertion: unknown, options: VerifyPasskeyAssertionOptions): Promise<VerifiedPasskeyAssertion> {
  const expected = checkOptions(options);
  const parsed = parseWith(passkeyAssertionSchema, assertion, 'ERR_PASSKEY_INVALID', 'assertion');
  // Section 7.2: the credential must be one of allowCredentials, which held the pinned one only.
  // Both ids are canonical base64url, so equal strings are equal bytes.
  if (parsed.credential_id !== expected.credential.credential_id) throw invalid("assertion.credential_id: expected the pinned passkey's id, got another");

  const authenticatorData = base64urlDecode(parsed.authenticator_data);
  const clientDataJson = base64urlDecode(parsed.client_data_json);
  const authData = parseAuthenticatorData(authenticatorData);
  await checkSignature(expected.credential, authenticatorData, clientDataJson, base64urlDecode(parsed.signature));
  checkClientData(parseClientData(clientDataJson), expected.challenge, expected.origin);
  await checkAuthenticatorData(authData, expected.credential.rp_id);
  checkSignCount(authData.signCount, expected.previousSignCount);
  return { signCount: authData.signCount, userVerified: true };
}
