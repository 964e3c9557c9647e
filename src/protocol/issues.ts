/**
 * Helpers of the guard clauses and schemas in src/protocol (not re-exported). Every public entry
 * parses with `parseWith` (parse-with.ts), so callers only ever see CountersignError, whose
 * message names the field and says what was expected and what came instead
 * (describe-zod-error.ts), and keeps zod's error in `cause`.
 */

/**
 * A zod error map that says what was expected. Used as `{ error: expected('a non-empty string') }`
 * on a schema; describeZodError adds what came instead ("got nothing" for a missing member).
 */
export function expected(description: string): () => string {
  return () => `expected ${description}`;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const MAX_KEY_IN_MESSAGE = 40;

/** `operation.terms["odd key"][2]`: a path a reader can follow, with untrusted keys quoted and cut short. */
export function formatPath(root: string, path: readonly PropertyKey[]): string {
  let out = root;
  for (const key of path) {
    if (typeof key === 'number') {
      out += `[${key}]`;
    } else if (typeof key === 'string' && IDENTIFIER.test(key) && key.length <= MAX_KEY_IN_MESSAGE) {
      out += out === '' ? key : `.${key}`;
    } else {
      const text = String(key);
      const shown = text.length > MAX_KEY_IN_MESSAGE ? `${text.slice(0, MAX_KEY_IN_MESSAGE)}…` : text;
      out += `[${JSON.stringify(shown)}]`;
    }
  }
  return out;
}

/** Object test shared by the guard clauses: not null, not an array. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !isArray(value);
}

/** Array.isArray, except that a revoked Proxy (on which it throws) counts as "not an array". */
function isArray(value: unknown): boolean {
  try {
    return Array.isArray(value);
  } catch {
    return false;
  }
}

/** A short name for the JSON type of a value, for "expected an object, got an array" messages. */
export function jsonTypeName(value: unknown): string {
  if (value === null) return 'null';
  if (isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return 'a string';
    case 'number':
      return 'a number';
    case 'boolean':
      return 'a boolean';
    case 'undefined':
      return 'nothing';
    case 'object':
      return 'an object';
    default:
      return `a ${typeof value}`;
  }
}

function counted(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/**
 * A number as written (a bound the caller passed is no secret, and "got 1.5" says more than "got a
 * number"); anything else as `describeValue` says it.
 */
export function describeNumber(value: unknown): string {
  return typeof value === 'number' ? String(value) : describeValue(value);
}

/**
 * What a message says was got instead: the JSON type, with the length of a string or an array.
 * Never the value itself: values hold nonces, signatures and text a Company wrote.
 */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return `a string of ${counted(value.length, 'character')}`;
  const type = jsonTypeName(value);
  return type === 'an array' ? `an array of ${counted((value as readonly unknown[]).length, 'item')}` : type;
}
