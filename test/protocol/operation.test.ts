import { describe, expect, it } from 'vitest';
import { CountersignError, ID_PATTERN, checkRfc3339, expiresAtMs, operationSchema, parseOperation } from '../../src/protocol';
import { SEED_OPERATION_WITHOUT_TERMS, seed } from './seed';

describe('section 3 the operation: operation_id and revision (IDs of core 8.2)', () => {
  it('accepts IDs of 256 characters', () => {
    const id = `${'A'.repeat(100)}${'z'.repeat(100)}${'0'.repeat(50)}_-_-_-`;
    expect(id).toHaveLength(256);
    expect(parseOperation({ ...SEED_OPERATION_WITHOUT_TERMS, operation_id: id, revision: id })).toMatchObject({ operation_id: id, revision: id });
  });

  it('accepts IDs of one character', () => {
    expect(parseOperation({ ...SEED_OPERATION_WITHOUT_TERMS, operation_id: '-', revision: '_' })).toMatchObject({ operation_id: '-', revision: '_' });
  });

  it('has one ID rule, URL-safe base64 characters', () => {
    expect(ID_PATTERN.source).toBe('^[A-Za-z0-9_-]{1,256}$');
  });
});

describe('section 3 the operation: members', () => {
  it('drops members the extension does not define', () => {
    const parsed = parseOperation({ ...SEED_OPERATION_WITHOUT_TERMS, status: 'pending', approve_url: 'https://evil.example' });
    expect(parsed).toEqual(SEED_OPERATION_WITHOUT_TERMS);
    expect(parsed).not.toHaveProperty('approve_url');
  });

  it('leaves terms out when the Company sent none (terms is optional)', () => {
    const parsed = parseOperation(SEED_OPERATION_WITHOUT_TERMS);
    expect(Object.keys(parsed)).toEqual(['operation_id', 'revision', 'summary', 'expires_at']);
  });

  it('keeps every key of terms: the Company defines them', () => {
    const terms = { order_id: 'ord_7Hk2', anything: [1, 2.5, true, null, { deep: 'x' }] };
    expect(parseOperation({ ...SEED_OPERATION_WITHOUT_TERMS, terms }).terms).toEqual(terms);
  });

  it('accepts empty terms', () => {
    expect(parseOperation({ ...SEED_OPERATION_WITHOUT_TERMS, terms: {} }).terms).toEqual({});
  });

  it('returns a deep copy: changing the input afterwards changes nothing that was checked', () => {
    const input = seed().operation.value;
    const parsed = parseOperation(input);
    (input.terms.price_difference as { amount: string }).amount = '0.01';
    input.summary = 'changed';
    expect(parsed.summary).toBe(seed().operation.value.summary);
    expect(parsed.terms).toEqual(seed().operation.value.terms);
  });

  it('keeps a terms member named __proto__ as a member, never as a prototype', () => {
    const parsed = parseOperation(JSON.parse(`{"operation_id":"a","revision":"b","summary":"s","expires_at":"2026-10-08T12:20:00Z","terms":{"__proto__":{"x":1}}}`));
    expect(Object.getPrototypeOf(parsed.terms)).toBe(Object.prototype);
    expect(Object.keys(parsed.terms ?? {})).toEqual(['__proto__']);
  });

  it('keeps the summary as the Company wrote it: Markdown, links and HTML are for the renderer to neutralise', () => {
    const summary = '**Exchange** [here](https://evil.example) <img src=x onerror=alert(1)>';
    expect(parseOperation({ ...SEED_OPERATION_WITHOUT_TERMS, summary }).summary).toBe(summary);
  });

  it('names every failing field in one message', () => {
    expect(() => parseOperation({ operation_id: 'exc 1', summary: '' })).toThrow(
      /operation\.operation_id: expected 1-256 .*; operation\.revision: expected .*, got nothing; operation\.summary: expected a non-empty string/,
    );
  });

  it('throws CountersignError with the zod error as cause', () => {
    try {
      parseOperation({});
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(CountersignError);
      expect((error as CountersignError).code).toBe('ERR_OPERATION_INVALID');
      expect((error as CountersignError).cause).toBeDefined();
    }
  });

  it('exports the zod schema, which agrees with parseOperation', () => {
    expect(operationSchema.parse(seed().operation.value)).toEqual(seed().operation.value);
    expect(operationSchema.safeParse({}).success).toBe(false);
  });
});

describe('section 3 the operation: expires_at (RFC 3339)', () => {
  const valid: [string, string][] = [
    ['the seed, with a negative offset', '2026-10-08T12:20:00-07:00'],
    ['Z', '2026-10-08T19:20:00Z'],
    ['lower-case t and z (RFC 3339 section 5.6 note)', '2026-10-08t19:20:00z'],
    ['a fraction of a second', '2026-10-08T19:20:00.123456789Z'],
    ['the unknown-local-offset form -00:00', '2026-10-08T19:20:00-00:00'],
    ['offset +14:00', '2026-10-09T09:20:00+14:00'],
    ['February 29 of a leap year', '2028-02-29T00:00:00Z'],
    ['February 29, 2000 (divisible by 400)', '2000-02-29T00:00:00Z'],
    ['a leap second at the end of a month, UTC', '2016-12-31T23:59:60Z'],
    ['a leap second at the end of a month, local time', '2016-12-31T18:59:60-05:00'],
  ];
  for (const [name, value] of valid) {
    it(`accepts ${name}: ${value}`, () => {
      expect(parseOperation({ ...SEED_OPERATION_WITHOUT_TERMS, expires_at: value }).expires_at).toBe(value);
    });
  }

  it('expiresAtMs gives the instant: the seed is 19:20 UTC', () => {
    expect(expiresAtMs(parseOperation(SEED_OPERATION_WITHOUT_TERMS))).toBe(Date.UTC(2026, 9, 8, 19, 20, 0));
  });

  it('expiresAtMs truncates fractions to milliseconds, never rounding past the instant', () => {
    expect(expiresAtMs({ expires_at: '2026-10-08T19:20:00.9999Z' })).toBe(Date.UTC(2026, 9, 8, 19, 20, 0, 999));
  });

  it('expiresAtMs counts a leap second as the last millisecond of its day', () => {
    expect(expiresAtMs({ expires_at: '2016-12-31T23:59:60.5Z' })).toBe(Date.UTC(2016, 11, 31, 23, 59, 59, 999));
  });

  it('expiresAtMs handles years before 100 (Date.UTC would map them to 19xx)', () => {
    expect(new Date(expiresAtMs({ expires_at: '0050-01-01T00:00:00Z' })).toISOString()).toBe('0050-01-01T00:00:00.000Z');
  });

  it('expiresAtMs agrees with Date.parse wherever Date.parse reads RFC 3339', () => {
    for (const value of ['2026-10-08T12:20:00-07:00', '2026-01-01T00:00:00.5+05:30', '1999-12-31T23:59:59Z']) {
      expect(expiresAtMs({ expires_at: value })).toBe(Date.parse(value));
    }
  });

  it('expiresAtMs refuses a value that is not RFC 3339', () => {
    expect(() => expiresAtMs({ expires_at: '2026-10-08' })).toThrow(CountersignError);
  });

  it('checkRfc3339 says why a date is not real', () => {
    expect(checkRfc3339('2026-02-30T00:00:00Z')).toEqual({ ok: false, reason: expect.stringMatching(/February 2026 has no day 30/) });
  });
});
