/**
 * Summary pipeline benchmarks (spec section 3, "Formatting"). Measured, not asserted:
 * - a realistic 16 kB summary through the whole pipeline (micromark profile, hidden-character
 *   tokens, DOMPurify in jsdom) against bare micromark on the same input; goal at most 1.5x;
 * - pathological inputs at n and 2n with "Show all": the time ratio per doubling; goal at most
 *   2.2 (linear with some noise), for deeply nested emphasis, 100k `[`, 100k `*`, 100k list items;
 * - a 1 MiB summary at the default display limit, and crafted 20 kB inputs, to show the window
 *   stays responsive.
 * Medians of several runs after a warm-up. Run alone with `npx tsx bench/summary.bench.ts`.
 */
import { JSDOM } from 'jsdom';
import { micromark } from 'micromark';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { prepareSummary, type WindowLike } from '../src/summary/index.ts';
import { markdownToAllowListedHtml } from '../src/summary/markdown.ts';
import type { BenchResult } from './run.ts';

// A collection before each timed run, so one run's garbage is not the next one's pause.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function median(fn: () => unknown, runs: number): number {
  fn(); // warm-up: JIT, and DOMPurify's per-window setup
  fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    gc();
    const start = performance.now();
    fn();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

const ms = (t: number) => `${t.toFixed(1)} ms`;

/** A long but plausible summary: a plan change with items, amounts, dates and conditions. */
export function realisticSummary(bytes: number): string {
  const blocks: string[] = [];
  for (let i = 1; blocks.join('\n\n').length < bytes; i += 1) {
    blocks.push(
      `**Change ${i}.** Replace the *Stormline Jacket (M)* on order ord_${i}Hk2 with the Stormline Insulated Jacket (M), ` +
        `for $${(i * 7) % 100}.00 more, charged to the card ending 4242 on October ${(i % 28) + 1}, 2026. ` +
        `If you return it within 30 days, you get the difference back to the same card.`,
      `- Item itm_${i}Qa: ${i} unit(s), shipping to the address on file\n- Fee: **USD ${i % 9}.50**, not refundable\n- Delivery: 3 to 5 business days`,
      `1. We reserve the new jacket now.\n2. We charge the difference when it ships.\n3. You return the old one with the prepaid label, _no later than_ November ${(i % 27) + 1}.`,
    );
  }
  return blocks.join('\n\n').slice(0, bytes);
}

function nestedEmphasis(levels: number): string {
  let open = '';
  let close = '';
  for (let i = 0; i < levels; i += 1) {
    const marker = i % 2 === 0 ? '*' : '_';
    open += `${marker}a `;
    close = ` a${marker}${close}`;
  }
  return `${open}b${close}`;
}

/** Crafted inputs within the default display limit: nesting, delimiter runs, long lists. */
const CRAFTED: Record<string, string> = {
  'nested list markers': '- '.repeat(10_000),
  'nested ordered lists': '1. '.repeat(6_666),
  'alternating * and _': '*_'.repeat(10_000),
  'emphasis openers': '*a '.repeat(6_666),
  'strong openers': '**a'.repeat(6_666),
  'intraword *': 'a*'.repeat(10_000),
  'nested emphasis': nestedEmphasis(3_333),
  'list items': '- item\n'.repeat(2_857),
  'link and image syntax': '![a]('.repeat(4_000),
};

export async function run(): Promise<BenchResult[]> {
  const { window } = new JSDOM('');
  const win = window as unknown as WindowLike;
  const results: BenchResult[] = [];

  const realistic = realisticSummary(16 * 1024);
  const bare = median(() => micromark(realistic), 21);
  const full = median(() => prepareSummary(realistic, { window: win }), 21);
  const first = median(() => markdownToAllowListedHtml(realistic), 21);
  const html = markdownToAllowListedHtml(realistic).html;
  const parse = median(() => new window.DOMParser().parseFromString(html, 'text/html'), 21);
  results.push({
    name: 'summary: realistic 16 kB, whole pipeline',
    baseline: 'bare micromark (default options)',
    ratio: full / bare,
    detail: `${ms(full)} vs ${ms(bare)} (median of 21); jsdom's DOMParser alone takes ${ms(parse)} on the ${html.length}-character HTML DOMPurify parses`,
    goal: '<= 1.5x',
  });
  results.push({
    name: 'summary: realistic 16 kB, first wall only',
    baseline: 'bare micromark (default options)',
    ratio: first / bare,
    detail: `${ms(first)} vs ${ms(bare)} (micromark profile, structure limits, hidden-character tokens; median of 21)`,
  });

  const doubling: Array<[string, (n: number) => string, number]> = [
    ['deeply nested emphasis (levels)', nestedEmphasis, 20_000],
    ['100k "["', (n) => '['.repeat(n), 100_000],
    ['100k "*"', (n) => '*'.repeat(n), 100_000],
    ['100k list items', (n) => '- item\n'.repeat(n), 100_000],
  ];
  for (const [name, make, n] of doubling) {
    const small = make(n);
    const large = make(2 * n);
    const tSmall = median(() => prepareSummary(small, { window: win, showAll: true }), 7);
    const tLarge = median(() => prepareSummary(large, { window: win, showAll: true }), 7);
    const limited = prepareSummary(small, { window: win, showAll: true }).formattingLimited;
    results.push({
      name: `growth: ${name}, n=${n} to 2n, Show all`,
      baseline: 'the same input at n',
      ratio: tLarge / tSmall,
      detail: `${ms(tSmall)} at n (${small.length} chars), ${ms(tLarge)} at 2n (median of 7)${limited ? '; structure limits applied' : ''}`,
      goal: '<= 2.2',
    });
  }

  const MiB = 1024 * 1024;
  const huge = realisticSummary(MiB);
  const bareHuge = median(() => micromark(huge), 3);
  const shownHuge = median(() => prepareSummary(huge, { window: win }), 7);
  results.push({
    name: 'summary: 1 MiB at the default display limit',
    baseline: 'bare micromark on the whole 1 MiB',
    ratio: shownHuge / bareHuge,
    detail: `${ms(shownHuge)} to show the first 20,000 characters vs ${ms(bareHuge)} to parse it all`,
  });

  let worst = { name: '', time: 0 };
  const lines: string[] = [];
  for (const [name, markdown] of Object.entries(CRAFTED)) {
    const time = median(() => prepareSummary(markdown, { window: win }), 3);
    lines.push(`${name} ${ms(time)}`);
    if (time > worst.time) worst = { name, time };
  }
  results.push({
    name: 'summary: slowest crafted 20 kB input, whole pipeline',
    baseline: 'realistic 16 kB summary, whole pipeline',
    ratio: worst.time / full,
    detail: `worst: ${worst.name}; ${lines.join(', ')}`,
  });

  window.close();
  return results;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const r of await run()) {
    console.log(`${r.name.padEnd(58)} ${r.ratio.toFixed(2).padStart(7)}x vs ${r.baseline}${r.goal ? `  (goal ${r.goal})` : ''}\n    ${r.detail}`);
  }
}
