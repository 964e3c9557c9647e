import * as z from 'zod';
import { expected } from './issues';

/**
 * The ID rule of the core specification (section 8.2), which the operations extension uses for
 * `operation_id` and `revision` (section 3: "the same characters as the IDs in spec 8.2") and
 * which conversation message IDs follow.
 *
 * The core text is not available to us: this is the assumption recorded in
 * docs/core-assumptions.md ("IDs"). It lives here and nowhere else, so that it changes
 * in one edit when the real text is at hand. Everything that checks an ID uses `idSchema` or
 * `isId`.
 */
export const ID_PATTERN = /^[A-Za-z0-9_-]{1,256}$/;

/** The rule in words, for error messages ("expected " + ID_RULE). */
export const ID_RULE = '1-256 characters of A-Z a-z 0-9 _ -';

export const idSchema = z
  .string({ error: expected(ID_RULE) })
  .regex(ID_PATTERN, { error: `expected ${ID_RULE}` });

export function isId(value: unknown): value is string {
  return typeof value === 'string' && ID_PATTERN.test(value);
}
