import { askCountersign, type CountersignAdapterOptions, type ToolCallApprover } from './ask-countersign';

/**
 * The Claude Agent SDK's permission callback, answered by the person in Countersign
 * (docs/agent-sdk.md, "Claude Agent SDK"): `query({ prompt, options: { canUseTool:
 * countersignCanUseTool(companion, { agent: 'My agent' }) } })`. Structural types only: the
 * package does not depend on the SDK. Every tool call that reaches the callback is asked about;
 * an allow carries the approved input as `updatedInput`, so the tool runs with exactly what the
 * person saw, and the SDK's `suggestions` (rules that would allow later calls without asking)
 * are never applied.
 */

/** What the SDK passes as the callback's third argument (the members used here). */
export interface CanUseToolOptions {
  signal?: AbortSignal;
  toolUseID?: string;
}

export type CanUseToolResult = { behavior: 'allow'; updatedInput: Record<string, unknown> } | { behavior: 'deny'; message: string };

export function countersignCanUseTool(companion: ToolCallApprover, options: CountersignAdapterOptions): (toolName: string, input: Record<string, unknown>, context: CanUseToolOptions) => Promise<CanUseToolResult> {
  return async (toolName, input, context) => {
    const verdict = await askCountersign(companion, options, { tool: toolName, input, signal: context?.signal });
    return verdict.allowed ? { behavior: 'allow', updatedInput: verdict.input } : { behavior: 'deny', message: verdict.reason };
  };
}
