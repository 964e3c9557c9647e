/**
 * keyFacts and youApproveLine: the terms' own values for the window's "You approve" line
 * (spec section 3: the Personal Agent MAY show values from `terms`), formatted with Intl,
 * with readable keys and hidden characters made visible, and never taken from the summary.
 */
import { describe, expect, it } from 'vitest';
import { KEY_FACTS_LIMIT, keyFacts, reviewOperation, youApproveLine } from '../../src/review/index.ts';

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

  it('formats dates with Intl: a date as written, a timestamp at its instant in the given zone, named', () => {
    const value = (v: string, timeZone: string) => keyFacts({ when: v }, { locale: 'en-US', timeZone })[0]!;
    expect(value('2026-11-03', 'Asia/Tokyo')).toEqual({ path: 'when', label: 'When', value: 'Nov 3, 2026', kind: 'date' });
    expect(value('2026-10-08T12:20:00-07:00', 'UTC').value).toMatch(/^Oct 8, 2026, 7:20\sPM UTC$/);
    expect(value('2026-10-08T12:20:00-07:00', 'America/Los_Angeles').value).toMatch(/^Oct 8, 2026, 12:20\sPM PDT$/);
    expect(value('2026-10-08T19:20:00Z', 'Europe/Paris').value).toMatch(/^Oct 8, 2026, 9:20\sPM GMT\+2$/);
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
      ['Na\u27E8U+202E\u27E9me', 'ord_7\u27E8U+200B\u27E9Hk2'],
      ['Note', 'Pay \u27E8U+2066\u27E9later\u27E8U+2069\u27E9'],
    ]);
    expect(youApproveLine(facts)).not.toMatch(/[\u200B\u202E\u2066\u2069]/);
  });

  it('orders money, dates, identifiers, numbers, text, yes/no; leaves out null; cuts long text', () => {
    const facts = keyFacts(
      { flag: false, note: 'Leave at the door', count: 1234, ref: 'R-1', when: '2026-11-03', fee: { amount: '1.50', currency: 'EUR' }, nothing: null, long: 'word '.repeat(40) },
      { locale: 'en-US', limit: 20 },
    );
    expect(facts.map((f) => [f.path, f.kind])).toEqual([
      ['fee', 'money'],
      ['when', 'date'],
      ['ref', 'identifier'],
      ['count', 'number'],
      ['note', 'text'],
      ['long', 'text'],
      ['flag', 'boolean'],
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
