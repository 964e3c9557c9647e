/**
 * A key's short fingerprint for people: the first 40 bits of its RFC 7638 thumbprint in Crockford
 * base32, as two groups of four ("7Q2M-X9KD"). The extension shows it beside every agent's name and
 * the agent SDK prints the same string (`Companion.fingerprint`), so two agents that call themselves
 * "Desk agent" can be told apart at a glance. 40 bits are for telling keys apart on one person's
 * machine, not for resisting a search: pairing itself is protected by the typed 6-digit code and
 * the commitment (docs/bridge-protocol.md, "Pairing").
 *
 * Light on purpose (no zod): the extension's pages import it.
 */
import { CountersignError } from './errors';

const B64U = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
/** Crockford's base32: no I, L, O or U, so nothing reads as 1, 0 or a word. */
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const THUMBPRINT = /^[A-Za-z0-9_-]{43}$/;

/** A 6-digit pairing code as people read and type it: "304 236" (docs/bridge-protocol.md, "Pairing"). */
export function formatPairingCode(code: string): string {
  if (typeof code !== 'string' || !/^\d{6}$/.test(code)) throw new CountersignError('ERR_PAIRING_FAILED', `pairing code: expected 6 digits, got ${typeof code === 'string' ? JSON.stringify(code.slice(0, 12)) : typeof code}`);
  return `${code.slice(0, 3)} ${code.slice(3)}`;
}

export function keyFingerprint(thumbprint: string): string {
  if (typeof thumbprint !== 'string' || !THUMBPRINT.test(thumbprint)) {
    throw new CountersignError('ERR_KEY_INVALID', `thumbprint: expected 43 base64url characters (an RFC 7638 SHA-256 thumbprint), got ${typeof thumbprint === 'string' ? `${thumbprint.length} characters` : typeof thumbprint}`);
  }
  // 7 base64url characters carry 42 bits; the first 40 make 8 base32 characters.
  let bits = 0n;
  for (const char of thumbprint.slice(0, 7)) bits = (bits << 6n) | BigInt(B64U.indexOf(char));
  bits >>= 2n;
  let out = '';
  for (let i = 7; i >= 0; i--) out += CROCKFORD[Number((bits >> BigInt(i * 5)) & 31n)];
  return `${out.slice(0, 4)}-${out.slice(4)}`;
}
