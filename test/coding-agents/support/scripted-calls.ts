import path from 'node:path';
import type { HookAgent } from '../../../src/hook/hook-input';
import { timesRan, type Workspace } from './clients';
import type { ScriptedCall } from './model-server';

/**
 * One run of each CLI makes four tool calls in a row (shell, file write, file edit, MCP tool), so
 * each scenario is one CLI run; each call leaves its own trace, and the tests count the traces.
 */

export const SHELL_MARKER = 'bash.marker';
export const WRITTEN = 'written.txt';
export const EDITED = 'edit.txt';

export function scriptedCalls(ws: Workspace): ScriptedCall[] {
  const p = (f: string) => path.join(ws.project, f);
  const shell = `echo ran >> ${SHELL_MARKER}`;
  switch (ws.agent) {
    case 'claude-code':
      return [
        { name: 'Bash', input: { command: shell, description: 'leave a marker' } },
        { name: 'Write', input: { file_path: p(WRITTEN), content: 'hello from the model\n' } },
        // Claude Code edits only a file read in the session.
        { name: 'Read', input: { file_path: p(EDITED) } },
        { name: 'Edit', input: { file_path: p(EDITED), old_string: 'old line', new_string: 'new line', replace_all: false } },
        { name: 'mcp__marker__touch_marker', input: { name: 'claude' } },
      ];
    case 'codex':
      return [
        { name: 'exec_command', input: { cmd: shell } },
        { name: 'apply_patch', input: `*** Begin Patch\n*** Add File: ${WRITTEN}\n+hello from the model\n*** End Patch\n` },
        { name: 'apply_patch', input: `*** Begin Patch\n*** Update File: ${EDITED}\n@@\n-old line\n+new line\n*** End Patch\n` },
        { name: 'touch_marker', namespace: 'mcp__marker', input: { name: 'codex' } },
      ];
    case 'gemini':
      return [
        { name: 'run_shell_command', input: { command: shell, description: 'leave a marker' } },
        { name: 'write_file', input: { file_path: p(WRITTEN), content: 'hello from the model\n' } },
        { name: 'replace', input: { file_path: p(EDITED), old_string: 'old line', new_string: 'new line', instruction: 'change the line' } },
        { name: 'mcp_marker_touch_marker', input: { name: 'gemini' } },
      ];
  }
}

const MCP_NAME: Record<HookAgent, string> = { 'claude-code': 'claude', codex: 'codex', gemini: 'gemini' };

/** How many times each of the four calls ran, by its trace. */
export async function traces(ws: Workspace): Promise<{ shell: number; write: number; edit: number; mcp: number }> {
  const { readFile } = await import('node:fs/promises');
  const edited = await readFile(path.join(ws.project, EDITED), 'utf8');
  return {
    shell: await timesRan(path.join(ws.project, SHELL_MARKER)),
    write: (await timesRan(path.join(ws.project, WRITTEN))) > 0 ? 1 : 0,
    edit: edited.includes('new line') ? 1 : 0,
    mcp: await timesRan(path.join(ws.project, `mcp-${MCP_NAME[ws.agent]}.marker`)),
  };
}
