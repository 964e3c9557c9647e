import type { HookAgent } from './hook-input';

/**
 * The hook's answer in each CLI's own format (docs/coding-agents.md, "What allow and deny mean"),
 * the only thing the hook writes on standard output. A deny always carries its reason: the CLI
 * shows it to the model (which then knows not to retry blindly) and to the person.
 *
 * - Claude Code: `hookSpecificOutput.permissionDecision` "allow" or "deny" with its reason.
 * - Codex CLI: "deny" the same way; Codex 0.169 refuses `permissionDecision: "allow"` as
 *   unsupported, so an allow is an empty object: "not blocked", after which Codex's own sandbox
 *   and approval policy still apply.
 * - Gemini CLI: `{"decision": "allow"}` or `{"decision": "deny", "reason": ...}`.
 */
export type HookDecision = { decision: 'allow'; reason: string } | { decision: 'deny'; reason: string };

/** The longest reason written: CLIs put it in front of the model and in their logs. */
const MAX_REASON_LENGTH = 2000;

export function hookAnswer(agent: HookAgent, decision: HookDecision): string {
  const reason = decision.reason.slice(0, MAX_REASON_LENGTH) || (decision.decision === 'deny' ? 'denied by Countersign' : 'allowed by Countersign');
  switch (agent) {
    case 'claude-code':
      return JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: decision.decision, permissionDecisionReason: reason } });
    case 'codex':
      return JSON.stringify(decision.decision === 'deny' ? { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason } } : {});
    case 'gemini':
      return JSON.stringify(decision.decision === 'deny' ? { decision: 'deny', reason } : { decision: 'allow', reason });
  }
}
