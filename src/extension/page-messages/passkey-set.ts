import * as z from 'zod';
import { passkeyCredentialSchema } from '../../protocol/passkey';
import { pageMessageModule } from './types';

/**
 * Register, replace or remove the passkey that protects approvals, from the options page only,
 * after its own confirmation: every connected paired agent is told at once (AgentSessions
 * announcePasskey), the others at their next welcome.
 */
export const passkeySetMessage = z.object({ type: z.literal('countersign/passkey-set'), credential: passkeyCredentialSchema.nullable() }).strict();

export const passkeySet = pageMessageModule({
  schema: passkeySetMessage,
  from: ['options'],
  refusal: 'the passkey is registered and removed in the options page only',
  handler: async (m, services) => {
    const { store, sessions } = await services.ready();
    await store.putPasskey(m.credential, Date.now());
    const told = await sessions.announcePasskey();
    services.changed();
    return { ok: true, told };
  },
});
