/**
 * The seed's jacket exchange as the terms review sees it (spec section 3's operation, section 6's
 * request), shared by the review tests and the adversarial money tests.
 */
import { reviewOperation, type CheckCode, type ReviewFinding } from '../../src/review/index.ts';

/** Section 3's summary. */
export const SUMMARY =
  'Exchange the Stormline Jacket (M) on order ord_7Hk2 for the Stormline Insulated Jacket (M), for $70.00 more, charged to the card used for the order.';
/** Section 3's terms. */
export const TERMS = {
  order_id: 'ord_7Hk2',
  item_id: 'itm_4Qa',
  replacement_sku: 'stormline-insulated-m',
  price_difference: { amount: '70.00', currency: 'USD' },
};
/** Section 6's API request body, plus the order ID from its path (/orders/ord_7Hk2/exchanges). */
export const REQUEST = { order_id: 'ord_7Hk2', item_id: 'itm_4Qa', replacement_sku: 'stormline-insulated-m' };
/** The same terms charging ten times as much. */
export const T700 = { ...TERMS, price_difference: { amount: '700.00', currency: 'USD' } };

/** The codes of the findings of one severity. */
export const codes = (findings: ReviewFinding[], severity = 'danger') => findings.filter((f) => f.severity === severity).map((f) => f.code);

/** The codes of what the review says it checked and found true. */
export const checked = (summary: string, terms?: Record<string, unknown>, request?: Record<string, unknown>, options = {}): CheckCode[] =>
  reviewOperation({ summary, terms, request }, options).checked.map((c) => c.code);
