import * as z from 'zod';
import { CountersignError } from '../../protocol/errors';
import { APPROVE_DELAY_MS } from '../constants';
import { keyField, pageMessageModule } from './types';

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
  })
  .strict();

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
    await queue.decide(m.key, m.decision);
    return { ok: true };
  },
});
