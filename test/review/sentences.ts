/**
 * Inputs that reach every sentence of the review and of the revision diff: the misleading-summary
 * fixtures and the cases beyond them. Shared by the messages.json comparison
 * (message-text.test.ts) and the rule registry's test (rules.test.ts).
 */
import { diffExpiry, diffRevisions, diffTerms, factFindings, reviewOperation, type ReviewInput } from '../../src/review/index.ts';
import type { ExpiryChange, TermChange } from '../../src/review/diff.ts';
import type { CheckedStatement, ReviewFinding } from '../../src/review/types.ts';
import { fixture } from '../summary/helpers.ts';

interface Case {
  id: string;
  summary: string;
  terms?: Record<string, unknown>;
  request?: Record<string, unknown>;
}

const cases = fixture<{ misleading: Case[]; honest: Case[] }>('misleading-summaries/cases.json');
const holdout = fixture<{ misleading: Case[]; honest: Case[] }>('misleading-summaries/holdout.json');

export const JACKET = {
  operation_id: 'exc_5Rt2',
  revision: 'r1',
  summary: 'Exchange the Stormline Jacket (M) on order ord_7Hk2 for the Stormline Insulated Jacket (M), for **$70.00** more.',
  terms: { order_id: 'ord_7Hk2', item_id: 'itm_4Qa', price_difference: { amount: '70.00', currency: 'USD' } },
  expires_at: '2026-10-08T12:20:00-07:00',
};

function deep(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: 'x' };
  for (let i = 0; i < levels; i += 1) value = { next: value };
  return value;
}

/** Review inputs beyond the fixtures, so that every review_ and checked_ message is reached. */
export const REVIEWS: ReviewInput[] = [
  ...[...cases.misleading, ...cases.honest, ...holdout.misleading, ...holdout.honest],
  ...cases.misleading.map(({ summary, terms }) => ({ summary, terms })),
  { summary: 'Anything' },
  { summary: 'Anything', terms: {} },
  { summary: 'Ships 2026-10-08 to Lyon', terms: { ship_on: '2026-10-09', nights: 3, gift: true, note: null, city: 'Paris' }, request: { city: 'Paris' } },
  { summary: 'Ships to Lyon', terms: { city: 'Paris', weight: 3 } },
  { summary: 'Ships', terms: { city: 'Paris' }, request: { sku: 'a' } },
  { summary: 'Ships to Paris', terms: { city: 'Paris' }, request: { city: 'Lyon' } },
  { summary: 'Ships', terms: { city: 'Paris' }, request: { city: 'Lyon' } },
  { summary: 'Pay $5.00', terms: { amount: '5.00', currency: 'USD' }, request: { amount: '6.00', currency: 'USD' } },
  { summary: 'Pay', terms: { amount: '5.00', currency: 'USD' }, request: { amount: '6.00', currency: 'USD' } },
  { summary: 'Pay nothing', terms: { amount: '5.00', currency: 'USD' } },
  { summary: 'Items', terms: { items: ['a'] }, request: { items: ['a', 'b'] } },
  { summary: 'Items', terms: { items: ['a', 'b'] }, request: { items: ['a', 'b', 'c'] } },
  { summary: 'x', terms: { 'k\u202E': 'v\u200B', ['z\u200B\u200C\u200D\u2060\uFEFF\u00AD\u2061']: 'w\u202E' } },
  { summary: 'x', terms: deep(40) },
  { summary: 'Total: $700.00. Total today: $7.00. Total due: $9.00.', terms: { total: { amount: '700.00', currency: 'USD' } } },
  { summary: 'Pay $12.00, about \u20AC645.', terms: {} },
  { summary: 'Pay $12.00.', terms: { sku: 'abc' } },
  { summary: 'You get $210.00 back.', terms: { total: { amount: '70.00', currency: 'USD' }, nights: 3 } },
  { summary: 'You are charged $210.00.', terms: { refund: { amount: '70.00', currency: 'USD' }, nights: 3 } },
];

/** The findings and checked statements of every review input, with a truncated summary and unformattable facts. */
export function reviewed(): { findings: ReviewFinding[]; checked: CheckedStatement[] } {
  const findings: ReviewFinding[] = [];
  const checked: CheckedStatement[] = [];
  for (const input of REVIEWS) {
    const review = reviewOperation({ summary: input.summary, terms: input.terms, request: input.request });
    findings.push(...review.findings);
    checked.push(...review.checked);
  }
  findings.push(...reviewOperation({ summary: `Pay $70.00. ${'x '.repeat(50)}`, terms: JACKET.terms }, { limit: 20 }).findings);
  findings.push(...reviewOperation({ summary: 'Pay $70.00. x', terms: JACKET.terms }, { limit: 1 }).findings);
  // An amount with more decimals than Intl formats, in a member and as the whole terms.
  const unformatted = `1.${'0'.repeat(100)}1`;
  findings.push(...factFindings({ fee: { amount: unformatted, currency: 'USD' } }), ...factFindings({ amount: unformatted, currency: 'USD' }));
  return { findings, checked };
}

/** The findings of revision pairs, the changes of terms, and deadlines moved by every unit both ways. */
export function diffed(): { findings: ReviewFinding[]; terms: TermChange[]; expiry: ExpiryChange[] } {
  const second = { ...JACKET, revision: 'r2', summary: JACKET.summary.replace('$70.00', '$75.00'), terms: { ...JACKET.terms, price_difference: { amount: '75.00', currency: 'USD' } } };
  const findings = [
    ...diffRevisions(JACKET, second).findings,
    ...diffRevisions(JACKET, { ...second, revision: 'r1' }).findings,
    ...diffRevisions(JACKET, { ...JACKET, revision: 'r2' }).findings,
  ];
  const terms = [
    ...diffRevisions(JACKET, second).terms,
    ...diffTerms(undefined, { a: 1 }),
    ...diffTerms({ a: 1 }, undefined),
    ...diffTerms({ a: 1, items: [{ sku: 'x' }, { sku: 'y' }], gone: true, shape: 'text', 'k\u202E': 'a' }, { a: 2, items: [{ sku: 'x', qty: 2 }], added: null, shape: { now: 'object' }, 'k\u202E': 'a\u200B' }),
    ...diffTerms({ a: 1 }, [] as never),
  ];
  const expiry: ExpiryChange[] = [];
  const base = Date.parse('2026-10-08T12:00:00Z');
  for (const ms of [1, 7, 1_000, 45_000, 60_000, 600_000, 3_600_000, 5_400_000, 86_400_000, 3 * 86_400_000, 1_000 * 86_400_000]) {
    for (const sign of [1, -1]) expiry.push(diffExpiry('2026-10-08T12:00:00.000Z', new Date(base + sign * ms).toISOString())!);
  }
  expiry.push(diffExpiry('2026-10-08T12:20:00Z', '2026-10-08T05:20:00-07:00')!, diffExpiry('2026-10-08T12:20:00Z', 'soon')!);
  return { findings, terms, expiry };
}
