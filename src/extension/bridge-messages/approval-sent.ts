import { paired, type BridgeMessageHandler } from './types';

/**
 * `approval_sent` (docs/bridge-protocol.md, section 9.5): the agent is about to send an approval
 * to the Company; once it is acknowledged, the person can no longer withdraw it.
 */
export const approvalSent: BridgeMessageHandler<'approval_sent'> = async (c, m, session) => {
  const who = await paired(c, session.store);
  session.sendReply(c.conn, await session.queue.sent(who, m.id, m.operation_id, m.revision, m.company_origin));
};
