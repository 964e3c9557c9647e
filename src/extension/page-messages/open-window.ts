import * as z from 'zod';
import { pageMessageModule } from './types';

export const openWindowMessage = z.object({ type: z.literal('countersign/open-window') }).strict();

/** Brings the approval window forward (the popup's and the welcome page's buttons). */
export const openWindow = pageMessageModule({
  schema: openWindowMessage,
  from: 'any',
  handler: async (_m, services) => {
    // The background starts first, as for every message but the version query.
    await services.ready();
    await services.showApprovalWindow();
    return { ok: true };
  },
});
