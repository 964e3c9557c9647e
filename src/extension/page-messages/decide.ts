import * as z from 'zod';
import { CountersignError } from '../../protocol/errors';
import { APPROVE_DELAY_MS } from '../constants';
import type { UserVerification } from '../approval-queue';
import { recordChallenge } from '../keys';
import { userVerificationSchema, verifyStoredPasskey, type UserVerificationProof } from './settings-change';
import { keyField, pageMessageModule, type PageServices } from './types';

/**
 * A decision taken in the approval window. `trusted` is the page's own `event.isTrusted`, and
 * `shownFor` how long the item was visible and focused: the background refuses an approval
 * without both: the only way to approve is the person's own click in the extension's window.
 */
export const decideMessage = z
  .object({
    type: z.literal('countersign/decide'),
    key: keyField,
    decision: z.enum(['approve', 'decline']),
    trusted: z.literal(true),
    shownFor: z.number().nonnegative(),
    /** The passkey's answer to passkey-challenge: the assertion, and the instant its claims were stamped. */
    userVerification: userVerificationSchema.optional(),
  })
  .strict();

/**
 * The background checks the assertion itself, as the agent will, before signing: a window that
 * passed something else gets a clear refusal and the item stays pending.
 */
async function verifyHere(services: PageServices, key: string, verification: UserVerificationProof): Promise<UserVerification> {
  const { store } = await services.ready();
  await verifyStoredPasskey(
    store,
    services.extensionOrigin,
    async (now) => {
      const record = await store.get(key);
      if (!record) throw new CountersignError('ERR_NOT_ALLOWED', 'passkey: the item is gone');
      return recordChallenge(record, now);
    },
    verification,
  );
  return verification;
}

export const decide = pageMessageModule({
  schema: decideMessage,
  // Decisions come only from the approval window, where the whole operation is shown.
  from: ['approve'],
  refusal: 'decisions are taken in the approval window only',
  handler: async (m, services) => {
    const { port, queue } = await services.ready();
    if (m.decision === 'approve') {
      if (m.shownFor < APPROVE_DELAY_MS) throw new CountersignError('ERR_NOT_ALLOWED', 'approve: the window was not in front of the person long enough');
      if (port.state !== 'up') throw new CountersignError('ERR_COMPANION_UNAVAILABLE', 'approve: the bridge is down');
    }
    if (m.decision === 'approve' && m.userVerification !== undefined) await queue.decide(m.key, m.decision, await verifyHere(services, m.key, m.userVerification));
    else await queue.decide(m.key, m.decision);
    return { ok: true };
  },
});
