/**
 * Changed-banner benchmarks (docs/ui.md, "Changed"). Measured, not asserted: the approval card
 * of a new revision whose terms hold 10,000 values (about 320,000 characters of JSON, a third of
 * what a bridge frame carries), every value changed, so the banner compares every value and lists
 * every change; against the card of the first revision of the same terms (no banner). Goal at
 * most 10x: comparing everything, with no limit of count or depth, costs a render of the same
 * order as showing the terms once. Rendered in jsdom; medians after a warm-up. Run alone with
 * `npx tsx bench/run.ts changed-banner`.
 */
import { JSDOM } from 'jsdom';
import { renderApprovalCard } from '../src/extension/ui/approval-card.ts';
import { translator } from '../src/extension/ui/i18n.ts';
import { chromeGetMessage, englishMessages } from '../test/extension/ui/locale-table.ts';
import { jacketOperation, jacketView, TERMS } from '../test/extension/ui/jacket-view.ts';
import { medianTime } from './median-time.ts';
import type { BenchResult } from './run.ts';


const ms = (t: number) => `${t.toFixed(1)} ms`;
const VALUES = 10_000;

export function run(): Promise<BenchResult[]> {
  const { document } = new JSDOM('<!doctype html><body></body>').window;
  const t = translator(chromeGetMessage(englishMessages()), 'en');
  const terms = (tag: string) => ({ ...TERMS, refs: Object.fromEntries(Array.from({ length: VALUES }, (_, i) => [`ref_${i}`, `${tag}_${i}_${'x'.repeat(8)}`])) });
  const before = jacketOperation({ terms: terms('old') });
  const after = jacketOperation({ revision: 'rev2', terms: terms('new') });
  const render = (view: ReturnType<typeof jacketView>) => () => document.body.replaceChildren(renderApprovalCard(document, view, t).card);
  const changedMs = medianTime(render(jacketView({ operation: after, previous: before })), 3, 1);
  const firstMs = medianTime(render(jacketView({ operation: after })), 3, 1);
  return Promise.resolve([
    {
      name: `changed banner, ${VALUES.toLocaleString('en')} values all changed`,
      baseline: 'the first revision\'s card of the same terms',
      ratio: changedMs / firstMs,
      detail: `${ms(changedMs)} vs ${ms(firstMs)} (${JSON.stringify(after.terms).length} characters of terms, jsdom, median of 3)`,
      goal: '≤ 10x',
    },
  ]);
}
