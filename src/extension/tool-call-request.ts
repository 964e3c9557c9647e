import type { ToolCall } from '../protocol/tool-call';
import { toolCallSummary } from '../protocol/tool-call';
import { toolCallRevision } from '../protocol/tool-call-revision';
import type { IncomingApprovalRequest } from './approval-queue';

/**
 * A `tool_call_request` as an item of the approval queue (docs/bridge-protocol.md,
 * "tool_call_request"). Countersign writes the summary itself from the call, and the terms are
 * the arguments as data: nothing the asking side wrote is shown as the summary. The server has
 * no web address, so the item's Company is the server's name with an empty origin, and the
 * window shows it as a tool call (snapshot.ts `toolCall`), never as a Company.
 */
export async function toolCallAsRequest(message: { id: string; nonce: string; tool_call: ToolCall }): Promise<IncomingApprovalRequest> {
  const call = message.tool_call;
  const reached = call.server.reached_by;
  return {
    id: message.id,
    nonce: message.nonce,
    company: { name: call.server.name, origin: '' },
    operation: { operation_id: call.call_id, revision: await toolCallRevision(call), summary: toolCallSummary(call), terms: call.arguments, expires_at: call.expires_at },
    request: { interface: 'mcp', ...(reached.transport === 'http' ? { server_url: reached.url } : {}), tool: call.tool, arguments: call.arguments },
    session: { kind: 'this_session' },
    toolCall: call,
  };
}
