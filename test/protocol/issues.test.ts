/**
 * How an error message says what it got (src/protocol/issues.ts): the kind of value and its size,
 * never its content, except for a number a caller passed as a bound.
 */
import { describe, expect, it } from 'vitest';
import { describeNumber, describeValue } from '../../src/protocol/issues.ts';

describe('describeValue', () => {
  it.each([
    ['', 'a string of 0 characters'],
    ['x', 'a string of 1 character'],
    ['secret', 'a string of 6 characters'],
    [[], 'an array of 0 items'],
    [[1], 'an array of 1 item'],
    [[1, 2], 'an array of 2 items'],
    [null, 'null'],
    [undefined, 'nothing'],
    [7, 'a number'],
    [true, 'a boolean'],
  ])('describes %j as %s', (value, said) => {
    expect(describeValue(value)).toBe(said);
  });
});

describe('describeNumber', () => {
  it('writes a number as it is, and anything else as describeValue does', () => {
    expect(describeNumber(1.5)).toBe('1.5');
    expect(describeNumber(Number.NaN)).toBe('NaN');
    expect(describeNumber(-Infinity)).toBe('-Infinity');
    expect(describeNumber('3')).toBe('a string of 1 character');
  });
});
