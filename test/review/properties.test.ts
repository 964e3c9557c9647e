/**
 * Property tests (fast-check, 1,000 runs each) for the terms review (spec section 5): a summary
 * that states every value gives no warning, and a changed amount is always a danger.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { reviewTerms } from '../../src/review/index.ts';

const RUNS = { numRuns: 1_000 };

const id = fc.stringMatching(/^[a-z]{2,4}_[A-Za-z0-9]{3,8}$/);
const amount = fc.tuple(fc.integer({ min: 0, max: 99_999 }), fc.integer({ min: 0, max: 99 })).map(([u, c]) => `${u}.${String(c).padStart(2, '0')}`);
const currency = fc.constantFrom('USD', 'EUR', 'GBP', 'JPY', 'CHF', 'SEK');
const key = fc.stringMatching(/^[a-z][a-z_]{0,11}$/);

/** Terms of IDs and money, and a summary that states each in one of the accepted ways. */
const stated = fc
  .dictionary(key, fc.oneof(id.map((v) => ({ kind: 'id' as const, v })), fc.tuple(amount, currency, fc.nat(3)).map(([a, c, style]) => ({ kind: 'money' as const, a, c, style }))), { minKeys: 1, maxKeys: 8 })
  .map((entries) => {
    const terms: Record<string, unknown> = {};
    const sentences: string[] = [];
    for (const [k, e] of Object.entries(entries)) {
      if (e.kind === 'id') {
        terms[k] = e.v;
        sentences.push(`Reference ${e.v}.`);
      } else {
        terms[k] = { amount: e.a, currency: e.c };
        const sign = { USD: '$', EUR: '\u20AC', GBP: '\u00A3' }[e.c as 'USD'];
        const spelled = [`${e.a} ${e.c}`, `${e.c} ${e.a}`, sign ? `${sign}${e.a}` : `${e.c} ${e.a}`, `**${e.a} ${e.c}**`][e.style]!;
        sentences.push(`Charge ${spelled} for it.`);
      }
    }
    return { terms, summary: sentences.join(' ') };
  });

describe('reviewTerms invariants', () => {
  it('a summary that states every value gives no danger or warning', () => {
    fc.assert(
      fc.property(stated, ({ terms, summary }) => {
        const findings = reviewTerms({ summary, terms, request: {} });
        expect(findings.filter((f) => f.severity !== 'info')).toEqual([]);
      }),
      RUNS,
    );
  });

  it('changing any amount in the terms alone is a danger at its path', () => {
    fc.assert(
      fc.property(stated, fc.integer({ min: 1, max: 999 }), ({ terms, summary }, bump) => {
        const moneyKeys = Object.keys(terms).filter((k) => typeof terms[k] === 'object');
        fc.pre(moneyKeys.length > 0);
        const k = moneyKeys[0]!;
        const old = terms[k] as { amount: string; currency: string };
        const [units, cents] = old.amount.split('.');
        const bumped = `${Number(units) + bump}.${cents}`;
        // Not an amount the summary states elsewhere (then the summary would state it).
        fc.pre(!moneyKeys.some((other) => (terms[other] as { amount: string }).amount === bumped));
        const changed = { ...terms, [k]: { ...old, amount: bumped } };
        const findings = reviewTerms({ summary, terms: changed, request: {} });
        expect(findings).toContainEqual(expect.objectContaining({ severity: 'danger', code: 'amount-not-in-summary', path: k }));
      }),
      RUNS,
    );
  });

  it('any value the agent asked for differently is a danger at its path', () => {
    fc.assert(
      fc.property(stated, id, ({ terms, summary }, other) => {
        const k = Object.keys(terms)[0]!;
        fc.pre(terms[k] !== other);
        const findings = reviewTerms({ summary, terms, request: { ...terms, [k]: other } });
        expect(findings).toContainEqual(expect.objectContaining({ severity: 'danger', code: 'request-mismatch', path: k }));
      }),
      RUNS,
    );
  });
});
