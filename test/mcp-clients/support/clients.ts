import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Companion } from '../../../src/agent/index';
import { gatewayConfigDir } from '../../../src/gateway/countersign-link';
import { FakeExtension } from '../../agent/harness';
import { bundleCommand } from '../../node-start/support/bundle-command';

/**
 * countersign-mcp as third-party MCP clients launch it: the package's bundled command on PATH,
 * started by the client's own process with the client's own environment handling, in front of
 * the real bridge process and the extension's real services (test/agent/harness.ts). Only the
 * person is scripted: `person` (test/coding-agents) answers each prompt as the window would.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const FILESYSTEM_SERVER = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
export const INSPECTOR_CLI = path.join(ROOT, 'node_modules/@modelcontextprotocol/inspector-cli/build/index.js');
export const WONG2_MCP_CLI = path.join(ROOT, 'node_modules/@wong2/mcp-cli/src/cli.js');
export const APIFY_MCPC = path.join(ROOT, 'node_modules/@apify/mcpc/bin/mcpc');

export interface Setup {
  ext: FakeExtension;
  /** Holds `countersign-mcp` (the bundled command) and `node`, for the clients' PATH. */
  bin: string;
  /** The gateway's --config-dir. */
  configDir: string;
  /** The folder the filesystem server may write in. */
  files: string;
  /** A scratch folder, the clients' cwd (with a package.json above it, for the Inspector CLI). */
  scratch: string;
  dispose(): Promise<void>;
}

/** `xdgRuntimeDir`: the bridge's XDG_RUNTIME_DIR (as a login session sets it), instead of a scratch folder. */
export async function setUp(options: { xdgRuntimeDir?: string } = {}): Promise<Setup> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'cs-mcpc-'));
  const bin = path.join(root, 'bin');
  // The package's own options: its entry compiles its body with the code cache, as the shipped file does.
  const [ext] = await Promise.all([FakeExtension.start(options), bundleCommand('countersign-mcp', { outfile: path.join(bin, 'countersign-mcp') })]);
  await symlink(process.execPath, path.join(bin, 'node'));
  const files = path.join(root, 'files');
  const configDir = path.join(root, 'config');
  // The Inspector CLI looks for a package.json in its cwd's parent (any will do).
  const scratch = path.join(root, 'work');
  await Promise.all([mkdir(files), mkdir(configDir), mkdir(scratch), writeFile(path.join(root, 'package.json'), '{}\n')]);
  return {
    ext,
    bin,
    configDir,
    files,
    scratch,
    dispose: async () => {
      await ext.dispose();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** Pair `agentName` once, as `countersign-mcp pair --agent-name <name>` does (its own key, in its own folder). */
export async function pairAs(setup: Setup, agentName: string): Promise<void> {
  const companion = await Companion.connect({ agentName, configDir: gatewayConfigDir(setup.configDir, {}, agentName), socketPath: setup.ext.socketPath });
  await setup.ext.pairConfirmed(companion);
  await companion.close();
}

/** The environment a person's shell gives the client: the bridge's folder and the bin on PATH, nothing of this test runner. */
export function shellEnv(setup: Setup, extra: Record<string, string> = {}): Record<string, string> {
  return { HOME: os.homedir(), PATH: `${setup.bin}:/usr/bin:/bin`, SHELL: '/bin/sh', TERM: 'dumb', XDG_RUNTIME_DIR: setup.ext.runtimeDir, ...extra };
}

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a client to its end (or kills it after `timeoutMs`). */
export function runClient(command: string, args: string[], options: { env: Record<string, string>; cwd: string; timeoutMs?: number }): Promise<Ran> {
  return startClient(command, args, options).ran;
}

/** Starts a client: `stop` sends it a signal, as a person pressing Ctrl-C would; `ran` is its end. */
export function startClient(command: string, args: string[], options: { env: Record<string, string>; cwd: string; timeoutMs?: number }): { ran: Promise<Ran>; stop: (signal?: NodeJS.Signals) => void } {
  const child = spawn(command, args, { env: options.env, cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const ran = new Promise<Ran>((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
  return { ran, stop: (signal = 'SIGINT') => void child.kill(signal) };
}

/** The README's Claude Desktop snippet, as a file a client reads (`extra` adds members to the server's entry). */
export async function claudeDesktopConfig(setup: Setup, name: string, args: string[], extra: Record<string, unknown> = {}): Promise<string> {
  const file = path.join(setup.scratch, `${name}-${Math.random().toString(36).slice(2)}.json`);
  await writeFile(file, JSON.stringify({ mcpServers: { [name]: { command: 'countersign-mcp', args, ...extra } } }, null, 2));
  return file;
}
