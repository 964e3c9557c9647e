import { authenticated, type BridgeMessageHandler } from './types';

/**
 * `approval_cancel` (docs/bridge-protocol.md, section 9.3): the agent no longer needs an answer;
 * `ack` says whether the prompt was still open and is now closed.
 */
export const approvalCancel: BridgeMessageHandler<'approval_cancel'> = async (c, m, session) => {
  authenticated(c);
  const cancelled = await session.queue.cancel(c.conn, m.request_id);
  session.sendReply(c.conn, { type: 'ack', id: m.id, cancelled });
};
