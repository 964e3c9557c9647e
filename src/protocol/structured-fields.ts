import {
  DisplayString,
  Token,
  parseDictionary,
  parseItem,
  parseList,
  serializeDictionary,
  serializeItem,
  serializeList,
  type BareItem,
  type Dictionary,
  type DictionaryObject,
  type InnerList,
  type Item,
  type List,
  type Parameters,
} from 'structured-headers';
import { CountersignError, type ErrorCode } from './errors';

/**
 * RFC 9651 Structured Field Values, through the `structured-headers` package. These thin
 * wrappers are the only place src/protocol calls the package: they turn its errors into
 * CountersignError (the package's error in `cause`) and add the input checks RFC 9651 asks of a
 * parser that the package leaves to its caller. The HTTP WG test suite runs against these
 * wrappers (test/protocol/structured-field-tests.test.ts).
 */

export { DisplayString, Token };
export type { BareItem, Dictionary, DictionaryObject, InnerList, Item, List, Parameters };

export interface FieldOptions {
  /** The field's name, for messages (`Poppy-Approval`). */
  field?: string;
  /** The code to throw; ERR_STRUCTURED_FIELD_INVALID when the caller has no field-specific one. */
  code?: ErrorCode;
}

function fail(options: FieldOptions | undefined, what: string, cause?: unknown): never {
  const field = options?.field ?? 'structured field';
  throw new CountersignError(options?.code ?? 'ERR_STRUCTURED_FIELD_INVALID', `${field}: ${what}`, cause === undefined ? undefined : { cause });
}

/** Only ASCII: RFC 9651 section 4.2 step 1 ("convert input_bytes into an ASCII string; if conversion fails, fail parsing"). */
// The whole ASCII range, NUL included, is what this pattern excludes.
// eslint-disable-next-line no-control-regex
const NOT_ASCII = /[^\x00-\x7F]/;

function checkInput(value: unknown, kind: string, options: FieldOptions | undefined): string {
  if (typeof value !== 'string') fail(options, `expected the field value as a string, got ${value === null ? 'null' : typeof value}`);
  if (NOT_ASCII.test(value)) fail(options, `expected an RFC 9651 ${kind} (ASCII only), got a non-ASCII character`);
  return value;
}

/**
 * structured-headers 2.1.0 reads a Date (`@1659578233`, RFC 9651 section 3.3.7) only at the very
 * end of a field: its Date parser consumes every character to the end and fails on the first that
 * is not a digit, so `a=@1659578233, b=1` is refused although RFC 9651 allows it. A Poppy-Approval
 * with a later version's Date member would then be refused, when "Companies MUST ignore members
 * of Poppy-Approval they don't recognize" (section 6). Until the package reads Dates in place,
 * each Date outside a String or Display String is swapped for a Token that cannot otherwise occur
 * (a random prefix per call) before parsing, and swapped back into a Date afterwards. Anything
 * that is not a whole Date (`@1.5`, `@x`) is left for the package to refuse.
 */
interface DateSwap {
  text: string;
  restore<T>(parsed: T, kind: string): T;
}

function swapDates(input: string): DateSwap {
  if (!input.includes('@')) return { text: input, restore: (parsed) => parsed };
  const prefix = `date${Math.random().toString(36).slice(2, 12)}_`;
  let text = '';
  for (let i = 0; i < input.length; i++) {
    const char = input[i] as string;
    const quoted = char === '"' ? i : char === '%' && input[i + 1] === '"' ? i + 1 : -1;
    if (quoted !== -1) {
      // Copy a String or Display String whole: an @ inside is text, not a Date.
      let end = quoted + 1;
      while (end < input.length && input[end] !== '"') end += input[end] === '\\' ? 2 : 1;
      text += input.slice(i, end + 1);
      i = end;
      continue;
    }
    const date = char === '@' ? /^@(-?)([0-9]{1,15})(?![0-9A-Za-z!#$%&'*+.^_`|~:/-])/.exec(input.slice(i)) : null;
    if (date === null) {
      text += char;
      continue;
    }
    text += `${prefix}${date[1] === '-' ? 'm' : 'p'}${date[2]}`;
    i += date[0].length - 1;
  }
  const back = (bare: unknown): unknown => {
    if (!(bare instanceof Token) || !bare.toString().startsWith(prefix)) return bare;
    const digits = bare.toString().slice(prefix.length);
    return new Date(Number(digits.slice(1)) * (digits.startsWith('m') ? -1000 : 1000));
  };
  const params = (map: unknown): unknown => (map instanceof Map ? new Map([...(map as Map<string, unknown>)].map(([k, v]) => [k, back(v)])) : map);
  const item = (member: unknown): unknown => {
    if (!Array.isArray(member)) return member;
    const [bare, parameters] = member as [unknown, unknown];
    return [Array.isArray(bare) ? bare.map(item) : back(bare), params(parameters)];
  };
  return {
    text,
    restore: <T>(parsed: T, kind: string): T => {
      if (kind === 'Dictionary') return new Map([...(parsed as Map<string, unknown>)].map(([k, v]) => [k, item(v)])) as T;
      if (kind === 'List') return (parsed as unknown[]).map(item) as T;
      return item(parsed) as T;
    },
  };
}

function parseWithPackage<T>(parse: (input: string) => T, value: unknown, kind: string, options: FieldOptions | undefined): T {
  const input = checkInput(value, kind, options);
  try {
    const swap = swapDates(input);
    return swap.restore(parse(swap.text), kind);
  } catch (cause) {
    const detail = cause instanceof Error ? ` (${cause.message})` : '';
    return fail(options, `expected an RFC 9651 ${kind}${detail}`, cause);
  }
}

/** Parse a Dictionary field value (RFC 9651 section 4.2.2). A duplicate key keeps its last value, as the RFC says. */
export function parseDictionaryField(value: string, options?: FieldOptions): Dictionary {
  return parseWithPackage(parseDictionary, value, 'Dictionary', options);
}

/** Parse a List field value (RFC 9651 section 4.2.1). */
export function parseListField(value: string, options?: FieldOptions): List {
  return parseWithPackage(parseList, value, 'List', options);
}

/** Parse an Item field value (RFC 9651 section 4.2.3). */
export function parseItemField(value: string, options?: FieldOptions): Item {
  return parseWithPackage(parseItem, value, 'Item', options);
}

function serializeWithPackage<T>(serialize: (input: T) => string, value: T, kind: string, options: FieldOptions | undefined): string {
  try {
    return serialize(value);
  } catch (cause) {
    const detail = cause instanceof Error ? ` (${cause.message})` : '';
    return fail(options, `cannot serialise this value as an RFC 9651 ${kind}${detail}`, cause);
  }
}

/** Serialise a Dictionary (RFC 9651 section 4.1.2). */
export function serializeDictionaryField(value: Dictionary | DictionaryObject, options?: FieldOptions): string {
  return serializeWithPackage(serializeDictionary, value, 'Dictionary', options);
}

/** Serialise a List (RFC 9651 section 4.1.1). */
export function serializeListField(value: List, options?: FieldOptions): string {
  return serializeWithPackage(serializeList, value, 'List', options);
}

/** Serialise an Item (RFC 9651 section 4.1.3). */
export function serializeItemField(value: Item, options?: FieldOptions): string {
  return serializeWithPackage((item: Item) => serializeItem(item), value, 'Item', options);
}

/**
 * The member names of a Dictionary field value in the order they appear, duplicates included.
 *
 * RFC 9651 keeps the last value of a repeated key, and the package's Map can't show that there
 * was a repeat. A field that must not be ambiguous (Poppy-Approval) needs to see it, so this
 * re-reads the raw value. It first parses the value with parseDictionaryField, so the scan runs
 * only on text that is a valid Dictionary, where it only has to find where each member starts:
 * at the beginning and after every comma that is outside a String and a Display String (commas
 * can't appear in keys, Tokens, numbers, Byte Sequences or inner lists outside those).
 */
export function dictionaryMemberNames(value: string, options?: FieldOptions): string[] {
  parseDictionaryField(value, options);
  const names: string[] = [];
  const key = /[a-z*][a-z0-9_.*-]*/y;
  let pos = 0;
  const skipBlanks = (): void => {
    while (value[pos] === ' ' || value[pos] === '\t') pos++;
  };
  skipBlanks();
  while (pos < value.length) {
    key.lastIndex = pos;
    const m = key.exec(value);
    if (m === null) fail(options, 'expected an RFC 9651 Dictionary (a member name was expected)');
    names.push(m[0]);
    pos += m[0].length;
    while (pos < value.length && value[pos] !== ',') {
      const c = value[pos];
      if (c === '"') {
        // A String: backslash escapes the next character (RFC 9651 section 4.2.5).
        pos++;
        while (pos < value.length && value[pos] !== '"') pos += value[pos] === '\\' ? 2 : 1;
        pos++;
      } else if (c === '%' && value[pos + 1] === '"') {
        // A Display String: no backslash escapes, `"` is written %22 (RFC 9651 section 4.2.10).
        pos += 2;
        while (pos < value.length && value[pos] !== '"') pos++;
        pos++;
      } else {
        pos++;
      }
    }
    pos++; // the comma
    skipBlanks();
  }
  return names;
}

/** The RFC 9651 type name of a bare item or member value, for "expected a String, got a Token" messages. */
export function structuredTypeName(value: BareItem | Item[]): string {
  if (Array.isArray(value)) return 'an Inner List';
  if (typeof value === 'string') return 'a String';
  if (typeof value === 'boolean') return 'a Boolean';
  if (typeof value === 'number') return Number.isInteger(value) ? 'an Integer' : 'a Decimal';
  if (value instanceof Token) return 'a Token';
  if (value instanceof DisplayString) return 'a Display String';
  if (value instanceof Date) return 'a Date';
  return 'a Byte Sequence';
}
