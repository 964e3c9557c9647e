import { paired, type BridgeMessageHandler } from './types';

/** `outcome` (docs/bridge-protocol.md, section 9.5): what the Company did with an approval, for the history. */
export const outcome: BridgeMessageHandler<'outcome'> = async (c, m, session) => {
  const who = await paired(c, session.store);
  session.sendReply(c.conn, await session.queue.outcome(who, m.id, m.operation_id, m.revision, m.outcome, m.detail, m.company_origin));
};
