import { B64U_32_PATTERN, base64urlEncode, requireMatch } from './base64url';
import { sha256 } from './webcrypto';

/**
 * The pairing ceremony's hashes (docs/bridge-protocol.md, section 8 "Pairing"): the agent's
 * commitment to its nonce, and the 6-digit code both sides show so the person can compare them.
 */

/** The context string: a hash made for one purpose is never valid for another. */
export const PAIRING_CODE_CONTEXT = 'countersign/pairing-code/v1';

/** base64url(SHA-256(ASCII agent_nonce)): the commitment in `pair_request`. */
export async function pairingCommitment(agentNonce: string): Promise<string> {
  requireMatch('agentNonce', agentNonce, B64U_32_PATTERN);
  return base64urlEncode(await sha256(new TextEncoder().encode(agentNonce)));
}

export interface PairingCodeFields {
  extensionKeyThumbprint: string;
  agentKeyThumbprint: string;
  extensionNonce: string;
  agentNonce: string;
}

/**
 * The 6-digit code both sides show while pairing:
 *   h = SHA-256(UTF-8 of "countersign/pairing-code/v1" LF ext_thumbprint LF agent_thumbprint LF
 *               extension_nonce LF agent_nonce)
 *   code = (big-endian uint32 of h[0..3]) mod 1 000 000, as 6 decimal digits with leading zeros.
 * Any substituted key or nonce changes it; the commitment in pair_request stops a man in the
 * middle from choosing a nonce that makes the two codes equal.
 */
export async function pairingCode(fields: PairingCodeFields): Promise<string> {
  requireMatch('extensionKeyThumbprint', fields.extensionKeyThumbprint, B64U_32_PATTERN);
  requireMatch('agentKeyThumbprint', fields.agentKeyThumbprint, B64U_32_PATTERN);
  requireMatch('extensionNonce', fields.extensionNonce, B64U_32_PATTERN);
  requireMatch('agentNonce', fields.agentNonce, B64U_32_PATTERN);
  const input = [PAIRING_CODE_CONTEXT, fields.extensionKeyThumbprint, fields.agentKeyThumbprint, fields.extensionNonce, fields.agentNonce].join('\n');
  const h = await sha256(new TextEncoder().encode(input));
  const n = new DataView(h.buffer, h.byteOffset, 4).getUint32(0, false);
  return String(n % 1_000_000).padStart(6, '0');
}
