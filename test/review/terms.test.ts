/**
 * The terms review module: `sameValue` (how two JSON values are compared, numbers by their
 * decimal value and sign), and the edges of `reviewTerms` and `reviewOperation`: where a
 * request value is looked up, the size limits, which message each finding uses, how hidden
 * characters are described, and when each statement of what was checked holds.
 */
import { describe, expect, it } from 'vitest';
import { reviewOperation, reviewTerms, sameValue } from '../../src/review/terms.ts';

/** `n` levels of `{ d: … }` around `leaf`. */
function nest(n: number, leaf: unknown): Record<string, unknown> {
  let value = leaf;
  for (let i = 0; i < n; i += 1) value = { d: value };
  return value as Record<string, unknown>;
}

/** `n` levels of `[ … ]` around `leaf`. */
function nestList(n: number, leaf: unknown): unknown {
  let value = leaf;
  for (let i = 0; i < n; i += 1) value = [value];
  return value;
}

const codesOf = (summary: string, terms: Record<string, unknown>, request?: Record<string, unknown>) =>
  reviewTerms({ summary, terms, request }).map((f) => [f.severity, f.code, f.path]);

const checkedOf = (summary: string, terms: Record<string, unknown>, request?: Record<string, unknown>) =>
  reviewOperation({ summary, terms, request }).checked.map((c) => c.code);

describe('sameValue', () => {
  it.each([
    ['70.00', '70', true],
    ['70.00', 70, true],
    [70, '070.0', true],
    ['-5', '5', false],
    ['5', '-5', false],
    ['-5', -5, true],
    ['\u22125', '-5', true],
    ['-5', '-7', false],
    ['-0', '0', true],
    ['0', '-0.00', true],
    ['+5', '5', true],
    ['5', '6', false],
    ['abc', 'abc', true],
    ['abc', 'abd', false],
    ['x', 'y', false],
  ] as const)('compares the scalars %j and %j as %s', (a, b, expected) => {
    expect(sameValue(a, b)).toBe(expected);
  });

  it('compares lists item by item, with the same length', () => {
    expect(sameValue([1, 2], [1, 2])).toBe(true);
    expect(sameValue(['1.0'], [1])).toBe(true);
    expect(sameValue([], [])).toBe(true);
    expect(sameValue([1], [2])).toBe(false);
    expect(sameValue([1, 2], [1, 3])).toBe(false);
    expect(sameValue([1], [1, 2])).toBe(false);
    expect(sameValue([1, 2], [1])).toBe(false);
  });

  it('compares objects by every key of either', () => {
    expect(sameValue({ a: 1, b: '2' }, { b: 2, a: '1.00' })).toBe(true);
    expect(sameValue({}, {})).toBe(true);
    expect(sameValue({ a: 1 }, { a: 2 })).toBe(false);
    expect(sameValue({ a: 1, b: 2 }, { a: 1, b: 3 })).toBe(false);
    expect(sameValue({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(sameValue({ a: 1, b: 2 }, { a: 1 })).toBe(false);
  });

  it('never takes a list, an object or a string for one another', () => {
    expect(sameValue(['7'], '7')).toBe(false);
    expect(sameValue('7', ['7'])).toBe(false);
    expect(sameValue(['5'], 5)).toBe(false);
    expect(sameValue(5, ['5'])).toBe(false);
    expect(sameValue({}, 5)).toBe(false);
    expect(sameValue({}, '')).toBe(false);
    expect(sameValue({ a: 1 }, [1])).toBe(false);
  });

  it('compares true, false and null exactly', () => {
    expect(sameValue(true, true)).toBe(true);
    expect(sameValue(null, null)).toBe(true);
    expect(sameValue(true, false)).toBe(false);
    expect(sameValue(false, 0)).toBe(false);
    expect(sameValue(null, 'null')).toBe(false);
  });

  it('compares money by currency, signed amount and any other member', () => {
    const usd = (amount: unknown, extra: Record<string, unknown> = {}) => ({ amount, currency: 'USD', ...extra });
    expect(sameValue(usd('70.00'), usd(70))).toBe(true);
    expect(sameValue(usd('70.00'), { amount: '70.00', currency: 'EUR' })).toBe(false);
    expect(sameValue(usd('-5.00'), usd('5.00'))).toBe(false);
    expect(sameValue(usd('1', { note: 'a' }), usd('1.0', { note: 'a' }))).toBe(true);
    expect(sameValue(usd('1', { note: 'a' }), usd('1', { note: 'b' }))).toBe(false);
    expect(sameValue(usd('1', { note: 'a' }), usd('1'))).toBe(false);
  });

  it('does not read an amount that is not a decimal, or a currency that is not a string, as money', () => {
    // Compared member by member, not as two amounts that both fail to parse.
    expect(sameValue({ amount: 'seventy', currency: 'USD' }, { amount: 'eighty', currency: 'USD' })).toBe(false);
    expect(sameValue({ amount: ['70'], currency: 'USD' }, { amount: '70', currency: 'USD' })).toBe(false);
    expect(sameValue({ amount: '70', currency: 'USD' }, { amount: ['70'], currency: 'USD' })).toBe(false);
    // Equal members, even though the currencies are not the same array.
    expect(sameValue({ amount: '70', currency: ['USD'] }, { amount: '70.00', currency: ['USD'] })).toBe(true);
  });
});

describe('where a terms value is looked up in the request', () => {
  it('compares list items with the request item at the same index', () => {
    expect(codesOf('a b', { skus: ['a', 'b'] }, { skus: ['a', 'c'] })).toEqual([['danger', 'request-mismatch', 'skus[1]']]);
    expect(codesOf('a b', { skus: ['a', 'b'] }, { skus: ['a', 'b'] })).toEqual([]);
  });

  it('leaves list items beyond a shorter request list to the summary', () => {
    expect(codesOf('a b', { skus: ['a', 'b'] }, { skus: ['a'] })).toEqual([]);
    expect(codesOf('a', { skus: ['a', 'b'] }, { skus: ['a'] })).toEqual([['info', 'not-in-summary', 'skus[1]']]);
  });

  it('does not index into a request value that is not a list', () => {
    expect(codesOf('b', { skus: ['b'] }, { skus: 'abc' })).toEqual([]);
    expect(codesOf('4 items', { x: { length: 4 } }, { x: 'abc' })).toEqual([]);
    expect(codesOf('b', { x: { 0: 'b' } }, { x: ['a'] })).toEqual([]);
    expect(codesOf('ord_1', { x: { y: 'ord_1' } }, { x: null })).toEqual([]);
  });

  it('ignores inherited and undefined request members', () => {
    expect(codesOf('x', { toString: 'x' }, {})).toEqual([]);
    expect(codesOf('v', { x: 'v' }, { x: undefined })).toEqual([]);
  });
});

describe('size limits', () => {
  it('walks 32 levels, and reports the 33rd', () => {
    expect(reviewOperation({ summary: 'x', terms: nest(32, 'x'), request: nest(32, 'x') })).toEqual({
      findings: [],
      checked: [
        expect.objectContaining({ code: 'values-stated' }),
        expect.objectContaining({ code: 'request-confirmed' }),
        expect.objectContaining({ code: 'no-other-amounts' }),
        expect.objectContaining({ code: 'no-hidden-characters' }),
      ],
    });
    const deep = reviewOperation({ summary: 'x', terms: nest(33, 'x'), request: nest(33, 'x') });
    expect(deep.findings).toEqual([
      {
        severity: 'warning',
        code: 'terms-too-large',
        path: '',
        message: 'The terms are too large or too deeply nested to check in full; only the first 1000 values, 32 levels deep, were checked.',
        text: { key: 'review_termsTooLarge', substitutions: [] },
      },
    ]);
    // Nothing below the limit is said to hold: not the values, not the request, not hidden characters.
    expect(deep.checked.map((c) => c.code)).toEqual(['no-other-amounts']);
  });

  it('counts nested lists as levels too', () => {
    expect(codesOf('x', { a: nestList(40, 'x') })).toEqual([
      ['warning', 'terms-too-large', ''],
      ['info', 'request-absent', ''],
    ]);
    expect(checkedOf('x', { a: nestList(40, 'x') }, { a: nestList(40, 'x') })).not.toContain('request-confirmed');
    expect(checkedOf('x', { a: nestList(20, 'x') }, { a: nestList(20, 'x') })).toContain('request-confirmed');
  });

  it('does not confirm a request nested deeper than the limit', () => {
    expect(checkedOf('x', nest(40, 'x'), nest(40, 'x'))).not.toContain('request-confirmed');
  });

  it('walks 1000 values, and reports the 1001st', () => {
    const wide = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, `v${i}`]));
    expect(codesOf('x', wide(1_000), wide(1_000))).toEqual([]);
    expect(codesOf('x', wide(1_001), wide(1_001))).toEqual([['warning', 'terms-too-large', '']]);
  });

  it('counts amounts among the 1000 values', () => {
    const amounts = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, { amount: '1.00', currency: 'USD' }]));
    expect(codesOf('Pay $1.00', amounts(1_000), {})).toEqual([]);
    expect(codesOf('Pay $1.00', amounts(1_001), {})).toEqual([['warning', 'terms-too-large', '']]);
  });
});

describe('amounts', () => {
  it('checks the other members of an amount on their own', () => {
    expect(codesOf('$5', { price: { amount: '5', currency: 'USD', note: 'zzz' } }, {})).toEqual([['info', 'not-in-summary', 'price.note']]);
    expect(codesOf('$5 zzz', { price: { amount: '5', currency: 'USD', note: 'zzz' } }, {})).toEqual([]);
  });

  it('takes a JSON number as an amount', () => {
    expect(checkedOf('$70', { price: { amount: 70, currency: 'USD' } }, {})).toEqual([
      'amounts-stated',
      'no-other-amounts',
      'no-contradicting-words',
      'single-total',
      'no-hidden-characters',
    ]);
    expect(codesOf('Seventy dollars', { price: { amount: 70, currency: 'USD' } }, {})).toEqual([['danger', 'amount-not-in-summary', 'price']]);
  });

  it('does not take a word in the terms as an amount, though the summary may spell one', () => {
    // "seventy USD" in the summary is 70 USD, an amount that the terms (which hold none) do not have.
    expect(codesOf('seventy USD', { price: { amount: 'seventy', currency: 'USD' } }, {})).toEqual([['warning', 'amount-not-in-terms', '']]);
    expect(codesOf('seventy, in USD', { price: { amount: 'seventy', currency: 'USD' } }, {})).toEqual([]);
  });

  it('lets words that name it as nothing state only a zero amount', () => {
    expect(codesOf('No fee', { fee: { amount: '5.00', currency: 'USD' } }, {})).toEqual([
      ['danger', 'amount-not-in-summary', 'fee'],
      ['danger', 'contradicts-charge', 'fee'],
    ]);
    expect(codesOf('No fee', { fee: { amount: '0.00', currency: 'USD' } }, {})).toEqual([]);
  });

  it('names a zero amount in a list by the key of the list', () => {
    expect(codesOf('No fees', { fees: [{ amount: '0.00', currency: 'USD' }] }, {})).toEqual([]);
    expect(codesOf('No fees', { fees: [{ amount: '0.00', currency: 'USD' }], shipping: [{ amount: '0', currency: 'USD' }] }, {})).toEqual([
      ['danger', 'amount-not-in-summary', 'shipping[0]'],
    ]);
  });

  it('names terms that are one amount as the top level', () => {
    expect(reviewTerms({ summary: 'nothing', terms: { amount: '70.00', currency: 'USD' } })).toEqual([
      {
        severity: 'danger',
        code: 'amount-not-in-summary',
        path: '',
        message: 'The terms set the top level to 70.00 USD, but the summary does not state that amount.',
        text: { key: 'review_amountNotInSummaryWhole', substitutions: ['70.00 USD'] },
      },
      expect.objectContaining({ code: 'request-absent' }),
    ]);
    expect(reviewTerms({ summary: 'nothing', terms: { amount: '70.00', currency: 'USD' }, request: { amount: '80.00', currency: 'USD' } })).toEqual([
      {
        severity: 'danger',
        code: 'request-mismatch',
        path: '',
        message: 'The terms set the top level to 70.00 USD, but the agent asked for 80.00 USD. The summary does not state the terms\u2019 value either.',
        text: { key: 'review_requestMismatchWholeUnstated', substitutions: ['70.00 USD', '80.00 USD'] },
      },
    ]);
  });
});

describe('currency codes', () => {
  it('reads a known currency code as stated by its sign, whatever its key', () => {
    expect(codesOf('Pay in $.', { code: 'USD' }, {})).toEqual([]);
  });

  it('reads an unknown code as a currency only under a currency key', () => {
    expect(codesOf('Paid in -XYZ.', { currency: 'XYZ' }, {})).toEqual([]);
    expect(codesOf('Paid in -XYZ.', { code: 'XYZ' }, {})).toEqual([['info', 'not-in-summary', 'code']]);
    expect(codesOf('Paid in XYZ.', { code: 'XYZ' }, {})).toEqual([]);
  });
});

describe('messages', () => {
  it('says how many list items the terms have and the agent asked for', () => {
    expect(reviewTerms({ summary: 'sku', terms: { skus: ['sku'] }, request: { skus: ['sku', 'sku_2'] } })).toEqual([
      {
        severity: 'danger',
        code: 'request-mismatch',
        path: 'skus',
        message: 'The terms list 1 item at skus, but the agent asked for 2.',
        text: { key: 'review_requestItemCount', substitutions: ['1', 'skus', '2'], count: 1 },
      },
    ]);
  });

  it('names a number the summary does not state as a number', () => {
    expect(reviewTerms({ summary: 'Two', terms: { quantity: 2 }, request: {} })).toEqual([
      {
        severity: 'warning',
        code: 'not-in-summary',
        path: 'quantity',
        message: 'The terms set quantity to 2, but the summary does not state that number.',
        text: { key: 'review_numberNotInSummary', substitutions: ['quantity', '2'] },
      },
    ]);
  });

  it('says the agent did not ask for a value when there is a request; words and references are listed, not warned of', () => {
    expect(reviewTerms({ summary: 'x', terms: { id: 'abc' }, request: {} })).toEqual([
      {
        severity: 'info',
        code: 'not-in-summary',
        path: 'id',
        message: 'The terms set id to "abc", but the summary does not mention it and the agent did not ask for it.',
        text: { key: 'review_valueNotInSummary', substitutions: ['id', '"abc"'] },
      },
    ]);
  });

  it('does not say the summary omits a mismatched value it states, or true/false/null', () => {
    const mismatch = (terms: Record<string, unknown>, request: Record<string, unknown>, summary = 'x') =>
      reviewTerms({ summary, terms, request }).map((f) => [f.code, f.message, f.text.key]);
    expect(mismatch({ order_id: 'ord_1' }, { order_id: 'ord_2' }, 'Order ord_1')).toEqual([
      ['request-mismatch', 'The terms set order_id to "ord_1", but the agent asked for "ord_2".', 'review_requestMismatch'],
    ]);
    expect(mismatch({ gift_wrap: true }, { gift_wrap: false })).toEqual([
      ['request-mismatch', 'The terms set gift_wrap to true, but the agent asked for false.', 'review_requestMismatch'],
    ]);
    expect(mismatch({ note: null }, { note: 'x' })).toEqual([
      ['request-mismatch', 'The terms set note to null, but the agent asked for "x".', 'review_requestMismatch'],
    ]);
    expect(mismatch({ order_id: 'ord_1' }, { order_id: 'ord_2' })).toEqual([
      [
        'request-mismatch',
        'The terms set order_id to "ord_1", but the agent asked for "ord_2". The summary does not state the terms\u2019 value either.',
        'review_requestMismatchUnstated',
      ],
    ]);
  });

  it('says how much of a long summary was checked', () => {
    expect(reviewTerms({ summary: 'word '.repeat(20), terms: { a: 'word' }, request: {} }, { limit: 20 })).toEqual([
      {
        severity: 'info',
        code: 'summary-truncated',
        path: '',
        message: 'The summary is long; only the part shown by default (20 characters) was checked against the terms.',
        text: { key: 'review_summaryTruncated', substitutions: ['20'], count: 20 },
      },
    ]);
    expect(reviewTerms({ summary: 'word '.repeat(5_000), terms: { a: 'word' }, request: {} })).toEqual([
      {
        severity: 'info',
        code: 'summary-truncated',
        path: '',
        message: 'The summary is long; only the part shown by default (10,000 characters) was checked against the terms.',
        text: { key: 'review_summaryTruncated', substitutions: ['10,000'], count: 10_000 },
      },
    ]);
  });

  it('says when the terms are empty', () => {
    expect(reviewTerms({ summary: 'x', terms: {}, request: {} })).toEqual([
      {
        severity: 'info',
        code: 'terms-empty',
        path: '',
        message: 'The Company sent empty terms, so nothing in the summary could be checked against them.',
        text: { key: 'review_termsEmpty', substitutions: [] },
      },
    ]);
  });
});

describe('hidden characters', () => {
  it('treats a line break in a key as hidden', () => {
    expect(reviewTerms({ summary: 'x', terms: { 'a\nb': 'x' }, request: {} })).toEqual([
      {
        severity: 'warning',
        code: 'hidden-characters',
        path: '["a\u27E8U+000A\u27E9b"]',
        message: 'The name of the term ["a\u27E8U+000A\u27E9b"] contains a hidden character (U+000A), shown as \u27E8U+000A\u27E9.',
        text: { key: 'review_hiddenInKey', substitutions: ['1', '["a\u27E8U+000A\u27E9b"]', 'U+000A', '\u27E8U+000A\u27E9'], count: 1 },
      },
    ]);
  });

  it('describes repeated characters in a key once, with their count', () => {
    expect(reviewTerms({ summary: 'x', terms: { 'a\u200Bb\u200Bc': 'x' }, request: {} })).toEqual([
      {
        severity: 'warning',
        code: 'hidden-characters',
        path: '["a\u27E8U+200B\u27E9b\u27E8U+200B\u27E9c"]',
        message: 'The name of the term ["a\u27E8U+200B\u27E9b\u27E8U+200B\u27E9c"] contains 2 hidden characters (U+200B), shown as \u27E8U+200B\u27E9 and similar.',
        text: { key: 'review_hiddenInKey', substitutions: ['2', '["a\u27E8U+200B\u27E9b\u27E8U+200B\u27E9c"]', 'U+200B', '\u27E8U+200B\u27E9'], count: 2 },
      },
    ]);
  });

  it('rates a value by its worst hidden character, whatever the order', () => {
    for (const value of ['a\u202Eb\u200Bc', 'a\u200Bb\u202Ec']) {
      const [first, ...rest] = value.match(/[\u200B\u202E]/g)!.map((c) => `U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`);
      expect(reviewTerms({ summary: 'x', terms: { k: value }, request: {} })[0]).toEqual({
        severity: 'danger',
        code: 'hidden-characters',
        path: 'k',
        message: `The value of k contains 2 hidden characters (${[first, ...rest].join(', ')}), shown as \u27E8${first}\u27E9 and similar.`,
        text: { key: 'review_hiddenInValue', substitutions: ['2', 'k', [first, ...rest].join(', '), `\u27E8${first}\u27E9`], count: 2 },
      });
    }
  });

  it('does not say there are no hidden characters when both a key and a value have them', () => {
    expect(checkedOf('x', { 'a\u200Bb': 'x\u200By' }, {})).toEqual(['no-other-amounts']);
  });
});

describe('what reviewOperation says it checked', () => {
  it("'values-stated' not when a stated value differs from the request", () => {
    expect(checkedOf('Order a1', { order_id: 'a1' }, { order_id: 'b2' })).toEqual(['no-other-amounts', 'no-hidden-characters']);
    expect(checkedOf('Order a1', { order_id: 'a1' }, { order_id: 'a1' })).toEqual([
      'values-stated',
      'request-confirmed',
      'no-other-amounts',
      'no-hidden-characters',
    ]);
  });

  it("'request-confirmed' for a request list shorter than the terms list", () => {
    expect(checkedOf('a b', { skus: ['a', 'b'] }, { skus: ['a'] })).toContain('request-confirmed');
    expect(checkedOf('a b', { skus: ['a', 'b'] }, { skus: ['a', 'b'] })).toContain('request-confirmed');
    expect(checkedOf('a b', { skus: ['a', 'b'] }, { skus: ['b'] })).not.toContain('request-confirmed');
    expect(checkedOf('a b', { skus: 'a' }, { skus: ['a'] })).not.toContain('request-confirmed');
  });

  it("'request-confirmed' skips an undefined item of a request list", () => {
    const review = reviewOperation({ summary: 'a b', terms: { items: [{ sku: 'a' }, { sku: 'b' }] }, request: { items: [undefined, { sku: 'b' }] } });
    expect(review.findings).toEqual([]);
    expect(review.checked.map((c) => c.code)).toContain('request-confirmed');
  });

  it("'request-confirmed' skips undefined request members, and needs at least one defined", () => {
    expect(checkedOf('ord_1', { order_id: 'ord_1' }, { order_id: 'ord_1', note: undefined })).toContain('request-confirmed');
    expect(checkedOf('ord_1', { order_id: 'ord_1' }, { note: undefined })).not.toContain('request-confirmed');
  });
});

describe('input checks', () => {
  it.each([
    [() => reviewTerms(null as never), 'ERR_ARGUMENT_INVALID', 'reviewTerms: expected { summary, terms?, request? }, got null'],
    [() => reviewTerms({ summary: 1 } as never), 'ERR_ARGUMENT_INVALID', 'reviewTerms.summary: expected a string, got a number'],
    [() => reviewOperation({ summary: 1 } as never), 'ERR_ARGUMENT_INVALID', 'reviewOperation.summary: expected a string, got a number'],
    [() => reviewOperation([] as never), 'ERR_ARGUMENT_INVALID', 'reviewOperation: expected { summary, terms?, request? }, got an array of 0 items'],
    [
      () => reviewTerms({ summary: 'x', terms: [] as never }),
      'ERR_OPERATION_INVALID',
      'operation.terms: expected a JSON object (spec section 3), got an array of 0 items',
    ],
  ])('refuses bad input with a message naming it (%#)', (call, code, message) => {
    expect(call).toThrow(expect.objectContaining({ code, message }));
  });
});

describe('a request that asks for nothing at a place', () => {
  it('treats an undefined item of a request list like an undefined member: nothing asked there', () => {
    const review = reviewOperation({ summary: 'Skus a and b.', terms: { skus: ['a', 'b'] }, request: { skus: [undefined, 'b'] } });
    expect(review.findings.filter((f) => f.code === 'request-mismatch')).toEqual([]);
    expect(review.checked.map((c) => c.code)).toContain('request-confirmed');
  });

  it('still reports a list item the agent asked for differently', () => {
    expect(codesOf('Skus a and b.', { skus: ['a', 'b'] }, { skus: ['c', 'b'] })).toContainEqual(['danger', 'request-mismatch', 'skus[0]']);
  });

  it('reviews terms that are one amount against an empty request as against no request', () => {
    const codes = (request?: Record<string, unknown>) => codesOf('nothing', { amount: '70.00', currency: 'USD' }, request).filter(([, code]) => code !== 'request-absent');
    expect(codes({})).toEqual(codes(undefined));
    expect(codes({}).map(([, code]) => code)).not.toContain('request-mismatch');
  });
});

describe('values the review reads the way the summary states them', () => {
  const findingsOf = (summary: string, terms: Record<string, unknown>, request?: Record<string, unknown>) =>
    reviewTerms({ summary, terms, request }).map((f) => [f.severity, f.code, f.path]);

  it('finds a decimal written as text stated as a number ("3.50" as 3.5)', () => {
    expect(findingsOf('Buy 3.5 units.', { quantity: '3.50' })).toEqual([['info', 'request-absent', '']]);
    expect(findingsOf('Buy some units.', { quantity: '3.50' })).toContainEqual(['warning', 'not-in-summary', 'quantity']);
  });

  it('finds a number stated in the summary', () => {
    expect(findingsOf('Buy 3 jackets.', { quantity: 3 })).toEqual([['info', 'request-absent', '']]);
    expect(findingsOf('Buy some jackets.', { quantity: 3 })).toContainEqual(['warning', 'not-in-summary', 'quantity']);
  });

  it('reads a line feed in a value as a hidden character (values are one line)', () => {
    expect(findingsOf('Note a b.', { note: 'a\nb' }).map(([, code]) => code)).toContain('hidden-characters');
  });

  it('treats a request member that is undefined as not asked', () => {
    expect(findingsOf('Sku a.', { sku: 'a' }, { sku: undefined, other: 'x' }).map(([, code]) => code)).not.toContain('request-mismatch');
  });

  it('does not read an amount or a currency that is a list as money', () => {
    expect(checkedOf('Pay $70.00.', { price: { amount: '70.00', currency: 'USD' } })).toContain('amounts-stated');
    expect(checkedOf('Pay $70.00.', { price: { amount: ['70.00'], currency: 'USD' } })).not.toContain('amounts-stated');
    expect(checkedOf('Pay $70.00.', { price: { amount: '70.00', currency: ['USD'] } })).not.toContain('amounts-stated');
  });
});

describe('what the review says it checked about the amounts in the wording', () => {
  it('does not claim "no other amounts" when the summary names another currency', () => {
    const checked = checkedOf('Pay $70.00, that is about 65.00 EUR.', { price: { amount: '70.00', currency: 'USD' } });
    expect(checked).not.toContain('no-other-amounts');
    expect(checkedOf('Pay $70.00.', { price: { amount: '70.00', currency: 'USD' } })).toContain('no-other-amounts');
  });

  it('does not claim "no contradicting words" when the summary turns a refund into a charge', () => {
    expect(checkedOf('You will be charged $70.00.', { refund: { amount: '70.00', currency: 'USD' } })).not.toContain('no-contradicting-words');
    expect(checkedOf('You get $70.00 back.', { refund: { amount: '70.00', currency: 'USD' } })).toContain('no-contradicting-words');
  });

  it('claims nothing about contradicting words when no amount has a direction', () => {
    expect(checkedOf('Limit $70.00.', { limit: { amount: '70.00', currency: 'USD' } })).not.toContain('no-contradicting-words');
  });
});
