/**
 * What changed between two revisions of one operation (spec section 3, "New terms": the same
 * `operation_id` with a new `revision` when the summary, terms or expiry change; section 5: a
 * new revision needs a new approval, so the window shows what changed before the person decides).
 *
 * The word diff is a longest-common-subsequence over words, runs of white space and single
 * punctuation marks, written here rather than taken from a package: it is forty lines, the
 * input is one summary, and the extension bundle stays smaller. Common prefix and suffix are
 * taken off first, so the table covers only the changed middle; past `WORD_DIFF_BUDGET`
 * cells the middle is shown as one removal and one addition (`coarse`), never a frozen window.
 */
import { CountersignError } from '../protocol/errors.ts';
import { deadlineOf } from '../protocol/rfc3339.ts';
import { revealHidden } from '../summary/text-inspection.ts';
import type { OperationLike, ReviewFinding } from './types.ts';
import { formatPath, isPlainObject, quote, type PathSegment } from './values.ts';

export interface WordPart {
  kind: 'same' | 'added' | 'removed';
  text: string;
}

export interface WordDiff {
  parts: WordPart[];
  /** The changed middle was too large for a word-by-word table and is shown whole. */
  coarse: boolean;
}

export interface TermChange {
  kind: 'added' | 'removed' | 'changed';
  /** '' when the terms as a whole appeared or went away. */
  path: string;
  before?: unknown;
  after?: unknown;
  message: string;
}

export interface ExpiryChange {
  before: string;
  after: string;
  /** `after - before` in milliseconds; null when either can't be read as a date. */
  deltaMs: number | null;
  message: string;
}

export interface RevisionDiff {
  operationId: string;
  fromRevision: string;
  toRevision: string;
  summaryChanged: boolean;
  /** The summary's words, hidden characters shown as tokens: same, removed, added. */
  summary: WordPart[];
  summaryCoarse: boolean;
  terms: TermChange[];
  /** Null when `expires_at` is the same string in both. */
  expiry: ExpiryChange | null;
  /** Problems with the pair itself: a reused revision (danger), a revision that changes nothing (info). */
  findings: ReviewFinding[];
}

/** Table cells (one 32-bit count each: 16 MB at most). A summary's edit is far below it. */
export const WORD_DIFF_BUDGET = 4_000_000;

const TOKEN = /[\p{L}\p{N}\p{M}_]+|\s+|[^\p{L}\p{N}\p{M}_\s]/gu;

function tokenize(text: string): string[] {
  return text.match(TOKEN) ?? [];
}

function push(parts: WordPart[], kind: WordPart['kind'], text: string): void {
  if (text === '') return;
  const last = parts[parts.length - 1];
  if (last && last.kind === kind) last.text += text;
  else parts.push({ kind, text });
}

/** Word-level diff of two texts: joining `same`+`removed` gives `before`, `same`+`added` gives `after`. */
export function wordDiff(before: string, after: string, budget = WORD_DIFF_BUDGET): WordDiff {
  const a = tokenize(before);
  const b = tokenize(after);
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix += 1;
  let suffix = 0;
  while (suffix < a.length - prefix && suffix < b.length - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix += 1;
  const midA = a.slice(prefix, a.length - suffix);
  const midB = b.slice(prefix, b.length - suffix);
  const parts: WordPart[] = [];
  push(parts, 'same', a.slice(0, prefix).join(''));
  const n = midA.length;
  const m = midB.length;
  const coarse = (n + 1) * (m + 1) > budget;
  if (coarse) {
    push(parts, 'removed', midA.join(''));
    push(parts, 'added', midB.join(''));
  } else {
    // lcs[i * (m + 1) + j]: length of the longest common subsequence of midA[i..] and midB[j..].
    const width = m + 1;
    const lcs = new Uint32Array((n + 1) * width);
    for (let i = n - 1; i >= 0; i -= 1) {
      for (let j = m - 1; j >= 0; j -= 1) {
        lcs[i * width + j] = midA[i] === midB[j] ? lcs[(i + 1) * width + j + 1]! + 1 : Math.max(lcs[(i + 1) * width + j]!, lcs[i * width + j + 1]!);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && midA[i] === midB[j]) {
        push(parts, 'same', midA[i]!);
        i += 1;
        j += 1;
      } else if (j >= m || (i < n && lcs[(i + 1) * width + j]! >= lcs[i * width + j + 1]!)) {
        push(parts, 'removed', midA[i]!);
        i += 1;
      } else {
        push(parts, 'added', midB[j]!);
        j += 1;
      }
    }
  }
  push(parts, 'same', a.slice(a.length - suffix).join(''));
  return { parts, coarse };
}

function diffValues(before: unknown, after: unknown, path: PathSegment[], out: TermChange[]): void {
  const where = path.length === 0 ? 'the terms' : formatPath(path);
  if (isPlainObject(before) && isPlainObject(after)) {
    const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
    for (const key of keys) {
      const inBefore = Object.hasOwn(before, key);
      const inAfter = Object.hasOwn(after, key);
      const childPath = [...path, key];
      if (inBefore && !inAfter) {
        out.push({ kind: 'removed', path: formatPath(childPath), before: before[key], message: `${formatPath(childPath)} (${quote(before[key])}) was removed.` });
      } else if (!inBefore && inAfter) {
        out.push({ kind: 'added', path: formatPath(childPath), after: after[key], message: `${formatPath(childPath)} was added: ${quote(after[key])}.` });
      } else {
        diffValues(before[key], after[key], childPath, out);
      }
    }
    return;
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const length = Math.max(before.length, after.length);
    for (let i = 0; i < length; i += 1) {
      const childPath = [...path, i];
      if (i >= after.length) {
        out.push({ kind: 'removed', path: formatPath(childPath), before: before[i], message: `${formatPath(childPath)} (${quote(before[i])}) was removed.` });
      } else if (i >= before.length) {
        out.push({ kind: 'added', path: formatPath(childPath), after: after[i], message: `${formatPath(childPath)} was added: ${quote(after[i])}.` });
      } else {
        diffValues(before[i], after[i], childPath, out);
      }
    }
    return;
  }
  // Scalars, or a change of shape (a string became an object): strict, the Company's exact JSON.
  if (before !== after) {
    out.push({ kind: 'changed', path: formatPath(path), before, after, message: `${where} changed from ${quote(before)} to ${quote(after)}.` });
  }
}

/** Field-by-field changes of `terms`, with paths as in the terms review. */
export function diffTerms(before: Record<string, unknown> | undefined, after: Record<string, unknown> | undefined): TermChange[] {
  if (before === undefined && after === undefined) return [];
  if (before === undefined) return [{ kind: 'added', path: '', after, message: 'The new revision has terms; the previous one had none.' }];
  if (after === undefined) return [{ kind: 'removed', path: '', before, message: 'The new revision has no terms; the previous one had some.' }];
  const out: TermChange[] = [];
  diffValues(before, after, [], out);
  return out;
}

function duration(ms: number): string {
  const abs = Math.abs(ms);
  const units: Array<[number, string]> = [
    [86_400_000, 'day'],
    [3_600_000, 'hour'],
    [60_000, 'minute'],
    [1_000, 'second'],
  ];
  for (const [size, name] of units) {
    if (abs >= size) {
      const count = Math.round(abs / size);
      return `${count} ${name}${count === 1 ? '' : 's'}`;
    }
  }
  return `${abs} milliseconds`;
}

/**
 * `expires_at` is an RFC 3339 string, already validated by the protocol layer, read with the one
 * clock (leap seconds included); a value that names no instant gives "can't compare", not a guess.
 */
export function diffExpiry(before: string, after: string): ExpiryChange | null {
  if (before === after) return null;
  const from = deadlineOf(before);
  const to = deadlineOf(after);
  const deltaMs = Number.isFinite(from) && Number.isFinite(to) ? to - from : null;
  const shownBefore = quote(before);
  const shownAfter = quote(after);
  let message: string;
  if (deltaMs === null) message = `The approval deadline changed from ${shownBefore} to ${shownAfter}.`;
  else if (deltaMs === 0) message = `The approval deadline is written differently (${shownBefore}, now ${shownAfter}) but is the same moment.`;
  else message = `The approval deadline moved ${duration(deltaMs)} ${deltaMs > 0 ? 'later' : 'earlier'}, from ${shownBefore} to ${shownAfter}.`;
  return { before, after, deltaMs, message };
}

function checkOperation(value: unknown, name: string): asserts value is OperationLike {
  if (
    !isPlainObject(value) ||
    typeof value.operation_id !== 'string' ||
    typeof value.revision !== 'string' ||
    typeof value.summary !== 'string' ||
    typeof value.expires_at !== 'string' ||
    (value.terms !== undefined && !isPlainObject(value.terms))
  ) {
    throw new CountersignError('ERR_INPUT_INVALID', `diffRevisions: ${name} is not an operation (spec section 3).`);
  }
}

/** Summary, terms and expiry changes from `previous` to `next`, two revisions of one operation. */
export function diffRevisions(previous: OperationLike, next: OperationLike): RevisionDiff {
  checkOperation(previous, 'previous');
  checkOperation(next, 'next');
  if (previous.operation_id !== next.operation_id) {
    throw new CountersignError('ERR_INPUT_INVALID', 'diffRevisions compares two revisions of one operation, but the operation IDs differ.');
  }
  // The summaries as text with hidden characters shown, so an inserted U+202E is a visible change.
  const words = wordDiff(revealHidden(previous.summary), revealHidden(next.summary));
  const summaryChanged = previous.summary !== next.summary;
  const terms = diffTerms(previous.terms, next.terms);
  const expiry = diffExpiry(previous.expires_at, next.expires_at);
  const changed = summaryChanged || terms.length > 0 || expiry !== null;
  const findings: ReviewFinding[] = [];
  if (previous.revision === next.revision && changed) {
    findings.push({
      severity: 'danger',
      code: 'revision-reused',
      path: '',
      message: 'The Company sent different terms under the same revision, which the protocol forbids; an approval could cover terms you did not see.',
    });
  } else if (previous.revision !== next.revision && !changed) {
    findings.push({ severity: 'info', code: 'no-change', path: '', message: 'The new revision changes nothing in the summary, the terms or the deadline.' });
  }
  return {
    operationId: next.operation_id,
    fromRevision: previous.revision,
    toRevision: next.revision,
    summaryChanged,
    summary: words.parts,
    summaryCoarse: words.coarse,
    terms,
    expiry,
    findings,
  };
}
