import { CountersignError } from '../../protocol/errors';
import type { IncomingApprovalRequest } from '../approval-queue';
import { authenticated, type BridgeMessageHandler, type BridgeSession, type Connection, type LaterAnswer } from './types';

/**
 * A request for the person, from a paired agent only: an unpaired or revoked one is refused with
 * its typed error, and the person learns of it as a problem, never as a window. The request is
 * read only once the agent is known; the queue answers at once (an error, an earlier decision)
 * or later, when the person decides.
 */
export async function askPerson(c: Connection, session: BridgeSession, request: () => IncomingApprovalRequest | Promise<IncomingApprovalRequest>): Promise<LaterAnswer> {
  const who = authenticated(c);
  // From the store's memory after the first ask (Store.getAgent): a revocation shows at once.
  const agent = await session.store.getAgent(who.agentThumbprint);
  if (!agent || agent.revokedAt) session.problem(agent ? 'revoked' : 'unpaired', who.agentName);
  if (!agent) throw new CountersignError('ERR_AGENT_NOT_PAIRED', 'this agent is not paired with Countersign: pair it first');
  if (agent.revokedAt) throw new CountersignError('ERR_AGENT_REVOKED', 'this agent was revoked in Countersign');
  // Taken in with the asks around it (ApprovalQueue.receive); the sessions answer it in order.
  return { answer: session.queue.receive(agent, c.conn, await request()) };
}

/** `approval_request` (docs/bridge-protocol.md, section 9.1): an operation for the person to decide. */
export const approvalRequest: BridgeMessageHandler<'approval_request'> = (c, m, session) =>
  askPerson(c, session, () => ({ ...m, ...(m.user_verification === undefined ? {} : { userVerification: m.user_verification }) }));
