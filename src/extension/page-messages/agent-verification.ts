import * as z from 'zod';
import { CountersignError } from '../../protocol/errors';
import { keyField, pageMessageModule } from './types';

/** Require the person's passkey for every approval of one agent, or stop requiring it (options page only). */
export const agentVerificationMessage = z.object({ type: z.literal('countersign/agent-verification'), thumbprint: keyField, required: z.boolean() }).strict();

export const agentVerification = pageMessageModule({
  schema: agentVerificationMessage,
  from: ['options'],
  refusal: "an agent's settings change in the options page only",
  handler: async (m, services) => {
    const { store } = await services.ready();
    const agent = await store.getAgent(m.thumbprint);
    if (!agent) throw new CountersignError('ERR_ARGUMENT_INVALID', `thumbprint: expected a paired agent, got ${m.thumbprint}, which names none`);
    await store.putAgent({ ...agent, requireUserVerification: m.required });
    services.changed();
    return { ok: true };
  },
});
