import type { BridgeMessageHandler } from './types';

/** `error` from an agent (docs/bridge-protocol.md, section 5, "error"): its report about something we sent, recorded and never acted on or answered. */
export const error: BridgeMessageHandler<'error'> = async (_c, m, session) => {
  await session.store.audit('agent-error', { detail: `${m.code}: ${m.message}`.slice(0, 500) });
};
