import { base64urlEncode } from '../../src/protocol/base64url';
import type { PasskeyAssertion, PasskeyCredential } from '../../src/protocol/passkey';

/**
 * A software passkey for tests: an Ed25519 credential of the extension's relying party and the
 * assertions a platform authenticator would return for a challenge (authenticator data = rpIdHash,
 * flags, signature counter; signed bytes = authenticator data || SHA-256(clientDataJSON); WebAuthn
 * Level 3, section 6.1 and 7.2). Unit tests use it where a browser's virtual authenticator is not
 * at hand; test/e2e/passkey.e2e.ts uses Chromium's.
 */

export const EXTENSION_ORIGIN = 'chrome-extension://mlfaahkflpghlfdpkpmonibnlhieinil';

const encoder = new TextEncoder();

export interface SoftwarePasskey {
  credential: PasskeyCredential;
  /** An assertion over `challenge`; `flags` default UP|UV (0x05), `count` default the next counter value. */
  assert(challenge: Uint8Array, options?: { flags?: number; count?: number }): Promise<PasskeyAssertion>;
}

export async function softwarePasskey(origin = EXTENSION_ORIGIN): Promise<SoftwarePasskey> {
  const pair = (await crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify']));
  const credential: PasskeyCredential = {
    credential_id: base64urlEncode(crypto.getRandomValues(new Uint8Array(16))),
    public_key: base64urlEncode(new Uint8Array(await crypto.subtle.exportKey('spki', pair.publicKey))),
    alg: -8,
    rp_id: origin,
    registered_at: '2026-12-01T10:00:00Z',
  };
  let counter = 0;
  return {
    credential,
    async assert(challenge, options = {}) {
      counter = options.count ?? counter + 1;
      const rpIdHash = new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(origin)));
      const count = [(counter >>> 24) & 255, (counter >>> 16) & 255, (counter >>> 8) & 255, counter & 255];
      const data = new Uint8Array([...rpIdHash, options.flags ?? 0x05, ...count]);
      const clientData = encoder.encode(JSON.stringify({ type: 'webauthn.get', challenge: base64urlEncode(challenge), origin, crossOrigin: false }));
      const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', clientData));
      const signature = new Uint8Array(await crypto.subtle.sign({ name: 'Ed25519' }, pair.privateKey, new Uint8Array([...data, ...hash])));
      return { credential_id: credential.credential_id, authenticator_data: base64urlEncode(data), client_data_json: base64urlEncode(clientData), signature: base64urlEncode(signature) };
    },
  };
}
