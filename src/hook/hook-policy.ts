import * as z from 'zod';
import { CountersignError } from '../protocol/errors';
import { describeZodError } from '../protocol/describe-zod-error';
import { globToRegExp } from '../gateway/tool-policy';
import { toolPoliciesSchema, type ToolPolicy } from '../gateway/upstream-spec';
import type { HookCall } from './hook-input';
import type { ToolKind } from './tool-kinds';

/**
 * Which coding-agent tool calls run, ask or are refused (docs/coding-agents.md, "Policy"). The
 * rules are countersign-mcp's (docs/mcp-gateway.md, "Policies"): tool-name globs in the order
 * deny, ask, allow, then a default. They come from one file in the hook's own config folder and
 * nowhere else: never from the project (the agent writes there), never from the hook input,
 * and nothing the person clicks turns `ask` into `allow`.
 *
 * Defaults: a read-only tool is allowed, unless it reads outside the project or a home dotfile;
 * everything else (shell, write, edit, patch, web fetch, MCP tools, tools we do not know) asks.
 */

/** The policy file, `policy.json` in the hook's config folder. */
export const hookPolicySchema = toolPoliciesSchema.extend({
  /** Shell commands refused outright: globs over the whole command line (`git push*`). */
  deny_commands: z.array(z.string().min(1).max(512)).max(256).optional(),
});
export type HookPolicy = z.output<typeof hookPolicySchema>;

export const POLICY_FILE = 'policy.json';

export function parseHookPolicy(text: string, file: string): HookPolicy {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new CountersignError('ERR_ARGUMENT_INVALID', `${file}: expected JSON, got a syntax error`, { cause: error });
  }
  const parsed = hookPolicySchema.safeParse(json, { reportInput: true });
  if (!parsed.success) throw new CountersignError('ERR_ARGUMENT_INVALID', describeZodError(parsed.error, file), { cause: parsed.error });
  return parsed.data;
}

export interface PolicyVerdict {
  policy: ToolPolicy;
  /** Why, in words for the model and the person. */
  reason: string;
}

/** The policy of one call. `command` is the shell command of a shell call; `outsideProject` true when a read leaves the project. */
export function hookPolicy(call: Pick<HookCall, 'tool'>, kind: ToolKind, policy: HookPolicy, facts: { command?: string; sensitiveRead?: boolean }): PolicyVerdict {
  if (matchesAny(call.tool, policy.deny)) return { policy: 'deny', reason: `the Countersign hook policy denies the tool ${call.tool}` };
  if (facts.command !== undefined && deniedCommand(facts.command, policy.deny_commands ?? [])) {
    return { policy: 'deny', reason: 'the Countersign hook policy denies this command' };
  }
  if (matchesAny(call.tool, policy.ask)) return { policy: 'ask', reason: `the Countersign hook policy asks for ${call.tool}` };
  if (matchesAny(call.tool, policy.allow)) return { policy: 'allow', reason: `the Countersign hook policy allows ${call.tool}` };
  if (kind === 'read' && facts.sensitiveRead !== true) return { policy: 'allow', reason: `${call.tool} only reads inside the project` };
  if (kind === 'read') return { policy: 'ask', reason: `${call.tool} reads outside the project or a home dotfile` };
  return { policy: 'ask', reason: `${call.tool} changes things (${kind}): Countersign asks you` };
}

/**
 * A glob matches the whole command or any one of its simple commands (split at line breaks,
 * `;`, `&` and `|`), so `git push*` also catches `make && git push origin`.
 */
function deniedCommand(command: string, globs: readonly string[]): boolean {
  const parts = [command, ...command.split(/[\n\r;&|]+/).map((p) => p.trim())];
  return globs.some((glob) => parts.some((part) => globToRegExp(glob).test(part)));
}

function matchesAny(name: string, globs: readonly string[] | undefined): boolean {
  return (globs ?? []).some((glob) => globToRegExp(glob).test(name));
}
