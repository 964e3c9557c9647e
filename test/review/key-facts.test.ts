/**
 * keyFacts and youApproveLine: the terms' own values for the window's "You approve" line
 * (spec section 3: the Personal Agent MAY show values from `terms`), formatted with Intl,
 * with readable keys and hidden characters made visible, and never taken from the summary.
 */
import { describe, expect, it } from 'vitest';
import { KEY_FACTS_LIMIT, factChanges, factFindings, keyFacts, reviewOperation, youApproveLine } from '../../src/review/index.ts';

const TERMS = {
  order_id: 'ord_7Hk2',
  item_id: 'itm_4Qa',
  replacement_sku: 'stormline-insulated-m',
  price_difference: { amount: '70.00', currency: 'USD' },
};

describe('keyFacts', () => {
  it("gives the seed's facts, money first, and one line of them", () => {
    const facts = keyFacts(TERMS, { locale: 'en-US' });
    expect(facts).toEqual([
      { path: 'price_difference', label: 'Price difference', value: '$70.00', kind: 'money', direction: 'charge' },
      { path: 'order_id', label: 'Order ID', value: 'ord_7Hk2', kind: 'identifier' },
      { path: 'item_id', label: 'Item ID', value: 'itm_4Qa', kind: 'identifier' },
      { path: 'replacement_sku', label: 'Replacement SKU', value: 'stormline-insulated-m', kind: 'identifier' },
    ]);
    expect(youApproveLine(facts)).toBe('Price difference $70.00 \u00B7 Order ID ord_7Hk2 \u00B7 Item ID itm_4Qa \u00B7 Replacement SKU stormline-insulated-m');
  });

  it('says which way money goes, from its key and sign (a charge, money back, or neither)', () => {
    const way = (terms: Record<string, unknown>) => keyFacts(terms, { locale: 'en-US' })[0]!.direction;
    expect(way({ price_difference: { amount: '70.00', currency: 'USD' } })).toBe('charge');
    expect(way({ refund: { amount: '70.00', currency: 'USD' } })).toBe('refund');
    expect(way({ price_difference: { amount: '-70.00', currency: 'USD' } })).toBe('refund');
  });

  it('formats money with Intl in the locale, keeping the sign and every digit', () => {
    const value = (amount: string, currency: string, locale = 'en-US') => keyFacts({ price: { amount, currency } }, { locale })[0]!.value;
    expect(value('70.00', 'USD')).toBe('$70.00');
    expect(value('-20.00', 'USD')).toBe('-$20.00');
    expect(value('12800', 'JPY')).toBe('\u00A512,800');
    expect(value('1234.5', 'EUR', 'de-DE')).toBe('1.234,50\u00A0\u20AC');
    expect(value('1049.00', 'GBP', 'en-GB')).toBe('\u00A31,049.00');
    // Never rounded: 70.005 is not shown as $70.01.
    expect(value('70.005', 'USD')).toBe('$70.005');
    // A decimal string keeps digits a JSON number would lose.
    expect(value('12345678901234567.89', 'USD')).toBe('$12,345,678,901,234,567.89');
  });

  it('reads the flat money shape as one fact, without a separate currency', () => {
    expect(keyFacts({ price: '5.00', currency: 'USD' }, { locale: 'en-US' })).toEqual([{ path: 'price', label: 'Price', value: '$5.00', kind: 'money', direction: 'charge' }]);
  });

  it('formats dates with Intl: a timestamp at the wall time it was written with, its offset named when it is not the person\'s', () => {
    const value = (v: string, timeZone: string) => keyFacts({ when: v }, { locale: 'en-US', timeZone })[0]!;
    expect(value('2026-11-03', 'Asia/Tokyo')).toEqual({ path: 'when', label: 'When', value: 'Nov 3, 2026', kind: 'date' });
    expect(value('2026-10-08T12:20:00-07:00', 'UTC').value).toMatch(/^Oct 8, 2026, 12:20\sPM UTC\u221207:00$/);
    // The person's own offset at that instant (PDT is -07:00 in October): no zone to name.
    expect(value('2026-10-08T12:20:00-07:00', 'America/Los_Angeles').value).toMatch(/^Oct 8, 2026, 12:20\sPM$/);
    // In December the same zone is -08:00: the written -07:00 is named.
    expect(value('2026-12-08T12:20:00-07:00', 'America/Los_Angeles').value).toMatch(/^Dec 8, 2026, 12:20\sPM UTC\u221207:00$/);
    expect(value('2026-10-08T19:20:00Z', 'Europe/Paris').value).toMatch(/^Oct 8, 2026, 7:20\sPM UTC$/);
    expect(value('2026-10-08T07:05:00+01:00', 'UTC').value).toMatch(/^Oct 8, 2026, 7:05\sAM UTC\+01:00$/);
    // No offset: shown as written, in no zone.
    expect(value('2026-11-03T09:30:00', 'Asia/Tokyo').value).toMatch(/^Nov 3, 2026, 9:30\sAM$/);
    // Not a real date: text as given.
    expect(value('2026-02-30', 'UTC')).toMatchObject({ value: '2026-02-30', kind: 'identifier' });
  });

  it('makes keys readable', () => {
    const labels = keyFacts(
      { order_id: 'a_1', replacementSku: 'b_2', order_ids: 'c_3', 'vat-number': 'DE123', items: [{ sku: 'sku_1' }], bookingURL: 'https://x.example/1' },
      { locale: 'en-US' },
    ).map((f) => f.label);
    expect(labels).toEqual(['Order ID', 'Replacement SKU', 'Order IDs', 'VAT number', 'Items 1 SKU', 'Booking URL']);
  });

  it('shows hidden characters in keys and values as tokens', () => {
    const facts = keyFacts({ 'na\u202Eme': 'ord_7\u200BHk2', note: 'Pay \u2066later\u2069' }, { locale: 'en-US' });
    expect(facts.map((f) => [f.label, f.value])).toEqual([
      ['Note', 'Pay \u27E8U+2066\u27E9later\u27E8U+2069\u27E9'],
      ['Na\u27E8U+202E\u27E9me', 'ord_7\u27E8U+200B\u27E9Hk2'],
    ]);
    expect(youApproveLine(facts)).not.toMatch(/[\u200B\u202E\u2066\u2069]/);
  });

  it('orders by meaning: money, dates, numbers, text, yes/no, and identifiers last; leaves out null; cuts long text', () => {
    const facts = keyFacts(
      { flag: false, note: 'Leave at the door', count: 1234, ref: 'R-1', when: '2026-11-03', fee: { amount: '1.50', currency: 'EUR' }, nothing: null, long: 'word '.repeat(40) },
      { locale: 'en-US', limit: 20 },
    );
    expect(facts.map((f) => [f.path, f.kind])).toEqual([
      ['fee', 'money'],
      ['when', 'date'],
      ['count', 'number'],
      ['note', 'text'],
      ['long', 'text'],
      ['flag', 'boolean'],
      ['ref', 'identifier'],
    ]);
    expect(facts.find((f) => f.path === 'count')!.value).toBe('1,234');
    expect(facts.find((f) => f.path === 'flag')!.value).toBe('No');
    expect(Array.from(facts.find((f) => f.path === 'long')!.value)).toHaveLength(60);
  });

  it(`caps the list at ${KEY_FACTS_LIMIT}, money first`, () => {
    const terms: Record<string, unknown> = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`ref_${i}`, `id_${i}`]));
    terms.total = { amount: '9.99', currency: 'USD' };
    const facts = keyFacts(terms, { locale: 'en-US' });
    expect(facts).toHaveLength(KEY_FACTS_LIMIT);
    expect(facts[0]).toMatchObject({ path: 'total', value: '$9.99' });
    expect(keyFacts(terms, { locale: 'en-US', limit: 2 })).toHaveLength(2);
  });

  it('never uses the summary: a summary saying $0.00 leaves the fact at the terms amount', () => {
    const summary = '**Free exchange. You pay $0.00.**\n\n- Ref 700.00 USD';
    const terms = { ...TERMS, price_difference: { amount: '700.00', currency: 'USD' } };
    // keyFacts takes no summary at all; the line shows the terms' amount whatever the summary says.
    expect(keyFacts.length).toBeLessThanOrEqual(2);
    expect(youApproveLine(keyFacts(terms, { locale: 'en-US' }))).toContain('Price difference $700.00');
    expect(youApproveLine(keyFacts(terms, { locale: 'en-US' }))).not.toContain('$0.00');
    expect(reviewOperation({ summary, terms }).findings.some((f) => f.severity === 'danger')).toBe(true);
  });

  it('has nothing to say without terms, and refuses what is not terms or a known locale', () => {
    expect(keyFacts(undefined)).toEqual([]);
    expect(keyFacts({})).toEqual([]);
    expect(() => keyFacts([] as never)).toThrow(expect.objectContaining({ code: 'ERR_OPERATION_INVALID' }));
    expect(() => keyFacts(TERMS, { locale: 'not a locale!' })).toThrow(expect.objectContaining({ code: 'ERR_ARGUMENT_INVALID' }));
    expect(() => keyFacts(TERMS, { timeZone: 'Mars/Olympus' })).toThrow(expect.objectContaining({ code: 'ERR_ARGUMENT_INVALID' }));
    expect(() => keyFacts(TERMS, { limit: -1 })).toThrow(expect.objectContaining({ code: 'ERR_ARGUMENT_INVALID' }));
    expect(() => youApproveLine('x' as never)).toThrow(expect.objectContaining({ code: 'ERR_ARGUMENT_INVALID' }));
  });
});

describe('keyFacts, labels', () => {
  it('shows an empty or wordless key as it is, and capitalises the first word of each key in a path', () => {
    expect(keyFacts({ '': 'y_2', '--': 'z_3', row_idx: 'w_4', pint: 'p_1', shipping: { method: 'ground' } }, { locale: 'en-US' })).toEqual([
      { path: 'shipping.method', label: 'Shipping Method', value: 'ground', kind: 'text' },
      { path: '[""]', label: '(empty)', value: 'y_2', kind: 'identifier' },
      { path: '["--"]', label: '--', value: 'z_3', kind: 'identifier' },
      { path: 'row_idx', label: 'Row idx', value: 'w_4', kind: 'identifier' },
      { path: 'pint', label: 'Pint', value: 'p_1', kind: 'identifier' },
    ]);
  });

  it('shows a line break in a key or a value as a token', () => {
    expect(keyFacts({ 'a\nb': 'x_1', note: 'line one\nline two' }, { locale: 'en-US' })).toEqual([
      { path: 'note', label: 'Note', value: 'line one\u27E8U+000A\u27E9line two', kind: 'text' },
      { path: '["a\u27E8U+000A\u27E9b"]', label: 'A\u27E8U+000A\u27E9b', value: 'x_1', kind: 'identifier' },
    ]);
  });

  it('cuts a label past 40 characters and a value past 60, and not at exactly that length', () => {
    const key40 = `k${'_a'.repeat(19)}b`;
    const key41 = `${key40}c`;
    const value60 = `v${'x'.repeat(59)}`;
    const value61 = `${value60}y`;
    const facts = keyFacts({ [key40]: 'i_1', [key41]: 'i_2', a: value60, b: value61 }, { locale: 'en-US' });
    expect(facts.map((f) => [f.label, f.value])).toEqual([
      ['A', value60],
      ['B', `${value60.slice(0, 59)}\u2026`],
      [`K${' a'.repeat(19)}b`, 'i_1'],
      [`K${' a'.repeat(19)}\u2026`, 'i_2'],
    ]);
  });
});

describe('keyFacts, kinds and values', () => {
  it.each([
    ['ground', 'text'],
    ['Gate 5, row 2', 'text'],
    ['', 'text'],
    ['A-1', 'identifier'],
    ['x@y', 'identifier'],
    ['12', 'identifier'],
  ])('reads the string %j as %s', (value, kind) => {
    expect(keyFacts({ note: value }, { locale: 'en-US' })).toEqual([{ path: 'note', label: 'Note', value, kind }]);
  });

  it('shows yes and no, and a number without a currency as a number', () => {
    expect(keyFacts({ gift: true, wrap: false, fee: 5, items: 1234.5 }, { locale: 'en-US' })).toEqual([
      { path: 'fee', label: 'Fee', value: '5', kind: 'number' },
      { path: 'items', label: 'Items', value: '1,234.5', kind: 'number' },
      { path: 'gift', label: 'Gift', value: 'Yes', kind: 'boolean' },
      { path: 'wrap', label: 'Wrap', value: 'No', kind: 'boolean' },
    ]);
  });

  it('leaves out values that are not JSON data', () => {
    expect(keyFacts({ at: new Date(0), big: 10n, id: 'a_1' }, { locale: 'en-US' })).toEqual([{ path: 'id', label: 'ID', value: 'a_1', kind: 'identifier' }]);
  });

  it('formats an amount written as a JSON number, a negative zero and a small negative amount', () => {
    expect(keyFacts({ price: { amount: 70, currency: 'USD' }, a: { amount: '-0.00', currency: 'USD' }, b: { amount: '-5', currency: 'USD' } }, { locale: 'en-US' })).toEqual([
      { path: 'price', label: 'Price', value: '$70.00', kind: 'money', direction: 'charge' },
      { path: 'a', label: 'A', value: '$0.00', kind: 'money', direction: 'none' },
      { path: 'b', label: 'B', value: '-$5.00', kind: 'money', direction: 'refund' },
    ]);
  });

  it('shows at least the currency digits of a four-digit currency, and more when the amount has them', () => {
    const value = (amount: string, currency: string) => keyFacts({ price: { amount, currency } }, { locale: 'en-US' })[0]!.value;
    expect(value('1.123', 'CLF')).toBe('CLF\u00A01.1230');
    expect(value('1.12345', 'CLF')).toBe('CLF\u00A01.12345');
    expect(value('1.5', 'KWD')).toBe('KWD\u00A01.500');
  });
});

describe('keyFacts, old and new values (facts by meaning)', () => {
  const AIRLINE = {
    booking_ref: 'SL-88QX',
    old_departure: '2026-12-10T07:05:00+01:00',
    new_departure: '2026-12-10T09:40:00+01:00',
    fare_difference: { amount: '45.00', currency: 'EUR' },
    seat_before: '14C',
    seat_after: '22A',
  };

  it('shows an old → new pair as one fact at the new value, after the money and before the references', () => {
    const facts = keyFacts(AIRLINE, { locale: 'en-US', timeZone: 'Europe/Paris' });
    expect(facts.map((f) => [f.label, f.before, f.value])).toEqual([
      ['Fare difference', undefined, '\u20AC45.00'],
      ['Departure', expect.stringMatching(/^Dec 10, 2026, 7:05\sAM$/), expect.stringMatching(/^Dec 10, 2026, 9:40\sAM$/)],
      ['Seat', '14C', '22A'],
      ['Booking ref', undefined, 'SL-88QX'],
    ]);
    expect(facts[1]!.path).toBe('new_departure');
  });

  it('ranks a value the terms call new above its kind, and leaves an old value alone when it has no new one', () => {
    const facts = keyFacts({ note: 'window seat', old_gate: 'B4', new_total_minutes: 95 }, { locale: 'en-US' });
    expect(facts.map((f) => f.path)).toEqual(['new_total_minutes', 'note', 'old_gate']);
  });

  it('never pairs an amount with a value that is not one', () => {
    const facts = keyFacts({ old_price: 'free', new_price: { amount: '5.00', currency: 'USD' } }, { locale: 'en-US' });
    expect(facts.every((f) => f.before === undefined)).toBe(true);
  });
});

describe('keyFacts, dates', () => {
  const value = (v: string) => keyFacts({ when: v }, { locale: 'en-US', timeZone: 'UTC' })[0]!;

  it.each([
    ['2026-10-08T21:20:00+02:00', /^Oct 8, 2026, 9:20\sPM UTC\+02:00$/],
    ['2026-10-08T12:20:00+05:30', /^Oct 8, 2026, 12:20\sPM UTC\+05:30$/],
    ['2026-10-08T12:20:00-05:30', /^Oct 8, 2026, 12:20\sPM UTC\u221205:30$/],
    ['2026-10-08T12:20:00z', /^Oct 8, 2026, 12:20\sPM$/],
  ])('reads the offset of %s', (written, shown) => {
    expect(value(written)).toMatchObject({ kind: 'date', value: expect.stringMatching(shown) });
  });

  it.each(['2026-13-01', '2026-00-10', '2026-01-15T24:00', '2026-01-15T10:60', '2026-04-31'])('shows %s, which is no date, as written', (written) => {
    expect(value(written)).toEqual({ path: 'when', label: 'When', value: written, kind: 'identifier' });
  });
});

describe('keyFacts, limits', () => {
  const nest = (depth: number, wrap: (inner: unknown) => unknown): unknown => (depth === 0 ? 'deep_1' : wrap(nest(depth - 1, wrap)));

  it('reads values 16 levels deep and no deeper, in objects and in lists', () => {
    const inObject = (inner: unknown) => ({ a: inner });
    const inList = (inner: unknown) => [inner];
    const found = (terms: unknown) => keyFacts(terms as Record<string, unknown>, { locale: 'en-US' }).map((f) => [f.path, f.value]);
    expect(found(nest(16, inObject))).toEqual([[Array(16).fill('a').join('.'), 'deep_1']]);
    expect(found(nest(17, inObject))).toEqual([]);
    expect(found({ a: nest(15, inList) })).toEqual([[`a${'[0]'.repeat(15)}`, 'deep_1']]);
    expect(found({ a: nest(16, inList) })).toEqual([]);
  });

  it('looks at 200 values at most', () => {
    const terms = Object.fromEntries(Array.from({ length: 250 }, (_, i) => [`ref_${i}`, `id_${i}`]));
    const facts = keyFacts(terms, { locale: 'en-US', limit: 1_000 });
    expect(facts).toHaveLength(200);
    expect(facts.at(-1)).toEqual({ path: 'ref_199', label: 'Ref 199', value: 'id_199', kind: 'identifier' });
  });

  it('accepts a limit of 0', () => {
    expect(keyFacts(TERMS, { limit: 0 })).toEqual([]);
  });
});

describe('keyFacts and youApproveLine, refusals', () => {
  it.each([
    [null, 'options: expected an object, got null'],
    [5, 'options: expected an object, got a number'],
    [{ limit: -1 }, 'options.limit: expected a whole number, 0 or more, got -1'],
    [{ limit: 1.5 }, 'options.limit: expected a whole number, 0 or more, got 1.5'],
    [{ limit: '3' }, 'options.limit: expected a whole number, 0 or more, got a string of 1 character'],
  ])('refuses the options %j', (options, message) => {
    expect(() => keyFacts(TERMS, options as never)).toThrow(expect.objectContaining({ code: 'ERR_ARGUMENT_INVALID', message }));
  });

  it('says which of locale or time zone Intl does not know, with the cause', () => {
    expect(() => keyFacts(TERMS, { locale: 'not a locale!' })).toThrow(
      expect.objectContaining({ code: 'ERR_ARGUMENT_INVALID', message: 'options.locale: expected a locale Intl knows, got one it does not', cause: expect.any(RangeError) }),
    );
    expect(() => keyFacts(TERMS, { timeZone: 'Mars/Olympus' })).toThrow(
      expect.objectContaining({ code: 'ERR_ARGUMENT_INVALID', message: 'options.timeZone: expected a time zone Intl knows, got one it does not', cause: expect.any(RangeError) }),
    );
  });

  it('says what it got instead of terms or facts', () => {
    expect(() => keyFacts([] as never)).toThrow(
      expect.objectContaining({ code: 'ERR_OPERATION_INVALID', message: 'operation.terms: expected a JSON object (spec section 3), got an array of 0 items' }),
    );
    expect(() => youApproveLine('x' as never)).toThrow(
      expect.objectContaining({ code: 'ERR_ARGUMENT_INVALID', message: 'facts: expected the list keyFacts returns, got a string of 1 character' }),
    );
  });
});

describe('dates before the year 100', () => {
  it('shows them as written, not as the 1900s Date.UTC would make of them', () => {
    const shown = (when: string) => keyFacts({ when }, { locale: 'en-US', timeZone: 'UTC' })[0]!.value;
    expect(shown('0050-01-01')).toBe('0050-01-01');
    expect(shown('0099-12-31T10:00:00Z')).toBe('0099-12-31T10:00:00Z');
    expect(shown('0100-01-01')).toBe('Jan 1, 100');
  });
});

describe('keyFacts, numbers', () => {
  const shown = (value: number) => keyFacts({ rate: value }, { locale: 'en-US' })[0]!.value;

  it('shows every digit of a number, without an exponent, never rounded to three decimals', () => {
    expect(shown(0.0004)).toBe('0.0004');
    expect(shown(1e-7)).toBe('0.0000001');
    expect(shown(-2.5e-8)).toBe('-0.000000025');
    expect(shown(1.5e21)).toBe('1,500,000,000,000,000,000,000');
    expect(shown(0.1 + 0.2)).toBe('0.30000000000000004');
  });

  it('shows a number with more than 100 decimals as written, marked, and what is no JSON number as JavaScript writes it', () => {
    expect(keyFacts({ rate: 5e-324 }, { locale: 'en-US' })[0]).toMatchObject({ value: `0.${'0'.repeat(323)}5`, unformatted: true });
    expect(shown(Infinity)).toBe('Infinity');
  });
});

describe('factChanges (two revisions of the terms, spec section 3 "New terms")', () => {
  const money = (amount: string | number, currency = 'USD') => ({ ...TERMS, price_difference: { amount, currency } });
  const moved = (before: Record<string, unknown> | undefined, after: Record<string, unknown> | undefined) =>
    factChanges(before, after, { locale: 'en-US' }).map((c) => [c.path, c.before?.value ?? null, c.after?.value ?? null]);

  it('compares amounts as exact decimals: "70.00", "70" and 70 USD are one amount; a sign or a currency is a change', () => {
    expect(moved(money('70.00'), money('70'))).toEqual([]);
    expect(moved(money('70.00'), money(70))).toEqual([]);
    expect(moved(money('70.00'), money('-70.00'))).toEqual([['price_difference', '$70.00', '-$70.00']]);
    expect(moved(money('70.00'), money('70.00', 'EUR'))).toEqual([['price_difference', '$70.00', '\u20AC70.00']]);
  });

  it('tells a string from a number, and lists amounts first, then the new terms in order, then what went away', () => {
    expect(moved({ a: '5', b: 1, price: { amount: '1', currency: 'USD' } }, { b: 2, a: 5, price: { amount: '2', currency: 'USD' } })).toEqual([
      ['price', '$1.00', '$2.00'],
      ['b', '1', '2'],
      ['a', '5', '5'],
    ]);
    expect(moved({ gone: 'x', kept: 'y' }, { kept: 'y' })).toEqual([['gone', 'x', null]]);
  });

  it('tells apart a key with a hidden character from a key that spells its token', () => {
    const spelled = 'a\u27E8U+200B\u27E9';
    expect(moved({ 'a\u200B': 'x', [spelled]: 'y' }, { 'a\u200B': 'z', [spelled]: 'y' })).toEqual([[`["${spelled}"]`, 'x', 'z']]);
  });

  it('reads terms that appeared or went away as every fact added or removed', () => {
    expect(moved(undefined, { order_id: 'ord_1' })).toEqual([['order_id', null, 'ord_1']]);
    expect(moved({ order_id: 'ord_1' }, undefined)).toEqual([['order_id', 'ord_1', null]]);
    expect(moved(undefined, undefined)).toEqual([]);
  });

  it('walks terms of any depth without running out of stack, and leaves out what is no JSON', () => {
    let deep: Record<string, unknown> = { leaf: 'a' };
    for (let i = 0; i < 2_000; i += 1) deep = { n: deep };
    const changes = factChanges(deep, JSON.parse(JSON.stringify(deep).replace('"a"', '"b"')) as Record<string, unknown>);
    expect(changes.map((c) => [c.before?.value, c.after?.value])).toEqual([['a', 'b']]);
    expect(moved({ at: new Date(0), big: 10n }, { at: new Date(1), big: 11n })).toEqual([]);
  });

  it('refuses what is not terms, and options it cannot use', () => {
    expect(() => factChanges([] as never, {})).toThrow(expect.objectContaining({ code: 'ERR_OPERATION_INVALID', message: 'previous.terms: expected a JSON object (spec section 3), got an array of 0 items' }));
    expect(() => factChanges({}, 'x' as never)).toThrow(expect.objectContaining({ code: 'ERR_OPERATION_INVALID', message: 'next.terms: expected a JSON object (spec section 3), got a string of 1 character' }));
    expect(() => factChanges({}, {}, { locale: 'not a locale!' })).toThrow(expect.objectContaining({ code: 'ERR_ARGUMENT_INVALID' }));
  });
});

describe('factFindings', () => {
  const huge = `1.${'0'.repeat(100)}1`;

  it('is a danger for each amount or number Intl cannot format, by its path, and nothing else', () => {
    expect(factFindings({ fee: { amount: huge, currency: 'USD' }, rate: 5e-324, ok: { amount: '1.00', currency: 'USD' }, note: huge })).toEqual([
      { severity: 'danger', code: 'fact-unformatted', path: 'fee', message: `The terms set fee to ${huge} USD, with more digits than can be shown formatted, so it is shown exactly as written: read every digit before you decide.`, text: { key: 'review_factUnformatted', substitutions: ['fee', `${huge} USD`] } },
      expect.objectContaining({ severity: 'danger', code: 'fact-unformatted', path: 'rate' }),
    ]);
    expect(factFindings({ amount: huge, currency: 'USD' })).toEqual([expect.objectContaining({ path: '', text: { key: 'review_factUnformattedWhole', substitutions: [`${huge} USD`] } })]);
  });

  it('has nothing to say without terms, and refuses what is not terms', () => {
    expect(factFindings(undefined)).toEqual([]);
    expect(factFindings(TERMS)).toEqual([]);
    expect(() => factFindings(5 as never)).toThrow(expect.objectContaining({ code: 'ERR_OPERATION_INVALID' }));
  });
});
