import type * as z from 'zod';
import { describeValue, formatPath } from './issues';

/**
 * The one way a zod error becomes the text of a CountersignError, in the one style of every
 * validation failure: `<field path>: expected <what>, got <what>`, for example
 * `operation.summary: expected at most 10000 characters, got 10001 characters`.
 *
 * What is expected comes from the schema (`{ error: 'expected ...' }`, issues.ts `expected`), or
 * from the issue itself for schemas that say nothing. What was got comes from the issue's input,
 * which zod keeps only when the parse asked for it: parse with `{ reportInput: true }`. It is
 * described by type and size, never echoed, because inputs hold nonces, signatures and text a
 * Company wrote, and messages travel to logs and other processes.
 */
export function describeZodError(error: { readonly issues: readonly z.core.$ZodIssue[] }, root: string): string {
  const issues = error.issues;
  const lines = issues.slice(0, MAX_ISSUES_IN_MESSAGE).map((issue) => `${formatPath(root, issue.path)}: ${describeIssue(issue)}`);
  const more = issues.length - MAX_ISSUES_IN_MESSAGE;
  return more > 0 ? `${lines.join('; ')} (and ${more} more)` : lines.join('; ');
}

/** At most this many problems are listed in one message; the rest are in the error's `cause`. */
const MAX_ISSUES_IN_MESSAGE = 3;

/** Most members the message names for one unrecognized_keys issue. */
const MAX_KEYS_IN_MESSAGE = 3;

function describeIssue(issue: z.core.$ZodIssue): string {
  const expectation = issue.message.startsWith('expected ') ? issue.message : expectationOf(issue);
  // A schema message may say what it got already ("got only blanks"): said once is enough.
  if (/\bgot\b/.test(expectation)) return expectation;
  if (issue.code === 'unrecognized_keys') return `${expectation}, got ${unknownMembers(issue.keys)}`;
  if (!('input' in issue)) return expectation;
  return `${expectation}, got ${describeInput(issue, expectation)}`;
}

/** "expected ..." for an issue whose schema gave no message of its own (zod's English default is not our style). */
function expectationOf(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return `expected ${TYPE_NAMES[issue.expected] ?? issue.expected}`;
    case 'too_big':
      return `expected ${issue.inclusive === false ? 'less than' : 'at most'} ${issue.maximum.toString()}${unitOf(issue.origin)}`;
    case 'too_small':
      return `expected ${issue.inclusive === false ? 'more than' : 'at least'} ${issue.minimum.toString()}${unitOf(issue.origin)}`;
    case 'invalid_value':
      // The schema's own constants, never the input.
      return `expected ${issue.values.map((v) => (typeof v === 'string' ? JSON.stringify(v) : String(v))).join(' or ')}`;
    case 'unrecognized_keys':
      return 'expected no other members';
    case 'invalid_format':
      return `expected ${issue.format === 'regex' ? 'the format this field has' : `a ${issue.format}`}`;
    case 'not_multiple_of':
      return `expected a multiple of ${issue.divisor.toString()}`;
    case 'invalid_union':
      return 'expected one of the shapes this field may have';
    default:
      return 'expected a valid value';
  }
}

const TYPE_NAMES: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  record: 'an object',
  null: 'null',
  undefined: 'nothing',
};

function unitOf(origin: string): string {
  if (origin === 'string') return ' characters';
  if (origin === 'array' || origin === 'set') return ' items';
  return '';
}

/**
 * The input by type and size. A length rule is answered with the length; a value of the right
 * type that breaks another rule (a pattern, a refinement) is said to be of that type "that is not".
 */
function describeInput(issue: z.core.$ZodIssue, expectation: string): string {
  const input = issue.input;
  const described = describeValue(input);
  const lengthRule = issue.code === 'too_big' || issue.code === 'too_small' || /\bat (most|least) \d+ (characters|items)\b/.test(expectation);
  if (lengthRule && typeof input === 'string') return `${input.length} characters`;
  if (lengthRule && described.startsWith('an array of ')) return described.slice('an array of '.length);
  if (issue.code === 'invalid_type' || input === undefined) return described;
  return `${described} that is not`;
}

/** Names of members the schema does not know, as paths show them (quoted and cut when odd). */
function unknownMembers(keys: readonly string[]): string {
  const shown = keys.slice(0, MAX_KEYS_IN_MESSAGE).map((key) => formatPath('', [key]));
  const more = keys.length > MAX_KEYS_IN_MESSAGE ? ` and ${keys.length - MAX_KEYS_IN_MESSAGE} more` : '';
  return `${keys.length === 1 ? 'member' : 'members'} ${shown.join(', ')}${more}`;
}
