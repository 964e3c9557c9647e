/**
 * The terms review (spec section 5) on the misleading-summaries corpus
 * (test/fixtures/misleading-summaries): what it catches and what it costs.
 * - rates: misleading summaries with a danger finding of an expected code, honest ones with any
 *   danger finding, on the corpus, and on each holdout set (`holdout*.json`, any danger finding
 *   counts there: their cases name no expected code) (reported, not timed);
 * - time: `reviewOperation` over the whole corpus against `summaryToText` over the same summaries
 *   (the reading of the summary as the person sees it, which every review needs first). The
 *   review runs once per window paint, so its cost adds to the time to window.
 * Medians of several runs after a warm-up. Run alone with `npx tsx bench/run.ts review`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { reviewOperation, type ReviewCode } from '../src/review/index.ts';
import { summaryToText } from '../src/summary/render.ts';
import { medianTime } from './median-time.ts';
import type { BenchResult } from './run.ts';

interface Case {
  id: string;
  summary: string;
  terms: Record<string, unknown>;
  request?: Record<string, unknown>;
  expect?: ReviewCode[];
}


const FIXTURES = new URL('../test/fixtures/misleading-summaries/', import.meta.url);

function load(file: string): { misleading: Case[]; honest: Case[] } {
  return JSON.parse(readFileSync(new URL(file, FIXTURES), 'utf8')) as { misleading: Case[]; honest: Case[] };
}

export async function run(): Promise<BenchResult[]> {
  const corpus = load('cases.json');
  const dangers = (c: Case) => reviewOperation({ summary: c.summary, terms: c.terms, request: c.request }).findings.filter((f) => f.severity === 'danger');
  const caught = corpus.misleading.filter((c) => dangers(c).some((f) => c.expect?.includes(f.code))).length;
  const alarms = corpus.honest.filter((c) => dangers(c).length > 0).length;
  const rows: BenchResult[] = [
    {
      name: 'review: misleading summaries caught',
      baseline: 'the corpus',
      ratio: caught / corpus.misleading.length,
      detail: `misleading caught ${caught} of ${corpus.misleading.length}; false alarms ${alarms} of ${corpus.honest.length} honest summaries`,
      goal: 'every misleading one, no honest one',
    },
  ];
  // Each holdout was written after the rules of its time and measured as it fell (README.md there).
  const holdouts = readdirSync(FIXTURES).map((f) => /^(holdout.*)\.json$/.exec(f)?.[1]).filter((name) => name !== undefined);
  // In the order they were written: holdout, holdout-2, holdout-3.
  for (const name of holdouts.sort((a, b) => a.localeCompare(b))) {
    const file = `${name}.json`;
    const held = load(file);
    const heldCaught = held.misleading.filter((c) => dangers(c).length > 0).length;
    const heldAlarms = held.honest.filter((c) => dangers(c).length > 0).length;
    rows.push({
      name: `review: ${name} misleading summaries caught`,
      baseline: file,
      ratio: heldCaught / held.misleading.length,
      detail: `misleading caught ${heldCaught} of ${held.misleading.length}; false alarms ${heldAlarms} of ${held.honest.length} honest summaries`,
      goal: 'every misleading one, no honest one',
    });
  }
  const all = [...corpus.misleading, ...corpus.honest];
  const review = medianTime(() => all.forEach((c) => reviewOperation({ summary: c.summary, terms: c.terms, request: c.request })), 25);
  const read = medianTime(() => all.forEach((c) => summaryToText(c.summary)), 25);
  rows.push({
    name: `review: reviewOperation over ${all.length} operations`,
    baseline: 'summaryToText alone',
    ratio: review / read,
    detail: `${review.toFixed(2)} ms vs ${read.toFixed(2)} ms for the corpus (${((review / all.length) * 1000).toFixed(0)} µs per operation)`,
  });
  return rows;
}
