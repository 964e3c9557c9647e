import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  CountersignError,
  DisplayString,
  Token,
  dictionaryMemberNames,
  parseDictionaryField,
  parseItemField,
  parseListField,
  serializeDictionaryField,
  serializeItemField,
  serializeListField,
  type BareItem,
  type Dictionary,
  type InnerList,
  type Item,
  type List,
  type Parameters,
} from '../../src/protocol';

/**
 * RFC 9651 (section 6's Poppy-Approval and section 2's Poppy-Extensions rest on it): the HTTP WG
 * structured-field tests, run against src/protocol/structured-fields.ts. Format per the upstream
 * README (test/fixtures/structured-field-tests/README.md).
 */

const FILES = ['dictionary.json', 'param-dict.json', 'key-generated.json', 'string.json', 'string-generated.json', 'examples.json', 'date.json', 'display-string.json'] as const;

type HeaderType = 'item' | 'list' | 'dictionary';
interface SfRecord {
  name: string;
  raw: string[];
  header_type: HeaderType;
  expected?: unknown;
  must_fail?: boolean;
  can_fail?: boolean;
  canonical?: string[];
}

function load(file: string): SfRecord[] {
  const url = new URL(`../fixtures/structured-field-tests/${file}`, import.meta.url);
  return JSON.parse(readFileSync(fileURLToPath(url), 'utf8')) as SfRecord[];
}

/**
 * Records whose `expected` value `structured-headers` cannot serialise to the canonical text, for
 * the two reasons its README documents:
 * - a Decimal with a zero fraction (`1.0`): JavaScript has one number type, so 1.0 is written `1`;
 * - rounding a Decimal to three places is not round-half-to-even.
 * Only the serialisation half of these records is skipped; parsing is still checked. The list is
 * computed, not guessed: the test "skip list is exact" below fails if a record is listed here but
 * has no such Decimal, or has one and isn't listed. Of the package's 44 deviations across the
 * whole suite, 2 fall in the eight files we run (none of the 3 rounding ones).
 */
const DECIMAL_ZERO_FRACTION = 'structured-headers writes the Decimal 1.0 as 1 (JavaScript has one number type; its README, "Compatibility" 1)';
const SERIALISATION_SKIPS: Record<string, string> = {
  'param-dict.json: single item parameterised dict': DECIMAL_ZERO_FRACTION,
  'param-dict.json: list item parameterised dictionary': DECIMAL_ZERO_FRACTION,
};

/**
 * Dates RFC 9651 allows (15 digits of seconds) beyond the ±8.64e12 seconds a JavaScript Date can
 * hold, so structured-headers, which returns Dates, cannot represent them either way.
 */
const BEYOND_JS_DATE = new Set(['date.json: syntactic max date - 999,999,999,999,999', 'date.json: syntactic min date - -999,999,999,999,999']);

// ---- the JSON mapping of the upstream README ----------------------------------------------------

type Typed = { __type: 'token' | 'binary' | 'date' | 'displaystring'; value: string | number };

function isTyped(value: unknown): value is Typed {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && '__type' in value;
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 section 6 base32, as the upstream README's `binary` type uses it. */
function base32Decode(text: string): Uint8Array<ArrayBuffer> {
  const bytes: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const c of text.replace(/=+$/, '')) {
    const index = BASE32.indexOf(c);
    if (index < 0) throw new Error(`not base32: ${c}`);
    buffer = (buffer << 5) | index;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((buffer >> bits) & 0xff);
    }
  }
  return new Uint8Array(bytes);
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** A comparable form of a bare item: Tokens and other classes as tagged objects, bytes as hex, -0 as 0. */
type Plain = number | string | boolean | { type: string; value: string | number };

function plainFromExpected(value: unknown): Plain {
  if (isTyped(value)) {
    if (value.__type === 'binary') return { type: 'binary', value: hex(base32Decode(String(value.value))) };
    return { type: value.__type, value: value.value };
  }
  if (typeof value === 'number') return value === 0 ? 0 : value;
  return value as string | boolean;
}

function plainFromParsed(value: BareItem): Plain {
  if (value instanceof Token) return { type: 'token', value: value.toString() };
  if (value instanceof DisplayString) return { type: 'displaystring', value: value.toString() };
  if (value instanceof Date) return { type: 'date', value: value.getTime() / 1000 };
  if (value instanceof ArrayBuffer) return { type: 'binary', value: hex(new Uint8Array(value)) };
  if (ArrayBuffer.isView(value)) return { type: 'binary', value: hex(new Uint8Array(value.buffer, value.byteOffset, value.byteLength)) };
  if (typeof value === 'number') return value === 0 ? 0 : value;
  return value;
}

type JsonParams = [string, unknown][];
type JsonItem = [unknown, JsonParams];
type JsonInnerList = [JsonItem[], JsonParams];

const isJsonInnerList = (member: JsonItem | JsonInnerList): member is JsonInnerList => Array.isArray(member[0]);
const isInnerList = (member: Item | InnerList): member is InnerList => Array.isArray(member[0]);

const expectedParams = (params: JsonParams): [string, Plain][] => params.map(([k, v]) => [k, plainFromExpected(v)]);
const expectedItem = ([bare, params]: JsonItem) => [plainFromExpected(bare), expectedParams(params)];
const expectedMember = (m: JsonItem | JsonInnerList) =>
  isJsonInnerList(m) ? [m[0].map(expectedItem), expectedParams(m[1])] : expectedItem(m);

const parsedParams = (params: Parameters): [string, Plain][] => Array.from(params, ([k, v]) => [k, plainFromParsed(v)]);
const parsedItem = ([bare, params]: Item) => [plainFromParsed(bare), parsedParams(params)];
const parsedMember = (m: Item | InnerList) => (isInnerList(m) ? [m[0].map(parsedItem), parsedParams(m[1])] : parsedItem(m));

function plainExpected(type: HeaderType, expected: unknown): unknown {
  if (type === 'item') return expectedItem(expected as JsonItem);
  if (type === 'list') return (expected as (JsonItem | JsonInnerList)[]).map(expectedMember);
  return (expected as [string, JsonItem | JsonInnerList][]).map(([k, m]) => [k, expectedMember(m)]);
}

function plainParsed(type: HeaderType, parsed: Item | List | Dictionary): unknown {
  if (type === 'item') return parsedItem(parsed as Item);
  if (type === 'list') return (parsed as List).map(parsedMember);
  return Array.from(parsed as Dictionary, ([k, m]) => [k, parsedMember(m)]);
}

/** The upstream JSON mapping turned into what structured-headers serialises. */
function bareFromExpected(value: unknown): BareItem {
  if (isTyped(value)) {
    switch (value.__type) {
      case 'token':
        return new Token(String(value.value));
      case 'binary':
        return base32Decode(String(value.value));
      case 'date':
        return new Date(Number(value.value) * 1000);
      case 'displaystring':
        return new DisplayString(String(value.value));
    }
  }
  return value as number | string | boolean;
}
const paramsFromExpected = (params: JsonParams): Parameters => new Map(params.map(([k, v]) => [k, bareFromExpected(v)]));
const itemFromExpected = ([bare, params]: JsonItem): Item => [bareFromExpected(bare), paramsFromExpected(params)];
const memberFromExpected = (m: JsonItem | JsonInnerList): Item | InnerList =>
  isJsonInnerList(m) ? [m[0].map(itemFromExpected), paramsFromExpected(m[1])] : itemFromExpected(m);

function parse(type: HeaderType, value: string): Item | List | Dictionary {
  if (type === 'item') return parseItemField(value);
  if (type === 'list') return parseListField(value);
  return parseDictionaryField(value);
}

function serialize(type: HeaderType, expected: unknown): string {
  if (type === 'item') return serializeItemField(itemFromExpected(expected as JsonItem));
  if (type === 'list') return serializeListField((expected as (JsonItem | JsonInnerList)[]).map(memberFromExpected));
  return serializeDictionaryField(new Map((expected as [string, JsonItem | JsonInnerList][]).map(([k, m]) => [k, memberFromExpected(m)])));
}

/** Every number in an `expected` value, to find the Decimals the package is known to write differently. */
function numbersIn(value: unknown): number[] {
  if (typeof value === 'number') return [value];
  if (Array.isArray(value)) return value.flatMap(numbersIn);
  return [];
}

/** A Decimal whose canonical text ends in ".0", or that needs round-half-to-even at the third place. */
function hitsKnownDeviation(record: SfRecord): boolean {
  if (record.must_fail || record.expected === undefined) return false;
  const canonical = record.canonical?.[0] ?? record.raw[0] ?? '';
  return /(?<![\w."])-?\d+\.0(?![\d])/.test(canonical.replace(/"(?:[^"\\]|\\.)*"/g, '""')) ||
    numbersIn(record.expected).some((n) => !Number.isInteger(n) && Math.round(n * 1000) / 1000 !== n);
}

// ---- the records ------------------------------------------------------------------------------------

describe('RFC 9651 structured fields (HTTP WG structured-field-tests @ 1e280c3e)', () => {
  for (const file of FILES) {
    describe(file, () => {
      for (const record of load(file)) {
        const input = record.raw.join(', ');
        if (record.must_fail) {
          it(`must fail: ${record.name}`, () => {
            expect(() => parse(record.header_type, input)).toThrow(CountersignError);
          });
          continue;
        }
        const beyond = BEYOND_JS_DATE.has(`${file}: ${record.name}`);
        it.skipIf(beyond)(`parses: ${record.name}${beyond ? ' (skipped: beyond what a JavaScript Date holds)' : ''}`, () => {
          let parsed: Item | List | Dictionary;
          try {
            parsed = parse(record.header_type, input);
          } catch (error) {
            if (record.can_fail) {
              expect(error).toBeInstanceOf(CountersignError);
              return;
            }
            throw error;
          }
          expect(plainParsed(record.header_type, parsed)).toEqual(plainExpected(record.header_type, record.expected));
        });
        const skip = beyond ? 'beyond what a JavaScript Date holds' : SERIALISATION_SKIPS[`${file}: ${record.name}`];
        it.skipIf(skip !== undefined)(`serialises: ${record.name}${skip ? ` (skipped: ${skip})` : ''}`, () => {
          const canonical = record.canonical === undefined ? record.raw[0] : (record.canonical[0] ?? '');
          expect(serialize(record.header_type, record.expected)).toBe(canonical);
        });
      }
    });
  }

  it('skip list is exact: it names every record with a known Decimal deviation, and only those', () => {
    const affected = FILES.flatMap((file) => load(file).filter(hitsKnownDeviation).map((r) => `${file}: ${r.name}`));
    expect(Object.keys(SERIALISATION_SKIPS).sort()).toEqual(affected.sort());
  });
});

describe('RFC 9651 Dictionary member names (the duplicate scan behind Poppy-Approval, section 6)', () => {
  for (const file of FILES) {
    for (const record of load(file)) {
      if (record.header_type !== 'dictionary' || record.must_fail) continue;
      it(`${file}: ${record.name}: names agree with the parser`, () => {
        const input = record.raw.join(', ');
        const names = dictionaryMemberNames(input);
        const parsed = parseDictionaryField(input);
        // First occurrences, in order, are the parser's keys; repeats are only ever extra.
        expect([...new Set(names)]).toEqual([...parsed.keys()]);
      });
    }
  }
});
