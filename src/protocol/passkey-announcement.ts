import * as z from 'zod';
import { canonicalJson } from './canonical-json';
import { DECISION_VERSION, decisionClaimsSchema, openDecision, signCompactJws, type DecisionAlg } from './decision';
import { CountersignError, isCountersignError } from './errors';
import { parsePublicJwk } from './jwk';
import { parseWith } from './parse-with';
import { passkeyCredentialSchema, type PasskeyCredential } from './passkey';

/**
 * The passkey announcement (docs/bridge-protocol.md, "The passkey announcement"): the extension
 * tells a paired agent which passkey protects its approvals, signed with the extension key the
 * agent pinned at pairing, so that nothing between them (the bridge, another process) can give the
 * agent a passkey of its own or take the person's away. The agent pins the passkey as it pinned the
 * extension key, and keeps the newest announcement: `iat` never goes back.
 *
 *   protected header: { "alg", "typ": "countersign-passkey+jwt", "kid" }
 *   payload: { "v": 1, "kind": "passkey", "aud": <agent thumbprint>, "iat", "passkey": <credential> | null,
 *              "user_verification"?: "required" }
 *
 * `passkey: null` says the person removed it: from then on a request that requires user
 * verification cannot be approved until a new one is registered (and announced).
 * `user_verification: "required"` says the person requires their passkey for every approval of
 * this agent: the agent accepts no approval without a verified assertion, whatever it asked for,
 * so a requirement turned off behind its back cannot go unnoticed (it learns of it here, signed).
 */

export const PASSKEY_ANNOUNCEMENT_TYP = 'countersign-passkey+jwt';

const shared = decisionClaimsSchema.shape;

export const passkeyAnnouncementClaimsSchema = z.strictObject({
  v: shared.v,
  kind: z.literal('passkey', { error: 'expected "passkey"' }),
  aud: shared.aud,
  /** Milliseconds since the epoch: two changes within a second must still be ordered. */
  iat: z.int({ error: 'expected an integer' }).min(0).max(8.64e15),
  passkey: passkeyCredentialSchema.nullable(),
  /** Present when the person requires the passkey for every approval of this agent. */
  user_verification: z.literal('required', { error: 'expected "required"' }).optional(),
});
export type PasskeyAnnouncementClaims = z.output<typeof passkeyAnnouncementClaimsSchema>;

const encoder = new TextEncoder();

/**
 * Sign the announcement of `passkey` (or of its removal) for one agent, with the extension key;
 * `userVerification` when the person requires the passkey for every approval of that agent.
 */
export async function signPasskeyAnnouncement(
  subject: { agent: string; passkey: PasskeyCredential | null; now?: number; userVerification?: 'required' | undefined },
  key: { privateKey: CryptoKey; alg: DecisionAlg; kid: string },
): Promise<string> {
  const claims = parseWith(
    passkeyAnnouncementClaimsSchema,
    { v: DECISION_VERSION, kind: 'passkey', aud: subject.agent, iat: Math.floor(subject.now ?? Date.now()), passkey: subject.passkey, ...(subject.userVerification === undefined ? {} : { user_verification: subject.userVerification }) },
    'ERR_ARGUMENT_INVALID',
    'announcement',
  );
  return signCompactJws({ alg: key.alg, typ: PASSKEY_ANNOUNCEMENT_TYP, kid: key.kid }, encoder.encode(canonicalJson(claims)), key.privateKey);
}

/**
 * Verify an announcement as the agent: the pinned extension key, `typ` and `kid`, the claims, and
 * that it is for this agent. `after` is the `iat` of the newest announcement already accepted: an
 * older or equal one is refused (ERR_DECISION_REPLAYED), so a relay cannot bring back a removed
 * passkey. Other errors: ERR_DECISION_INVALID (signature, header, claims), ERR_DECISION_MISMATCH
 * (another agent's).
 */
export async function verifyPasskeyAnnouncement(jws: string, options: { pinnedKey: unknown; agent: string; after?: number }): Promise<PasskeyAnnouncementClaims> {
  const pinned = parsePublicJwk(options.pinnedKey, 'pinnedKey');
  let payload: unknown;
  try {
    payload = await openDecision(jws, pinned, PASSKEY_ANNOUNCEMENT_TYP);
  } catch (cause) {
    if (isCountersignError(cause)) throw new CountersignError(cause.code, cause.message.replace(/^decision/, 'announcement'), { cause });
    throw cause;
  }
  const claims = parseWith(passkeyAnnouncementClaimsSchema, payload, 'ERR_DECISION_INVALID', 'announcement');
  if (claims.aud !== options.agent) throw new CountersignError('ERR_DECISION_MISMATCH', 'announcement.aud: does not match this agent');
  if (options.after !== undefined && claims.iat <= options.after) throw new CountersignError('ERR_DECISION_REPLAYED', `announcement.iat: ${claims.iat} is not newer than the announcement already accepted (${options.after})`);
  return claims;
}
