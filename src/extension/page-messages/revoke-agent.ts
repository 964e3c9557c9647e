import * as z from 'zod';
import { keyField, pageMessageModule } from './types';

export const revokeAgentMessage = z.object({ type: z.literal('countersign/revoke-agent'), thumbprint: keyField }).strict();

/** Revoking only takes a right away, so any page may ask (the options page does, after a confirmation). */
export const revokeAgent = pageMessageModule({
  schema: revokeAgentMessage,
  from: 'any',
  handler: async (m, services) => {
    const { sessions } = await services.ready();
    await sessions.revoke(m.thumbprint);
    services.changed();
    return { ok: true };
  },
});
