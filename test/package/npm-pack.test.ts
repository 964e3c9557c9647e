import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompany, type Company } from '../../src/company/index';
import { fencedBlocks, markdownSection, onlyBlock, ROOT, readJson, type FencedBlock, type RunResult } from './helpers';

// The npm package as a consumer gets it: `npm pack` (which builds it through "prepack"), then
// `npm install` of the tarball into an empty folder, away from this repository and its
// node_modules, and then what a consumer does with it: plain Node on an .mjs, a strict nodenext
// TypeScript compile against the shipped .d.ts, and every command's --help. About 30 s, most of
// it the build.

interface PackageBuild {
  BINS: Array<{ name: string; entry: string }>;
  LIBRARIES: Array<{ subpath: string; js: string; types: string }>;
  NOTICES_FILE: string;
}
const { BINS, LIBRARIES, NOTICES_FILE } = (await import(pathToFileURL(path.join(ROOT, 'scripts', 'build-package.mjs')).href)) as PackageBuild;

const rootText = readFileSync(path.join(ROOT, 'package.json'), 'utf8');
const rootPkg = JSON.parse(rootText) as { version: string; files: string[]; scripts: Record<string, string>; devDependencies: Record<string, string> };
const TSGO = path.join(ROOT, 'node_modules', '@typescript', 'native', 'bin', 'tsc');
const TSC6 = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc6');

/** Run a program; never rejects (the exit code is in the result). */
function run(file: string, args: readonly string[], cwd: string): Promise<RunResult> {
  // Without NODE_OPTIONS: nothing of this test process (such as a --conditions) may reach the consumer.
  const env = { ...process.env };
  delete env['NODE_OPTIONS'];
  return new Promise((resolve) => {
    execFile(file, [...args], { cwd, env, timeout: 180_000, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, stdout, stderr });
    });
  });
}

interface PackInfo {
  filename: string;
  size: number;
  unpackedSize: number;
  entryCount: number;
  files: Array<{ path: string; size: number; mode: number }>;
}

const USE_MJS = `
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Companion, CountersignError, formatApprovalHeader, formatPairingCode, isCountersignError, MAX_SUMMARY_LENGTH } from 'countersign/agent';

const dir = process.argv[2];
const out = { resolved: import.meta.resolve('countersign/agent') };
out.header = formatApprovalHeader({ operation_id: 'exc_5Rt2', revision: '1791487200-k3Jd9Qx2mW8v' });
out.pairingCode = formatPairingCode('304236');
out.maxSummary = MAX_SUMMARY_LENGTH;
try {
  formatApprovalHeader({ operation_id: '', revision: 'r' });
} catch (error) {
  out.invalid = [error instanceof CountersignError, error.code];
}
// A real connect: it makes the agent key in configDir, then finds nobody listening on the socket.
const sockets = path.join(dir, 'sockets');
mkdirSync(sockets, { mode: 0o700 });
try {
  await Companion.connect({ agentName: 'Pack test', configDir: path.join(dir, 'config'), socketPath: path.join(sockets, 'A'.repeat(43) + '.sock'), timeoutMs: 5000 });
  out.connect = 'connected';
} catch (error) {
  out.connect = [isCountersignError(error), error instanceof CountersignError, error.code, error.message];
}
console.log(JSON.stringify(out));
`;

const CHECK_TS = `
import {
  Companion,
  CountersignError,
  formatApprovalHeader,
  isCountersignError,
  performTool,
  type ApprovalResult,
  type ErrorCode,
  type RequestApprovalInput,
} from 'countersign/agent';

export const input: RequestApprovalInput = {
  company: { name: 'Stormline', origin: 'https://stormline.example' },
  operation: { operation_id: 'exc_5Rt2', revision: 'r1', summary: 'Return the jacket', expires_at: '2030-01-01T00:00:00Z' },
  request: { interface: 'api', method: 'POST', url: 'https://stormline.example/returns', body: { order: 'A1', items: [1, 2] } },
  session: { kind: 'signed_in', account: 'sam@example.com' },
};

// @ts-expect-error: the protocol has no such interface; an \`any\` in the declarations would let it through.
export const wrong: RequestApprovalInput['request'] = { interface: 'smtp', to: 'sam@example.com' };

export async function ask(companion: Companion): Promise<string> {
  const result: ApprovalResult = await companion.requestApproval(input);
  if (result.status === 'approved') return formatApprovalHeader(result.approval);
  return result.status;
}

export async function tool(companion: Companion): Promise<string> {
  const result = await performTool({ companion, company: { origin: 'https://stormline.example' }, session: { kind: 'this_session' }, tool: 'return_item', arguments: { order: 'A1' } });
  if (result.status === 'performed') return (result.response?.content ?? []).map((c) => c.type).join(',');
  return result.status;
}

export function codeOf(error: unknown): ErrorCode | undefined {
  if (error instanceof CountersignError) return error.code;
  return isCountersignError(error) ? error.code : undefined;
}

export async function connect(): Promise<boolean> {
  const companion = await Companion.connect({ agentName: 'Desk agent', timeoutMs: 1000 });
  companion.on('withdrawn', (approval) => console.log(approval.operation_id));
  const paired = companion.paired;
  await companion.close();
  return paired;
}
`;

const TSCONFIG = {
  compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2023'], types: ['node'], strict: true, skipLibCheck: false, noEmit: true },
  files: ['check.ts'],
};

let tmp: string;
let consumer: string;
let pack: RunResult;
let info: PackInfo;
let install: RunResult;
let use: RunResult;
let tsgo: RunResult;
let tsc6: RunResult;
let tsgoBad: RunResult;
let help: Map<string, RunResult>;

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'cs-npm-pack-'));
  const packDir = path.join(tmp, 'pack');
  mkdirSync(packDir);
  pack = await run('npm', ['pack', '--pack-destination', packDir, '--json'], ROOT);
  if (pack.code !== 0) throw new Error(`npm pack failed (${pack.code}):\n${pack.stdout}\n${pack.stderr}`);
  // Lifecycle scripts print to stdout too, ahead of npm's JSON.
  info = (JSON.parse(pack.stdout.slice(pack.stdout.search(/^\[/m))) as PackInfo[])[0]!;

  consumer = path.join(tmp, 'consumer');
  mkdirSync(consumer);
  writeFileSync(path.join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  // Install scripts stay on: the package must have none that would fail without this repository.
  const typesNode = `@types/node@${rootPkg.devDependencies['@types/node']}`;
  install = await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', path.join(packDir, info.filename), typesNode], consumer);
  if (install.code !== 0) throw new Error(`npm install of the tarball failed (${install.code}):\n${install.stdout}\n${install.stderr}`);

  writeFileSync(path.join(consumer, 'use.mjs'), USE_MJS);
  writeFileSync(path.join(consumer, 'check.ts'), CHECK_TS);
  writeFileSync(path.join(consumer, 'tsconfig.json'), JSON.stringify(TSCONFIG));
  writeFileSync(path.join(consumer, 'bad.ts'), "import { formatPairingCode } from 'countersign/agent';\nexport const n: number = formatPairingCode('304236');\n");
  writeFileSync(path.join(consumer, 'tsconfig.bad.json'), JSON.stringify({ ...TSCONFIG, files: ['bad.ts'] }));
  const bin = (name: string) => path.join(consumer, 'node_modules', '.bin', name);
  let helps: RunResult[];
  [use, tsgo, tsc6, tsgoBad, ...helps] = await Promise.all([
    run(process.execPath, ['use.mjs', tmp], consumer),
    run(process.execPath, [TSGO, '-p', 'tsconfig.json'], consumer),
    run(process.execPath, [TSC6, '-p', 'tsconfig.json'], consumer),
    run(process.execPath, [TSGO, '-p', 'tsconfig.bad.json'], consumer),
    ...BINS.map((b) => run(bin(b.name), ['--help'], consumer)),
  ]);
  help = new Map(BINS.map((b, i) => [b.name, helps[i]!]));
}, 300_000);

afterAll(() => {
  if (tmp !== undefined) rmSync(tmp, { recursive: true, force: true });
});

describe('npm pack', () => {
  it('packs the built files, README and user docs, and nothing else: no extension, tests or TypeScript sources', () => {
    const files = info.files.map((f) => f.path).sort();
    // A folder in "files" (docs/conformance/) packs the files in it.
    const docs = rootPkg.files
      .filter((f) => f !== 'dist/' && existsSync(path.join(ROOT, f)))
      .flatMap((f) => (f.endsWith('/') ? readdirSync(path.join(ROOT, f)).map((name) => `${f}${name}`) : [f]));
    const built = [...BINS.map((b) => `dist/${b.name}.mjs`), ...LIBRARIES.flatMap((l) => [l.js, l.types]), NOTICES_FILE];
    const license = ['LICENSE', 'LICENSE.md', 'LICENSE.txt'].filter((f) => existsSync(path.join(ROOT, f)));
    expect(files).toEqual(['package.json', 'README.md', ...license, ...docs, ...built].sort());
    expect(files.filter((f) => /^(src|entrypoints|public|test|bench|scripts|\.output|\.wxt)\//.test(f) || (/\.[cm]?tsx?$/.test(f) && !f.endsWith('.d.ts')))).toEqual([]);
    expect(docs).toContain('docs/agent-sdk.md');
    expect(info.entryCount).toBe(files.length);
  });

  it('packs the commands executable', () => {
    for (const b of BINS) expect(info.files.find((f) => f.path === `dist/${b.name}.mjs`)!.mode & 0o111, b.name).not.toBe(0);
  });

  it('ships bundles that import nothing but Node built-ins, and the licences of what they bundle', () => {
    const dist = path.join(consumer, 'node_modules', 'countersign', 'dist');
    for (const name of readdirSync(dist).filter((f) => f.endsWith('.mjs'))) {
      const code = readFileSync(path.join(dist, name), 'utf8');
      const specifiers = [...code.matchAll(/^\s*(?:import|export)\s[^;]*?\bfrom\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/gm)].map((m) => m[1] ?? m[2]);
      expect(specifiers.length, name).toBeGreaterThan(0);
      expect(specifiers.filter((s) => !s!.startsWith('node:')), name).toEqual([]);
    }
    const notices = readFileSync(path.join(consumer, 'node_modules', 'countersign', NOTICES_FILE), 'utf8');
    for (const bundled of ['## zod ', '## jose ', '## @modelcontextprotocol/sdk ']) expect(notices).toContain(bundled);
  });
});

describe('npm install of the tarball into an empty folder', () => {
  it('prints no install-scripts warning: the tarball\'s package.json has no prepare, preinstall, install or postinstall', () => {
    expect(`${install.stdout}\n${install.stderr}`).not.toMatch(/install-scripts|install scripts/i);
  });

  it('leaves this repository\'s package.json as it was: "prepare" (wxt prepare, for npm ci here) back in its place', () => {
    expect(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).toBe(rootText);
    expect(Object.keys(rootPkg.scripts)[0]).toBe('prepare');
    expect(rootPkg.scripts['prepare']).toBe('wxt prepare');
    // Nothing left waiting to be put back (scripts/build-package.mjs, PACKING_FILE).
    expect(existsSync(path.join(ROOT, 'node_modules', '.cache', 'countersign-pack', 'dev-only-scripts.json'))).toBe(false);
  });

  it('installs no dependency and runs no install script', () => {
    const pkg = readJson(path.join(consumer, 'node_modules', 'countersign', 'package.json'));
    expect(pkg['dependencies']).toBeUndefined();
    for (const script of ['preinstall', 'install', 'postinstall', 'prepare']) expect(pkg['scripts'], script).not.toHaveProperty(script);
    // Only the package and the @types/node this test asked for (with its own dependency).
    expect(readdirSync(path.join(consumer, 'node_modules')).filter((f) => !f.startsWith('.')).sort()).toEqual(['@types', 'countersign', 'undici-types']);
  });

  it('runs `countersign/agent` from a plain .mjs with node, from the built files', () => {
    expect(use.stderr).toBe('');
    expect(use.code).toBe(0);
    const out = JSON.parse(use.stdout) as Record<string, unknown>;
    expect(out['resolved']).toBe(pathToFileURL(path.join(consumer, 'node_modules', 'countersign', 'dist', 'agent.mjs')).href);
    expect(out['header']).toBe('operation_id="exc_5Rt2", revision="1791487200-k3Jd9Qx2mW8v"');
    expect(out['pairingCode']).toBe('304 236');
    expect(out['maxSummary']).toEqual(expect.any(Number));
    expect(out['invalid']).toEqual([true, 'ERR_APPROVAL_INVALID']);
    expect(out['connect']).toEqual([true, true, 'ERR_COMPANION_UNAVAILABLE', expect.stringContaining('cannot connect to the Countersign bridge')]);
    expect(existsSync(path.join(tmp, 'config'))).toBe(true);
  });

  it('type-checks a strict nodenext consumer (skipLibCheck off) with TypeScript 7 and 6', () => {
    expect(`${tsgo.stdout}${tsgo.stderr}`).toBe('');
    expect(tsgo.code).toBe(0);
    expect(`${tsc6.stdout}${tsc6.stderr}`).toBe('');
    expect(tsc6.code).toBe(0);
  });

  it('gives real types, not any: a wrong use fails to compile', () => {
    expect(tsgoBad.code).not.toBe(0);
    expect(tsgoBad.stdout).toContain("bad.ts(2,14): error TS2322: Type 'string' is not assignable to type 'number'.");
  });

  it('links every command, and each answers --help', () => {
    for (const b of BINS) {
      const r = help.get(b.name)!;
      expect(r.code, `${b.name} --help: ${r.stderr}`).toBe(0);
      expect(r.stdout, b.name).toMatch(new RegExp(`^${b.name}[: ]`));
      expect(r.stdout, b.name).toContain('Usage:');
    }
    // The bridge reports the package's version (defined at build time), not the source fallback.
    expect(help.get('countersign-bridge')!.stdout).toMatch(new RegExp(`^countersign-bridge ${rootPkg.version.replace(/\./g, '\\.')}: `));
  });

  it('countersign conformance, installed, tests a Company from outside (docs/conformance.md)', async () => {
    const company: Company = await createCompany({ testing: true });
    try {
      const scenario = path.join(ROOT, 'docs', 'conformance', 'reference-company.json');
      const args = ['conformance', '--company', company.url, '--scenario', scenario, '--only', '2-poppy-json', '--only', '7-first-response', '--json', '--quiet'];
      const ok = await run(path.join(consumer, 'node_modules', '.bin', 'countersign'), args, consumer);
      expect(ok.code, ok.stderr).toBe(0);
      expect(JSON.parse(ok.stdout)).toMatchObject({ kit: { version: rootPkg.version }, summary: { holds: 2, breaks: 0 } });
      company.faults.breaks.add('replay-error');
      const broken = await run(path.join(consumer, 'node_modules', '.bin', 'countersign'), args, consumer);
      expect(broken.code).toBe(1);
      expect(JSON.parse(broken.stdout)).toMatchObject({ summary: { holds: 1, breaks: 1 } });
    } finally {
      await company.close();
    }
  });
});

/**
 * Split one shell command line into words, as sh would for a line a person pastes: blanks
 * separate, single quotes keep everything, double quotes keep everything but \\ \" \$ \`, and a
 * backslash outside quotes escapes the next character. Anything that would make it more than a
 * plain command (expansions, pipes, redirections, several commands) throws: the test could not say
 * what such a line runs.
 */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (ch === ' ' || ch === '\t') {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (ch === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unclosed ' in: ${line}`);
      word = (word ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (ch === '"') {
      word ??= '';
      for (i++; line[i] !== '"'; i++) {
        if (i >= line.length) throw new Error(`unclosed " in: ${line}`);
        if (line[i] === '$' || line[i] === '`') throw new Error(`an expansion in: ${line}`);
        if (line[i] === '\\' && '\\"$`'.includes(line[i + 1] ?? '')) i++;
        word += line[i];
      }
    } else if (ch === '\\') {
      if (i + 1 >= line.length) throw new Error(`a trailing backslash in: ${line}`);
      word = (word ?? '') + line[++i];
    } else if ('$`|&;<>()#*?[]{}~'.includes(ch) && !(word !== undefined && ch === '#')) {
      throw new Error(`"${ch}" makes this more than a plain command: ${line}`);
    } else {
      word = (word ?? '') + ch;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

describe('README snippets, run from the installed package', () => {
  // The same package the tests above installed, run the way each snippet says: a person copies a
  // snippet, changes only its placeholders, and their MCP client runs it. If a snippet drifts from
  // what countersign-mcp accepts, these fail.
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const mcpSection = () => fencedBlocks(markdownSection(readme, 'Put your MCP client behind Countersign'));
  const labelled = (start: string, lang: string) => (b: FencedBlock) => b.label.startsWith(start) && b.lang === lang;
  const PLACEHOLDER_DIR = '/path/to/notes';
  const PLACEHOLDER_URL = 'https://shop.example/mcp';
  const PLACEHOLDER_AUTHORIZATION = 'Authorization: Bearer …';
  const PLACEHOLDER_SESSION = 'Poppy-Session: sess_…';

  interface StdioServer {
    command: string;
    args: string[];
  }
  /** `mcpServers.files` of a Claude Desktop or Cursor config snippet. */
  function filesServer(start: string): StdioServer {
    const block = onlyBlock(mcpSection(), `${start} (a json block labelled "${start}…")`, labelled(start, 'json'));
    const config = JSON.parse(block.code) as { mcpServers?: { files?: { command?: unknown; args?: unknown } } };
    const server = config.mcpServers?.files;
    expect(server, `${start}: mcpServers.files`).toBeDefined();
    expect(typeof server!.command, `${start}: command`).toBe('string');
    expect(Array.isArray(server!.args) && server!.args.every((a) => typeof a === 'string'), `${start}: args`).toBe(true);
    return { command: server!.command as string, args: server!.args as string[] };
  }
  /** The arguments with the value after `--agent-name` (the one thing that differs between clients) taken out. */
  function withoutAgentName(args: readonly string[]): { agentName: string | undefined; rest: string[] } {
    const at = args.indexOf('--agent-name');
    if (at < 0) return { agentName: undefined, rest: [...args] };
    return { agentName: args[at + 1], rest: [...args.slice(0, at + 1), ...args.slice(at + 2)] };
  }
  /**
   * Replace each placeholder argument, failing if the snippet no longer has it (then nothing would
   * point at the test's own folder or server), or if it has one this test does not know (a "…"
   * left in would be run as it is).
   */
  function replaced(args: readonly string[], replacements: Record<string, string>): string[] {
    for (const placeholder of Object.keys(replacements)) expect(args.filter((a) => a === placeholder), `the snippet's placeholder ${placeholder}`).toHaveLength(1);
    const out = args.map((a) => replacements[a] ?? a);
    expect(out.filter((a) => a.includes('…')), 'placeholders this test does not replace').toEqual([]);
    return out;
  }

  let company: Company | undefined;
  let filesystemInstall: RunResult;
  let clientDirs = 0;
  const clients: Client[] = [];

  beforeAll(async () => {
    // The upstream the file snippets name, offline from npm's cache, beside the package: `npx`
    // then finds both installed instead of downloading. Installed here, after the check above
    // that the package alone installs no dependency (vitest runs a file's suites in order).
    const filesystem = `@modelcontextprotocol/server-filesystem@${rootPkg.devDependencies['@modelcontextprotocol/server-filesystem']}`;
    [filesystemInstall, company] = await Promise.all([run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', filesystem], consumer), createCompany({ port: 0 })]);
    if (filesystemInstall.code !== 0) throw new Error(`npm install ${filesystem} failed (${filesystemInstall.code}):\n${filesystemInstall.stdout}\n${filesystemInstall.stderr}`);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await company?.close();
  });

  /**
   * An MCP client launching a snippet's server as Claude Desktop and the others do: the command
   * and args over stdio, from the folder the package is installed in, with an environment that
   * holds only PATH and a fresh, empty home (so no pairing, bridge or npm setup of this machine
   * is found). PATH leaves out this repository's node_modules/.bin, where `npm test` puts it.
   */
  async function launch(server: StdioServer): Promise<{ client: Client; stderr: () => string }> {
    const dir = path.join(tmp, 'clients', String(++clientDirs));
    const home = path.join(dir, 'home');
    for (const d of [home, path.join(dir, 'config'), path.join(dir, 'runtime')]) mkdirSync(d, { recursive: true, mode: 0o700 });
    const PATH = (process.env['PATH'] ?? '').split(path.delimiter).filter((p) => p !== '' && !path.resolve(p).startsWith(ROOT + path.sep)).join(path.delimiter);
    const transport = new StdioClientTransport({
      command: server.command,
      args: server.args,
      cwd: consumer,
      env: { PATH, HOME: home, XDG_CONFIG_HOME: path.join(dir, 'config'), XDG_RUNTIME_DIR: path.join(dir, 'runtime') },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const client = new Client({ name: 'readme-snippet-client', version: '0' });
    clients.push(client);
    try {
      await client.connect(transport, { timeout: 60_000 });
    } catch (error) {
      throw new Error(`${server.command} ${server.args.join(' ')} did not start as an MCP server: ${String(error)}\nits stderr:\n${stderr}`, { cause: error });
    }
    return { client, stderr: () => stderr };
  }

  const textOf = (result: CallToolResult) => result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

  it('Claude Desktop: reads a file through countersign-mcp, and without Countersign refuses to write one', async () => {
    const snippet = filesServer('Claude Desktop');
    expect(snippet.command).toBe('npx');
    const notes = realpathSync(mkdtempSync(path.join(tmp, 'notes-')));
    writeFileSync(path.join(notes, 'notes.txt'), 'notes of the day');
    const { client, stderr } = await launch({ command: snippet.command, args: replaced(snippet.args, { [PLACEHOLDER_DIR]: notes }) });

    const tools = new Map((await client.listTools()).tools.map((t) => [t.name, t]));
    // Listed as the upstream lists them, annotations included: those decide what asks.
    expect(tools.get('read_text_file')?.annotations, [...tools.keys()].join(', ')).toMatchObject({ readOnlyHint: true });
    expect(tools.get('write_file')?.annotations, [...tools.keys()].join(', ')).toMatchObject({ readOnlyHint: false, destructiveHint: true });

    const read = (await client.callTool({ name: 'read_text_file', arguments: { path: path.join(notes, 'notes.txt') } })) as CallToolResult;
    expect(read.isError, textOf(read)).not.toBe(true);
    expect(textOf(read)).toBe('notes of the day');

    // No bridge and no pairing in this home: a call that asks fails closed and names the fixes.
    const target = path.join(notes, 'written.txt');
    const write = (await client.callTool({ name: 'write_file', arguments: { path: target, content: 'never written' } })) as CallToolResult;
    expect(write.isError, stderr()).toBe(true);
    expect(textOf(write)).toContain('countersign-mcp pair');
    expect(textOf(write)).toContain('countersign-bridge doctor');
    expect(existsSync(target)).toBe(false);
  }, 60_000);

  it('Cursor and Claude Code: the same command as Claude Desktop, under their own agent name', () => {
    const desktop = withoutAgentName(filesServer('Claude Desktop').args);
    expect(desktop.agentName).toBe('Claude Desktop');
    const command = filesServer('Claude Desktop').command;

    const cursor = filesServer('Cursor');
    expect(cursor.command).toBe(command);
    expect(withoutAgentName(cursor.args)).toEqual({ agentName: 'Cursor', rest: desktop.rest });

    const block = onlyBlock(mcpSection(), 'Claude Code (a sh block labelled "Claude Code…")', labelled('Claude Code', 'sh'));
    const lines = block.code.split('\n').filter((l) => l.trim() !== '');
    expect(lines, 'one command line').toHaveLength(1);
    const words = shellWords(lines[0]!);
    expect(words.slice(0, 5)).toEqual(['claude', 'mcp', 'add', 'files', '--']);
    expect(words[5]).toBe(command);
    expect(withoutAgentName(words.slice(6))).toEqual({ agentName: 'Claude Code', rest: desktop.rest });
  });

  it('VS Code: countersign-mcp in front of a Company over HTTP lists its tools', async () => {
    const block = onlyBlock(mcpSection(), 'VS Code (a json block labelled "VS Code…")', labelled('VS Code', 'json'));
    const config = JSON.parse(block.code) as { servers?: { shop?: { type?: unknown; command?: unknown; args?: unknown } } };
    const shop = config.servers?.shop;
    expect(shop, 'servers.shop').toBeDefined();
    expect(shop!.type).toBe('stdio');
    expect(shop!.command).toBe('npx');
    expect(Array.isArray(shop!.args) && shop!.args.every((a) => typeof a === 'string'), 'args').toBe(true);
    expect(withoutAgentName(shop!.args as string[]).agentName).toBe('VS Code');
    // What a person fills in for their shop: its MCP endpoint, their Session and token (tok_sam
    // is one the reference Company accepts; it checks a Session's shape only).
    const args = replaced(shop!.args as string[], {
      [PLACEHOLDER_URL]: `${company!.url}/mcp`,
      [PLACEHOLDER_SESSION]: 'Poppy-Session: sess_readmeSnippet01',
      [PLACEHOLDER_AUTHORIZATION]: 'Authorization: Bearer tok_sam',
    });
    const { client, stderr } = await launch({ command: shop!.command as string, args });
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools, stderr()).toContain('exchange_item');
  }, 60_000);

  it('For agent authors: agent.mjs imports only what countersign/agent exports, and type-checks against its declarations', async () => {
    const authors = fencedBlocks(markdownSection(readme, 'For agent authors'));
    const block = onlyBlock(authors, 'agent.mjs (a js block starting "// agent.mjs")', (b) => b.lang === 'js' && b.code.startsWith('// agent.mjs'));
    // Written beside the installed package, never run: it would connect to a real Countersign.
    writeFileSync(path.join(consumer, 'agent.mjs'), block.code);
    const imports = [...block.code.matchAll(/^import\s*\{([^}]*)\}\s*from\s*'([^']+)';$/gm)];
    expect(imports.map((m) => m[2])).toEqual(['countersign/agent']);
    // Every import statement is the one matched above: no default, namespace or dynamic import slips past.
    expect(block.code.match(/\bimport\b/g)).toHaveLength(1);
    const names = imports[0]![1]!.split(',').map((n) => n.trim()).filter((n) => n !== '');
    expect(names.length).toBeGreaterThan(0);

    writeFileSync(path.join(consumer, 'exports.mjs'), "console.log(JSON.stringify(Object.keys(await import('countersign/agent'))));\n");
    writeFileSync(path.join(consumer, 'tsconfig.agent.json'), JSON.stringify({ ...TSCONFIG, compilerOptions: { ...TSCONFIG.compilerOptions, allowJs: true, checkJs: true }, files: ['agent.mjs'] }));
    const [syntax, exported, types] = await Promise.all([
      run(process.execPath, ['--check', 'agent.mjs'], consumer),
      run(process.execPath, ['exports.mjs'], consumer),
      run(process.execPath, [TSGO, '-p', 'tsconfig.agent.json'], consumer),
    ]);
    expect(syntax.stderr).toBe('');
    expect(syntax.code).toBe(0);
    expect(exported.code, exported.stderr).toBe(0);
    const available = JSON.parse(exported.stdout) as string[];
    for (const name of names) expect(available, name).toContain(name);
    // A JavaScript consumer's editor checks the snippet the same way: wrong member names or argument shapes fail here.
    expect(`${types.stdout}${types.stderr}`).toBe('');
    expect(types.code).toBe(0);
  }, 60_000);
});
