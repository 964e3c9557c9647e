import * as z from 'zod';
import { CountersignError } from '../../protocol/errors';
import { passkeyAssertionSchema, passkeyChallenge, passkeyCredentialSchema, verifyPasskeyAssertion } from '../../protocol/passkey';
import { APPROVE_DELAY_MS } from '../constants';
import type { Store } from '../store';
import { keyField, type PageServices } from './types';

/**
 * What protects the passkey's own protection (docs/ui.md, "Passkey settings"). Turning off "Require
 * my passkey for every approval", and replacing or removing the passkey, would otherwise undo with
 * one click what the passkey is for: whoever can click in the browser (a person at an unlocked
 * computer, software driving it) could then approve without it. So the background makes such a
 * change only with the person's passkey, an assertion over a challenge that names exactly that
 * change; with no passkey registered, only through the same gate as Approve: a trusted click
 * after the page was in front for the arm delay. Turning a requirement on, and registering a first
 * passkey, only add protection and need neither.
 */

/** A change of the passkey settings that takes protection away, as its challenge names it. */
export const settingsChangeSchema = z.discriminatedUnion('kind', [
  /** The requirement for one agent, on or off. */
  z.strictObject({ kind: z.literal('agent-verification'), thumbprint: keyField, required: z.boolean() }),
  /** The passkey replaced by another (`credential`) or removed (null). */
  z.strictObject({ kind: z.literal('passkey'), credential: passkeyCredentialSchema.nullable() }),
]);
export type SettingsChange = z.output<typeof settingsChangeSchema>;

/** The person's passkey answer: the assertion, and the instant its challenge was stamped. */
export const userVerificationSchema = z.strictObject({ now: z.int().positive(), assertion: passkeyAssertionSchema });
export type UserVerificationProof = z.output<typeof userVerificationSchema>;

/**
 * What a settings message may carry as proof: the passkey's answer, or, with no passkey
 * registered, the page's own `event.isTrusted` and how long it was visible and focused.
 */
export const settingsProofShape = {
  userVerification: userVerificationSchema.optional(),
  trusted: z.literal(true).optional(),
  shownFor: z.number().nonnegative().optional(),
};
export type SettingsProof = { userVerification?: UserVerificationProof | undefined; trusted?: true | undefined; shownFor?: number | undefined };

/** How long after its challenge was stamped an assertion still counts: the person's fingerprint, PIN or face. */
export const PASSKEY_CONFIRM_MS = 5 * 60_000;

/** Keeps the bytes of a settings challenge apart from a decision's claims (which have no `context`). */
const CONTEXT = 'countersign/settings-change/v1';

/**
 * The state a change starts from: when that agent's requirement last changed (or its pairing), or
 * when the passkey did. The challenge names it, so an assertion made for one change cannot be
 * played again once anything changed after it.
 */
export async function changeFrom(store: Store, change: SettingsChange): Promise<number> {
  if (change.kind === 'passkey') return (await store.getPasskey())?.changedAt ?? 0;
  const agent = await store.getAgent(change.thumbprint);
  if (!agent) throw new CountersignError('ERR_ARGUMENT_INVALID', `thumbprint: expected a paired agent, got ${change.thumbprint}, which names none`);
  return agent.userVerificationChangedAt ?? agent.pairedAt;
}

/** The 32 bytes the passkey signs to allow `change`, from the state of `from`, stamped `now`. */
export function settingsChangeChallenge(change: SettingsChange, from: number, now: number): Promise<Uint8Array> {
  return passkeyChallenge({ context: CONTEXT, change, from, now });
}

/**
 * Checks the person's assertion over `challenge` against the registered passkey, as an agent will
 * check a decision's, and keeps the authenticator's counter: refused (ERR_NOT_ALLOWED) when stale
 * or when no passkey is registered, ERR_PASSKEY_INVALID when it does not verify.
 */
export async function verifyStoredPasskey(store: Store, origin: string, challenge: (now: number) => Promise<Uint8Array>, proof: UserVerificationProof): Promise<void> {
  if (Math.abs(Date.now() - proof.now) > PASSKEY_CONFIRM_MS) throw new CountersignError('ERR_NOT_ALLOWED', 'passkey: the confirmation took too long; try again');
  // The challenge is worked out while the passkey is read: the person has just confirmed and waits.
  // A passkey missing is still what is said first.
  const challenged = challenge(proof.now);
  challenged.catch(() => undefined);
  const stored = await store.getPasskey();
  if (!stored?.credential) throw new CountersignError('ERR_NOT_ALLOWED', 'passkey: none is registered');
  const previousSignCount = stored.signCount ?? 0;
  const { signCount } = await verifyPasskeyAssertion(proof.assertion, { credential: stored.credential, challenge: await challenged, origin, previousSignCount });
  // Synced passkeys always count 0 (WebAuthn, "signature counter"): nothing new to write.
  if (signCount !== previousSignCount) await store.putPasskeySignCount(signCount);
}

/**
 * Whether `change` takes protection away from the state stored now: a requirement that is on
 * turned off, or a registered passkey replaced or removed. Anything else is a plain click.
 */
async function takesAway(store: Store, change: SettingsChange): Promise<boolean> {
  if (change.kind === 'passkey') return (await store.getPasskey())?.credential != null;
  if (change.required) return false;
  return (await store.getAgent(change.thumbprint))?.requireUserVerification === true;
}

/**
 * Refuses `change` unless the message proves the person made it (see the top of this file).
 * Throws ERR_NOT_ALLOWED without the proof, ERR_PASSKEY_INVALID with an assertion that does not
 * verify for exactly this change from the state stored now; nothing is changed either way.
 */
export async function proveSettingsChange(services: PageServices, change: SettingsChange, proof: SettingsProof): Promise<void> {
  const { store } = await services.ready();
  if (!(await takesAway(store, change))) return;
  const from = await changeFrom(store, change);
  const registered = (await store.getPasskey())?.credential != null;
  if (registered) {
    if (proof.userVerification === undefined) throw new CountersignError('ERR_NOT_ALLOWED', `${describe(change)}: needs the person to confirm with their passkey`);
    return verifyStoredPasskey(store, services.extensionOrigin, (now) => settingsChangeChallenge(change, from, now), proof.userVerification);
  }
  if (proof.trusted !== true || (proof.shownFor ?? 0) < APPROVE_DELAY_MS) throw new CountersignError('ERR_NOT_ALLOWED', `${describe(change)}: needs the person's own click, once the page was in front of them long enough`);
}

function describe(change: SettingsChange): string {
  if (change.kind === 'agent-verification') return 'turning off the passkey requirement';
  return change.credential === null ? 'removing the passkey' : 'replacing the passkey';
}
