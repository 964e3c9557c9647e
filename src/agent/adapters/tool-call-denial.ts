import type { ToolCallApprovalResult } from '../companion-types';

/**
 * Why a tool call Countersign did not approve is not run, in words for the model (which passes
 * them on) and the person: one wording for countersign-hook and the agent-SDK adapters
 * (docs/coding-agents.md). `unavailable` may say why Countersign could not be reached.
 */
export function toolCallDenial(status: Exclude<ToolCallApprovalResult['status'], 'approved'>, tool: string, unavailable?: string): string {
  switch (status) {
    case 'declined':
      return `The person declined this ${tool} call in Countersign. Do not retry it; ask them what to do instead.`;
    case 'expired':
      return `Nobody approved this ${tool} call in Countersign in time, so it is not run.`;
    case 'withdrawn':
    case 'superseded':
      return `The approval of this ${tool} call was withdrawn in Countersign, so it is not run.`;
    case 'unavailable':
      return `Countersign is not available (${unavailable ?? 'the extension went away before it answered'}), so ${tool} is not run. Open the browser with Countersign and try again.`;
  }
}
