import { CountersignError } from './errors';
import { jsonTypeName } from './issues';

/**
 * Unpadded base64url (RFC 4648 section 5) in its one canonical spelling: no padding, no white
 * space, unused bits zero. Identifiers, nonces, digests and signatures then have one spelling
 * each, so comparing strings is comparing values (docs/bridge-protocol.md, section 2).
 *
 * Isomorphic (browser + Node), no jose: the bridge bundle uses it.
 */

/** Unpadded base64url of exactly 32 bytes, canonical (the last character's 2 unused bits are 0). */
export const B64U_32_PATTERN = /^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/;
/** Unpadded base64url of exactly 64 bytes, canonical (the last character's 4 unused bits are 0). */
export const B64U_64_PATTERN = /^[A-Za-z0-9_-]{85}[AQgw]$/;

/** One or more base64url characters, no padding: a JWS segment or an RSA member, any length. */
export const B64U_PATTERN = /^[A-Za-z0-9_-]+$/;

/** How error messages describe B64U_32_PATTERN. */
export const B64U_32_RULE = 'unpadded canonical base64url of 32 bytes (43 characters)';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** Unpadded base64url (RFC 4648 section 5). */
export function base64urlEncode(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8) | (bytes[i + 2] as number);
    out += ALPHABET[(n >> 18) & 63]! + ALPHABET[(n >> 12) & 63]! + ALPHABET[(n >> 6) & 63]! + ALPHABET[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = (bytes[i] as number) << 16;
    out += ALPHABET[(n >> 18) & 63]! + ALPHABET[(n >> 12) & 63]!;
  } else if (rest === 2) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8);
    out += ALPHABET[(n >> 18) & 63]! + ALPHABET[(n >> 12) & 63]! + ALPHABET[(n >> 6) & 63]!;
  }
  return out;
}

/** Decode canonical unpadded base64url; throws ERR_ARGUMENT_INVALID otherwise (so one value has one spelling). */
export function base64urlDecode(text: string): Uint8Array {
  if (typeof text !== 'string') throw new CountersignError('ERR_ARGUMENT_INVALID', `text: expected unpadded base64url, got ${jsonTypeName(text)}`);
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) {
    throw new CountersignError('ERR_ARGUMENT_INVALID', `text: expected unpadded base64url, got a string of ${text.length} characters that is not`);
  }
  const out = new Uint8Array(Math.floor((text.length * 3) / 4));
  let bits = 0;
  let acc = 0;
  let o = 0;
  for (const ch of text) {
    acc = (acc << 6) | ALPHABET.indexOf(ch);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
  }
  if (base64urlEncode(out) !== text) throw new CountersignError('ERR_ARGUMENT_INVALID', 'text: expected canonical base64url, got unused bits that are not zero');
  return out;
}

/** Throw ERR_ARGUMENT_INVALID, naming `name` but never echoing `value`, unless `value` matches `pattern`. */
export function requireMatch(name: string, value: string, pattern: RegExp): void {
  if (typeof value === 'string' && pattern.test(value)) return;
  const got = typeof value === 'string' ? `a string of ${value.length} characters that is not` : jsonTypeName(value);
  throw new CountersignError('ERR_ARGUMENT_INVALID', `${name}: expected the format the protocol requires, got ${got}`);
}
