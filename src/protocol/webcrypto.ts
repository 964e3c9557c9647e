import { base64urlEncode } from './base64url';
import { CountersignError } from './errors';

/**
 * The WebCrypto calls src/protocol makes, in one place: the browser and Node both expose
 * `globalThis.crypto`, so the extension, the bridge and the agent SDK share this code.
 */

/** `crypto.subtle`, or ERR_KEY_INVALID where the context has none (an insecure browser context). */
export function subtle(): SubtleCrypto {
  const s = globalThis.crypto?.subtle;
  if (s === undefined) throw new CountersignError('ERR_KEY_INVALID', 'WebCrypto (crypto.subtle) is not available in this context');
  return s;
}

export async function sha256(bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await subtle().digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
}

/** base64url(SHA-256(bytes)): every digest a decision or a tool call carries. */
export async function sha256Base64url(bytes: Uint8Array): Promise<string> {
  return base64urlEncode(await sha256(bytes));
}

/** A fresh nonce: 32 bytes from the platform's CSPRNG, base64url (43 characters). */
export function randomNonce(): string {
  return base64urlEncode(globalThis.crypto.getRandomValues(new Uint8Array(32)));
}
