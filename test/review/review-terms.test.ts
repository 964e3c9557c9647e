/**
 * reviewTerms (spec section 5): terms against the summary and against what the agent asked
 * for, on the seed's jacket exchange (sections 3 and 6) and on each way it can go wrong.
 */
import { describe, expect, it } from 'vitest';
import { reviewTerms } from '../../src/review/index.ts';

/** Section 3's operation. */
const SUMMARY =
  'Exchange the Stormline Jacket (M) on order ord_7Hk2 for the Stormline Insulated Jacket (M), for $70.00 more, charged to the card used for the order.';
const TERMS = {
  order_id: 'ord_7Hk2',
  item_id: 'itm_4Qa',
  replacement_sku: 'stormline-insulated-m',
  price_difference: { amount: '70.00', currency: 'USD' },
};
/** Section 6's API request body, plus the order ID from its path (/orders/ord_7Hk2/exchanges). */
const REQUEST = { order_id: 'ord_7Hk2', item_id: 'itm_4Qa', replacement_sku: 'stormline-insulated-m' };

describe("the seed's jacket exchange", () => {
  it('has no finding', () => {
    expect(reviewTerms({ summary: SUMMARY, terms: TERMS, request: REQUEST })).toEqual([]);
  });

  it('has no finding with the MCP tool arguments of section 6 either', () => {
    expect(reviewTerms({ summary: SUMMARY, terms: TERMS, request: { order_id: 'ord_7Hk2', item_id: 'itm_4Qa', replacement_sku: 'stormline-insulated-m' } })).toEqual([]);
  });

  it('a changed price: the terms amount is not stated, and the stated one is not in the terms', () => {
    const findings = reviewTerms({ summary: SUMMARY, terms: { ...TERMS, price_difference: { amount: '80.00', currency: 'USD' } }, request: REQUEST });
    expect(findings).toEqual([
      {
        severity: 'danger',
        code: 'amount-not-in-summary',
        path: 'price_difference',
        message: 'The terms set price_difference to 80.00 USD, but the summary does not state that amount.',
        text: { key: 'review_amountNotInSummary', substitutions: ['price_difference', '80.00 USD'] },
      },
      {
        severity: 'danger',
        code: 'amount-not-in-terms',
        path: '',
        message: 'The summary states "$70.00", but the terms hold no such amount (they set price_difference 80.00 USD); you may be misled about what you pay.',
        text: { key: 'review_amountNotInTerms', substitutions: ['"$70.00"', 'price_difference 80.00 USD'] },
      },
    ]);
  });

  it('a changed SKU: one finding', () => {
    const findings = reviewTerms({ summary: SUMMARY, terms: { ...TERMS, replacement_sku: 'stormline-insulated-l' }, request: REQUEST });
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ severity: 'danger', code: 'request-mismatch', path: 'replacement_sku' });
    expect(findings[0]!.message).toBe(
      'The terms set replacement_sku to "stormline-insulated-l", but the agent asked for "stormline-insulated-m". The summary does not state the terms\u2019 value either.',
    );
  });

  it('a summary that omits the amount: one finding', () => {
    const findings = reviewTerms({ summary: SUMMARY.replace(', for $70.00 more', ''), terms: TERMS, request: REQUEST });
    expect(findings).toEqual([expect.objectContaining({ severity: 'danger', code: 'amount-not-in-summary', path: 'price_difference' })]);
  });

  it('a request/terms mismatch: one finding', () => {
    const findings = reviewTerms({ summary: SUMMARY, terms: TERMS, request: { ...REQUEST, item_id: 'itm_9Zz' } });
    expect(findings).toEqual([
      expect.objectContaining({
        severity: 'danger',
        code: 'request-mismatch',
        path: 'item_id',
        message: 'The terms set item_id to "itm_4Qa", but the agent asked for "itm_9Zz". The summary does not state the terms\u2019 value either.',
      }),
    ]);
  });

  it('terms absent altogether: says nothing could be checked', () => {
    expect(reviewTerms({ summary: SUMMARY, request: REQUEST })).toEqual([
      expect.objectContaining({ severity: 'info', code: 'terms-absent', path: '' }),
    ]);
    expect(reviewTerms({ summary: SUMMARY, terms: {}, request: REQUEST })).toEqual([expect.objectContaining({ code: 'terms-empty' })]);
  });

  it('without the request, IDs the summary does not name are reported', () => {
    const findings = reviewTerms({ summary: SUMMARY, terms: TERMS });
    expect(findings.map((f) => [f.severity, f.code, f.path])).toEqual([
      ['info', 'request-absent', ''],
      ['info', 'not-in-summary', 'item_id'],
    ]);
    expect(findings[1]!.message).toContain('there is no request to confirm it');
  });
});

describe('money in the summary', () => {
  const terms = { price: { amount: '70.00', currency: 'USD' } };
  const check = (summary: string) => reviewTerms({ summary, terms, request: {} });

  it.each(['$70.00', '$70', '70.00 USD', '70 USD', 'USD 70', 'USD 70.00', 'US$70.00', '**$70.00**', '$ 70.00', '70USD', '$70.00.'])(
    'accepts %s',
    (spelled) => {
      expect(check(`You pay ${spelled} today`)).toEqual([]);
    },
  );

  it('states the amount in -$70.00, but a minus sign on a charge presents it as money to you', () => {
    expect(check('You pay -$70.00 today').map((f) => [f.code, f.path])).toEqual([['direction-reversed', 'price']]);
  });

  // The amount the summary does state is checked against the terms too (reviewOperation):
  // "$7.00" is an amount the terms do not hold, "\u20AC70.00" one in a currency they do not use.
  it.each([
    ['70.00', []],
    ['$700.00', ['amount-not-in-terms']],
    ['$7.00', ['amount-not-in-terms']],
    ['\u20AC70.00', ['currency-not-in-terms']],
    ['CA$70.00', ['currency-not-in-terms']],
    ['A$70', ['currency-not-in-terms']],
    ['70.00 EUR', ['currency-not-in-terms']],
    ['USDT 70', []],
    ['$7\u200B0.00', ['amount-not-in-terms']],
    ['$70.01', ['amount-not-in-terms']],
    ['item 70 USD-ish', []],
  ])('rejects %s', (spelled, also) => {
    expect(check(`You pay ${spelled} today`).map((f) => f.code)).toEqual(['amount-not-in-summary', ...also]);
  });

  it('reads grouped and European amounts', () => {
    const big = { price: { amount: '1234.50', currency: 'EUR' } };
    expect(reviewTerms({ summary: 'Total 1,234.50 EUR', terms: big, request: {} })).toEqual([]);
    expect(reviewTerms({ summary: 'Total 1.234,50\u00A0\u20AC', terms: big, request: {} }).map((f) => f.code)).toEqual([]);
    expect(reviewTerms({ summary: 'Total \u20AC1234.5', terms: big, request: {} })).toEqual([]);
  });

  it('accepts a currency code stated by its sign, not by another currency\'s sign', () => {
    expect(reviewTerms({ summary: 'Pay $5.00', terms: { price: '5.00', currency: 'USD' }, request: {} })).toEqual([]);
    expect(reviewTerms({ summary: 'Pay CA$5.00', terms: { price: '5.00', currency: 'USD' }, request: {} }).map((f) => [f.code, f.path])).toEqual([
      ['currency-not-in-terms', ''],
      ['not-in-summary', 'currency'],
    ]);
  });
});

describe('other values', () => {
  const check = (summary: string, terms: Record<string, unknown>, request: Record<string, unknown> = {}) =>
    reviewTerms({ summary, terms, request }).map((f) => [f.severity, f.code, f.path]);

  it('needs IDs literally, not as part of a longer ID', () => {
    expect(check('order ord_7Hk2.', { order_id: 'ord_7Hk2' })).toEqual([]);
    expect(check('order ord_7Hk2x', { order_id: 'ord_7Hk2' })).toEqual([['info', 'not-in-summary', 'order_id']]);
    expect(check('order ORD_7HK2', { order_id: 'ord_7Hk2' })).toEqual([['info', 'not-in-summary', 'order_id']]);
    expect(check('order **ord\\_7Hk2**', { order_id: 'ord_7Hk2' })).toEqual([]);
  });

  it('does not count a value the reader sees broken by a hidden character', () => {
    expect(check('order ord_7\u200BHk2', { order_id: 'ord_7Hk2' })).toEqual([['info', 'not-in-summary', 'order_id']]);
  });

  it('requires numbers and dates in the summary even when the request has them', () => {
    expect(check('Two tickets', { quantity: 2 }, { quantity: 2 })).toEqual([['warning', 'not-in-summary', 'quantity']]);
    expect(check('2 tickets', { quantity: 2 }, { quantity: '2' })).toEqual([]);
    expect(check('Delivered on October 9, 2026.', { date: '2026-10-09' })).toEqual([]);
    expect(check('Delivered on 9 Oct 2026.', { date: '2026-10-09' })).toEqual([]);
    expect(check('Delivered Oct. 9th.', { date: '2026-10-09' })).toEqual([]);
    expect(check('Delivered on 2026-10-09.', { date: '2026-10-09T10:00:00Z' })).toEqual([]);
    expect(check('Delivered on October 9, 2027.', { date: '2026-10-09' })).toEqual([['warning', 'date-not-in-summary', 'date']]);
    expect(check('Delivered on October 19.', { date: '2026-10-09' })).toEqual([['warning', 'date-not-in-summary', 'date']]);
    expect(check('Delivered soon.', { date: '2026-10-09' }, { date: '2026-10-09' })).toEqual([['warning', 'date-not-in-summary', 'date']]);
  });

  it('asks the person to check true/false and null, unless the agent asked for the same', () => {
    expect(check('Non-refundable.', { refundable: false, note: null })).toEqual([
      ['info', 'unverifiable-value', 'refundable'],
      ['info', 'unverifiable-value', 'note'],
    ]);
    expect(check('Gift wrapped.', { gift_wrap: true }, { gift_wrap: true })).toEqual([]);
    expect(check('Gift wrapped.', { gift_wrap: true }, { gift_wrap: false })).toEqual([['danger', 'request-mismatch', 'gift_wrap']]);
  });

  it('walks nested objects and arrays, with readable paths', () => {
    const terms = { items: [{ sku: 'sku_1', price: { amount: '5', currency: 'USD' } }, { sku: 'sku_2' }], 'ship to': { city: 'Lyon' } };
    expect(check('sku_1 for $5, sku_3, to Lyon', terms)).toEqual([['info', 'not-in-summary', 'items[1].sku']]);
    expect(check('sku_1 for $5, sku_2, to Paris', terms)).toEqual([['info', 'not-in-summary', '["ship to"].city']]);
  });

  it('compares nested keys shared with the request', () => {
    const terms = { shipping: { address: { city: 'Lyon', zip: '69001' } } };
    expect(check('Ships to Lyon 69001', terms, { shipping: { address: { city: 'Lyon', zip: '69002' } } })).toEqual([
      ['danger', 'request-mismatch', 'shipping.address.zip'],
    ]);
    expect(check('Ships to Lyon 69001', terms, { shipping: { address: { city: 'Lyon' } } })).toEqual([]);
  });

  it('compares money with the request as a whole, and still wants it in the summary', () => {
    const terms = { refund: { amount: '10.00', currency: 'USD' } };
    expect(check('Refund of $10', terms, { refund: { amount: '10', currency: 'USD' } })).toEqual([]);
    expect(check('Refund of $10', terms, { refund: { amount: '12.00', currency: 'USD' } })).toEqual([['danger', 'request-mismatch', 'refund']]);
    expect(check('A refund', terms, { refund: { amount: '10.00', currency: 'USD' } })).toEqual([['danger', 'amount-not-in-summary', 'refund']]);
  });

  it('reports more list items requested than the terms have', () => {
    expect(check('sku_1', { skus: ['sku_1'] }, { skus: ['sku_1', 'sku_2'] })).toEqual([['danger', 'request-mismatch', 'skus']]);
  });

  it('reports hidden characters in keys and values, and shows them in messages', () => {
    const findings = reviewTerms({ summary: 'Pay a\u202Eb', terms: { 'na\u200Bme': 'a\u202Eb' }, request: {} });
    expect(findings.map((f) => [f.severity, f.code])).toEqual([
      ['danger', 'hidden-characters'],
      ['warning', 'hidden-characters'],
      ['info', 'not-in-summary'],
    ]);
    for (const f of findings) {
      expect(f.message).not.toMatch(/[\u202E\u200B]/);
      expect(f.path).toBe('["na\u27E8U+200B\u27E9me"]');
    }
  });

  it('does not walk unbounded terms', () => {
    let deep: Record<string, unknown> = { v: 'x' };
    for (let i = 0; i < 40; i += 1) deep = { d: deep };
    expect(check('x', deep)).toContainEqual(['warning', 'terms-too-large', '']);
    const wide = Object.fromEntries(Array.from({ length: 1_500 }, (_, i) => [`k${i}`, `v${i}`]));
    const findings = reviewTerms({ summary: 'x', terms: wide, request: wide });
    expect(findings).toEqual([expect.objectContaining({ code: 'terms-too-large' })]);
  });

  it('checks the part of a long summary that is shown, and says so', () => {
    const summary = `${'Lorem ipsum dolor sit amet. '.repeat(1_000)} Pay $70.00.`;
    const terms = { price: { amount: '70.00', currency: 'USD' } };
    expect(reviewTerms({ summary, terms, request: {} }).map((f) => f.code)).toEqual(['amount-not-in-summary', 'summary-truncated']);
    expect(reviewTerms({ summary, terms, request: {} }, { showAll: true })).toEqual([]);
  });

  it('refuses input that is not an operation', () => {
    expect(() => reviewTerms({ summary: 1 } as never)).toThrow(expect.objectContaining({ code: 'ERR_ARGUMENT_INVALID' }));
    expect(() => reviewTerms({ summary: 'x', terms: [] as never })).toThrow(expect.objectContaining({ code: 'ERR_OPERATION_INVALID' }));
  });
});
