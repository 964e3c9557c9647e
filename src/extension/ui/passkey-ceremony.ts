import { base64urlDecode, base64urlEncode } from '../../protocol/base64url';
import type { PasskeyAssertion, PasskeyCredential } from '../../protocol/passkey';

/**
 * The two WebAuthn calls of passkey-verified approvals, from the extension's own pages only (a
 * service worker has no `navigator.credentials`). The relying party is the extension's origin:
 * `rp.id` is left out, so the browser uses it (in Chromium the RP ID is the whole
 * `chrome-extension://<id>`). Every call takes a signal: without an authenticator a call can pend
 * forever, whatever `timeout` says. docs/bridge-protocol.md, "Passkey-verified decisions".
 */

/** How long the person has to confirm: fingerprint, face, PIN, or a security key fetched from a drawer. */
export const PASSKEY_TIMEOUT_MS = 120_000;

/** COSE algorithms asked for, in order of preference: Ed25519, then ES256 (P-256). */
const ALGORITHMS = [-8, -7] as const;

function bytes(buffer: ArrayBuffer | ArrayBufferView): Uint8Array {
  return buffer instanceof ArrayBuffer ? new Uint8Array(buffer) : new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

function buffer(text: string): ArrayBuffer {
  const decoded = base64urlDecode(text);
  return decoded.buffer.slice(decoded.byteOffset, decoded.byteOffset + decoded.byteLength) as ArrayBuffer;
}

/** Register a passkey for this extension, user verification required. Rejects with the browser's DOMException. */
export async function createPasskey(signal: AbortSignal, now = Date.now()): Promise<PasskeyCredential> {
  const credential = (await navigator.credentials.create({
    publicKey: {
      rp: { name: 'Countersign' },
      user: { id: crypto.getRandomValues(new Uint8Array(16)), name: 'Countersign approvals', displayName: 'Countersign approvals' },
      challenge: crypto.getRandomValues(new Uint8Array(32)),
      pubKeyCredParams: ALGORITHMS.map((alg) => ({ type: 'public-key' as const, alg })),
      authenticatorSelection: { residentKey: 'discouraged', userVerification: 'required' },
      attestation: 'none',
      timeout: PASSKEY_TIMEOUT_MS,
    },
    signal,
  })) as PublicKeyCredential | null;
  if (credential === null) throw new DOMException('no credential', 'NotAllowedError');
  const response = credential.response as AuthenticatorAttestationResponse;
  const publicKey = response.getPublicKey();
  const alg = response.getPublicKeyAlgorithm();
  if (publicKey === null || (alg !== -7 && alg !== -8)) throw new DOMException(`the authenticator chose algorithm ${alg}, which Countersign does not take`, 'NotSupportedError');
  return {
    credential_id: base64urlEncode(bytes(credential.rawId)),
    public_key: base64urlEncode(bytes(publicKey)),
    alg,
    rp_id: location.origin,
    registered_at: new Date(now).toISOString(),
  };
}

/** The person's assertion over `challenge` (base64url), with the registered credential only. */
export async function passkeyAssertion(challenge: string, credentialId: string, signal: AbortSignal): Promise<PasskeyAssertion> {
  const credential = (await navigator.credentials.get({
    publicKey: {
      challenge: buffer(challenge),
      allowCredentials: [{ type: 'public-key', id: buffer(credentialId) }],
      userVerification: 'required',
      timeout: PASSKEY_TIMEOUT_MS,
    },
    signal,
  })) as PublicKeyCredential | null;
  if (credential === null) throw new DOMException('no assertion', 'NotAllowedError');
  const response = credential.response as AuthenticatorAssertionResponse;
  return {
    credential_id: base64urlEncode(bytes(credential.rawId)),
    authenticator_data: base64urlEncode(bytes(response.authenticatorData)),
    client_data_json: base64urlEncode(bytes(response.clientDataJSON)),
    signature: base64urlEncode(bytes(response.signature)),
  };
}

/**
 * Whether this browser lets an extension page use WebAuthn. Firefox ESR has the API objects but
 * refuses every call from a moz-extension page at once (SecurityError, or NotAllowedError for a
 * page not in front), so only a real call
 * tells; in Chromium a probe without an authenticator would pend (or open a dialog), so Chromium
 * is not probed. Returns undefined when available, else the reason.
 */
export async function passkeyUnavailable(probe: boolean): Promise<string | undefined> {
  if (typeof navigator.credentials?.create !== 'function' || typeof PublicKeyCredential === 'undefined') return 'this browser has no WebAuthn';
  if (!probe) return undefined;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 2_000);
  try {
    await createPasskey(controller.signal);
    return undefined;
  } catch (error) {
    // Firefox ESR refuses at once: SecurityError from a page in front, NotAllowedError ("request is
    // not allowed") from one that is not. Either way, no passkey can be made or used here.
    if (error instanceof DOMException && (error.name === 'SecurityError' || error.name === 'NotAllowedError')) return `${error.name}: ${error.message}`;
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}
