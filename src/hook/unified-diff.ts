/**
 * A unified diff (the `diff -u` format people read in every code review) between two texts, for
 * the card of a file write or edit: what the file is now on disk against what the tool will make
 * of it. Lines are compared with Myers' O(ND) algorithm; hunks carry three lines of context.
 */

/** Above this many lines in either text the diff is not computed (the card says so instead). */
export const MAX_DIFF_LINES = 20_000;
const CONTEXT = 3;

type Op = { op: ' ' | '-' | '+'; line: string };

/** `--- a/<path>` / `+++ b/<path>` and the hunks; '' when the texts are equal; undefined when too large to diff. */
export function unifiedDiff(before: string, after: string, names: { from: string; to: string }): string | undefined {
  if (before === after) return '';
  const a = splitLines(before);
  const b = splitLines(after);
  if (a.length > MAX_DIFF_LINES || b.length > MAX_DIFF_LINES) return undefined;
  const ops = diffLines(a, b);
  const hunks = hunksOf(ops);
  return [`--- ${names.from}`, `+++ ${names.to}`, ...hunks].join('\n');
}

/** Lines without their terminators; a last line with no line feed is marked as `diff` marks it. */
function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  else lines[lines.length - 1] += '\n\\ No newline at end of file';
  return lines;
}

/** The shortest edit script from a to b (Myers 1986), as kept, removed and added lines in order. */
function diffLines(a: readonly string[], b: readonly string[]): Op[] {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const offset = max + 1;
  let v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  outer: for (let d = 0; d <= max; d++) {
    trace.push(v.slice());
    const next = v.slice();
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && (v[offset + k - 1] as number) < (v[offset + k + 1] as number)) ? (v[offset + k + 1] as number) : (v[offset + k - 1] as number) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      next[offset + k] = x;
      if (x >= n && y >= m) {
        v = next;
        trace.push(v);
        break outer;
      }
    }
    v = next;
  }
  return backtrack(trace, a, b, offset);
}

function backtrack(trace: Int32Array[], a: readonly string[], b: readonly string[], offset: number): Op[] {
  const ops: Op[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = trace.length - 2; d >= 0; d--) {
    const v = trace[d] as Int32Array;
    const k = x - y;
    const down = k === -d || (k !== d && (v[offset + k - 1] as number) < (v[offset + k + 1] as number));
    const prevK = down ? k + 1 : k - 1;
    const prevX = d === 0 ? 0 : (v[offset + prevK] as number);
    const prevY = d === 0 ? 0 : prevX - prevK;
    while (x > prevX && y > prevY) {
      x--;
      y--;
      ops.push({ op: ' ', line: a[x] as string });
    }
    if (d === 0) break;
    if (down) ops.push({ op: '+', line: b[--y] as string });
    else ops.push({ op: '-', line: a[--x] as string });
  }
  return ops.reverse();
}

/** The edit script as `@@ -l,s +l,s @@` hunks: changes less than 2 × CONTEXT lines apart share one, with CONTEXT lines around. */
function hunksOf(ops: readonly Op[]): string[] {
  const changed = ops.flatMap((o, i) => (o.op === ' ' ? [] : [i]));
  const groups: Array<[number, number]> = [];
  for (const i of changed) {
    const last = groups[groups.length - 1];
    if (last !== undefined && i - last[1] <= CONTEXT * 2 + 1) last[1] = i;
    else groups.push([i, i]);
  }
  // Line numbers before each op, in a and in b.
  const aAt: number[] = [];
  const bAt: number[] = [];
  let aLine = 1;
  let bLine = 1;
  for (const o of ops) {
    aAt.push(aLine);
    bAt.push(bLine);
    if (o.op !== '+') aLine++;
    if (o.op !== '-') bLine++;
  }
  const out: string[] = [];
  for (const [first, last] of groups) {
    const from = Math.max(0, first - CONTEXT);
    const to = Math.min(ops.length, last + CONTEXT + 1);
    const body = ops.slice(from, to);
    const aCount = body.filter((o) => o.op !== '+').length;
    const bCount = body.filter((o) => o.op !== '-').length;
    out.push(`@@ -${range(aAt[from] as number, aCount)} +${range(bAt[from] as number, bCount)} @@`, ...body.map((o) => `${o.op}${o.line}`));
  }
  return out;
}

/** `diff -u` writes a one-line range as its start alone, and an empty one as the line before it. */
function range(start: number, count: number): string {
  if (count === 0) return `${start - 1},0`;
  return count === 1 ? `${start}` : `${start},${count}`;
}
