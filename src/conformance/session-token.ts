import { signCompactJws } from '../protocol/decision';
import { randomNonce, subtle } from '../protocol/webcrypto';

/**
 * The `Poppy-Session` JWT the kit signs for every request, as a Personal Agent does (core 5.3;
 * docs/core-assumptions.md, "Request headers"): header `typ: poppy-session+jwt`, EdDSA, and the
 * claims `iss` (the client ID), `aud` (the Company's origin), `sid` (the Session, the same on
 * every request of one Session), `iat`, `exp` (5 minutes) and `jti`. The core text is not
 * available to us, so a scenario can add or replace claims (`session.claims`) and give the key
 * its client ID is registered with (`session.privateKeyJwk`).
 */

const TOKEN_LIFETIME_SECONDS = 300;
const encoder = new TextEncoder();

export interface SessionSigner {
  /** A fresh JWT for the Session `sid`. */
  sign(sid: string): Promise<string>;
}

export interface SessionSignerOptions {
  audience: string;
  clientId?: string | undefined;
  privateKeyJwk?: (JsonWebKey & { kid?: string }) | undefined;
  claims?: Record<string, unknown> | undefined;
}

export async function createSessionSigner(options: SessionSignerOptions): Promise<SessionSigner> {
  const s = subtle();
  let key: CryptoKey;
  let kid: string | undefined;
  if (options.privateKeyJwk === undefined) {
    const pair = (await s.generateKey({ name: 'Ed25519' }, false, ['sign', 'verify']));
    key = pair.privateKey;
  } else {
    const { kid: given, ...jwk } = options.privateKeyJwk;
    key = await s.importKey('jwk', jwk, { name: 'Ed25519' }, false, ['sign']);
    kid = given;
  }
  const clientId = options.clientId ?? 'countersign-conformance';
  return {
    async sign(sid) {
      const iat = Math.floor(Date.now() / 1000);
      const claims = { iss: clientId, aud: options.audience, sid, iat, exp: iat + TOKEN_LIFETIME_SECONDS, jti: randomNonce(), ...options.claims };
      return signCompactJws({ alg: 'EdDSA', typ: 'poppy-session+jwt', ...(kid === undefined ? {} : { kid }) }, encoder.encode(JSON.stringify(claims)), key);
    },
  };
}
