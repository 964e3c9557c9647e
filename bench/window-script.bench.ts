/**
 * What the approval window's main script costs a new window before it mounts anything, in Debian
 * Chromium (README, "Benchmarks"; docs/ui.md, "Opening fast"). A copy of the built extension gets
 * pages of its own, each opened by the worker's `windows.create` and stamped by the page itself,
 * on the wall clock, at the first frame after its `load` event:
 * - a bare page, one classic script that stamps (the baseline);
 * - with the main script's text inside a branch never taken: loading and parsing that much code;
 * - with the main script as built, deferred, as approve.html loads it;
 * - with the same file loaded as a module instead (`type="module"`): what loading it as a
 *   module, rather than as a classic script, costs.
 * The pages have none of the window's elements, so the script's mount stops at its first one:
 * what is timed is loading, compiling and evaluating the code. None carries the style sheet (the
 * window's, added to the bare page, made it paint no later). The pages take turns, each sample a
 * moment after the last window closed. Nothing is asserted.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Stack } from '../test/e2e/support/stack';
import { EXTENSION_DIR } from '../test/e2e/support/chromium';
import { formatMs as fmt, quantile } from './quantile';
import { pollUntil } from './poll-until';
import type { BenchResult } from './run';
import { REST_MS, openFromWorker } from './worker-window';

const SAMPLES = 21;

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

/** The bench pages, written into `dir` (a copy of the build), for the main script approve.html defers. */
async function addPages(dir: string): Promise<{ mainBytes: number }> {
  const html = await readFile(join(dir, 'approve.html'), 'utf8');
  const src = /<script defer src="\/([^"]+\.js)"/.exec(html)?.[1];
  if (src === undefined) throw new Error('approve.html defers no main script');
  if (/<script type="module"/.test(html)) throw new Error('approve.html loads a module too: the pages here would not time what the window loads');
  const main = await readFile(join(dir, src), 'utf8');
  await writeFile(join(dir, 'bench-stamp.js'), STAMP);
  await writeFile(join(dir, 'bench-parsed.js'), `if (globalThis.__countersignBenchNever) {\n${main}\n}\n`);
  await writeFile(join(dir, 'bench-bare.html'), page(''));
  await writeFile(join(dir, 'bench-parsed.html'), page('<script defer src="/bench-parsed.js"></script>'));
  await writeFile(join(dir, 'bench-classic.html'), page(`<script defer src="/${src}"></script>`));
  await writeFile(join(dir, 'bench-module.html'), page(`<script type="module" src="/${src}"></script>`));
  return { mainBytes: Buffer.byteLength(main) };
}

/** windows.create of `url` from the worker until the page stamped its first frame after load. */
async function timeToStamp(stack: Stack, url: string): Promise<number> {
  await new Promise((r) => setTimeout(r, REST_MS));
  const { page: p, t0 } = await openFromWorker(stack, url);
  const stamped = await pollUntil(() => p.evaluate(() => document.getElementById('content')?.dataset.paintedAt ?? null).catch(() => null), Date.now() + 10_000);
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
    const kinds = ['bare', 'parsed', 'classic', 'module'] as const;
    const times = Object.fromEntries(kinds.map((k) => [k, [] as number[]])) as Record<(typeof kinds)[number], number[]>;
    for (let i = 0; i < SAMPLES + 1; i++) {
      for (const kind of kinds) {
        const t = await timeToStamp(stack, `/bench-${kind}.html`);
        // The first round warms the profile's caches for every page alike.
        if (i > 0) times[kind].push(t);
      }
    }
    const [bare, parsed, classic, module] = kinds.map((k) => quantile(times[k], 0.5)) as [number, number, number, number];
    const kb = `${(mainBytes / 1024).toFixed(0)} kB`;
    const row = (name: string, p50: number, what: string): BenchResult => ({
      name: `Chromium: a page with the window's main script, ${name}`,
      baseline: 'the same page without it',
      ratio: p50 / bare,
      detail: `p50 ${fmt(p50)} vs ${fmt(bare)} (${diff(p50, bare)}), n=${SAMPLES} each, taking turns: ${what}`,
    });
    return [
      row('parsed only', parsed, `its ${kb} in a branch never taken`),
      row('as the window loads it', classic, 'a classic script, deferred, run until its mount finds no window'),
      row('loaded as a module instead', module, `the same file as type="module": ${diff(module, classic)} against the classic script`),
    ];
  } finally {
    await stack?.close();
    await rm(dir, { recursive: true, force: true });
  }
}
