import type { HookAgent, HookCall } from './hook-input';

/**
 * What a coding agent's tool does, by the CLI's own tool names (docs/coding-agents.md, "Tools").
 * The kind decides the default policy (hook-policy.ts) and what the card shows (card-arguments.ts).
 * A tool not listed here is `other`: it asks, because a tool we do not know may do anything.
 */
export type ToolKind = 'read' | 'shell' | 'write' | 'edit' | 'patch' | 'fetch' | 'mcp' | 'other';

const KINDS: Record<HookAgent, Record<string, ToolKind>> = {
  'claude-code': {
    Read: 'read',
    Grep: 'read',
    Glob: 'read',
    LS: 'read',
    NotebookRead: 'read',
    TodoWrite: 'read',
    BashOutput: 'read',
    // The session's own task list and agent list: nothing outside the session changes.
    TaskCreate: 'read',
    TaskGet: 'read',
    TaskList: 'read',
    TaskUpdate: 'read',
    ListAgents: 'read',
    Bash: 'shell',
    Write: 'write',
    Edit: 'edit',
    MultiEdit: 'edit',
    NotebookEdit: 'edit',
    WebFetch: 'fetch',
    WebSearch: 'fetch',
  },
  codex: {
    read_file: 'read',
    list_dir: 'read',
    grep_files: 'read',
    view_image: 'read',
    Bash: 'shell',
    shell: 'shell',
    exec_command: 'shell',
    apply_patch: 'patch',
    web_search: 'fetch',
  },
  gemini: {
    read_file: 'read',
    read_many_files: 'read',
    glob: 'read',
    search_file_content: 'read',
    grep_search: 'read',
    list_directory: 'read',
    run_shell_command: 'shell',
    write_file: 'write',
    replace: 'edit',
    web_fetch: 'fetch',
    google_web_search: 'fetch',
  },
};

export function toolKind(call: Pick<HookCall, 'agent' | 'tool' | 'mcp'>): ToolKind {
  if (call.mcp !== undefined) return 'mcp';
  return Object.hasOwn(KINDS[call.agent], call.tool) ? (KINDS[call.agent][call.tool] as ToolKind) : 'other';
}

/** How the card and the messages name each CLI. */
export const AGENT_NAMES: Record<HookAgent, string> = { 'claude-code': 'Claude Code', codex: 'Codex CLI', gemini: 'Gemini CLI' };
