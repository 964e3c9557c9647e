import { B64U_32_PATTERN, B64U_64_PATTERN, base64urlDecode, requireMatch } from './base64url';
import { CONN_PATTERN } from './bridge-messages';
import { CountersignError } from './errors';
import { parsePublicJwk } from './jwk';
import { subtle } from './webcrypto';

/**
 * The agent's proof of its key on every connection (docs/bridge-protocol.md, section 7
 * "Handshake"): the bytes it signs in `auth`, and the check the extension makes against the key
 * from `hello`.
 */

/** The context string: a signature made for one purpose is never valid for another. */
export const AGENT_AUTH_CONTEXT = 'countersign/agent-auth/v1';

export interface AgentAuthFields {
  extensionKeyThumbprint: string;
  agentKeyThumbprint: string;
  conn: string;
  nonce: string;
}

/**
 * The bytes an agent signs in `auth`: UTF-8 (all ASCII) of
 *   "countersign/agent-auth/v1" LF extension_key_thumbprint LF agent_key_thumbprint LF conn LF nonce
 * with LF = 0x0A and no trailing LF. Each field's alphabet excludes LF, so the join is unambiguous.
 * It binds the proof to this extension (one browser profile), this agent key, this connection
 * and this challenge: it is worth nothing anywhere else.
 */
export function agentAuthInput(fields: AgentAuthFields): Uint8Array {
  requireMatch('extensionKeyThumbprint', fields.extensionKeyThumbprint, B64U_32_PATTERN);
  requireMatch('agentKeyThumbprint', fields.agentKeyThumbprint, B64U_32_PATTERN);
  requireMatch('conn', fields.conn, CONN_PATTERN);
  requireMatch('nonce', fields.nonce, B64U_32_PATTERN);
  return new TextEncoder().encode([AGENT_AUTH_CONTEXT, fields.extensionKeyThumbprint, fields.agentKeyThumbprint, fields.conn, fields.nonce].join('\n'));
}

/**
 * Check an `auth` signature against the agent key from `hello`: Ed25519 (pure, RFC 8032) or ECDSA
 * P-256 with SHA-256 and r‖s encoding. False for a wrong signature; ERR_KEY_INVALID for a key
 * WebCrypto refuses (a P-256 point off the curve, an engine without Ed25519).
 */
export async function verifyAgentAuth(agentKey: unknown, fields: AgentAuthFields, signature: string): Promise<boolean> {
  const key = parsePublicJwk(agentKey);
  requireMatch('signature', signature, B64U_64_PATTERN);
  const data = agentAuthInput(fields) as Uint8Array<ArrayBuffer>;
  const sig = base64urlDecode(signature) as Uint8Array<ArrayBuffer>;
  let cryptoKey: CryptoKey;
  try {
    cryptoKey =
      key.kty === 'OKP'
        ? await subtle().importKey('jwk', key, { name: 'Ed25519' }, false, ['verify'])
        : await subtle().importKey('jwk', key, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify']);
  } catch (cause) {
    throw new CountersignError('ERR_KEY_INVALID', 'agent key: not a usable public key', { cause });
  }
  try {
    return key.kty === 'OKP'
      ? await subtle().verify({ name: 'Ed25519' }, cryptoKey, sig, data)
      : await subtle().verify({ name: 'ECDSA', hash: 'SHA-256' }, cryptoKey, sig, data);
  } catch {
    return false;
  }
}
