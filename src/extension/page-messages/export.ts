import * as z from 'zod';
import { pageMessageModule } from './types';

export const exportQuery = z.object({ type: z.literal('countersign/export') }).strict();

/** Everything stored, for the options page's "Export" (the person's own record of what happened). */
export const exportAll = pageMessageModule({
  schema: exportQuery,
  from: 'any',
  handler: async (_m, services) => {
    const { store } = await services.ready();
    return { exportedAt: new Date().toISOString(), approvals: await store.all(), agents: await store.agents(), audit: await store.auditLog() };
  },
});
