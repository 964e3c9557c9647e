/**
 * Untrusted Company text → what the approval window may show (spec sections 3 "Formatting",
 * 5 and 8): the summary as allow-listed HTML or DOM, hidden-character findings for any text,
 * spoofing findings for the Company's name, and the Company's origin with its registrable
 * domain. Isomorphic: browser and Node (with a jsdom window passed in for the DOM parts).
 */
export {
  SUMMARY_DISPLAY_LIMIT,
  cutSummary,
  prepareSummary,
  renderSummary,
  renderSummaryView,
  summaryToSafeHtml,
  summaryToText,
  type SummaryFragment,
  type SummaryHtml,
  type SummaryOptions,
  type SummaryReport,
  type SummaryText,
} from './render.ts';
export {
  classifyCodePoint,
  codePointLabel,
  hiddenToken,
  inspectText,
  revealHidden,
  type HiddenKind,
  type InspectOptions,
  type Severity,
  type TextFinding,
  type TextInspection,
  type TextSegment,
} from './text-inspection.ts';
export { inspectCompanyName, type NameFinding, type NameFindingCode } from './company-name.ts';
export {
  displayOrigin,
  type DisplayOrigin,
  type DisplayOriginOptions,
  type OriginWarning,
  type OriginWarningCode,
} from './origin.ts';
export { ALLOWED_TAGS, type WindowLike } from './sanitize.ts';
export {
  LIST_SEPARATOR,
  chromeMessages,
  localize,
  type ChromeMessage,
  type Localized,
  type MessageTable,
  type MessageText,
  type Template,
} from './message-text.ts';
export { SUMMARY_MESSAGES, summaryChromeMessages, type SummaryMessageKey } from './messages.ts';
export { DISABLED_CONSTRUCTS, ENABLED_CONSTRUCTS, STRUCTURE_LIMITS } from './markdown.ts';
