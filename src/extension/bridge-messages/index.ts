import type { AgentToExtensionMessage } from '../../protocol/bridge';
import { approvalCancel } from './approval-cancel';
import { approvalRequest } from './approval-request';
import { approvalSent } from './approval-sent';
import { auth } from './auth';
import { error } from './error';
import { hello } from './hello';
import { outcome } from './outcome';
import { pairRequest } from './pair-request';
import { pairReveal } from './pair-reveal';
import { toolCallRequest } from './tool-call-request';
import type { BridgeMessageHandler, BridgeSession, Connection, LaterAnswer } from './types';
import { versionQuery } from './version-query';

/** A handler for every message type an agent may send: a type of the union without one does not compile. */
export type BridgeMessageHandlers = { readonly [T in AgentToExtensionMessage['type']]: BridgeMessageHandler<T> };

/** Every message from an agent (docs/bridge-protocol.md, sections 7 to 9) and the module that handles it. */
export const BRIDGE_MESSAGES: BridgeMessageHandlers = {
  version_query: versionQuery,
  hello,
  auth,
  pair_request: pairRequest,
  pair_reveal: pairReveal,
  approval_request: approvalRequest,
  tool_call_request: toolCallRequest,
  approval_cancel: approvalCancel,
  approval_sent: approvalSent,
  outcome,
  error,
};

/** One parsed message, to its type's handler; an ask resolves with the answer it will get (LaterAnswer). */
export function handleBridgeMessage(c: Connection, m: AgentToExtensionMessage, session: BridgeSession): void | Promise<void | LaterAnswer> {
  // The handler was picked by the message's own type, which a lookup by a union key cannot say.
  const handler = BRIDGE_MESSAGES[m.type] as BridgeMessageHandler;
  return handler(c, m, session);
}
