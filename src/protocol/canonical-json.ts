import { CountersignError } from './errors';
import { JsonProblem, copyJson, type JsonValue } from './json';
import { formatPath } from './issues';

/**
 * RFC 8785 JSON Canonicalization Scheme (JCS). Decisions hash `terms` with it, so the Personal
 * Agent, the extension and any verifier get the same bytes for the same data, whatever order the
 * Company wrote the members in.
 *
 * - Members are sorted by their names as arrays of UTF-16 code units (RFC 8785 section 3.2.3),
 *   which is what JavaScript's `<` on strings compares.
 * - Numbers are written as ECMAScript's Number.prototype.toString writes them (section 3.2.2.3);
 *   `JSON.stringify` of a finite number is exactly that, and writes -0 as 0.
 * - Strings are written as `JSON.stringify` writes them (section 3.2.2.2): the short escapes,
 *   other controls as lower-case \u00xx, everything else as is.
 * - No whitespace.
 *
 * Input that is not I-JSON (RFC 7493) is refused with ERR_ARGUMENT_INVALID instead of being
 * changed: NaN, Infinity, undefined, functions, bigint, class instances, cycles, holes, unpaired
 * surrogates.
 */
export function canonicalJson(value: unknown): string {
  let data: JsonValue;
  try {
    data = copyJson(value);
  } catch (cause) {
    const reason = cause instanceof JsonProblem ? `${formatPath('value', cause.path)}: ${cause.reason}` : 'value: expected JSON data, got a value that cannot be read';
    throw new CountersignError('ERR_ARGUMENT_INVALID', `canonicalJson: ${reason}`, { cause });
  }
  return write(data);
}

function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * An object's members in canonical order (RFC 8785 section 3.2.3): the order they are hashed in,
 * and the order the approval window lists a tool call's arguments in. A name made of digits sorts
 * as the text it is ("10" before "9"), not ahead of the others as JavaScript's own order puts it.
 */
export function canonicalEntries<T>(object: Record<string, T>): Array<[string, T]> {
  return Object.keys(object)
    .sort(byCodeUnits)
    .map((key) => [key, object[key] as T]);
}

function write(value: JsonValue): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(write).join(',')}]`;
  const members = canonicalEntries(value).map(([key, member]) => `${JSON.stringify(key)}:${write(member)}`);
  return `{${members.join(',')}}`;
}

/**
 * Equal as JSON data: the same canonical JSON (RFC 8785), so member order, a prototype-less
 * object (a parser's) and number spelling do not matter. Refuses non-JSON as canonicalJson does.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}
