import * as z from 'zod';
import { CountersignError } from '../../protocol/errors';
import { APPROVE_DELAY_MS } from '../constants';
import { keyField, pageMessageModule } from './types';

/**
 * The person's answer to a pairing. To pair (`confirmed: true`) they type the 6-digit code their
 * agent shows (spaces allowed, "304 236"), and the click went through the same gate as Approve:
 * `shownFor` is how long the pairing card was visible and focused.
 */
export const pairAnswerMessage = z
  .object({
    type: z.literal('countersign/pair-answer'),
    pairingId: keyField,
    confirmed: z.boolean(),
    code: z.string().regex(/^\d{3} ?\d{3}$/, { error: 'expected the 6-digit code, such as 304 236' }).optional(),
    trusted: z.literal(true),
    shownFor: z.number().nonnegative(),
  })
  .strict();

export const pairAnswer = pageMessageModule({
  schema: pairAnswerMessage,
  // Pairing grants an agent the right to ask: the same window and gate as Approve.
  from: ['approve'],
  refusal: 'pairing is answered in the approval window only',
  handler: async (m, services) => {
    const { sessions } = await services.ready();
    if (!m.confirmed) return sessions.answerPairing(m.pairingId, { confirmed: false });
    if (m.shownFor < APPROVE_DELAY_MS) throw new CountersignError('ERR_NOT_ALLOWED', 'pair: the window was not in front of the person long enough');
    if (m.code === undefined) throw new CountersignError('ERR_PAIRING_FAILED', 'pair: type the 6-digit code your agent shows');
    return sessions.answerPairing(m.pairingId, { confirmed: true, code: m.code });
  },
});
