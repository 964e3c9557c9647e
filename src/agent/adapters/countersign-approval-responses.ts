import { askCountersign, type CountersignAdapterOptions, type ToolCallApprover } from './ask-countersign';

/**
 * The AI SDK's tool approvals, answered by the person in Countersign (docs/agent-sdk.md, "AI
 * SDK"): a tool with `needsApproval: true` makes `generateText` stop with a
 * `tool-approval-request` part. Given the conversation with that step's `response.messages`
 * appended, this asks Countersign about each open request with the tool call's exact input, and
 * returns the `tool` message of approval responses to append before calling again. The next call
 * runs the tool with the input in that conversation, so the input is read from there, before
 * asking and once more after. Structural types only: the package does not depend on the SDK.
 */

/** A message of the conversation (the members used here). */
export interface ConversationMessage {
  role: string;
  content: unknown;
}

export interface ToolApprovalResponseMessage {
  role: 'tool';
  content: Array<{ type: 'tool-approval-response'; approvalId: string; approved: boolean; reason?: string }>;
}

interface Part {
  type?: unknown;
  approvalId?: unknown;
  toolCallId?: unknown;
  toolName?: unknown;
  input?: unknown;
}

/** Undefined when no approval request is open. */
export async function countersignApprovalResponses(
  companion: ToolCallApprover,
  messages: readonly ConversationMessage[],
  options: CountersignAdapterOptions & { signal?: AbortSignal },
): Promise<ToolApprovalResponseMessage | undefined> {
  const parts = (role: string) => messages.filter((m) => m.role === role && Array.isArray(m.content)).flatMap((m) => m.content as Part[]);
  const answered = new Set(parts('tool').filter((p) => p?.type === 'tool-approval-response').map((p) => p.approvalId));
  const open = parts('assistant').filter((p) => p?.type === 'tool-approval-request' && typeof p.approvalId === 'string' && !answered.has(p.approvalId));
  if (open.length === 0) return undefined;
  const toolCall = (id: unknown) => parts('assistant').find((p) => p?.type === 'tool-call' && p.toolCallId === id);
  const answers: ToolApprovalResponseMessage['content'] = [];
  // One prompt at a time, in the model's order: the person decides each call on its own.
  for (const request of open) {
    const approvalId = request.approvalId as string;
    const call = toolCall(request.toolCallId);
    const tool = typeof call?.toolName === 'string' ? call.toolName : 'tool';
    const verdict =
      call === undefined
        ? { allowed: false as const, reason: `Countersign found no tool call for this approval request, so nothing is run.` }
        : await askCountersign(companion, options, { tool, input: call.input, signal: options.signal, current: () => toolCall(request.toolCallId)?.input });
    answers.push({ type: 'tool-approval-response', approvalId, approved: verdict.allowed, reason: verdict.allowed ? `Approved in Countersign (${verdict.callId}).` : verdict.reason });
  }
  return { role: 'tool', content: answers };
}
