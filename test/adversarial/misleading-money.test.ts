/**
 * Finding 3 of the adversarial review: with terms charging 700.00 USD, four summaries that state
 * the amount somewhere and still mislead; the terms-only review passed each as agreeing. Spec
 * section 5: the Personal Agent points out any difference between the summary and the terms.
 */
import { describe, expect, it } from 'vitest';
import { reviewTerms } from '../../src/review/index.ts';
import { REQUEST, SUMMARY, T700, checked, codes } from '../review/seed-exchange.ts';

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
