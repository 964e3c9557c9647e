import { existsSync, mkdirSync, readFileSync, rmdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../agent/harness';
import { person } from '../coding-agents/support/coding-agent-suite';
import { APIFY_MCPC, claudeDesktopConfig, FILESYSTEM_SERVER, INSPECTOR_CLI, pairAs, runClient, setUp, shellEnv, startClient, WONG2_MCP_CLI, type Setup } from './support/clients';

// docs/mcp-gateway.md "Launching it from an MCP client": countersign-mcp started by MCP clients
// nobody here wrote, each as its own process with its own environment handling, in front of the
// real bridge. Each client's agent name is paired once and must be the name on the card.

let setup: Setup;
const INSPECTOR = 'Inspector agent';
const DESKTOP = 'Desktop agent';

beforeAll(async () => {
  setup = await setUp();
  for (const name of [INSPECTOR, DESKTOP]) await pairAs(setup, name);
}, 60_000);
afterAll(async () => setup?.dispose());

/** The gateway's arguments in the launch form every client can pass on: no `--`. */
function gatewayArgs(agentName: string): string[] {
  return ['--agent-name', agentName, '--config-dir', setup.configDir, '--upstream-command', 'node', '--upstream-arg', FILESYSTEM_SERVER, '--upstream-arg', setup.files];
}

const target = (name: string) => path.join(setup.files, `${name}.txt`);
/** The prompts of one agent name, oldest first. */
const mine = async (agentName: string) => (await setup.ext.store.all()).filter((r) => r.agentName === agentName).sort((a, b) => a.createdAt - b.createdAt);

describe('MCP Inspector CLI (@modelcontextprotocol/inspector-cli), launching countersign-mcp --upstream-command', { timeout: 30_000 }, () => {
  // Its CLI takes `--` for itself.
  const inspector = (agentName: string, file: string) =>
    runClient(process.execPath, [INSPECTOR_CLI, 'countersign-mcp', ...gatewayArgs(agentName), '--method', 'tools/call', '--tool-name', 'write_file', '--tool-arg', `path=${file}`, 'content=written through the Inspector'], {
      env: shellEnv(setup),
      cwd: setup.scratch,
    });

  it('approved in Countersign: the file is written once, and the card names the agent as it was paired', async () => {
    const asked = person(setup.ext, 'approve');
    const ran = await inspector(INSPECTOR, target('inspector-approved'));
    const prompts = await asked.stop();
    expect(ran.code, ran.stderr).toBe(0);
    expect(readFileSync(target('inspector-approved'), 'utf8')).toBe('written through the Inspector');
    expect(prompts.map((p) => [p.agentName, p.toolCall?.tool])).toEqual([[INSPECTOR, 'write_file']]);
  });

  it('declined in Countersign: nothing is written, and the client is told so', async () => {
    const asked = person(setup.ext, 'decline');
    const ran = await inspector(INSPECTOR, target('inspector-declined'));
    expect(await asked.stop()).toHaveLength(1);
    expect(ran.stdout).toContain('You declined this tool call in Countersign');
    expect(existsSync(target('inspector-declined'))).toBe(false);
  });

  it('the person stops the client (Ctrl-C) while the call waits: the prompt is withdrawn, and nothing is written', async () => {
    const file = target('inspector-stopped');
    const before = (await mine(INSPECTOR)).length;
    const client = startClient(process.execPath, [INSPECTOR_CLI, 'countersign-mcp', ...gatewayArgs(INSPECTOR), '--method', 'tools/call', '--tool-name', 'write_file', '--tool-arg', `path=${file}`, 'content=never written'], { env: shellEnv(setup), cwd: setup.scratch });
    await waitFor(async () => (await mine(INSPECTOR)).slice(before)[0]?.state === 'pending', 'the prompt', 15_000);
    client.stop('SIGINT');
    await client.ran;
    await waitFor(async () => (await mine(INSPECTOR)).slice(before)[0]?.state === 'cancelled', 'the prompt to be withdrawn', 15_000);
    // Approving now is too late: the prompt is gone, and the tool never runs.
    expect(await setup.ext.store.byState('pending')).toEqual([]);
    expect(existsSync(file)).toBe(false);
  });
});

describe('@wong2/mcp-cli with the README\'s Claude Desktop snippet (the MCP SDK\'s default environment)', { timeout: 30_000 }, () => {
  const call = (config: string, file: string) =>
    runClient(process.execPath, [WONG2_MCP_CLI, '-c', config, 'call-tool', `countersign:write_file`, '--args', JSON.stringify({ path: file, content: 'written through mcp-cli' })], { env: shellEnv(setup), cwd: setup.scratch });

  it('reduced environment: without XDG_RUNTIME_DIR the held call fails closed, and the error says what the client passed and where it looked', async () => {
    const asked = person(setup.ext, 'approve');
    const config = await claudeDesktopConfig(setup, 'countersign', gatewayArgs(DESKTOP));
    const ran = await call(config, target('desktop-reduced'));
    expect(await asked.stop()).toEqual([]);
    expect(existsSync(target('desktop-reduced'))).toBe(false);
    expect(ran.stdout).toContain('Countersign could not ask you');
    expect(ran.stdout).toContain('no XDG_RUNTIME_DIR');
    // What the MCP SDK's default environment holds here: no XDG_RUNTIME_DIR, no TMPDIR.
    expect(ran.stdout).toContain('the variables HOME, PATH, SHELL, TERM.');
    const text = (JSON.parse(ran.stdout) as { content: Array<{ text: string }> }).content[0]?.text;
    expect(text).toContain('add "env": {"XDG_RUNTIME_DIR": "<its folder>"} to this server');
  });

  it('the snippet with "env": {"XDG_RUNTIME_DIR"}: approved, the file is written once, under the paired name', async () => {
    const asked = person(setup.ext, 'approve');
    const config = await claudeDesktopConfig(setup, 'countersign', gatewayArgs(DESKTOP), { env: { XDG_RUNTIME_DIR: setup.ext.runtimeDir } });
    const ran = await call(config, target('desktop-approved'));
    const prompts = await asked.stop();
    expect(ran.code, ran.stderr).toBe(0);
    expect(readFileSync(target('desktop-approved'), 'utf8')).toBe('written through mcp-cli');
    expect(prompts.map((p) => p.agentName)).toEqual([DESKTOP]);
  });

  it('declined: nothing is written', async () => {
    const asked = person(setup.ext, 'decline');
    const config = await claudeDesktopConfig(setup, 'countersign', gatewayArgs(DESKTOP), { env: { XDG_RUNTIME_DIR: setup.ext.runtimeDir } });
    const ran = await call(config, target('desktop-declined'));
    expect(await asked.stop()).toHaveLength(1);
    expect(ran.stdout).toContain('You declined this tool call in Countersign');
    expect(existsSync(target('desktop-declined'))).toBe(false);
  });
});

describe('reduced environment: the README\'s Claude Desktop snippet word for word, the browser in a login session', { timeout: 30_000 }, () => {
  // The bridge listens in $XDG_RUNTIME_DIR/countersign/ as a browser in a login session does
  // (pam_systemd sets it to /run/user/<uid>); the client starts the gateway with the MCP SDK's
  // default environment (HOME, PATH, SHELL, TERM), so the gateway must derive that folder.
  const uid = process.getuid?.() ?? 0;
  const runUser = `/run/user/${uid}`;
  let created = false;
  let sparse: Setup;
  beforeAll(async () => {
    if (!existsSync(runUser)) {
      mkdirSync(runUser, { recursive: true, mode: 0o700 });
      created = true;
    }
    sparse = await setUp({ xdgRuntimeDir: runUser });
    await pairAs(sparse, DESKTOP);
  }, 60_000);
  afterAll(async () => {
    await sparse?.dispose();
    // Only what this test made: the socket is gone with its bridge, its folder and /run/user/<uid> only when empty.
    rmEmptyDir(path.join(runUser, 'countersign'));
    if (created) rmEmptyDir(runUser);
  });

  it('the bridge listens under /run/user/<uid>/countersign/', () => expect(sparse.ext.socketPath.startsWith(`${runUser}/countersign/`)).toBe(true));

  it('@wong2/mcp-cli with no "env" in the snippet: Countersign is found, approved, the file is written once, under the paired name', async () => {
    const asked = person(sparse.ext, 'approve');
    const gateway = ['--agent-name', DESKTOP, '--config-dir', sparse.configDir, '--upstream-command', 'node', '--upstream-arg', FILESYSTEM_SERVER, '--upstream-arg', sparse.files];
    const config = await claudeDesktopConfig(sparse, 'countersign', gateway);
    const file = path.join(sparse.files, 'reduced.txt');
    // The person's shell has no XDG_RUNTIME_DIR either: whatever the client passes, the gateway has none.
    const { XDG_RUNTIME_DIR: _runtime, ...withoutRuntime } = shellEnv(sparse);
    const ran = await runClient(process.execPath, [WONG2_MCP_CLI, '-c', config, 'call-tool', 'countersign:write_file', '--args', JSON.stringify({ path: file, content: 'found without XDG_RUNTIME_DIR' })], { env: withoutRuntime, cwd: sparse.scratch });
    const prompts = await asked.stop();
    expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe('found without XDG_RUNTIME_DIR');
    expect(prompts.map((p) => [p.agentName, p.toolCall?.tool])).toEqual([[DESKTOP, 'write_file']]);
    expect((await sparse.ext.store.all()).map((p) => p.state)).toEqual(['performed']);
  });
});

function rmEmptyDir(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // Not empty (someone else's), or already gone.
  }
}

describe('@apify/mcpc session: a time-out restarts its server (and mcpc may send the call again); calling again joins what waits', { timeout: 45_000 }, () => {
  it('the timed-out prompt is cancelled; the call again is asked once (with any retry of mcpc), approved once, and the tool runs once', async () => {
    const agentName = 'mcpc agent';
    await pairAs(setup, agentName);
    const env = shellEnv(setup, { MCPC_HOME_DIR: path.join(setup.scratch, 'mcpc') });
    const config = await claudeDesktopConfig(setup, 'countersign', gatewayArgs(agentName), { env: { XDG_RUNTIME_DIR: setup.ext.runtimeDir } });
    const mcpc = (...args: string[]) => runClient(process.execPath, [APIFY_MCPC, ...args], { env, cwd: setup.scratch });
    const prompts = async () => (await setup.ext.store.all()).filter((r) => r.agentName === agentName).sort((a, b) => a.createdAt - b.createdAt);
    const connected = await mcpc('connect', `${config}:countersign`, '@cs');
    expect(connected.code, connected.stdout + connected.stderr).toBe(0);
    try {
      const file = target('mcpc-retried');
      const args = [`path:=${file}`, 'content:=written once through mcpc'];
      const first = await mcpc('--timeout', '2', '@cs', 'tools-call', 'write_file', ...args);
      expect(first.code).not.toBe(0);
      // mcpc restarted its bridge (a new countersign-mcp): the first gateway's prompt was cancelled, and mcpc sent the call again.
      await waitFor(async () => (await prompts())[0]?.state === 'cancelled', 'the timed-out prompt to be cancelled', 15_000);
      // Its session is back once its restarted bridge answers (before that, mcpc says "Session not found").
      await waitFor(async () => (await mcpc('--json', '@cs')).code === 0, 'the mcpc session to be back', 15_000);
      // The person answers only once the call again is held beside the retry (mcpc takes a few seconds to start).
      // mcpc's bridge keeps the last --timeout it was given: give the long one back.
      const again = mcpc('--json', '--timeout', '60', '@cs', 'tools-call', 'write_file', ...args);
      await new Promise((r) => setTimeout(r, 6000));
      const asked = person(setup.ext, 'approve');
      const second = await again;
      await asked.stop();
      expect(second.code, second.stdout + second.stderr).toBe(0);
      expect((await prompts()).map((p) => p.state)).toEqual(['cancelled', 'performed']);
      expect(readFileSync(file, 'utf8')).toBe('written once through mcpc');
    } finally {
      await mcpc('close', '@cs');
    }
  });
});
