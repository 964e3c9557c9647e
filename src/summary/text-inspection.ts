/**
 * Text hygiene for every piece of Company text the approval window shows: the summary, the
 * Company's name and each value in `terms` (spec section 8: all of it is untrusted content).
 *
 * A character that changes what the reader sees without being seen itself (a bidi control that
 * reorders "$07" into "$70", a zero-width space inside an ID, a line separator that hides the
 * rest of a name) is never dropped and never passed through: it is reported as a finding and
 * shown in its place as a visible token such as `⟨U+202E⟩`. Dropping it silently would make
 * the displayed text differ from what the Company sent and what the user approves (spec
 * section 5: the user approves exactly this revision).
 *
 * The character classes come from Unicode properties in the regex engine (`\p{...}` with the
 * `u` flag), not from hand-written tables, so they follow the engine's Unicode version.
 */

export type HiddenKind =
  /** Bidi_Control: can reorder what is displayed around it (Trojan Source). */
  | 'bidi-control'
  /** A line break that is not an ordinary line ending: LS, PS, NEL, VT, FF, a lone CR. */
  | 'line-break'
  /** Any other C0/C1 control (gc=Cc), except TAB and LF. */
  | 'control'
  /** Default_Ignorable_Code_Point: zero-width characters, joiners, fillers, tags, selectors. */
  | 'invisible'
  /** Other format characters (gc=Cf) that are not default-ignorable, e.g. U+FFF9. */
  | 'format'
  /** White space other than SPACE, TAB and LF: looks like a space, is not one. */
  | 'space';

import type { MessageText } from './message-text.ts';
import { summaryText, type SummaryMessageKey } from './messages.ts';

export type Severity = 'danger' | 'warning' | 'info';

export interface TextFinding {
  kind: HiddenKind;
  severity: Severity;
  codePoint: number;
  /** `U+202E` */
  label: string;
  /** What the display shows in the character's place, `⟨U+202E⟩`. */
  token: string;
  /** UTF-16 offset of the character in the inspected text. */
  index: number;
  /** One plain sentence for the window's warning list. */
  message: string;
  /** The same sentence as a messages.json name and its data, for the browser's language. */
  text: MessageText;
}

export type TextSegment =
  | { type: 'text'; text: string }
  | { type: 'hidden'; token: string; finding: TextFinding };

export interface TextInspection {
  findings: TextFinding[];
  /** The text with every finding replaced by its token: safe to show with `textContent`. */
  display: string;
  /** The same, split so a window can style the tokens (e.g. wrap them in `<mark>`). */
  segments: TextSegment[];
}

export interface InspectOptions {
  /**
   * For one-line values (Company name, a term value): a LINE FEED is hidden there too, since a
   * one-line field shows it as a space. In a summary LF is a Markdown line ending and is kept,
   * and so is CRLF; a lone CR is always reported (CommonMark 0.31.2 would treat it as a line
   * ending, but no editor in use writes one, and a terminal or log treats it as "go back").
   */
  singleLine?: boolean;
}

const TOKEN_OPEN = '\u27E8'; // MATHEMATICAL LEFT ANGLE BRACKET
const TOKEN_CLOSE = '\u27E9';

/** Candidates; `classifyCodePoint` decides. SPACE, TAB and LF are filtered out there. */
const CANDIDATE =
  /[\p{Cc}\p{Cf}\p{White_Space}\p{Default_Ignorable_Code_Point}\p{Bidi_Control}\u2800]/gu;
const BIDI = /^\p{Bidi_Control}$/u;
const DEFAULT_IGNORABLE = /^\p{Default_Ignorable_Code_Point}$/u;
const FORMAT = /^\p{Cf}$/u;
const CONTROL = /^\p{Cc}$/u;
const WHITE_SPACE = /^\p{White_Space}$/u;
const PICTOGRAPHIC = /^\p{Extended_Pictographic}$/u;
const EMOJI_MODIFIER = /^\p{Emoji_Modifier}$/u;

const LINE_BREAKS = new Set([0x0b, 0x0c, 0x0d, 0x85, 0x2028, 0x2029]);
const ZWJ = 0x200d;
const VS15 = 0xfe0e;
const VS16 = 0xfe0f;

export function codePointLabel(codePoint: number): string {
  return `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
}

export function hiddenToken(codePoint: number): string {
  return `${TOKEN_OPEN}${codePointLabel(codePoint)}${TOKEN_CLOSE}`;
}

/**
 * The kind of a single code point, or null when it is an ordinary visible character.
 * Context rules (CRLF, emoji sequences) are applied by the callers that see the neighbours.
 */
export function classifyCodePoint(codePoint: number, singleLine = false): HiddenKind | null {
  if (codePoint === 0x20 || codePoint === 0x09) return null;
  if (codePoint === 0x0a) return singleLine ? 'line-break' : null;
  if (LINE_BREAKS.has(codePoint)) return 'line-break';
  const ch = String.fromCodePoint(codePoint);
  if (BIDI.test(ch)) return 'bidi-control';
  if (CONTROL.test(ch)) return 'control';
  // U+2800 BRAILLE PATTERN BLANK is So, not default-ignorable, yet renders as nothing: a
  // favourite for "blank" names. It is the one addition to the Unicode properties.
  if (codePoint === 0x2800 || DEFAULT_IGNORABLE.test(ch)) return 'invisible';
  if (FORMAT.test(ch)) return 'format';
  if (WHITE_SPACE.test(ch)) return 'space';
  return null;
}

function severityOf(kind: HiddenKind, codePoint: number): Severity {
  // Bidi controls reorder the text around them, and TAG characters (U+E0000-E007F) carry a
  // whole invisible ASCII message, a known way to smuggle instructions to a language model.
  if (kind === 'bidi-control' || (codePoint >= 0xe0000 && codePoint <= 0xe007f)) return 'danger';
  if (kind === 'space') return 'info';
  return 'warning';
}

/** The sentence for each kind, in `SUMMARY_MESSAGES`. */
const MESSAGE_KEYS: Record<HiddenKind, SummaryMessageKey & `hidden_${string}`> = {
  'bidi-control': 'hidden_bidi',
  'line-break': 'hidden_lineBreak',
  control: 'hidden_control',
  invisible: 'hidden_invisible',
  format: 'hidden_format',
  space: 'hidden_space',
};

function codePointBefore(text: string, index: number): number | undefined {
  if (index <= 0) return undefined;
  const low = text.charCodeAt(index - 1);
  if (low >= 0xdc00 && low <= 0xdfff && index >= 2) {
    const high = text.charCodeAt(index - 2);
    if (high >= 0xd800 && high <= 0xdbff) return text.codePointAt(index - 2);
  }
  return low;
}

function isPictographic(codePoint: number | undefined): boolean {
  return codePoint !== undefined && PICTOGRAPHIC.test(String.fromCodePoint(codePoint));
}

/**
 * Emoji presentation: a variation selector right after a pictograph, and a ZWJ between two
 * pictographs (family and profession emoji), carry no hidden text, so they are not findings.
 * Everything else default-ignorable is, including TAG characters in flag sequences.
 */
function isEmojiSequencePart(text: string, index: number, codePoint: number, width: number): boolean {
  if (codePoint !== VS15 && codePoint !== VS16 && codePoint !== ZWJ) return false;
  let before = codePointBefore(text, index);
  if (codePoint === VS15 || codePoint === VS16) return isPictographic(before);
  // ZWJ: look back over one VS16 or skin-tone modifier to the pictograph it joins.
  if (before !== undefined && (before === VS16 || EMOJI_MODIFIER.test(String.fromCodePoint(before)))) {
    before = codePointBefore(text, index - (before > 0xffff ? 2 : 1));
  }
  return isPictographic(before) && isPictographic(text.codePointAt(index + width));
}

/**
 * Calls `found` for every hidden character in `text`, in order. The one scanner under
 * `inspectText` and `revealHidden`, so the findings and the display can never disagree.
 */
function scan(text: string, singleLine: boolean, found: (index: number, codePoint: number, kind: HiddenKind) => void): void {
  CANDIDATE.lastIndex = 0;
  for (let match = CANDIDATE.exec(text); match !== null; match = CANDIDATE.exec(text)) {
    const index = match.index;
    const codePoint = match[0].codePointAt(0)!;
    const kind = classifyCodePoint(codePoint, singleLine);
    if (kind === null) continue;
    // CRLF is an ordinary line ending outside one-line fields; only a lone CR is hidden.
    if (codePoint === 0x0d && !singleLine && text.charCodeAt(index + 1) === 0x0a) continue;
    if (kind === 'invisible' && isEmojiSequencePart(text, index, codePoint, match[0].length)) continue;
    found(index, codePoint, kind);
  }
}

/**
 * Finds bidi controls, invisible and format characters, stray controls, look-alike spaces and
 * hidden line breaks in any Company text, and returns the text with each one made visible.
 */
export function inspectText(text: string, options: InspectOptions = {}): TextInspection {
  const findings: TextFinding[] = [];
  const segments: TextSegment[] = [];
  let display = '';
  let last = 0;
  scan(text, options.singleLine === true, (index, codePoint, kind) => {
    if (index > last) {
      const plain = text.slice(last, index);
      segments.push({ type: 'text', text: plain });
      display += plain;
    }
    const token = hiddenToken(codePoint);
    const label = codePointLabel(codePoint);
    const finding: TextFinding = {
      kind,
      severity: severityOf(kind, codePoint),
      codePoint,
      label,
      token,
      index,
      ...summaryText(MESSAGE_KEYS[kind], { label, token }),
    };
    findings.push(finding);
    segments.push({ type: 'hidden', token, finding });
    display += token;
    last = index + (codePoint > 0xffff ? 2 : 1);
  });
  if (last < text.length) {
    const rest = text.slice(last);
    segments.push({ type: 'text', text: rest });
    display += rest;
  }
  return { findings, display, segments };
}

/** Only the display string of `inspectText`, without building findings (the renderer's hot path). */
export function revealHidden(text: string, options: InspectOptions = {}): string {
  let display = '';
  let last = 0;
  scan(text, options.singleLine === true, (index, codePoint) => {
    display += text.slice(last, index) + hiddenToken(codePoint);
    last = index + (codePoint > 0xffff ? 2 : 1);
  });
  return last === 0 ? text : display + text.slice(last);
}
