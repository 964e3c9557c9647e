import { describe, expect, it } from 'vitest';
import { fromMicros, keyWords, moneyDirection, termsMoney, toMicros } from '../../src/review/money.ts';

/**
 * src/review/money.ts on its own: which members of `terms` are money, in which currency, which
 * way each goes, and the bounds of the walk. The review tests cover the same code through
 * `reviewTerms`; these pin each rule so a changed rule fails here by name.
 */

const brief = (terms: Record<string, unknown>) =>
  termsMoney(terms).amounts.map(({ path, value, negative, currency, direction, object, shown }) => ({ path, value, negative, currency, direction, object, shown }));

describe('keyWords', () => {
  it('splits snake, kebab, camel case and any non-letter, and lower-cases', () => {
    expect(keyWords('price_difference')).toEqual(['price', 'difference']);
    expect(keyWords('price-difference')).toEqual(['price', 'difference']);
    expect(keyWords('priceDifference')).toEqual(['price', 'difference']);
    expect(keyWords('fee2Total')).toEqual(['fee2', 'total']);
    expect(keyWords('__a..b  c__')).toEqual(['a', 'b', 'c']);
    expect(keyWords('Prix_TTC')).toEqual(['prix', 'ttc']);
    expect(keyWords('größe_été')).toEqual(['größe', 'été']);
    expect(keyWords('')).toEqual([]);
    expect(keyWords('___')).toEqual([]);
  });
});

describe('moneyDirection', () => {
  it('zero is none, in any spelling a canonical decimal has', () => {
    expect(moneyDirection(['price'], '0', false)).toBe('none');
    expect(moneyDirection(['price'], '0.0', false)).toBe('none');
    expect(moneyDirection(['price'], '0.00', false)).toBe('none');
    expect(moneyDirection(['price'], '0.5', false)).toBe('charge');
    expect(moneyDirection(['price'], '10', false)).toBe('charge');
    expect(moneyDirection(['price'], '00.1', false)).toBe('charge');
  });

  it('"cash back" in two words is a refund; "cash" alone or "back" first is not', () => {
    expect(moneyDirection(['cash', 'back'], '5', false)).toBe('refund');
    expect(moneyDirection(['cash'], '5', false)).toBe('charge');
    expect(moneyDirection(['back'], '5', false)).toBe('charge');
    expect(moneyDirection(['back', 'cash'], '5', false)).toBe('charge');
    expect(moneyDirection(['cash', 'fee', 'back'], '5', false)).toBe('charge');
  });

  it('"credit card" is the card, a credit elsewhere on the path still counts', () => {
    expect(moneyDirection(['credit', 'card', 'fee'], '5', false)).toBe('charge');
    expect(moneyDirection(['credit'], '5', false)).toBe('refund');
    expect(moneyDirection(['card', 'credit'], '5', false)).toBe('refund');
    expect(moneyDirection(['refund', 'card'], '5', false)).toBe('refund');
  });
});

describe('termsMoney', () => {
  it('reads { amount, currency } objects, with the sign apart from the value', () => {
    expect(brief({ total: { amount: '-70.00', currency: 'USD' } })).toEqual([
      { path: ['total'], value: '70', negative: true, currency: 'USD', direction: 'refund', object: true, shown: '-70.00 USD' },
    ]);
    expect(brief({ total: { amount: '\u221270.00', currency: 'USD' } })[0]).toMatchObject({ negative: true, direction: 'refund' });
    expect(brief({ total: { amount: '+70.00', currency: 'USD' } })[0]).toMatchObject({ negative: false, direction: 'charge' });
    // Minus zero is zero: not negative, and no direction.
    expect(brief({ total: { amount: '-0.00', currency: 'USD' } })[0]).toMatchObject({ value: '0', negative: false, direction: 'none' });
    expect(brief({ total: { amount: 12, currency: 'EUR' } })[0]).toMatchObject({ value: '12', shown: '12 EUR', object: true });
  });

  it('needs a currency code, three letters in any case, for an object; walks the rest of it', () => {
    // "usd" is USD: ISO 4217 codes are read without regard to case, and shown in capitals.
    expect(brief({ total: { amount: '5', currency: 'usd' } })).toEqual([
      { path: ['total'], value: '5', negative: false, currency: 'USD', direction: 'charge', object: true, shown: '5 USD' },
    ]);
    expect(brief({ total: { amount: '5', currency: 'eUr' } })[0]).toEqual(expect.objectContaining({ currency: 'EUR', shown: '5 EUR' }));
    // Without a code, `amount` is only a money word: an amount in no currency.
    const bare = [{ path: ['total', 'amount'], value: '5', negative: false, currency: null, direction: 'charge', object: false, shown: '5' }];
    expect(brief({ total: { amount: '5', currency: 'US' } })).toEqual(bare);
    expect(brief({ total: { amount: '5', currency: 'us$' } })).toEqual(bare);
    expect(brief({ total: { amount: '5', currency: 7 } })).toEqual(bare);
    expect(brief({ total: { amount: 'five', currency: 'USD' } })).toEqual([]);
    expect(brief({ total: { amount: [5], currency: 'USD' } })).toEqual([]);
    expect(brief({ total: { amount: '5', currency: ['USD'] } })).toEqual([
      { path: ['total', 'amount'], value: '5', negative: false, currency: null, direction: 'charge', object: false, shown: '5' },
    ]);
    // The other members of an amount object are walked, with its path.
    expect(brief({ total: { amount: '5', currency: 'USD', fee: { amount: '1', currency: 'USD' }, price: 3 } })).toEqual([
      { path: ['total'], value: '5', negative: false, currency: 'USD', direction: 'charge', object: true, shown: '5 USD' },
      { path: ['total', 'fee'], value: '1', negative: false, currency: 'USD', direction: 'charge', object: true, shown: '1 USD' },
      { path: ['total', 'price'], value: '3', negative: false, currency: null, direction: 'charge', object: false, shown: '3' },
    ]);
  });

  it('takes the sibling decimals of a currency code, except counts, rates and the code itself', () => {
    expect(brief({ price: '5.00', tax: 1, nights: 3, rate: '2.5', note: 'n', currency: 'USD' })).toEqual([
      { path: ['price'], value: '5', negative: false, currency: 'USD', direction: 'charge', object: false, shown: '5.00 USD' },
      { path: ['tax'], value: '1', negative: false, currency: 'USD', direction: 'charge', object: false, shown: '1 USD' },
    ]);
    expect(termsMoney({ price: '5.00', nights: 3, currency: 'USD' }).quantities).toEqual([3]);
    // A sibling with a not-money word among others (a tax rate) is no amount either.
    expect(brief({ tax_rate: '7', currency: 'USD' })).toEqual([]);
    // Without a code, the same siblings are money only under a money word.
    expect(brief({ price: '5.00', something: '2', currency: 'dollars' })).toEqual([
      { path: ['price'], value: '5', negative: false, currency: null, direction: 'charge', object: false, shown: '5.00' },
    ]);
  });

  it('a number under a money word is money in no currency, unless a not-money word is there too', () => {
    expect(brief({ fee: 5 })).toEqual([{ path: ['fee'], value: '5', negative: false, currency: null, direction: 'charge', object: false, shown: '5' }]);
    expect(brief({ fee_rate: 5, tax_percent: '7', price_id: 9, seats: 2 })).toEqual([]);
    // One money word among others is enough.
    expect(brief({ booking_fee: 5 })).toEqual([{ path: ['booking_fee'], value: '5', negative: false, currency: null, direction: 'charge', object: false, shown: '5' }]);
    expect(brief({ name: 5, fee: 'five', price: true, total: null })).toEqual([]);
    expect(brief({ items: [{ price: 4 }, { price: '-1' }] })).toEqual([
      { path: ['items', 0, 'price'], value: '4', negative: false, currency: null, direction: 'charge', object: false, shown: '4' },
      { path: ['items', 1, 'price'], value: '1', negative: true, currency: null, direction: 'refund', object: false, shown: '-1' },
    ]);
    expect(brief({ 0: 5 })).toEqual([]);
  });

  it('counts whole quantities of two or more', () => {
    expect(termsMoney({ nights: 3, guests: 2, rooms: 1, seats: 2.5, tickets: '4', qty: Number.MAX_SAFE_INTEGER + 1, items: [1, 2] }).quantities).toEqual([3, 2]);
    expect(termsMoney({ booking: { nights: 7 } }).quantities).toEqual([7]);
    expect(termsMoney({ guest_count: 4 }).quantities).toEqual([4]);
  });

  it('is empty for no terms, or terms that are not an object', () => {
    expect(termsMoney(undefined)).toEqual({ amounts: [], quantities: [] });
    expect(termsMoney([{ fee: 1 }] as unknown as Record<string, unknown>)).toEqual({ amounts: [], quantities: [] });
  });

  it('stops at 200 amounts and 32 levels deep', () => {
    const many = Object.fromEntries(Array.from({ length: 250 }, (_, i) => [`fee_${i}`, i + 1]));
    const amounts = termsMoney({ ...many, zfee: 1 }).amounts;
    expect(amounts).toHaveLength(200);
    expect(amounts.at(-1)?.path).toEqual(['fee_199']);

    const nest = (depth: number, leaf: unknown): unknown => (depth === 0 ? leaf : { a: nest(depth - 1, leaf) });
    const nestArray = (depth: number, leaf: unknown): unknown => (depth === 0 ? leaf : [nestArray(depth - 1, leaf)]);
    // The walk goes 32 levels below the terms object: the deepest member it reads is at level 32.
    const deep = (shape: (n: number) => unknown, n: number) => termsMoney(shape(n) as Record<string, unknown>);
    const fee = (n: number) => nest(n, { fee: 1 });
    expect(deep(fee, 31).amounts).toHaveLength(1);
    expect(deep(fee, 32).amounts).toHaveLength(0);
    const inArrays = (n: number) => ({ a: nestArray(n, { fee: 1 }) });
    expect(deep(inArrays, 30).amounts).toHaveLength(1);
    expect(deep(inArrays, 31).amounts).toHaveLength(0);
    const object = (n: number) => nest(n, { amount: 1, currency: 'USD' });
    expect(deep(object, 32).amounts).toHaveLength(1);
    expect(deep(object, 33).amounts).toHaveLength(0);
    const objectWithMore = (n: number) => nest(n, { amount: 1, currency: 'USD', x: { fee: 2 } });
    expect(deep(objectWithMore, 30).amounts).toHaveLength(2);
    expect(deep(objectWithMore, 31).amounts).toHaveLength(1);
    const sibling = (n: number) => nest(n, { price: 1, currency: 'USD' });
    expect(deep(sibling, 32).amounts).toHaveLength(1);
    expect(deep(sibling, 33).amounts).toHaveLength(0);
    const nights = (n: number) => nest(n, { nights: 3 });
    expect(deep(nights, 31).quantities).toEqual([3]);
    expect(deep(nights, 32).quantities).toEqual([]);
  });
});

describe('toMicros and fromMicros', () => {
  it('convert up to six decimal places exactly, and refuse more', () => {
    expect(toMicros('70')).toBe(70_000_000n);
    expect(toMicros('0.5')).toBe(500_000n);
    expect(toMicros('1.123456')).toBe(1_123_456n);
    expect(toMicros('1.1234567')).toBeNull();
    expect(fromMicros(70_000_000n)).toBe('70');
    expect(fromMicros(1_123_456n)).toBe('1.123456');
    expect(fromMicros(-2_500_000n)).toBe('2.5');
    expect(fromMicros(0n)).toBe('0');
    expect(fromMicros(1n)).toBe('0.000001');
  });
});
