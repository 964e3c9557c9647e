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

function parseWithPackage<T>(parse: (input: string) => T, value: unknown, kind: string, options: FieldOptions | undefined): T {
  const input = checkInput(value, kind, options);
  try {
    return parse(input);
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
