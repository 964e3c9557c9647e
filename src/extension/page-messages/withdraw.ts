import * as z from 'zod';
import { keyField, pageMessageModule } from './types';

export const withdrawMessage = z.object({ type: z.literal('countersign/withdraw'), key: keyField, trusted: z.literal(true) }).strict();

export const withdraw = pageMessageModule({
  schema: withdrawMessage,
  // Withdrawing only takes permission away: the toolbar popup may do it too.
  from: ['approve', 'popup'],
  refusal: 'withdraw from the approval window or the popup',
  handler: async (m, services) => {
    const { queue } = await services.ready();
    return { ok: true, tooLate: (await queue.withdraw(m.key)).tooLate };
  },
});
