/**
 * The summary pipeline (spec section 3 "Formatting", section 8): Markdown → the first wall
 * (`markdown.ts`) → the second wall (`sanitize.ts`) → HTML or a DOM fragment, with the hidden
 * characters reported and shown as tokens, and a display limit so a 1 MiB summary can't
 * freeze the approval window.
 */
import { CountersignError } from '../protocol/errors.ts';
import { describeNumber, describeValue } from '../protocol/issues.ts';
import { MAX_SUMMARY_LENGTH } from '../protocol/limits.ts';
import { allowListedHtmlToText, markdownToAllowListedHtml } from './markdown.ts';
import { resolveWindow, sanitizeToFragment, sanitizeToHtml, type WindowLike } from './sanitize.ts';
import { inspectText, type TextFinding } from './text-inspection.ts';

/**
 * Characters (UTF-16 code units) shown before "Show all": the operation schema's own limit
 * (protocol/limits.ts MAX_SUMMARY_LENGTH), so every summary Countersign accepts is shown, and
 * checked against the terms, in full. Several pages of prose, far above any honest summary (the
 * seed's is 151), and it renders in tens of milliseconds (bench/summary.bench.ts). The cut, and
 * `truncated` for "Show all", remain for text that never passed that schema.
 */
export const SUMMARY_DISPLAY_LIMIT = MAX_SUMMARY_LENGTH;

/** How far back from the limit a cut looks for white space, so it does not split "$1,000". */
const CUT_LOOKBACK = 200;

export interface SummaryOptions {
  /** How much of the summary to show. `Infinity` is "Show all". Default `SUMMARY_DISPLAY_LIMIT`. */
  limit?: number;
  /** "Show all": the same as `limit: Infinity`, and wins over `limit`. */
  showAll?: boolean;
  /** The DOM window DOMPurify runs in. Default: the global `window` (browser, jsdom tests). */
  window?: WindowLike;
}

export interface SummaryReport {
  /** Hidden characters in the part shown, each displayed as its token. */
  findings: TextFinding[];
  /** The summary was longer than `limit`: the window must offer "Show all". */
  truncated: boolean;
  shownLength: number;
  totalLength: number;
  /** Elements or attributes the second wall removed: 0 unless the first wall failed. */
  sanitizerRemovals: number;
  /**
   * More emphasis or list markers, or deeper nesting, than `STRUCTURE_LIMITS` allow: the rest
   * of the markers show as typed (all text is still there). Worth a word in the window.
   */
  formattingLimited: boolean;
}

export interface SummaryHtml extends SummaryReport {
  html: string;
}

export interface SummaryFragment extends SummaryReport {
  fragment: DocumentFragment;
}

export interface SummaryText {
  /** What the reader sees, as plain text (tokens included, Markdown markers consumed). */
  text: string;
  truncated: boolean;
}

function checkLimit(limit: number): void {
  if (limit === Infinity || (Number.isSafeInteger(limit) && limit > 0)) return;
  throw new CountersignError('ERR_ARGUMENT_INVALID', `limit: expected a positive integer or Infinity, got ${describeNumber(limit)}`);
}

/**
 * The part of `markdown` to show: at most `limit` code units, ending at white space when there
 * is some in the last `CUT_LOOKBACK` code units, and never inside a surrogate pair.
 */
export function cutSummary(markdown: string, limit = SUMMARY_DISPLAY_LIMIT): { shown: string; truncated: boolean } {
  checkLimit(limit);
  if (markdown.length <= limit) return { shown: markdown, truncated: false };
  let end = limit;
  const last = markdown.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  for (let i = end; i > 0 && i > end - CUT_LOOKBACK; i -= 1) {
    const c = markdown.charCodeAt(i - 1);
    if (c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0d) {
      end = i - 1;
      break;
    }
  }
  return { shown: markdown.slice(0, end), truncated: true };
}

function firstWall(markdown: string, options: Pick<SummaryOptions, 'limit' | 'showAll'>) {
  if (typeof markdown !== 'string') {
    throw new CountersignError('ERR_ARGUMENT_INVALID', `summary: expected a string, got ${describeValue(markdown)}`);
  }
  const { shown, truncated } = cutSummary(markdown, options.showAll === true ? Infinity : options.limit);
  return { shown, truncated, ...markdownToAllowListedHtml(shown) };
}

function reportOf(markdown: string, wall: ReturnType<typeof firstWall>): Omit<SummaryReport, 'sanitizerRemovals'> {
  return {
    findings: inspectText(wall.shown).findings,
    truncated: wall.truncated,
    shownLength: wall.shown.length,
    totalLength: markdown.length,
    formattingLimited: wall.limited,
  };
}

/** The summary as sanitized HTML, with what the window needs to warn about it. */
export function prepareSummary(markdown: string, options: SummaryOptions = {}): SummaryHtml {
  const wall = firstWall(markdown, options);
  const sanitized = sanitizeToHtml(wall.html, resolveWindow(options.window));
  return { ...reportOf(markdown, wall), html: sanitized.value, sanitizerRemovals: sanitized.removed };
}

/** The summary as a DOM fragment owned by `doc`, with what the window needs to warn about it. */
export function renderSummaryView(markdown: string, doc: Document, options: SummaryOptions = {}): SummaryFragment {
  const wall = firstWall(markdown, options);
  const window = doc.defaultView ?? resolveWindow(options.window);
  const sanitized = sanitizeToFragment(wall.html, window);
  const fragment = sanitized.value.ownerDocument === doc ? sanitized.value : doc.importNode(sanitized.value, true);
  return { ...reportOf(markdown, wall), fragment, sanitizerRemovals: sanitized.removed };
}

/** Sanitized HTML of the summary (spec section 3 "Formatting"). See `prepareSummary` for the report. */
export function summaryToSafeHtml(markdown: string, options: SummaryOptions = {}): string {
  return prepareSummary(markdown, options).html;
}

/**
 * The summary as a DOM fragment for `doc`. See `renderSummaryView` for the report.
 * `options.window` is used only when `doc` has no window of its own.
 */
export function renderSummary(markdown: string, doc: Document, options: SummaryOptions = {}): DocumentFragment {
  return renderSummaryView(markdown, doc, options).fragment;
}

/**
 * The text a reader sees, without a DOM: what the terms review compares, so that it checks
 * the words on the screen, not the Markdown source.
 */
export function summaryToText(markdown: string, options: Pick<SummaryOptions, 'limit' | 'showAll'> = {}): SummaryText {
  const wall = firstWall(markdown, options);
  return { text: allowListedHtmlToText(wall.html), truncated: wall.truncated };
}
