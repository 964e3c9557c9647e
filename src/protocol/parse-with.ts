import type * as z from 'zod';
import { describeZodError } from './describe-zod-error';
import { CountersignError, type ErrorCode } from './errors';

/**
 * Parse `value` with `schema`, or throw a CountersignError with `code`. `root` names the value in
 * messages (`operation`, `structuredContent.operation`). Anything else that goes wrong while
 * reading the input (a getter that throws, a revoked proxy) is wrapped too: a guard clause must
 * never let a foreign error out.
 */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, code: ErrorCode, root: string): z.output<S> {
  let result: ReturnType<S['safeParse']>;
  try {
    result = schema.safeParse(value, { reportInput: true }) as ReturnType<S['safeParse']>;
  } catch (cause) {
    throw new CountersignError(code, `${root}: expected JSON data, got a value that cannot be read`, { cause });
  }
  if (result.success) return result.data as z.output<S>;
  throw new CountersignError(code, describeZodError(result.error, root), { cause: result.error });
}
