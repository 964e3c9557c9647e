/**
 * What changed between two revisions of one operation (spec section 3, "New terms": the same
 * `operation_id` with a new `revision` when the summary, terms or expiry change; section 5: a
 * new revision needs a new approval, so the window shows what changed before the person decides).
 *
 * The summary is compared as the person reads it, not as the Markdown source: both revisions
 * are rendered to plain text (`summaryToText`: emphasis and list markers and backslash escapes
 * consumed, hidden characters shown as tokens), so "**$70.00**" and "$70.00" are the same words
 * and a change that only adds emphasis shows no changed word (`summaryChanged` still says the
 * summary changed). The text is cut into words as a reader sees them (`wordTokens`), so a changed
 * amount is one removed "$70.00" and one added "$75.00", never "$7075.00".
 *
 * The word diff is a longest-common-subsequence over those words and the white space between
 * them, written here rather than taken from a package: it is forty lines, the input is one
 * summary, and the extension bundle stays smaller. Common prefix and suffix are taken off
 * first, so the table covers only the changed middle; past `WORD_DIFF_BUDGET` cells the middle
 * is shown as one removal and one addition (`coarse`), never a frozen window.
 */
import { CountersignError } from '../protocol/errors.ts';
import { describeValue } from '../protocol/issues.ts';
import { deadlineOf } from '../protocol/rfc3339.ts';
import type { Localized, MessageText } from '../summary/message-text.ts';
import { summaryToText } from '../summary/render.ts';
import { reviewText } from './messages.ts';
import { finding } from './rules.ts';
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
  /** The same sentence as a messages.json name and its data, for the browser's language. */
  text: MessageText;
}

export interface ExpiryChange {
  before: string;
  after: string;
  /** `after - before` in milliseconds; null when either can't be read as a date. */
  deltaMs: number | null;
  message: string;
  /** The same sentence as a messages.json name and its data, for the browser's language. */
  text: MessageText;
}

export interface RevisionDiff {
  operationId: string;
  fromRevision: string;
  toRevision: string;
  summaryChanged: boolean;
  /** The summary's words as the person reads them (rendered, hidden characters shown as tokens): same, removed, added. */
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

/** A hidden character as the renderer shows it, `⟨U+202E⟩`: one unit, never cut into letters. */
const HIDDEN_TOKEN = /\u27E8U\+[0-9A-F]{4,6}\u27E9/gu;
const SPACE = /^\s+$/u;
/** Signs that belong to the number they stand next to: "$70.00", "70,00 €" read as one word with the sign. */
const ATTACHED_SIGN = /^[\p{Sc}%\u2030]$/u;
const PLUS_MINUS = /^[-+\u2212]$/u;
/** Marks that join two words written without a space into one: 2026-10-08, 12:20, ord-7/a. */
const CONNECTOR = /^[-\u2010\u2011/:._'\u2019\u00B7@]$/u;
const DIGIT_START = /^\p{Nd}/u;

type PieceKind = 'word' | 'space' | 'other';

interface Piece {
  text: string;
  kind: PieceKind;
}

function segmenter(): Intl.Segmenter | null {
  return typeof Intl.Segmenter === 'function' ? new Intl.Segmenter(undefined, { granularity: 'word' }) : null;
}

/** Words, white space and marks by Unicode word boundaries (UAX #29, with dictionaries for Thai or Japanese). */
function piecesOf(text: string, words: Intl.Segmenter | null): Piece[] {
  if (words === null) {
    // Without Intl.Segmenter: runs of white space and of everything else.
    return (text.match(/\s+|\S+/gu) ?? []).map((t) => ({ text: t, kind: SPACE.test(t) ? 'space' : 'word' }));
  }
  return Array.from(words.segment(text), (s) => ({ text: s.segment, kind: s.isWordLike === true ? 'word' : SPACE.test(s.segment) ? 'space' : 'other' }));
}

/** Hidden-character tokens as units of their own, the text between them cut into pieces. */
function piecesWithTokens(text: string, words: Intl.Segmenter | null): Piece[] {
  const pieces: Piece[] = [];
  let last = 0;
  for (const m of text.matchAll(HIDDEN_TOKEN)) {
    pieces.push(...piecesOf(text.slice(last, m.index), words), { text: m[0], kind: 'other' });
    last = m.index + m[0].length;
  }
  pieces.push(...piecesOf(text.slice(last), words));
  return pieces;
}

/** Whether `next` continues the word that ends with `last` (`before` is the piece ahead of `last`). */
function continues(before: Piece | undefined, last: Piece, next: Piece, after: Piece | undefined): boolean {
  if (last.kind === 'space' || next.kind === 'space') return false;
  if (ATTACHED_SIGN.test(last.text) && next.kind === 'word') return true;
  if (last.kind === 'word' && ATTACHED_SIGN.test(next.text)) return true;
  // A sign of a number or an amount ("-$70.00", "+5"), not a hyphen after a word.
  if (PLUS_MINUS.test(last.text) && before?.kind !== 'word' && (ATTACHED_SIGN.test(next.text) || DIGIT_START.test(next.text))) return true;
  if (last.kind === 'word' && CONNECTOR.test(next.text) && after?.kind === 'word') return true;
  return CONNECTOR.test(last.text) && before?.kind === 'word' && next.kind === 'word';
}

/**
 * The text as words a reader sees, with the white space and punctuation between them, so that
 * joining the tokens gives the text back exactly. A word keeps its currency sign and its
 * inner connectors ("$70.00", "-€5", "2026-10-08", "12:20"); brackets and sentence marks
 * around it are tokens of their own. Uses `Intl.Segmenter` when the engine has it, so text
 * without spaces between words (Japanese, Thai) is still cut into words; else white space.
 */
export function wordTokens(text: string, words: Intl.Segmenter | null = segmenter()): string[] {
  const pieces = piecesWithTokens(text, words);
  const tokens: string[] = [];
  let current = '';
  for (let i = 0; i < pieces.length; i += 1) {
    const piece = pieces[i]!;
    if (i > 0 && continues(pieces[i - 2], pieces[i - 1]!, piece, pieces[i + 1])) current += piece.text;
    else {
      if (current !== '') tokens.push(current);
      current = piece.text;
    }
  }
  if (current !== '') tokens.push(current);
  return tokens;
}

function push(parts: WordPart[], kind: WordPart['kind'], text: string): void {
  if (text === '') return;
  const last = parts[parts.length - 1];
  if (last && last.kind === kind) last.text += text;
  else parts.push({ kind, text });
}

/** Word-level diff of two texts: joining `same`+`removed` gives `before`, `same`+`added` gives `after`. */
export function wordDiff(before: string, after: string, budget = WORD_DIFF_BUDGET): WordDiff {
  const words = segmenter();
  const a = wordTokens(before, words);
  const b = wordTokens(after, words);
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
  if (isPlainObject(before) && isPlainObject(after)) {
    const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
    for (const key of keys) {
      const inBefore = Object.hasOwn(before, key);
      const inAfter = Object.hasOwn(after, key);
      const childPath = [...path, key];
      if (inBefore && !inAfter) {
        out.push(removal(childPath, before[key]));
      } else if (!inBefore && inAfter) {
        out.push(addition(childPath, after[key]));
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
        out.push(removal(childPath, before[i]));
      } else if (i >= before.length) {
        out.push(addition(childPath, after[i]));
      } else {
        diffValues(before[i], after[i], childPath, out);
      }
    }
    return;
  }
  // Scalars, or a change of shape (a string became an object): strict, the Company's exact JSON.
  if (before !== after) {
    const values = { before: quote(before, true), after: quote(after, true) };
    const said = path.length === 0 ? reviewText('diff_termsChanged', values) : reviewText('diff_changed', { path: formatPath(path), ...values });
    out.push({ kind: 'changed', path: formatPath(path), before, after, ...said });
  }
}

function removal(path: PathSegment[], before: unknown): TermChange {
  return { kind: 'removed', path: formatPath(path), before, ...reviewText('diff_removed', { path: formatPath(path), before: quote(before, true) }) };
}

function addition(path: PathSegment[], after: unknown): TermChange {
  return { kind: 'added', path: formatPath(path), after, ...reviewText('diff_added', { path: formatPath(path), after: quote(after, true) }) };
}

/** Field-by-field changes of `terms`, with paths as in the terms review. */
export function diffTerms(before: Record<string, unknown> | undefined, after: Record<string, unknown> | undefined): TermChange[] {
  if (before === undefined && after === undefined) return [];
  if (before === undefined) return [{ kind: 'added', path: '', after, ...reviewText('diff_termsAdded') }];
  if (after === undefined) return [{ kind: 'removed', path: '', before, ...reviewText('diff_termsRemoved') }];
  const out: TermChange[] = [];
  diffValues(before, after, [], out);
  return out;
}

/** The largest unit the move fills at least once; milliseconds below a second, as they are. */
const DEADLINE_UNITS = [
  [86_400_000, 'Days'],
  [3_600_000, 'Hours'],
  [60_000, 'Minutes'],
  [1_000, 'Seconds'],
] as const;

function deadlineMoved(deltaMs: number, before: string, after: string): Localized {
  const abs = Math.abs(deltaMs);
  const unit = DEADLINE_UNITS.find(([size]) => abs >= size);
  const count = unit ? Math.round(abs / unit[0]) : abs;
  const key = `diff_deadline${deltaMs > 0 ? 'Later' : 'Earlier'}${unit ? unit[1] : 'Milliseconds'}` as const;
  return reviewText(key, { count, before, after });
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
  let said: Localized;
  if (deltaMs === null) said = reviewText('diff_deadlineChanged', { before: shownBefore, after: shownAfter });
  else if (deltaMs === 0) said = reviewText('diff_deadlineSameMoment', { before: shownBefore, after: shownAfter });
  else said = deadlineMoved(deltaMs, shownBefore, shownAfter);
  return { before, after, deltaMs, ...said };
}

/** The whole summary as plain text, as the window renders it with "Show all". */
function readText(summary: string): string {
  return summaryToText(summary, { showAll: true }).text;
}

function checkOperation(value: unknown, name: string): asserts value is OperationLike {
  if (!isPlainObject(value)) throw new CountersignError('ERR_ARGUMENT_INVALID', `${name}: expected an operation (spec section 3), got ${describeValue(value)}`);
  for (const member of ['operation_id', 'revision', 'summary', 'expires_at'] as const) {
    if (typeof value[member] !== 'string') throw new CountersignError('ERR_ARGUMENT_INVALID', `${name}.${member}: expected a string, got ${describeValue(value[member])}`);
  }
  if (value.terms !== undefined && !isPlainObject(value.terms)) {
    throw new CountersignError('ERR_ARGUMENT_INVALID', `${name}.terms: expected an object or nothing, got ${describeValue(value.terms)}`);
  }
}

/** Summary, terms and expiry changes from `previous` to `next`, two revisions of one operation. */
export function diffRevisions(previous: OperationLike, next: OperationLike): RevisionDiff {
  checkOperation(previous, 'previous');
  checkOperation(next, 'next');
  if (previous.operation_id !== next.operation_id) {
    throw new CountersignError('ERR_ARGUMENT_INVALID', 'next.operation_id: expected the operation_id of previous (two revisions of one operation), got another');
  }
  // The summaries as the person reads them, hidden characters shown, so an inserted U+202E is a visible change.
  const words = wordDiff(readText(previous.summary), readText(next.summary));
  const summaryChanged = previous.summary !== next.summary;
  const terms = diffTerms(previous.terms, next.terms);
  const expiry = diffExpiry(previous.expires_at, next.expires_at);
  const changed = summaryChanged || terms.length > 0 || expiry !== null;
  const findings: ReviewFinding[] = [];
  if (previous.revision === next.revision && changed) {
    findings.push(finding('danger', 'revision-reused', '', reviewText('diff_revisionReused')));
  } else if (previous.revision !== next.revision && !changed) {
    findings.push(finding('info', 'no-change', '', reviewText('diff_noChange')));
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
