import * as z from 'zod';
import { CountersignError } from '../../protocol/errors';
import { proveSettingsChange, settingsProofShape } from './settings-change';
import { keyField, pageMessageModule } from './types';

/**
 * Require the person's passkey for every approval of one agent, or stop requiring it (options
 * page only). Turning it on is a plain click, once a passkey is registered (without one it would
 * block every approval). Turning it off needs the passkey, or with none registered any more the
 * Approve gate (settings-change.ts). The agent is told, signed, either way (AgentSessions
 * announcePasskey), so it refuses approvals without the passkey for as long as it is required.
 */
export const agentVerificationMessage = z.object({ type: z.literal('countersign/agent-verification'), thumbprint: keyField, required: z.boolean(), ...settingsProofShape }).strict();

export const agentVerification = pageMessageModule({
  schema: agentVerificationMessage,
  from: ['options'],
  refusal: "an agent's settings change in the options page only",
  handler: async (m, services) => {
    const { store, sessions } = await services.ready();
    const agent = await store.getAgent(m.thumbprint);
    if (!agent) throw new CountersignError('ERR_ARGUMENT_INVALID', `thumbprint: expected a paired agent, got ${m.thumbprint}, which names none`);
    if ((agent.requireUserVerification === true) === m.required) return { ok: true, told: 0 };
    if (m.required && (await store.getPasskey())?.credential == null) throw new CountersignError('ERR_NOT_ALLOWED', 'requiring the passkey: none is registered; register one first');
    await proveSettingsChange(services, { kind: 'agent-verification', thumbprint: m.thumbprint, required: m.required }, m);
    await store.putAgent({ ...agent, requireUserVerification: m.required, userVerificationChangedAt: Date.now() });
    await store.audit(m.required ? 'passkey-required' : 'passkey-not-required', { agent: agent.thumbprint, detail: agent.name });
    const told = await sessions.announcePasskey(agent.thumbprint);
    services.changed();
    return { ok: true, told };
  },
});
