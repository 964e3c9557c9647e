import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Companion } from '../../../src/agent/companion';
import type { ApprovalRecord } from '../../../src/extension/store';
import type { HookAgent } from '../../../src/hook/hook-input';
import { FakeExtension } from '../../agent/harness';
import { bundleHook, install, runAgent, workspace, type Workspace } from './clients';
import { ModelServer } from './model-server';
import { scriptedCalls, traces } from './scripted-calls';

/**
 * The real-CLI suite of one coding agent (docs/coding-agents.md): the CLI as published, its hook
 * installed by `countersign-hook install`, one run per scenario making a shell call, a file
 * write, a file edit and an MCP tool call, each leaving its own trace. Countersign is the real
 * bridge process in front of the real extension services (test/agent/harness.ts); only the
 * person is played, by `person` below, who answers every prompt the same way.
 */

/** The CLI's names of the four tools, for policy files. */
const TOOL_NAMES: Record<HookAgent, string[]> = {
  'claude-code': ['Bash', 'Write', 'Edit', 'mcp__marker__touch_marker'],
  codex: ['Bash', 'apply_patch', 'mcp__marker__touch_marker'],
  gemini: ['run_shell_command', 'write_file', 'replace', 'mcp_marker_touch_marker'],
};

export function codingAgentSuite(agent: HookAgent): void {
  let model: ModelServer;
  let hook: string;
  let ext: FakeExtension;
  let emptyRuntime: string;
  /** The hook's config folder, paired once: each scenario writes its own policy.json. */
  let configDir: string;
  const none = { shell: 0, write: 0, edit: 0, mcp: 0 };
  const once = { shell: 1, write: 1, edit: 1, mcp: 1 };

  beforeAll(async () => {
    [model, hook, ext] = await Promise.all([ModelServer.start(), bundleHook(), FakeExtension.start()]);
    emptyRuntime = await mkdtemp(path.join(os.tmpdir(), 'cs-none-'));
    configDir = await mkdtemp(path.join(os.tmpdir(), 'cs-hook-config-'));
    const companion = await Companion.connect({ agentName: 'countersign-hook', configDir, socketPath: ext.socketPath });
    await ext.pairConfirmed(companion);
    await companion.close();
  }, 60_000);
  afterAll(async () => {
    await Promise.all([model?.close(), ext?.dispose()]);
  });

  /** A fresh project with the hook installed, paired with the fake extension, and `policy` as its policy file. */
  async function prepared(policy: Record<string, unknown> | undefined): Promise<Workspace> {
    const ws = await workspace(agent, model, configDir);
    const installed = await install(hook, ws);
    expect(installed.code, installed.stderr).toBe(0);
    if (policy === undefined) await rm(path.join(configDir, 'policy.json'), { force: true });
    else await writeFile(path.join(configDir, 'policy.json'), JSON.stringify(policy));
    return ws;
  }

  /** What the model was told about its tool calls: the CLI passes the hook's reasons on. */
  const toldModel = () => JSON.stringify(model.requests.map((r) => r.body));

  describe(`${agent}: shell, write, edit and an MCP tool behind countersign-hook`, { timeout: 60_000 }, () => {
    it('a policy deny leaves no trace, and the model is told why', async () => {
      const ws = await prepared({ deny: TOOL_NAMES[agent] });
      const run = await runAgent(ws, model, scriptedCalls(ws), { XDG_RUNTIME_DIR: ext.runtimeDir });
      expect(await traces(ws), run.stdout + run.stderr).toEqual(none);
      expect(toldModel()).toContain('Countersign hook policy denies');
    });

    it('with Countersign not running, each asked call fails closed and leaves no trace', async () => {
      const ws = await prepared(undefined);
      const run = await runAgent(ws, model, scriptedCalls(ws), { XDG_RUNTIME_DIR: emptyRuntime });
      expect(await traces(ws), run.stdout + run.stderr).toEqual(none);
      expect(toldModel()).toContain('Countersign is not available');
    });

    it('a policy allow runs each call exactly once, without asking', async () => {
      const ws = await prepared({ allow: TOOL_NAMES[agent] });
      const asked = person(ext, 'decline');
      const run = await runAgent(ws, model, scriptedCalls(ws), { XDG_RUNTIME_DIR: ext.runtimeDir });
      expect(await asked.stop()).toEqual([]);
      expect(await traces(ws), run.stdout + run.stderr).toEqual(once);
    });

    it('approved in Countersign, each call runs exactly once; the cards say what happens', async () => {
      const ws = await prepared(undefined);
      const asked = person(ext, 'approve');
      const run = await runAgent(ws, model, scriptedCalls(ws), { XDG_RUNTIME_DIR: ext.runtimeDir });
      const prompts = await asked.stop();
      expect(await traces(ws), run.stdout + run.stderr).toEqual(once);
      expect(prompts).toHaveLength(4);
      expectCards(agent, ws, prompts);
      for (const p of prompts) expect(p.toolCall?.server.reached_by).toEqual({ transport: 'stdio', command: 'countersign-hook', args: ['--agent', agent, '--cwd', ws.project] });
    });

    it('declined in Countersign, no call leaves a trace, and the model is told', async () => {
      const ws = await prepared(undefined);
      const asked = person(ext, 'decline');
      const run = await runAgent(ws, model, scriptedCalls(ws), { XDG_RUNTIME_DIR: ext.runtimeDir });
      expect(await asked.stop()).toHaveLength(4);
      expect(await traces(ws), run.stdout + run.stderr).toEqual(none);
      expect(toldModel()).toContain('declined this');
    });
  });
}

/** Answers every prompt as it appears, until stopped; returns the prompts it saw. */
export function person(ext: FakeExtension, answer: 'approve' | 'decline'): { stop: () => Promise<ApprovalRecord[]> } {
  const seen = new Map<string, ApprovalRecord>();
  let running = true;
  const loop = (async () => {
    while (running) {
      for (const record of await ext.store.byState('pending')) {
        if (seen.has(record.key)) continue;
        seen.set(record.key, record);
        await ext.queue.decide(record.key, answer);
      }
      await new Promise((r) => setTimeout(r, 25));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return [...seen.values()];
    },
  };
}

/** The arguments of the four cards say what happens: the command and its folder, the file created, the diff of the edit, the MCP tool. */
function expectCards(agent: HookAgent, ws: Workspace, prompts: ApprovalRecord[]): void {
  const cards = prompts.map((p) => p.toolCall?.arguments ?? {});
  expect(cards[0]).toMatchObject({ command: 'echo ran >> bash.marker', working_directory: ws.project });
  const written = path.join(ws.project, 'written.txt');
  const edited = path.join(ws.project, 'edit.txt');
  if (agent === 'codex') {
    expect(cards[1]).toMatchObject({ files: [{ action: 'create', path: written, content: 'hello from the model\n' }] });
    expect(cards[2]).toMatchObject({ files: [{ action: 'update', path: edited, diff: expect.stringContaining('-old line\n+new line') }] });
  } else {
    expect(cards[1]).toMatchObject({ action: 'create', path: written, content: 'hello from the model\n' });
    expect(cards[2]).toMatchObject({ action: 'edit', path: edited, diff: expect.stringContaining('-old line\n+new line') });
  }
  expect(cards[3]).toMatchObject({ server: 'marker', tool: 'touch_marker', arguments: { name: expect.any(String) } });
}
