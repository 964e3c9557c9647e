/**
 * Finding 3 of the adversarial review: with terms charging 700.00 USD, four summaries that state
 * the amount somewhere and still mislead; the terms-only review passed each as agreeing. Spec
 * section 5: the Personal Agent points out any difference between the summary and the terms.
 */
import { describe, expect, it } from 'vitest';
import { reviewOperation, reviewTerms, type CheckCode, type ReviewFinding } from '../../src/review/index.ts';

const SUMMARY =
  'Exchange the Stormline Jacket (M) on order ord_7Hk2 for the Stormline Insulated Jacket (M), for $70.00 more, charged to the card used for the order.';
const TERMS = {
  order_id: 'ord_7Hk2',
  item_id: 'itm_4Qa',
  replacement_sku: 'stormline-insulated-m',
  price_difference: { amount: '70.00', currency: 'USD' },
};
const REQUEST = { item_id: 'itm_4Qa', replacement_sku: 'stormline-insulated-m', order_id: 'ord_7Hk2' };
const T700 = { ...TERMS, price_difference: { amount: '700.00', currency: 'USD' } };

const codes = (findings: ReviewFinding[], severity = 'danger') => findings.filter((f) => f.severity === severity).map((f) => f.code);
const checked = (summary: string, terms?: Record<string, unknown>, request?: Record<string, unknown>): CheckCode[] =>
  reviewOperation({ summary, terms, request }).checked.map((c) => c.code);

describe('finding 3: a summary that states the amount somewhere and still misleads', () => {
  it('finding 3: bold "Free exchange. You pay $0.00." with "Ref 700.00 USD" in a list', () => {
    const summary = `**Free exchange. You pay $0.00.**\n\n${SUMMARY.replace('ord_7Hk2', 'ord_7Hk2').replace(', for $70.00 more, charged to the card used for the order', '')}\n\n- Ref 700.00 USD`;
    const findings = reviewTerms({ summary, terms: T700, request: REQUEST });
    expect(codes(findings)).toEqual(expect.arrayContaining(['contradicts-charge', 'amount-not-in-terms']));
    expect(checked(summary, T700, REQUEST)).not.toContain('no-contradicting-words');
  });

  it('finding 3: "the usual $700.00 fee is waived"', () => {
    const summary = 'Exchange the Stormline Jacket (M) on order ord_7Hk2 for the Stormline Insulated Jacket (M); the usual $700.00 fee is waived.';
    expect(codes(reviewTerms({ summary, terms: T700, request: REQUEST }))).toContain('contradicts-charge');
  });

  it('finding 3: "you get $70.00 back", with "700.00 USD" elsewhere', () => {
    const summary = 'Exchange the Stormline Jacket (M) on order ord_7Hk2 for the Stormline Insulated Jacket (M) and you get $70.00 back.\n\nReference: 700.00 USD';
    expect(codes(reviewTerms({ summary, terms: T700, request: REQUEST }))).toEqual(expect.arrayContaining(['amount-not-in-terms', 'contradicts-charge']));
  });

  it('finding 3: a second bold "Total today: $7.00" under the real total', () => {
    const summary = '**Total: $700.00** to exchange the Stormline Jacket (M) on order ord_7Hk2 for the Stormline Insulated Jacket (M).\n\n**Total today: $7.00**';
    expect(codes(reviewTerms({ summary, terms: T700, request: REQUEST }))).toEqual(expect.arrayContaining(['second-total', 'amount-not-in-terms']));
  });
});
