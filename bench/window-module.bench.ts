/**
 * What the approval window's main module costs a new window before anything is mounted, in Debian
 * Chromium (README, "Benchmarks"; docs/ui.md, "Opening fast"). A copy of the built extension gets
 * pages of its own, each opened by the worker's `windows.create` and stamped by the page itself,
 * on the wall clock, at the first frame after its `load` event:
 * - a bare page, one classic script that stamps (the baseline);
 * - with the main module's text as a deferred classic script that never runs: loading and
 *   parsing that much code;
 * - with a module of the main module's imports and its body in a branch never taken: the chunks
 *   it imports loaded and run, as a module graph, the main module parsed but not run;
 * - with the main module as built, but for its last statement (the one that mounts the window):
 *   loading and evaluating all of it.
 * The module pages carry approve.html's modulepreload links; none carries the style sheet (the
 * window's, added to the bare page, made it paint no later). The pages take turns, each sample a
 * moment after the last window closed. Nothing is asserted.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Stack } from '../test/e2e/support/stack';
import { EXTENSION_DIR } from '../test/e2e/support/chromium';
import { formatMs as fmt, quantile } from './quantile';
import type { BenchResult } from './run';

const SAMPLES = 21;
/** As the window benchmark's samples "at rest" (bench/extension.bench.ts says why). */
const REST_MS = 400;

/** The difference of two p50s, signed: noise can make the page with more to load the faster one. */
const diff = (a: number, b: number) => `${a >= b ? '+' : '−'}${fmt(Math.abs(a - b))}`;

const STAMP = `addEventListener('load', () => {
  const c = document.getElementById('content');
  c.textContent = 'Countersign';
  requestAnimationFrame(() => { c.dataset.paintedAt = String(Date.now()); });
});
`;

const page = (extra: string) =>
  `<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>bench</title><script src="/bench-stamp.js"></script>${extra}</head><body><main id="content"></main></body></html>\n`;

/**
 * The bench pages, written into `dir` (a copy of the build). The main module is the chunk that
 * approve.html loads as its module script; it ends with the call that mounts the window.
 */
async function addPages(dir: string): Promise<{ mainBytes: number }> {
  const html = await readFile(join(dir, 'approve.html'), 'utf8');
  const src = /<script type="module"[^>]*src="\/(chunks\/[^"]+\.js)"/.exec(html)?.[1];
  if (src === undefined) throw new Error('approve.html names no module script');
  const main = await readFile(join(dir, src), 'utf8');
  const mount = /[\w$]+\(document,\s*[\w$]+\);?\s*$/.exec(main);
  if (mount === null) throw new Error(`${src} does not end with the call that mounts the window`);
  // A classic script cannot hold module syntax: the imports go, `import.meta` (in Vite's preload
  // helper) becomes an object, and anything else left would make the copy fail to parse.
  const parsedOnly = main.replace(/import\s*\{[^}]*\}\s*from\s*"[^"]+";?/g, '').replace(/\bimport\.meta\b/g, '({})');
  if (/\bimport\s*[{*"]|\bexport\s*[{*]/.test(parsedOnly)) throw new Error(`${src}: module syntax left that a classic script cannot parse`);
  // Beside the module, so that its imports of its chunks still resolve.
  const evaluated = src.replace(/[^/]+\.js$/, 'bench-evaluated.js');
  await writeFile(join(dir, 'bench-stamp.js'), STAMP);
  await writeFile(join(dir, 'bench-parsed.js'), `if (globalThis.__countersignBenchNever) {\n${parsedOnly}\n}\n`);
  await writeFile(join(dir, evaluated), main.slice(0, mount.index));
  await writeFile(join(dir, 'bench-bare.html'), page(''));
  await writeFile(join(dir, 'bench-parsed.html'), page('<script defer src="/bench-parsed.js"></script>'));
  // The module's body kept from running, its imports kept: its chunks load and run, it does not.
  const imports = [...main.matchAll(/import\s*\{[^}]*\}\s*from\s*"[^"]+";?/g)].map((m) => m[0]).join('');
  const loaded = src.replace(/[^/]+\.js$/, 'bench-loaded.js');
  await writeFile(join(dir, loaded), `${imports}\nif (globalThis.__countersignBenchNever) {\n${main.slice(0, mount.index).replace(/import\s*\{[^}]*\}\s*from\s*"[^"]+";?/g, '')}\n}\n`);
  // As approve.html does: its chunks are fetched while the module still loads.
  const preloads = [...html.matchAll(/<link rel="modulepreload"[^>]*>/g)].map((m) => m[0]).join('');
  await writeFile(join(dir, 'bench-loaded.html'), page(`<script type="module" src="/${loaded}"></script>${preloads}`));
  await writeFile(join(dir, 'bench-evaluated.html'), page(`<script type="module" src="/${evaluated}"></script>${preloads}`));
  return { mainBytes: Buffer.byteLength(main) };
}

/** windows.create of `url` from the worker until the page stamped its first frame after load. */
async function timeToStamp(stack: Stack, url: string): Promise<number> {
  await new Promise((r) => setTimeout(r, REST_MS));
  const opened = stack.context.waitForEvent('page');
  const t0 = Date.now();
  await stack.worker.evaluate((u) => (globalThis as unknown as { chrome: { windows: { create(o: object): Promise<unknown> } } }).chrome.windows.create({ url: u, type: 'popup', width: 520, height: 720 }), url);
  const p = await opened;
  const deadline = Date.now() + 10_000;
  let stamped: string | null = null;
  while (stamped === null && Date.now() < deadline) {
    stamped = await p.evaluate(() => document.getElementById('content')?.dataset.paintedAt ?? null).catch(() => null);
    if (stamped === null) await new Promise((r) => setTimeout(r, 5));
  }
  if (stamped === null) throw new Error(`${url} never stamped its first frame`);
  await p.close();
  return Number(stamped) - t0;
}

export async function run(): Promise<BenchResult[]> {
  const dir = await mkdtemp(join(tmpdir(), 'countersign-bench-ext-'));
  let stack: Stack | undefined;
  try {
    await cp(EXTENSION_DIR, dir, { recursive: true });
    const { mainBytes } = await addPages(dir);
    // The same manifest key, so the same extension ID, and the bridge the installer sets up for it.
    stack = await Stack.start({ extensionDir: dir });
    const times: Record<'bare' | 'parsed' | 'loaded' | 'evaluated', number[]> = { bare: [], parsed: [], loaded: [], evaluated: [] };
    for (let i = 0; i < SAMPLES + 1; i++) {
      for (const kind of ['bare', 'parsed', 'loaded', 'evaluated'] as const) {
        const t = await timeToStamp(stack, `/bench-${kind}.html`);
        // The first round warms the profile's caches for every page alike.
        if (i > 0) times[kind].push(t);
      }
    }
    const [bare, parsed, loaded, evaluated] = [times.bare, times.parsed, times.loaded, times.evaluated].map((t) => quantile(t, 0.5)) as [number, number, number, number];
    const kb = `${(mainBytes / 1024).toFixed(0)} kB`;
    return [
      {
        name: "Chromium: a page with the window's main module, parsed only",
        baseline: 'the same page without it',
        ratio: parsed / bare,
        detail: `p50 ${fmt(parsed)} vs ${fmt(bare)} (${diff(parsed, bare)}), n=${SAMPLES} each, taking turns: the module's ${kb} as a classic script that never runs`,
      },
      {
        name: "Chromium: a page with the window's main module, its chunks run, its body not",
        baseline: 'the same page without it',
        ratio: loaded / bare,
        detail: `p50 ${fmt(loaded)} vs ${fmt(bare)} (${diff(loaded, bare)}), n=${SAMPLES} each, taking turns: a module with the main module's imports and its body inside a branch never taken`,
      },
      {
        name: "Chromium: a page with the window's main module, evaluated, nothing mounted",
        baseline: 'the same page without it',
        ratio: evaluated / bare,
        detail: `p50 ${fmt(evaluated)} vs ${fmt(bare)} (${diff(evaluated, bare)}), n=${SAMPLES} each, taking turns: the module and its chunks as built, all but the call that mounts the window`,
      },
    ];
  } finally {
    await stack?.close();
    await rm(dir, { recursive: true, force: true });
  }
}
