import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HookAgent } from '../../../src/hook/hook-input';
import { bundleCommand } from '../../node-start/support/bundle-command';
import type { ModelServer, ScriptedCall } from './model-server';

/**
 * The three real coding-agent CLIs (the versions package.json pins), each run headless in its own
 * scratch HOME against the scripted model, with countersign-hook installed by
 * `countersign-hook install` exactly as a person would. The hook is the package's own bundle
 * (scripts/bundle-node.mjs), built once per test file.
 */

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const BIN = path.join(ROOT, 'node_modules', '.bin');
const MARKER_SERVER = path.join(ROOT, 'test', 'coding-agents', 'support', 'mcp-marker.mjs');

export interface Workspace {
  agent: HookAgent;
  home: string;
  project: string;
  /** The hook's config folder: its pairing and policy.json. */
  configDir: string;
}

/** Bundle countersign-hook as the package ships it; returns the file. */
export function bundleHook(): Promise<string> {
  return bundleCommand('countersign-hook');
}

/** A scratch HOME and project for one CLI: the CLI's own settings (the model, the marker MCP server), then the hook installed over them. */
export async function workspace(agent: HookAgent, model: ModelServer, configDir: string): Promise<Workspace> {
  const root = await mkdtemp(path.join(os.tmpdir(), `cs-${agent}-`));
  const ws: Workspace = { agent, home: path.join(root, 'home'), project: path.join(root, 'project'), configDir };
  await mkdir(ws.home, { recursive: true });
  await mkdir(ws.project, { recursive: true });
  await writeFile(path.join(ws.project, 'edit.txt'), 'first line\nold line\nlast line\n');
  if (agent === 'codex') {
    await mkdir(path.join(ws.home, '.codex'), { recursive: true });
    await writeFile(
      path.join(ws.home, '.codex', 'config.toml'),
      [
        '# The scratch Codex of a test: a scripted model, no network.',
        'model = "gpt-5.5"',
        'model_provider = "mock"',
        'approval_policy = "never"',
        'sandbox_mode = "danger-full-access"',
        'check_for_update_on_startup = false',
        '',
        '[model_providers.mock]',
        'name = "mock"',
        `base_url = "${model.url}/v1"`,
        'wire_api = "responses"',
        'env_key = "MOCK_MODEL_KEY"',
        '',
        '[analytics]',
        'enabled = false',
        '',
        '[features]',
        'plugins = false',
        'remote_plugin = false',
        'apps = false',
        '',
        '[mcp_servers.marker]',
        `command = "${process.execPath}"`,
        `args = ["${MARKER_SERVER}", "${ws.project}"]`,
        '',
      ].join('\n'),
    );
  } else if (agent === 'gemini') {
    await mkdir(path.join(ws.home, '.gemini'), { recursive: true });
    const settings = {
      security: { auth: { selectedType: 'gemini-api-key' } },
      telemetry: { enabled: false },
      privacy: { usageStatisticsEnabled: false },
      general: { disableAutoUpdate: true, disableUpdateNag: true },
      mcpServers: { marker: { command: process.execPath, args: [MARKER_SERVER, ws.project], trust: true } },
    };
    await writeFile(path.join(ws.home, '.gemini', 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
  } else {
    await mkdir(path.join(ws.home, '.claude'), { recursive: true });
    await writeFile(path.join(ws.home, '.claude', 'settings.json'), `${JSON.stringify({ env: { DISABLE_AUTOUPDATER: '1' }, hooks: { Stop: [{ hooks: [{ type: 'command', command: 'true' }] }] } }, null, 2)}\n`);
    await writeFile(path.join(root, 'mcp.json'), JSON.stringify({ mcpServers: { marker: { type: 'stdio', command: process.execPath, args: [MARKER_SERVER, ws.project] } } }));
  }
  return ws;
}

/** The environment a CLI runs with: a reduced one (HOME, PATH, SHELL, TERM) plus what points it at the scripted model. */
export function cliEnv(ws: Workspace, model: ModelServer, extra: Record<string, string> = {}): Record<string, string> {
  const base = { HOME: ws.home, PATH: `${BIN}:${path.dirname(process.execPath)}:/usr/bin:/bin`, SHELL: '/bin/sh', TERM: 'dumb', ...extra };
  switch (ws.agent) {
    case 'claude-code':
      return {
        ...base,
        ANTHROPIC_BASE_URL: model.url,
        ANTHROPIC_API_KEY: 'scripted',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_AUTOUPDATER: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_ERROR_REPORTING: '1',
        ENABLE_TOOL_SEARCH: 'false',
      };
    case 'codex':
      return { ...base, CODEX_HOME: path.join(ws.home, '.codex'), MOCK_MODEL_KEY: 'scripted' };
    case 'gemini':
      return { ...base, GEMINI_API_KEY: 'scripted', GOOGLE_GEMINI_BASE_URL: model.url, GEMINI_CLI_NO_RELAUNCH: 'true', GEMINI_CLI_TRUST_WORKSPACE: 'true' };
  }
}

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], options: { cwd: string; env: Record<string, string>; timeoutMs?: number; input?: string }): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    child.stdin?.end(options.input);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** `countersign-hook <args>` as the person runs it in the workspace's HOME. */
export function hookCli(hook: string, ws: Workspace, args: string[], env: Record<string, string> = {}): Promise<Run> {
  return run(process.execPath, [hook, ...args], { cwd: ws.project, env: { HOME: ws.home, PATH: `${BIN}:${path.dirname(process.execPath)}:/usr/bin:/bin`, CODEX_HOME: path.join(ws.home, '.codex'), ...env } });
}

/**
 * The hook as Claude Code starts it for a `Read` of a file inside `project`, which its built-in
 * policy allows without asking: the most frequent call there is. `home` is the HOME it runs with.
 */
export function hookOnRead(hook: string, project: string, home: string): Promise<Run> {
  const input = JSON.stringify({ session_id: 's', cwd: project, hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: { file_path: path.join(project, 'README.md') }, tool_use_id: 't' });
  return run(process.execPath, [hook, '--agent', 'claude-code', '--config-dir', path.join(home, 'config')], { cwd: project, env: { HOME: home, PATH: '/usr/bin:/bin' }, input });
}

/** The answer hookOnRead gets (docs/coding-agents.md). */
export const READ_ALLOWED = { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', permissionDecisionReason: 'Read only reads inside the project' } };

/** `countersign-hook install` for the workspace's CLI, the hook run as `node <bundle>`. */
export async function install(hook: string, ws: Workspace): Promise<Run> {
  return hookCli(hook, ws, ['install', '--agent', ws.agent, '--config-dir', ws.configDir, '--command', `${process.execPath} ${hook}`]);
}

/** Run the CLI once, headless, on the scripted calls. */
export async function runAgent(ws: Workspace, model: ModelServer, calls: ScriptedCall[], extraEnv: Record<string, string> = {}): Promise<Run> {
  model.play(calls);
  const env = cliEnv(ws, model, extraEnv);
  switch (ws.agent) {
    case 'claude-code':
      return run(path.join(BIN, 'claude'), ['-p', 'go', '--model', 'claude-sonnet-4-5', '--mcp-config', path.join(path.dirname(ws.home), 'mcp.json'), '--output-format', 'json'], { cwd: ws.project, env });
    case 'codex':
      return run(path.join(BIN, 'codex'), ['exec', '--skip-git-repo-check', '--json', 'go'], { cwd: ws.project, env });
    case 'gemini':
      return run(path.join(BIN, 'gemini'), ['-p', 'go', '-m', 'gemini-2.5-pro', '--approval-mode', 'yolo', '--output-format', 'json'], { cwd: ws.project, env });
  }
}

/** The lines of a marker file, 0 when it is absent. */
export async function timesRan(file: string): Promise<number> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text.split('\n').filter((l) => l !== '').length;
}
