import { CountersignError, type ErrorCode } from './errors';
import { formatPath } from './issues';
import { MAX_JSON_DEPTH } from './limits';

/**
 * JSON data as the operations extension carries it (`terms`, section 3) and as canonicalJson
 * serialises it. Values from `JSON.parse` always fit; values built in code may not (undefined,
 * NaN, class instances, cycles), and those are refused rather than silently changed the way
 * `JSON.stringify` changes them: what the User is shown and what is hashed must be the same data.
 */
export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

/** Why a value is not JSON data, and where. Internal: public entries turn it into a CountersignError. */
export class JsonProblem extends Error {
  constructor(
    readonly path: (string | number)[],
    readonly reason: string,
  ) {
    super(reason);
    this.name = 'JsonProblem';
  }
}

const hasIsWellFormed = typeof (String.prototype as { isWellFormed?: unknown }).isWellFormed === 'function';
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Strings must be well-formed Unicode: I-JSON (RFC 7493 section 2.1), which RFC 8785 requires,
 * forbids unpaired surrogates, and a hash over text the User saw must have one meaning.
 */
export function isWellFormedText(value: string): boolean {
  // String.prototype.isWellFormed (ES2024) answers the same without a regular expression with
  // look-behind; the pattern stays for the engines older than Chrome 111 and Firefox 119.
  return hasIsWellFormed ? (value as { isWellFormed(): boolean } & string).isWellFormed() : !UNPAIRED_SURROGATE.test(value);
}

/**
 * A plain object: `{}` or `Object.create(null)`, also from another realm (an iframe, a vm
 * context), but not an instance of a class (Date, Map, a zod result class...), whose prototype
 * chain is longer.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === null || Object.getPrototypeOf(proto) === null;
}

function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'object' && value !== null) {
    const name = (Object.getPrototypeOf(value) as { constructor?: { name?: unknown } } | null)?.constructor?.name;
    return typeof name === 'string' && name !== '' ? `a ${name}` : 'a non-plain object';
  }
  return `a ${typeof value}`;
}

/**
 * Check that `value` is JSON data and return a deep copy of it, so that later changes to the
 * caller's object cannot change what was checked. Throws JsonProblem.
 */
export function copyJson(value: unknown, path: (string | number)[] = [], ancestors: object[] = []): JsonValue {
  // One path and one ancestor list, pushed and popped on the way down, instead of new arrays for
  // every member: the bridge copies every approval request's terms (docs/bridge-protocol.md).
  return copyAt(value, [...path], [...ancestors]);
}

/** copyJson's walk; `path` and `ancestors` are the caller's own stacks, as they were on return. */
function copyAt(value: unknown, path: (string | number)[], ancestors: object[]): JsonValue {
  switch (typeof value) {
    case 'string':
      if (!isWellFormedText(value)) throw new JsonProblem([...path], 'expected well-formed Unicode text, got an unpaired surrogate');
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw new JsonProblem([...path], `expected a finite number, got ${describe(value)}`);
      return value;
    case 'boolean':
      return value;
    case 'object':
      break;
    default:
      throw new JsonProblem([...path], `expected JSON data, got ${describe(value)}`);
  }
  if (value === null) return null;
  if (ancestors.includes(value)) throw new JsonProblem([...path], 'expected JSON data, got a cycle (the value contains itself)');
  if (ancestors.length >= MAX_JSON_DEPTH) throw new JsonProblem([...path], `expected at most ${MAX_JSON_DEPTH} levels of nesting, got more`);
  if (Array.isArray(value)) {
    ancestors.push(value);
    const out: JsonValue[] = [];
    for (let i = 0; i < value.length; i++) {
      path.push(i);
      if (!(i in value)) throw new JsonProblem([...path], 'expected JSON data, got a hole in an array');
      out.push(copyAt(value[i], path, ancestors));
      path.pop();
    }
    ancestors.pop();
    return out;
  }
  if (!isPlainObject(value)) throw new JsonProblem([...path], `expected JSON data, got ${describe(value)}`);
  if (Object.getOwnPropertySymbols(value).length > 0) throw new JsonProblem([...path], 'expected JSON data, got an object with symbol keys');
  ancestors.push(value);
  const out: JsonObject = {};
  for (const key of Object.keys(value)) {
    if (!isWellFormedText(key)) throw new JsonProblem([...path], 'expected well-formed Unicode member names, got one with an unpaired surrogate');
    path.push(key);
    const copy = copyAt(value[key], path, ancestors);
    path.pop();
    // A member named "__proto__" (JSON.parse makes one) must stay a member and never become the
    // copy's prototype: defined, not assigned. Any other name is assigned, which is faster and
    // the same on a fresh object.
    if (key === '__proto__') Object.defineProperty(out, key, { value: copy, enumerable: true, writable: true, configurable: true });
    else out[key] = copy;
  }
  ancestors.pop();
  return out;
}

/**
 * copyJson for public callers: JsonProblem becomes a CountersignError naming `root` and the path.
 * ERR_ARGUMENT_INVALID by default: the value is the caller's; a parser of a wire format passes
 * its own code.
 */
export function toJsonValue(value: unknown, code: ErrorCode = 'ERR_ARGUMENT_INVALID', root = 'value'): JsonValue {
  try {
    return copyJson(value);
  } catch (cause) {
    if (cause instanceof JsonProblem) throw new CountersignError(code, `${formatPath(root, cause.path)}: ${cause.reason}`, { cause });
    throw new CountersignError(code, `${root}: expected JSON data, got a value that cannot be read`, { cause });
  }
}
