import * as z from 'zod';
import { CountersignError } from '../protocol/errors';
import { describeZodError } from '../protocol/describe-zod-error';

/**
 * What each coding agent writes on its approval hook's standard input, read with one schema per
 * CLI (docs/coding-agents.md). The shapes are the ones the real CLIs wrote (the captured inputs
 * under test/hook/fixtures/): Claude Code's and Codex's `PreToolUse`, Gemini CLI's `BeforeTool`.
 * Members we do not use are allowed and ignored (each CLI adds some from version to version);
 * the ones we use are checked, and a tool input that is not a JSON object is refused, because
 * what is asked about and answered for is exactly that object.
 */

export const HOOK_AGENTS = ['claude-code', 'codex', 'gemini'] as const;
export type HookAgent = (typeof HOOK_AGENTS)[number];

/** The longest hook input read from standard input, in bytes: far above any real call, far below harm. */
export const MAX_HOOK_INPUT_BYTES = 4 * 1024 * 1024;

const absolutePath = z.string().min(1).max(4096).refine((p) => p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p), { error: 'expected an absolute path' });
const toolName = z.string().min(1).max(256);
const toolInput = z.record(z.string(), z.json(), { error: 'expected a JSON object' });

/** What all three write: the session, the folder, the tool and its input. */
const common = { session_id: z.string().max(256).optional(), cwd: absolutePath, tool_name: toolName, tool_input: toolInput };

const claudeInputSchema = z.looseObject({
  ...common,
  hook_event_name: z.literal('PreToolUse'),
  tool_use_id: z.string().max(256).optional(),
  mcp_server: z.looseObject({ name: z.string().max(256) }).optional(),
});

const codexInputSchema = z.looseObject({ ...common, hook_event_name: z.literal('PreToolUse'), turn_id: z.string().max(256).optional(), tool_use_id: z.string().max(256).optional() });

const geminiInputSchema = z.looseObject({
  ...common,
  hook_event_name: z.literal('BeforeTool'),
  mcp_context: z.looseObject({ server_name: z.string().max(256), tool_name: z.string().max(256) }).optional(),
});

export const HOOK_INPUT_SCHEMAS = { 'claude-code': claudeInputSchema, codex: codexInputSchema, gemini: geminiInputSchema } as const;

/** One tool call as the hook sees it, whichever CLI sent it. */
export interface HookCall {
  agent: HookAgent;
  /** The folder the agent works in: the project. */
  cwd: string;
  /** The tool as the CLI names it (`Bash`, `apply_patch`, `run_shell_command`, `mcp__github__create_issue`). */
  tool: string;
  /** Exactly what the CLI will run the tool with; the approval covers these bytes. */
  input: Record<string, unknown>;
  /** For an MCP tool: the server's name and the tool's own name, when the CLI says them. */
  mcp?: { server: string; tool: string };
}

/** Read the hook's standard input for `agent`. ERR_ARGUMENT_INVALID for anything that is not that CLI's hook input. */
export function parseHookInput(agent: HookAgent, text: string): HookCall {
  if (text.length > MAX_HOOK_INPUT_BYTES) throw new CountersignError('ERR_ARGUMENT_INVALID', `hook input: expected at most ${MAX_HOOK_INPUT_BYTES} bytes, got more`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new CountersignError('ERR_ARGUMENT_INVALID', 'hook input: expected JSON, got text that does not parse', { cause: error });
  }
  const parsed = HOOK_INPUT_SCHEMAS[agent].safeParse(json, { reportInput: true });
  if (!parsed.success) throw new CountersignError('ERR_ARGUMENT_INVALID', describeZodError(parsed.error, `hook input of ${agent}`), { cause: parsed.error });
  const data = parsed.data;
  return { agent, cwd: data.cwd, tool: data.tool_name, input: data.tool_input, ...mcpOf(agent, data) };
}

function mcpOf(agent: HookAgent, data: { tool_name: string; mcp_server?: { name: string }; mcp_context?: { server_name: string; tool_name: string } }): { mcp?: { server: string; tool: string } } {
  if (data.mcp_context !== undefined) return { mcp: { server: data.mcp_context.server_name, tool: data.mcp_context.tool_name } };
  // Claude Code and Codex name an MCP tool mcp__<server>__<tool>; Gemini CLI mcp_<server>_<tool> (its mcp_context says which part is which).
  const match = agent === 'gemini' ? undefined : /^mcp__(.+?)__(.+)$/.exec(data.tool_name);
  if (match !== null && match !== undefined) return { mcp: { server: data.mcp_server?.name ?? (match[1] as string), tool: match[2] as string } };
  return {};
}
