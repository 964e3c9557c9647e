import * as z from 'zod';
import { pageMessageModule } from './types';

export const snapshotQuery = z.object({ type: z.literal('countersign/snapshot') }).strict();

/** Everything a page shows, and the person's settings (the options page's checkboxes). */
export const snapshot = pageMessageModule({
  schema: snapshotQuery,
  from: 'any',
  handler: async (_m, services) => {
    await services.ready();
    return { ...(await services.snapshot()), settings: await services.settings() };
  },
});
