import * as z from 'zod';
import { pageMessageModule } from './types';

export const declineAllMessage = z.object({ type: z.literal('countersign/decline-all'), trusted: z.literal(true) }).strict();

/**
 * Declines every waiting approval (the approval window's "Decline all"). Declining grants no
 * agent anything, so no page check beyond the extension's own id. Answers `{ declined, failed }`.
 */
export const declineAll = pageMessageModule({
  schema: declineAllMessage,
  from: 'any',
  handler: async (_m, services) => {
    const { queue } = await services.ready();
    return queue.declineAll();
  },
});
