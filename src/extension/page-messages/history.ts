import * as z from 'zod';
import { isActive, toView } from '../snapshot';
import type { ApprovalRecord } from '../store';
import { pageMessageModule } from './types';

export const historyQuery = z.object({ type: z.literal('countersign/history'), query: z.string().max(200), limit: z.number().int().min(1).max(1000) }).strict();

/** Decided approvals, newest first, whose words contain the query (the options page's search). */
export const history = pageMessageModule({
  schema: historyQuery,
  from: 'any',
  handler: async (m, services) => {
    const { store } = await services.ready();
    const q = m.query.trim().toLowerCase();
    const match = (r: ApprovalRecord) =>
      !q || [r.company.name, r.company.origin, r.operation.summary, r.operationId, r.revision, r.state, r.agentName].some((f) => f.toLowerCase().includes(q));
    return (await store.newest(m.limit, (r) => !isActive(r) && match(r))).map((r) => toView(r));
  },
});
