/**
 * src/review/values.ts: the small helpers the terms review and the revision diff share to
 * name a place in `terms` (`formatPath`), to tell a plain object from anything else
 * (`isPlainObject`) and to quote a Company value inside a message (`quote`). What they return
 * ends up in front of the user, so each output is pinned character for character.
 */
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { isPlainObject as isJsonObject } from '../../src/protocol/json';
import { formatPath, isPlainObject, quote } from '../../src/review/values.ts';

describe('isPlainObject', () => {
  it('accepts object literals and objects without a prototype', () => {
    expect(isPlainObject({})).toBe(true);
    expect(isPlainObject({ a: 1 })).toBe(true);
    expect(isPlainObject(Object.create(null))).toBe(true);
  });

  it('rejects null, arrays, primitives and instances of classes', () => {
    class Money {
      amount = '1.00';
    }
    expect(isPlainObject(null)).toBe(false);
    expect(isPlainObject(undefined)).toBe(false);
    expect(isPlainObject([])).toBe(false);
    expect(isPlainObject('text')).toBe(false);
    expect(isPlainObject(7)).toBe(false);
    expect(isPlainObject(new Money())).toBe(false);
    expect(isPlainObject(new Date(0))).toBe(false);
    expect(isPlainObject(Object.create({ inherited: true }))).toBe(false);
  });

  it('decides as src/protocol/json.ts does, for an object of another realm too', () => {
    const foreign: unknown = runInNewContext('({ amount: "70.00" })');
    const foreignList: unknown = runInNewContext('[1]');
    expect(isPlainObject(foreign)).toBe(true);
    expect(isPlainObject(foreignList)).toBe(false);
    for (const value of [foreign, foreignList, {}, [], null, new Date(0)]) expect(isPlainObject(value)).toBe(isJsonObject(value));
  });
});

describe('formatPath', () => {
  it('writes simple keys with dots and array indexes in brackets', () => {
    expect(formatPath(['price_difference', 'amount'])).toBe('price_difference.amount');
    expect(formatPath(['items', 0, 'sku'])).toBe('items[0].sku');
    expect(formatPath([0])).toBe('[0]');
    expect(formatPath([2, 'sku'])).toBe('[2].sku');
    expect(formatPath([])).toBe('');
  });

  it('quotes a key that is not a simple name', () => {
    expect(formatPath(['odd key'])).toBe('["odd key"]');
    expect(formatPath(['items', '0'])).toBe('items["0"]');
  });

  it('shows a line feed in a key as its token, since a path is one line', () => {
    expect(formatPath(['a\nb'])).toBe('["a\u27E8U+000A\u27E9b"]');
    expect(formatPath(['terms', 'x\u200By'])).toBe('terms["x\u27E8U+200B\u27E9y"]');
  });
});

describe('quote', () => {
  it('puts a string in double quotes', () => {
    expect(quote('ord_7Hk2')).toBe('"ord_7Hk2"');
    expect(quote('')).toBe('""');
  });

  it('shows a line feed inside a string as its token', () => {
    expect(quote('a\nb')).toBe('"a\u27E8U+000A\u27E9b"');
  });

  it('names a missing value "nothing" and writes null as null', () => {
    expect(quote(undefined)).toBe('nothing');
    expect(quote(null)).toBe('null');
  });

  it('writes other values as JSON, without quotes around numbers', () => {
    expect(quote(70)).toBe('70');
    expect(quote(true)).toBe('true');
    expect(quote({ a: 1 })).toBe('{"a":1}');
    expect(quote(['x', 2])).toBe('["x",2]');
  });

  it('names what JSON cannot write, with a line feed shown as its token', () => {
    expect(quote(Symbol('a\nb'))).toBe('Symbol(a\u27E8U+000A\u27E9b)');
  });

  it('falls back to plain text for values JSON throws on', () => {
    expect(quote(12n)).toBe('12');
    const cycle: Record<string, unknown> = {};
    cycle['self'] = cycle;
    expect(quote(cycle)).toBe('[object Object]');
  });

  it('keeps a value of 80 characters whole and cuts a longer one to 79 and an ellipsis', () => {
    expect(quote('a'.repeat(78))).toBe(`"${'a'.repeat(78)}"`);
    expect(quote('a'.repeat(79))).toBe(`"${'a'.repeat(78)}\u2026`);
    expect(quote(`${'a'.repeat(40)}${'b'.repeat(60)}`)).toBe(`"${'a'.repeat(40)}${'b'.repeat(38)}\u2026`);
  });

  it('counts characters, not UTF-16 units, when cutting', () => {
    const emoji = '\u{1F600}';
    expect(quote(emoji.repeat(78))).toBe(`"${emoji.repeat(78)}"`);
    expect(quote(emoji.repeat(100))).toBe(`"${emoji.repeat(78)}\u2026`);
  });
});
