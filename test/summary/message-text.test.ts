/**
 * The message machinery on its own (src/summary/message-text.ts): how a table becomes
 * messages.json entries, how the English message and its substitutions are made, and how a
 * message is shown in the browser's language. The real tables are checked end to end in
 * test/review/message-text.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { chromeMessages, joinList, localize, messageBuilder, placeholderOrder } from '../../src/summary/message-text.ts';

describe('chromeMessages', () => {
  it('writes each placeholder as $NAME$ with its position, and a literal dollar as $$', () => {
    expect(chromeMessages({ price: 'Costs $5 for {amount} at {place}' })).toEqual({
      price: { message: 'Costs $$5 for $AMOUNT$ at $PLACE$', placeholders: { amount: { content: '$1' }, place: { content: '$2' } } },
    });
  });

  it('writes a message without placeholders as its text alone', () => {
    expect(chromeMessages({ plain: 'Nothing to fill' })).toEqual({ plain: { message: 'Nothing to fill' } });
  });

  it('writes a counted message as <key>_one and <key>_other, the count first', () => {
    expect(chromeMessages({ hidden: { one: '{count} character in {field}', other: '{count} characters in {field}' } })).toEqual({
      hidden_one: { message: '$COUNT$ character in $FIELD$', placeholders: { count: { content: '$1' }, field: { content: '$2' } } },
      hidden_other: { message: '$COUNT$ characters in $FIELD$', placeholders: { count: { content: '$1' }, field: { content: '$2' } } },
    });
  });

  it('refuses a message name Chrome would not accept', () => {
    expect(() => chromeMessages({ 'bad-name': 'x' })).toThrow(
      expect.objectContaining({ code: 'ERR_ARGUMENT_INVALID', message: 'table: expected message names of letters, digits and underscores, got "bad-name"' }),
    );
  });

  it('takes nine placeholders, and refuses ten ($1 to $9 only)', () => {
    const names = (n: number) => Array.from({ length: n }, (_, i) => `{p${i}}`).join(' ');
    expect(Object.keys(chromeMessages({ nine: names(9) }).nine!.placeholders!)).toHaveLength(9);
    expect(() => chromeMessages({ ten: names(10) })).toThrow(
      expect.objectContaining({ code: 'ERR_ARGUMENT_INVALID', message: 'table.ten: expected at most 9 placeholders, got 10' }),
    );
  });

  it('checks every message of the table, not only the first', () => {
    expect(() => chromeMessages({ fine: 'x', 'not fine': 'y' })).toThrow(/not fine/);
  });
});

describe('messageBuilder', () => {
  const say = messageBuilder({
    plain: 'Pay {amount} to {who}',
    counted: { one: '{count} item for {who}', other: '{count} items for {who}' },
  } as const);

  it('fills the English and keeps the values as substitutions, in placeholder order', () => {
    expect(say('plain', { amount: '$5', who: 'Acme' })).toEqual({
      message: 'Pay $5 to Acme',
      text: { key: 'plain', substitutions: ['$5', 'Acme'] },
    });
  });

  it('formats a count in English digits and picks the English plural form', () => {
    expect(say('counted', { count: 1200, who: 'Acme' })).toEqual({
      message: '1,200 items for Acme',
      text: { key: 'counted', substitutions: ['1,200', 'Acme'], count: 1200 },
    });
    expect(say('counted', { count: 1, who: 'Acme' }).message).toBe('1 item for Acme');
  });

  it('gives an empty substitution for a value that was not passed', () => {
    const loose = say as unknown as (key: string, values: Record<string, string>) => { text: { substitutions: string[] } };
    expect(loose('plain', { amount: '$5' }).text.substitutions).toEqual(['$5', '']);
  });
});

describe('placeholderOrder and joinList', () => {
  it('lists each name once, in order of first appearance, and the count first in a counted message', () => {
    expect(placeholderOrder('{b} {a} {b}')).toEqual(['b', 'a']);
    expect(placeholderOrder({ one: '{who} has {count}', other: '{count} for {who} in {where}' })).toEqual(['count', 'who', 'where']);
  });

  it('joins at most max items and says when some were left out', () => {
    expect(joinList(['a', 'b', 'c'])).toBe('a, b, c');
    expect(joinList(['a', 'b', 'c'], 2)).toBe('a, b, \u2026');
    expect(joinList(['a', 'b'], 2)).toBe('a, b');
  });
});

describe('localize', () => {
  const table: Record<string, string> = { gone_other: 'other form', plain: 'plain form' };
  const lookup = (key: string) => table[key] ?? '';

  it('falls back to the _other form when the locale form is missing', () => {
    expect(localize({ key: 'gone', substitutions: ['1'], count: 1 }, lookup, 'en')).toBe('other form');
  });

  it('shows the key when no form exists', () => {
    expect(localize({ key: 'absent', substitutions: ['2'], count: 2 }, lookup, 'en')).toBe('absent');
    expect(localize({ key: 'plain', substitutions: [] }, lookup, 'en')).toBe('plain form');
  });

  it('passes the count formatted for the locale as the first substitution', () => {
    const seen: string[][] = [];
    localize({ key: 'x', substitutions: ['1,500', 'rest'], count: 1500 }, (key, subs) => (seen.push(subs), ''), 'de');
    expect(seen[0]).toEqual(['1.500', 'rest']);
  });
});
