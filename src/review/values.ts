/**
 * Small helpers over JSON-like values shared by the terms review and the revision diff: paths
 * a person can read, plain-object tests, and quoting Company values for a message.
 */
import { revealHidden } from '../summary/text-inspection.ts';

export type PathSegment = string | number;

// One rule for "a JSON object" everywhere: an object from another realm (a frame's, a worker's)
// is one too, as src/protocol/json.ts decides.
export { isPlainObject } from '../protocol/json';

const SIMPLE_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/**
 * `price_difference.amount`, `items[0].sku`, `["odd key"]`. A key is Company text, so hidden
 * characters in it are shown as tokens (a key then never passes as a simple one).
 */
export function formatPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (SIMPLE_KEY.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(revealHidden(segment, { singleLine: true }))}]`;
  }
  return out;
}

const MAX_QUOTED = 80;

/**
 * A value as it appears inside a message: quoted, hidden characters visible, long ones cut
 * unless `whole` (a change between two revisions is shown whole: the cut part may be what moved).
 */
export function quote(value: unknown, whole = false): string {
  let text: string;
  if (typeof value === 'string') text = `"${revealHidden(value, { singleLine: true })}"`;
  else if (value === undefined) text = 'nothing';
  else {
    try {
      // eslint-disable-next-line @typescript-eslint/no-base-to-string -- only what JSON cannot write (a function, a symbol) gets here, and String() names those
      text = revealHidden(JSON.stringify(value) ?? String(value), { singleLine: true });
    } catch {
      // eslint-disable-next-line @typescript-eslint/no-base-to-string -- last resort for values JSON throws on (BigInt, cycles): some text beats none
      text = String(value);
    }
  }
  if (whole) return text;
  const chars = Array.from(text);
  return chars.length > MAX_QUOTED ? `${chars.slice(0, MAX_QUOTED - 1).join('')}\u2026` : text;
}
