import * as z from 'zod';
import { CountersignError } from './errors';
import { idSchema } from './id';
import { describeValue, expected, isObject, jsonTypeName } from './issues';
import { JsonProblem, copyJson, isWellFormedText, type JsonObject } from './json';
import { MAX_SUMMARY_LENGTH } from './limits';
import { parseWith } from './parse-with';
import { RFC3339_RULE, checkRfc3339, instantOf } from './rfc3339';

/**
 * Section 3, "The operation": one action the Company will perform once the User approves it.
 *
 * The Company writes every field; all of it is untrusted content (section 8). Parsing keeps the
 * five members the extension defines and drops the rest, so nothing the Company adds travels
 * further as if it had been checked.
 */

/**
 * Marks the summary's length issue, so a message refused for it gets ERR_SUMMARY_TOO_LONG
 * (bridge-messages.ts) rather than the general code: a caller can act on "too long to show", and the
 * extension tells the person about it, which it does for no other malformed operation.
 */
const SUMMARY_TOO_LONG = 'summary-too-long';

/** `summary`: the terms in plain language, which the User decides from (section 3, 5). */
const summarySchema = z
  .string({ error: expected('a non-empty string (the terms in plain language)') })
  // A summary with nothing to read cannot be shown to the User for a decision (section 5).
  .refine((s) => s.trim() !== '', { error: 'expected a non-empty string (the terms in plain language), got only blanks' })
  .refine((s) => s.length <= MAX_SUMMARY_LENGTH, { error: `expected at most ${MAX_SUMMARY_LENGTH} characters`, params: { rule: SUMMARY_TOO_LONG } })
  // Hashed into the decision and shown to the User: one text, one meaning.
  .refine(isWellFormedText, { error: 'expected well-formed Unicode text, got an unpaired surrogate' });

/**
 * `terms`: "the same terms as a JSON object" (section 3), keyed as the Company likes. Not an
 * array, not null. The parsed copy is a deep copy: the decision hashes exactly what was checked.
 */
const termsSchema = z.unknown().transform((value, ctx): JsonObject => {
  if (!isObject(value)) {
    ctx.addIssue({ code: 'custom', message: `expected a JSON object, got ${jsonTypeName(value)}`, input: value });
    return z.NEVER;
  }
  try {
    return copyJson(value) as JsonObject;
  } catch (cause) {
    if (!(cause instanceof JsonProblem)) throw cause;
    ctx.addIssue({ code: 'custom', message: cause.reason, path: cause.path, input: value });
    return z.NEVER;
  }
});

/** `expires_at`: "the last time an approval of this revision is accepted" (section 3, RFC 3339). */
const expiresAtSchema = z.string({ error: expected(RFC3339_RULE) }).superRefine((value, ctx) => {
  const check = checkRfc3339(value);
  if (!check.ok) ctx.addIssue({ code: 'custom', message: check.reason, input: value });
});

export const operationSchema = z.object(
  {
    operation_id: idSchema,
    revision: idSchema,
    summary: summarySchema,
    terms: termsSchema.optional(),
    expires_at: expiresAtSchema,
  },
  { error: expected('an operation object') },
);

export type Operation = {
  operation_id: string;
  revision: string;
  summary: string;
  terms?: JsonObject;
  expires_at: string;
};

/** True for the issue the summary's length limit raises (MAX_SUMMARY_LENGTH). */
export function isSummaryTooLongIssue(issue: z.core.$ZodIssue | undefined): boolean {
  return issue?.code === 'custom' && issue.params?.['rule'] === SUMMARY_TOO_LONG;
}

/**
 * ERR_SUMMARY_TOO_LONG when `operation` is an object whose `summary` is a string longer than
 * MAX_SUMMARY_LENGTH, else undefined (every other rule is the schema's). `root` names the
 * operation in the message: `requestApproval.operation.summary: expected at most 10000
 * characters, got 10001 characters`, as the schema's own message says it.
 */
export function summaryTooLong(operation: unknown, root: string): CountersignError | undefined {
  let summary: unknown;
  try {
    summary = isObject(operation) ? operation['summary'] : undefined;
  } catch {
    // A getter that throws, a revoked proxy: the schema reports what cannot be read.
    return undefined;
  }
  if (typeof summary !== 'string' || summary.length <= MAX_SUMMARY_LENGTH) return undefined;
  return new CountersignError('ERR_SUMMARY_TOO_LONG', `${root}.summary: expected at most ${MAX_SUMMARY_LENGTH} characters, got ${summary.length} characters`);
}

/** Parse an operation (section 3) in a message rooted at `root`; throws ERR_OPERATION_INVALID. */
export function parseOperationAt(value: unknown, root: string): Operation {
  const { operation_id, revision, summary, terms, expires_at } = parseWith(operationSchema, value, 'ERR_OPERATION_INVALID', root);
  // Built member by member: the seed's order, and no `terms: undefined` when the Company sent none.
  return terms === undefined ? { operation_id, revision, summary, expires_at } : { operation_id, revision, summary, terms, expires_at };
}

/**
 * Parse an operation (section 3). Throws CountersignError ERR_OPERATION_INVALID naming the
 * field, e.g. `operation.revision: expected 1-256 characters of A-Z a-z 0-9 _ -`. Members the
 * extension does not define are dropped from the result.
 */
export function parseOperation(value: unknown): Operation {
  return parseOperationAt(value, 'operation');
}

/**
 * The instant `expires_at` names, in milliseconds since the epoch. Use this rather than
 * `Date.parse`, which accepts formats RFC 3339 doesn't and rejects the leap second it does.
 */
export function expiresAtMs(operation: Pick<Operation, 'expires_at'>): number {
  const value: unknown = isObject(operation) ? operation.expires_at : undefined;
  if (typeof value !== 'string') {
    throw new CountersignError('ERR_OPERATION_INVALID', `operation.expires_at: expected ${RFC3339_RULE}, got ${describeValue(value)}`);
  }
  try {
    return instantOf(value);
  } catch (error) {
    throw new CountersignError('ERR_OPERATION_INVALID', `operation.${(error as Error).message}`, { cause: error });
  }
}
