import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The repository root. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run node with `args` in `cwd`; never rejects (the exit code is in the result). */
export function runNode(args: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...args],
      { cwd: options.cwd, env: options.env ?? process.env, timeout: options.timeoutMs ?? 120_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** The environment without COUNTERSIGN_STORE: a development build, whatever the caller's shell says. */
export function devEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env['COUNTERSIGN_STORE'];
  return env;
}

/**
 * `wxt build -b <browser>` of the project in `root` into `outDir` (WXT's JS API: the CLI has no
 * --out-dir). Resolves with the folder of the build (`<outDir>/<browser>-mv3`).
 */
export async function wxtBuild(root: string, browser: 'chrome' | 'firefox', outDir: string, env: NodeJS.ProcessEnv = devEnv()): Promise<string> {
  const wxt = pathToFileURL(path.join(ROOT, 'node_modules', 'wxt', 'dist', 'index.mjs')).href;
  const script = [
    `const { build } = await import(${JSON.stringify(wxt)});`,
    'const quiet = { debug() {}, log() {}, info() {}, success() {}, warn: console.error, error: console.error, fatal: console.error, level: 3 };',
    `await build({ root: ${JSON.stringify(root)}, browser: ${JSON.stringify(browser)}, outDir: ${JSON.stringify(outDir)}, logger: quiet });`,
  ].join('\n');
  const result = await runNode(['--input-type=module', '-e', script], { cwd: root, env });
  if (result.code !== 0) throw new Error(`wxt build -b ${browser} failed (${result.code}):\n${result.stderr}`);
  return path.join(outDir, `${browser}-mv3`);
}

/** Every file under `dir`, as paths relative to it with forward slashes, sorted. */
export function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, rel: string) => {
    for (const name of readdirSync(d).sort()) {
      const abs = path.join(d, name);
      const r = rel === '' ? name : `${rel}/${name}`;
      if (statSync(abs).isDirectory()) walk(abs, r);
      else out.push(r);
    }
  };
  walk(dir, '');
  return out;
}

export function readJson(file: string): Record<string, unknown> {
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
}

/** Write the entries of a zip (from readZip) under `dir`. */
export function extractTo(entries: ReadonlyMap<string, Uint8Array>, dir: string): void {
  for (const [name, data] of entries) {
    const target = path.join(dir, ...name.split('/'));
    if (!target.startsWith(dir + path.sep)) throw new Error(`zip entry ${name} escapes the folder`);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, data);
  }
}

export interface ZipModule {
  readZip(bytes: Uint8Array): Map<string, Buffer>;
  checkPackages(packages: Array<{ browser: string; zip: Map<string, Buffer>; sources?: Map<string, Buffer> }>): string[];
  STORE_BROWSERS: string[];
}

export async function zipModule(): Promise<ZipModule> {
  return (await import(pathToFileURL(path.join(ROOT, 'scripts', 'zip.mjs')).href)) as ZipModule;
}

export interface LintMessage {
  code: string;
  message: string;
  description?: string | string[];
  file?: string;
  line?: number;
  column?: number;
}

export interface LintReport {
  count: number;
  summary: { errors: number; notices: number; warnings: number };
  errors: LintMessage[];
  warnings: LintMessage[];
  notices: LintMessage[];
}

/** `web-ext lint --output json` on a folder. */
export async function webExtLint(sourceDir: string): Promise<LintReport> {
  const bin = path.join(ROOT, 'node_modules', 'web-ext', 'bin', 'web-ext.js');
  const result = await runNode([bin, 'lint', '--source-dir', sourceDir, '--output', 'json', '--no-config-discovery'], { cwd: ROOT });
  const start = result.stdout.indexOf('{');
  if (start < 0) throw new Error(`web-ext lint printed no report (exit ${result.code}):\n${result.stdout}\n${result.stderr}`);
  return JSON.parse(result.stdout.slice(start)) as LintReport;
}

/** A fenced code block of a Markdown text, with the prose line just above it (its label, or ''). */
export interface FencedBlock {
  label: string;
  lang: string;
  code: string;
  /** 1-based line of the opening fence in the text searched, for error messages. */
  line: number;
}

/**
 * The body of the Markdown section under `## <heading>`, up to the next heading of the same or a
 * higher level. Throws when the heading is missing or repeated: a renamed section must fail the
 * test that reads it, not leave it with nothing to check.
 */
export function markdownSection(markdown: string, heading: string): string {
  const lines = markdown.split('\n');
  const starts = lines.flatMap((l, i) => (/^##\s/.test(l) && l.replace(/^##\s+/, '').trim() === heading ? [i] : []));
  if (starts.length !== 1) throw new Error(`expected one "## ${heading}" section, found ${starts.length}`);
  const start = starts[0]!;
  let end = lines.length;
  let fence: string | undefined;
  for (let i = start + 1; i < lines.length; i++) {
    // A "#" inside a code block (a shell comment) is not a heading.
    const f = /^(`{3,}|~{3,})/.exec(lines[i]!)?.[1];
    if (f !== undefined && (fence === undefined || (f[0] === fence[0] && f.length >= fence.length))) fence = fence === undefined ? f : undefined;
    if (fence === undefined && /^#{1,2}\s/.test(lines[i]!)) {
      end = i;
      break;
    }
  }
  return lines.slice(start + 1, end).join('\n');
}

/** Every fenced code block of a Markdown text. Throws on a block that is never closed. */
export function fencedBlocks(markdown: string): FencedBlock[] {
  const lines = markdown.split('\n');
  const blocks: FencedBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,}|~{3,})\s*([\w+-]*)/.exec(lines[i]!);
    if (open === null) continue;
    const fence = open[1]!;
    let j = i - 1;
    while (j >= 0 && lines[j]!.trim() === '') j--;
    // A label is prose: a block right after another block has none.
    const above = j >= 0 ? lines[j]!.trim() : '';
    const label = /^(`{3,}|~{3,})/.test(above) ? '' : above;
    const body: string[] = [];
    let k = i + 1;
    for (; k < lines.length; k++) {
      const close = /^(`{3,}|~{3,})\s*$/.exec(lines[k]!);
      if (close !== null && close[1]![0] === fence[0] && close[1]!.length >= fence.length) break;
      body.push(lines[k]!);
    }
    if (k === lines.length) throw new Error(`the code block opened on line ${i + 1} is never closed`);
    blocks.push({ label, lang: open[2] ?? '', code: `${body.join('\n')}\n`, line: i + 1 });
    i = k;
  }
  return blocks;
}

/**
 * The one block that `matches`, or an error that lists what there is: a snippet the tests run
 * must not quietly disappear from the README (or be duplicated, leaving one of them untested).
 */
export function onlyBlock(blocks: readonly FencedBlock[], what: string, matches: (b: FencedBlock) => boolean): FencedBlock {
  const found = blocks.filter(matches);
  if (found.length === 1) return found[0]!;
  const seen = blocks.map((b) => `  line ${b.line} of the section: \`\`\`${b.lang} labelled ${JSON.stringify(b.label)}`).join('\n');
  throw new Error(`expected exactly one README code block for ${what}, found ${found.length}; the blocks are:\n${seen}`);
}
