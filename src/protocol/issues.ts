import type { z } from 'zod';
import { CountersignError, type ErrorCode } from './errors';

/**
 * How zod problems become CountersignErrors. Internal to src/protocol (not re-exported): every
 * public entry parses with `parseWith`, so callers only ever see CountersignError, whose message
 * names the field (`operation.revision: expected ...`) and keeps zod's error in `cause`.
 */

/**
 * A zod error map that says what was expected, and "missing" when the member is absent. Used as
 * `{ error: expected('a non-empty string') }` on a schema.
 */
export function expected(description: string): (issue: { input?: unknown }) => string {
  return (issue) => (issue.input === undefined ? `missing; expected ${description}` : `expected ${description}`);
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

/** At most this many problems are listed in one message; the rest are in `cause`. */
const MAX_ISSUES_IN_MESSAGE = 3;

export function formatIssues(root: string, issues: readonly z.core.$ZodIssue[]): string {
  const lines = issues.slice(0, MAX_ISSUES_IN_MESSAGE).map((issue) => `${formatPath(root, issue.path)}: ${issue.message}`);
  const more = issues.length - MAX_ISSUES_IN_MESSAGE;
  return more > 0 ? `${lines.join('; ')} (and ${more} more)` : lines.join('; ');
}

/**
 * Parse `value` with `schema`, or throw a CountersignError with `code`. `root` names the value in
 * messages (`operation`, `structuredContent.operation`). Anything else that goes wrong while
 * reading the input (a getter that throws, a revoked proxy) is wrapped too: a guard clause must
 * never let a foreign error out.
 */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, code: ErrorCode, root: string): z.output<S> {
  let result: ReturnType<S['safeParse']>;
  try {
    result = schema.safeParse(value) as ReturnType<S['safeParse']>;
  } catch (cause) {
    throw new CountersignError(code, `${root}: could not be read as JSON data`, { cause });
  }
  if (result.success) return result.data as z.output<S>;
  throw new CountersignError(code, formatIssues(root, result.error.issues), { cause: result.error });
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
