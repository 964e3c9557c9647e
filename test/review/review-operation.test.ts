/**
 * reviewOperation (spec section 5): the findings, and the statements of what was checked,
 * each present only when it holds, and the rule for which way money goes. The adversarial
 * review's four summaries are in test/adversarial/misleading-money.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { moneyDirection, reviewOperation } from '../../src/review/index.ts';
import { REQUEST, SUMMARY, TERMS, checked, codes } from './seed-exchange.ts';

describe('reviewOperation', () => {
  it("finds nothing in the seed's exchange and says what it checked", () => {
    const review = reviewOperation({ summary: SUMMARY, terms: TERMS, request: REQUEST });
    expect(review.findings).toEqual([]);
    expect(review.checked.map((c) => c.code)).toEqual([
      'amounts-stated',
      'values-stated',
      'request-confirmed',
      'no-other-amounts',
      'no-contradicting-words',
      'single-total',
      'no-hidden-characters',
    ]);
    expect(review.checked[0]!.message).toMatch(/^Every amount in the terms appears in the summary with its currency/);
    expect(review.checked.find((c) => c.code === 'request-confirmed')!.message).toBe('Every value the agent asked for is in the terms unchanged.');
    expect(review.checked.find((c) => c.code === 'no-other-amounts')!.message).toMatch(/^The summary states no amount that is not in the terms/);
  });

  it('never says the terms "agree"', () => {
    for (const summary of [SUMMARY, 'Free!', '']) {
      const review = reviewOperation({ summary, terms: TERMS, request: REQUEST });
      for (const text of [...review.checked.map((c) => c.message), ...review.findings.map((f) => f.message)]) expect(text).not.toMatch(/\bagree/i);
    }
  });

  it('checks nothing without terms', () => {
    expect(reviewOperation({ summary: SUMMARY }).checked).toEqual([]);
    expect(reviewOperation({ summary: SUMMARY, terms: {} }).checked).toEqual([]);
  });

  it("'amounts-stated' only when every amount is in the summary", () => {
    expect(checked(SUMMARY.replace('$70.00 more', 'a little more'), TERMS, REQUEST)).not.toContain('amounts-stated');
    expect(checked(SUMMARY, { ...TERMS, fee: { amount: '2.00', currency: 'USD' } }, REQUEST)).not.toContain('amounts-stated');
    expect(checked('order ord_7Hk2', { order_id: 'ord_7Hk2' })).not.toContain('amounts-stated');
  });

  it("'dates-stated' only when there are dates and each is in the summary", () => {
    const terms = { ...TERMS, ships_on: '2026-10-12' };
    expect(checked(`${SUMMARY} Ships October 12, 2026.`, terms, REQUEST)).toContain('dates-stated');
    expect(checked(SUMMARY, terms, REQUEST)).not.toContain('dates-stated');
    expect(checked(SUMMARY, TERMS, REQUEST)).not.toContain('dates-stated');
  });

  it("'values-stated' only when every other value is in the summary or confirmed by the request", () => {
    expect(checked(SUMMARY, TERMS, REQUEST)).toContain('values-stated');
    expect(checked(SUMMARY, TERMS)).not.toContain('values-stated');
    expect(checked(SUMMARY, { ...TERMS, gift_wrap: true }, REQUEST)).not.toContain('values-stated');
  });

  it("'request-confirmed' only when every requested value is in the terms unchanged", () => {
    expect(checked(SUMMARY, TERMS, { ...REQUEST, item_id: 'itm_9Zz' })).not.toContain('request-confirmed');
    expect(checked(SUMMARY, TERMS, { ...REQUEST, gift_note: 'Happy birthday' })).not.toContain('request-confirmed');
    expect(checked(SUMMARY, TERMS, {})).not.toContain('request-confirmed');
    expect(checked(SUMMARY, TERMS)).not.toContain('request-confirmed');
    expect(checked(SUMMARY, TERMS, { price_difference: { amount: '70', currency: 'USD' } })).toContain('request-confirmed');
    expect(checked(SUMMARY, { ...TERMS, skus: ['a', 'b'] }, { skus: ['a', 'c'] })).not.toContain('request-confirmed');
  });

  it("'no-other-amounts', 'no-contradicting-words', 'single-total' only when they hold, and not on a cut summary", () => {
    expect(checked(`${SUMMARY} Shipping $5.00.`, TERMS, REQUEST)).not.toContain('no-other-amounts');
    expect(checked(`${SUMMARY} Free!`, TERMS, REQUEST)).not.toContain('no-contradicting-words');
    expect(checked(`Total: $70.00. ${SUMMARY} Total today: $7.00.`, TERMS, REQUEST)).not.toContain('single-total');
    const long = `${SUMMARY} ${'Lorem ipsum. '.repeat(2_000)}`;
    const cut = checked(long, TERMS, REQUEST);
    expect(cut).toContain('amounts-stated');
    expect(cut).not.toContain('no-other-amounts');
    expect(cut).not.toContain('no-contradicting-words');
    expect(cut).not.toContain('single-total');
    // Without money in the terms there is no direction or total to check.
    expect(checked('order ord_7Hk2', { order_id: 'ord_7Hk2' })).not.toContain('single-total');
  });

  it("'no-hidden-characters' only when no key or value has one", () => {
    expect(checked('x', { 'na\u200Bme': 'x' })).not.toContain('no-hidden-characters');
    expect(checked('x\u202Ey', { name: 'x\u202Ey' })).not.toContain('no-hidden-characters');
    expect(checked('x', { name: 'x' })).toContain('no-hidden-characters');
  });

  it('refuses input that is not an operation', () => {
    expect(() => reviewOperation(null as never)).toThrow(expect.objectContaining({ code: 'ERR_ARGUMENT_INVALID' }));
    expect(() => reviewOperation({ summary: 'x', terms: 'x' as never })).toThrow(expect.objectContaining({ code: 'ERR_OPERATION_INVALID' }));
  });
});

describe('amounts the summary presents', () => {
  const terms = { order_id: 'ord_1', price: { amount: '40.00', currency: 'USD' }, shipping: { amount: '5.00', currency: 'USD' } };
  const find = (summary: string, t: Record<string, unknown> = terms) => reviewOperation({ summary, terms: t, request: {} }).findings;

  it('accepts the terms amounts, their total and a price per unit of a count in the terms', () => {
    expect(codes(find('Order ord_1: $40.00 plus $5.00 shipping, $45.00 in total.'))).toEqual([]);
    const nights = { booking: 'B-1', nights: 3, total: { amount: '540.00', currency: 'EUR' } };
    expect(codes(find('Booking B-1: 3 nights at \u20AC180.00 per night, \u20AC540.00 in total.', nights))).toEqual([]);
  });

  it('is a danger for another amount when the terms hold money, a warning when they hold none', () => {
    expect(find('Order ord_1: $40.00 plus $5.00 shipping, $4.50 in total.')).toContainEqual(
      expect.objectContaining({ severity: 'danger', code: 'amount-not-in-terms', path: '' }),
    );
    expect(find('Order ord_1, a $5.00 value.', { order_id: 'ord_1' })).toContainEqual(expect.objectContaining({ severity: 'warning', code: 'amount-not-in-terms' }));
  });

  it('reads an amount as a reader of its currency would', () => {
    const big = { total: { amount: '7000.00', currency: 'USD' } };
    expect(codes(find('Total $7,000.00', big))).toEqual([]);
    expect(codes(find('Total $7.000', big))).toEqual(['amount-not-in-terms']);
    const euros = { total: { amount: '7000.00', currency: 'EUR' } };
    expect(codes(find('Total 7.000 \u20AC', euros))).toEqual([]);
  });

  it('reports another currency, as a warning only when marked as an estimate', () => {
    expect(codes(find('Order ord_1: \u20AC40.00 plus $5.00 shipping.'))).toContain('currency-not-in-terms');
    const estimate = find('Order ord_1: $40.00 (about \u20AC37) plus $5.00 shipping.');
    expect(codes(estimate)).toEqual([]);
    expect(codes(estimate, 'warning')).toEqual(['currency-not-in-terms']);
  });
});

describe('money words against the terms', () => {
  const charge = { order_id: 'ord_1', price: { amount: '40.00', currency: 'USD' } };
  const refund = { order_id: 'ord_1', refund: { amount: '40.00', currency: 'USD' } };
  const dangers = (summary: string, terms: Record<string, unknown>) => codes(reviewOperation({ summary, terms, request: {} }).findings);

  it.each([
    'Order ord_1 for $40.00, non-refundable.',
    'Order ord_1 for $40.00. No refunds after delivery.',
    'Order ord_1 for $40.00, charged to your credit card.',
    'Order ord_1 for $40.00 with free return shipping.',
    'Order ord_1 for $40.00. Delivery is free.',
    'Order ord_1 for $40.00. This is not free.',
    'Order ord_1 for $40.00. If you cancel before it ships, you pay nothing.',
    'Order ord_1 for $40.00. No charge for delivery.',
    "Order ord_1 for $40.00; we'll cover return shipping.",
    'Order ord_1 for $40.00. Save 10% on your next order.',
    'Repair order ord_1 for $40.00; you get the jacket back within 10 days.',
  ])('no danger for honest wording: %s', (summary) => {
    expect(dangers(summary, charge)).toEqual([]);
  });

  it.each([
    ['Free order ord_1 (ref $40.00).', 'contradicts-charge'],
    ['Order ord_1: the $40.00 is waived.', 'contradicts-charge'],
    ['Order ord_1: $40.00 will be refunded to your card.', 'direction-reversed'],
    ['Order ord_1 at no charge. $40.00', 'contradicts-charge'],
    ['Order ord_1 for $40.00. No charge for the order.', 'contradicts-charge'],
    ["Order ord_1 for $40.00, but we'll cover it.", 'contradicts-charge'],
    ['Order ord_1: you save $40.00!', 'direction-reversed'],
  ])('danger for %s', (summary, code) => {
    expect(dangers(summary, charge)).toContain(code);
  });

  it('lets a refund be called a refund, not a charge', () => {
    expect(dangers('Return order ord_1: we refund $40.00 to your card.', refund)).toEqual([]);
    expect(dangers('Return order ord_1: you are charged $40.00.', refund)).toEqual(['direction-reversed']);
  });

  it('free shipping is a contradiction when the terms charge for shipping', () => {
    const shipping = { ...charge, shipping: { amount: '5.00', currency: 'USD' } };
    expect(dangers('Order ord_1 for $40.00 with free shipping, shipping $5.00.', shipping)).toContain('contradicts-charge');
  });

  it('a second total counts unless the terms name each amount as a total or due', () => {
    const due = { order: 'ord_2', total: { amount: '150.00', currency: 'USD' }, due_today: { amount: '45.00', currency: 'USD' } };
    expect(dangers('Order ord_2. Total: $150.00. Due today: $45.00.', due)).toEqual([]);
    const fee = { order: 'ord_2', price: { amount: '150.00', currency: 'USD' }, fee: { amount: '45.00', currency: 'USD' } };
    expect(dangers('Order ord_2. Total: $150.00. Total today: $45.00.', fee)).toEqual(['second-total']);
  });
});

describe('moneyDirection', () => {
  it.each([
    [['price', 'difference'], '70', false, 'charge'],
    [['price', 'difference'], '70', true, 'refund'],
    [['refund'], '70', false, 'refund'],
    [['refund'], '70', true, 'refund'],
    [['store', 'credit'], '25', false, 'refund'],
    [['credit', 'card', 'fee'], '2', false, 'charge'],
    [['cash', 'back'], '5', false, 'refund'],
    [['change', 'fee', 'waived'], '75', false, 'none'],
    [['original', 'price'], '70', false, 'none'],
    [['fee'], '0', false, 'none'],
  ] as const)('%j %s (negative %s) is %s', (words, value, negative, expected) => {
    expect(moneyDirection(words, value, negative)).toBe(expected);
  });
});
