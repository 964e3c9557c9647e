/**
 * The summary rendering benchmark where the product runs it: in Debian Chromium rather than jsdom
 * (jsdom's HTML parser alone costs about as much as micromark, which says little about the
 * window). The same realistic 16 kB summary as summary.bench.ts, the whole pipeline (micromark
 * profile, hidden-character tokens, DOMPurify with the allow-list) against bare micromark with its
 * defaults, both in the same page, median of 41 runs each.
 */
import { chromium } from '@playwright/test';
import * as esbuild from 'esbuild';
import { realisticSummary } from './summary.bench';
import type { BenchResult } from './run';

const ENTRY = `
import { micromark } from 'micromark';
import { prepareSummary } from './src/summary/render.ts';
globalThis.__summaryBench = { bare: (md) => micromark(md), pipeline: (md) => prepareSummary(md, { window }).html };
`;

export async function run(): Promise<BenchResult[]> {
  const bundle = await esbuild.build({
    stdin: { contents: ENTRY, resolveDir: process.cwd(), loader: 'ts', sourcefile: 'summary-browser-entry.ts' },
    bundle: true,
    format: 'iife',
    minify: true,
    write: false,
    platform: 'browser',
  });
  const script = bundle.outputFiles[0]!.text;
  const browser = await chromium.launch({
    executablePath: process.env.COUNTERSIGN_CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const page = await browser.newPage();
    await page.setContent('<!doctype html><html><body></body></html>');
    await page.addScriptTag({ content: script });
    const markdown = realisticSummary(16 * 1024);
    // Passed as text: tsx would add helpers (`__name`) to a function's source that the page lacks.
    const result = await page.evaluate<{ bare: number; pipeline: number }>(`(() => {
      const b = globalThis.__summaryBench;
      const md = ${JSON.stringify(markdown)};
      const median = (fn) => {
        for (let i = 0; i < 5; i++) fn();
        const times = [];
        for (let i = 0; i < 41; i++) {
          const t0 = performance.now();
          fn();
          times.push(performance.now() - t0);
        }
        return times.sort((x, y) => x - y)[20];
      };
      return { bare: median(() => b.bare(md)), pipeline: median(() => b.pipeline(md)) };
    })()`);
    return [
      {
        name: 'summary: realistic 16 kB, whole pipeline, in Chromium',
        baseline: 'bare micromark (default options), same page',
        ratio: result.pipeline / result.bare,
        goal: '<= 1.5x',
        detail: `${result.pipeline.toFixed(2)} ms vs ${result.bare.toFixed(2)} ms (median of 41)`,
      },
    ];
  } finally {
    await browser.close();
  }
}
