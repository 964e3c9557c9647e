import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../agent/harness';
import { cliEnv, ROOT, type Workspace } from '../coding-agents/support/clients';
import { person } from '../coding-agents/support/coding-agent-suite';
import { ModelServer, type ScriptedCall } from '../coding-agents/support/model-server';
import { FILESYSTEM_SERVER, pairAs, runClient, setUp, type Setup } from './support/clients';

// docs/mcp-gateway.md "Launching it from an MCP client": the real Claude Code CLI (the version
// package.json pins) as the MCP client of countersign-mcp, with one MCP connection for the whole
// session: its own process and environment handling, its own tool time-out (MCP_TOOL_TIMEOUT), and
// a model (scripted, test/coding-agents/support/model-server.ts) that calls the tool again after a
// time-out, as models do. Countersign is the real bridge in front of the extension's services.

const AGENT = 'Claude Code agent';
const CLAUDE = path.join(ROOT, 'node_modules', '.bin', 'claude');
let setup: Setup;
let model: ModelServer;
let ws: Workspace;

beforeAll(async () => {
  [setup, model] = await Promise.all([setUp(), ModelServer.start()]);
  await pairAs(setup, AGENT);
  const home = path.join(setup.scratch, 'claude-home');
  await mkdir(path.join(home, '.claude'), { recursive: true });
  await writeFile(path.join(home, '.claude', 'settings.json'), JSON.stringify({ env: { DISABLE_AUTOUPDATER: '1' } }));
  const args = ['--agent-name', AGENT, '--config-dir', setup.configDir, '--upstream-command', 'node', '--upstream-arg', FILESYSTEM_SERVER, '--upstream-arg', setup.files];
  await writeFile(path.join(setup.scratch, 'claude-mcp.json'), JSON.stringify({ mcpServers: { countersign: { type: 'stdio', command: 'countersign-mcp', args } } }));
  ws = { agent: 'claude-code', home, project: setup.scratch, configDir: setup.configDir };
}, 60_000);
afterAll(async () => Promise.all([setup?.dispose(), model?.close()]));

const target = (name: string) => path.join(setup.files, `${name}.txt`);
const write = (file: string): ScriptedCall => ({ name: 'mcp__countersign__write_file', input: { path: file, content: 'written through Claude Code' } });
const prompts = async () => (await setup.ext.store.all()).filter((r) => r.agentName === AGENT).sort((a, b) => a.createdAt - b.createdAt);

/** One headless Claude Code run on `calls`, the gateway's tool allowed by Claude Code's own permissions (Countersign still asks). */
function claude(calls: ScriptedCall[], env: Record<string, string> = {}) {
  model.play(calls);
  const runEnv = cliEnv(ws, model, { PATH: `${setup.bin}:${path.dirname(process.execPath)}:/usr/bin:/bin`, XDG_RUNTIME_DIR: setup.ext.runtimeDir, ...env });
  return runClient(CLAUDE, ['-p', 'go', '--model', 'claude-sonnet-4-5', '--mcp-config', path.join(setup.scratch, 'claude-mcp.json'), '--strict-mcp-config', '--allowedTools', 'mcp__countersign__write_file', '--output-format', 'json'], { env: runEnv, cwd: setup.scratch, timeoutMs: 90_000 });
}

/** What Claude Code told the model its tool calls gave. */
function toldModel(): string {
  return JSON.stringify(model.requests.map((r) => r.body));
}

describe('Claude Code (@anthropic-ai/claude-code) with countersign-mcp in its --mcp-config', { timeout: 120_000 }, () => {
  it('approved in Countersign: the file is written, under the paired name', async () => {
    const before = (await prompts()).length;
    const asked = person(setup.ext, 'approve');
    const ran = await claude([write(target('claude-approved'))]);
    await asked.stop();
    expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    expect(readFileSync(target('claude-approved'), 'utf8')).toBe('written through Claude Code');
    expect((await prompts()).slice(before).map((p) => [p.toolCall?.tool, p.state])).toEqual([['write_file', 'performed']]);
  });

  it('declined in Countersign: nothing is written, and the model is told so', async () => {
    const asked = person(setup.ext, 'decline');
    const ran = await claude([write(target('claude-declined'))]);
    expect(await asked.stop()).toHaveLength(1);
    expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    expect(existsSync(target('claude-declined'))).toBe(false);
    expect(toldModel()).toContain('You declined this tool call in Countersign');
  });

  it('Claude Code\'s tool time-out, then the model calls again: the call again joins what waits, one prompt, approved once, the tool runs once', async () => {
    const before = (await prompts()).length;
    const file = target('claude-retried');
    const run = claude([write(file), write(file)], { MCP_TOOL_TIMEOUT: '4000' });
    // The model is told of the time-out (a request carrying one tool result) and calls again.
    await waitFor(async () => model.requests.some((r) => JSON.stringify(r.body).includes('tool_result')), 'Claude Code to report the time-out to the model', 30_000);
    await new Promise((r) => setTimeout(r, 1500));
    const asked = person(setup.ext, 'approve');
    const ran = await run;
    await asked.stop();
    expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe('written through Claude Code');
    expect(toldModel()).toContain('tool \\"write_file\\" timed out after 4s');
    expect(toldModel()).toContain('Successfully wrote to');
    const mine = (await prompts()).slice(before);
    expect(mine.map((p) => p.state)).toEqual(['performed']);
  });

  it('Claude Code\'s tool time-out and no call again: the prompt is withdrawn when the session ends, and nothing is written', async () => {
    const before = (await prompts()).length;
    const file = target('claude-timed-out');
    const ran = await claude([write(file)], { MCP_TOOL_TIMEOUT: '3000' });
    expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    expect(toldModel()).toContain('timed out after 3s');
    await waitFor(async () => (await prompts()).slice(before)[0]?.state === 'cancelled', 'the prompt to be withdrawn', 15_000);
    expect((await prompts()).slice(before).map((p) => p.state)).toEqual(['cancelled']);
    expect(existsSync(file)).toBe(false);
  });
});
