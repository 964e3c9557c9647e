import * as z from 'zod';
import { passkeyCredentialSchema } from '../../protocol/passkey';
import { proveSettingsChange, settingsProofShape } from './settings-change';
import { pageMessageModule } from './types';

/**
 * Register, replace or remove the passkey that protects approvals, from the options page only.
 * Registering the first is a plain click; replacing or removing one needs an assertion of that
 * passkey over exactly this change (settings-change.ts), or anyone at the browser could swap it
 * for their own. Every connected paired agent is told at once (AgentSessions announcePasskey),
 * the others at their next welcome.
 */
export const passkeySetMessage = z.object({ type: z.literal('countersign/passkey-set'), credential: passkeyCredentialSchema.nullable(), ...settingsProofShape }).strict();

export const passkeySet = pageMessageModule({
  schema: passkeySetMessage,
  from: ['options'],
  refusal: 'the passkey is registered and removed in the options page only',
  handler: async (m, services) => {
    const { store, sessions } = await services.ready();
    await proveSettingsChange(services, { kind: 'passkey', credential: m.credential }, m);
    await store.putPasskey(m.credential, Date.now());
    const told = await sessions.announcePasskey();
    services.changed();
    return { ok: true, told };
  },
});
