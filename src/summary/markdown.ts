/**
 * The first wall: CommonMark 0.31.2 through micromark with every construct switched off except
 * the ones spec section 3 ("Formatting") allows in a `summary`: emphasis and strong emphasis
 * (`attention`), paragraphs (the default flow content) and lists (`list`).
 *
 * What those need and stays on:
 * - line endings (`lineEnding`) and blank lines (built into flow, not a construct): they are
 *   how paragraphs, list items and loose lists end;
 * - character escapes (`characterEscape`), so a Company can write a literal `\*` or `1\.`;
 *   an escape only ever yields ASCII punctuation, so it cannot smuggle anything in.
 *
 * What is switched off, and why (each comes out as the literal characters the Company wrote):
 * - links, images, autolinks, raw HTML, HTML blocks: section 3 forbids rendering them, so a
 *   summary can't send the user elsewhere or load content while they decide;
 * - headings, code (indented, fenced, inline), block quotes, thematic breaks, reference
 *   definitions: not in section 3's list;
 * - character references (`&amp;`, `&#x202E;`): not in the list either, and they would let a
 *   summary spell a bidi control or `<` that the text inspection never sees in the source;
 *   `&amp;` therefore shows as the six characters the Company typed;
 * - hard break by backslash (`hardBreakEscape`): the backslash shows.
 *
 * A hard break by two trailing spaces is not a construct micromark can disable; its handler is
 * replaced so it compiles to nothing and the line ending after it stays an ordinary newline in
 * the text (a soft break). `<br>` is not on the allow-list, and a soft break loses nothing the
 * reader needs: the window can show source line breaks with `white-space: pre-line`.
 *
 * micromark is never given `allowDangerousHtml` or `allowDangerousProtocol`: with `htmlFlow`
 * and `htmlText` off there is no HTML to allow anyway, and every text byte is HTML-encoded.
 */
import { micromark, type Options } from 'micromark';
import { revealHidden } from './text-inspection.ts';

/** Construct names from micromark/dev/lib/constructs.js (micromark 4.0.3). */
export const DISABLED_CONSTRUCTS = [
  'autolink',
  'blockQuote',
  'characterReference',
  'codeFenced',
  'codeIndented',
  'codeText',
  'definition',
  'hardBreakEscape',
  'headingAtx',
  'htmlFlow',
  'htmlText',
  'labelEnd',
  'labelStartImage',
  'labelStartLink',
  'setextUnderline',
  'thematicBreak',
] as const;

/** Kept on: `attention`, `list`, `characterEscape`, `lineEnding` (and paragraphs, always on). */
export const ENABLED_CONSTRUCTS = ['attention', 'characterEscape', 'lineEnding', 'list'] as const;

// Types through micromark's own `Options`, so we depend on no package we don't declare.
type Extension = NonNullable<Options['extensions']>[number];
type HtmlExtension = NonNullable<Options['htmlExtensions']>[number];

const syntax: Extension = { disable: { null: [...DISABLED_CONSTRUCTS] } };

/**
 * Every piece of text the Company wrote passes here: hidden characters become visible tokens
 * (`⟨U+202E⟩`) after Markdown has been parsed, so the tokens cannot change the parse (CommonMark
 * treats e.g. NBSP as white space when it decides what is emphasis).
 */
const revealData: NonNullable<NonNullable<HtmlExtension['exit']>['data']> = function (token) {
  this.raw(this.encode(revealHidden(this.sliceSerialize(token))));
};

/**
 * The compile side of the first wall. Raw HTML is switched off above, so its text arrives as
 * `data`; should `htmlFlow` or `htmlText` ever be switched on, micromark writes the text of a
 * comment or tag as `htmlFlowData` / `htmlTextData` (HTML-encoded, since `allowDangerousHtml`
 * is never set), and those show hidden characters as tokens too, not as the characters.
 */
export const revealHiddenHtml: HtmlExtension = {
  exit: {
    // Two trailing spaces: no `<br />` (see above). The line ending that follows is compiled
    // by micromark as usual, so the break becomes a newline in the text.
    hardBreakTrailing() {},
    data: revealData,
    htmlFlowData: revealData,
    htmlTextData: revealData,
  },
};

/**
 * Line endings, before micromark sees the text: CRLF becomes LF (one line ending either way in
 * CommonMark), and a lone CR becomes its visible token, as `inspectText` reports it.
 */
export function normalizeLineEndings(markdown: string): string {
  if (!markdown.includes('\r')) return markdown;
  return markdown.replace(/\r\n?/g, (ending) => (ending === '\r\n' ? '\n' : '\u27E8U+000D\u27E9'));
}

/**
 * Structure a summary may have before the rest of its markers are shown as typed. micromark's
 * emphasis resolution, its list containers and its lazy continuation lines cost more than
 * linear time: 20,000 characters of "- - - - …" take seconds there and minutes through
 * DOMPurify, and "- a" followed by 10,000 short lines takes two seconds, so the display limit
 * alone does not keep the window responsive. These bounds are far above any honest summary
 * (the seed's is one line without a marker) and keep every input near linear. Beyond them a
 * marker gets a backslash escape (its character still shows, it just formats nothing) and
 * lines past the last one allowed are joined with a space: no text is lost.
 */
export const STRUCTURE_LIMITS = {
  /** Lines; the ones after are joined to the last with spaces. */
  lines: 1_000,
  /** Runs of `*` or `_` (each is a possible emphasis delimiter, or part of an ID like ord_7Hk2). */
  emphasisRuns: 500,
  /** List markers in a row at the start of one line ("- - 1. x" is three nested lists). */
  listMarkersPerLine: 4,
  /** List markers in the whole summary. */
  listItems: 1_000,
  /** Columns of leading white space (tabs to multiples of 4): nesting by indentation. */
  indentColumns: 32,
} as const;

const LIST_MARKER = /(?:[-+*]|\d{1,9}[.)])(?=[ \t]|$)[ \t]*/y;
const SPECIAL = /[\\*_]/g;
const ASCII_PUNCTUATION = /[!-/:-@[-`{-~]/;

/** Bounds a summary's structure (see `STRUCTURE_LIMITS`); linear in its length. Expects LF line endings. */
export function limitStructure(markdown: string): { markdown: string; limited: boolean } {
  const out: string[] = [];
  let runs = 0;
  let items = 0;
  let limited = false;

  /** Indentation and list markers at the start of a line; returns where the rest begins. */
  function lineStart(line: string): number {
    let at = 0;
    let columns = 0;
    while (at < line.length && (line[at] === ' ' || line[at] === '\t')) {
      columns = line[at] === '\t' ? columns + 4 - (columns % 4) : columns + 1;
      at += 1;
    }
    if (columns > STRUCTURE_LIMITS.indentColumns) {
      out.push(' '.repeat(STRUCTURE_LIMITS.indentColumns));
      limited = true;
    } else {
      out.push(line.slice(0, at));
    }
    // The first marker over a limit is escaped, which also ends the chain: what follows it is
    // paragraph text.
    let inRow = 0;
    LIST_MARKER.lastIndex = at;
    for (let m = LIST_MARKER.exec(line); m !== null; m = LIST_MARKER.exec(line)) {
      inRow += 1;
      items += 1;
      at = LIST_MARKER.lastIndex;
      if (inRow > STRUCTURE_LIMITS.listMarkersPerLine || items > STRUCTURE_LIMITS.listItems) {
        const marker = m[0].trimEnd();
        out.push(`${marker.slice(0, -1)}\\${marker.slice(-1)}`, m[0].slice(marker.length));
        limited = true;
        break;
      }
      out.push(m[0]);
    }
    return at;
  }

  /** Emphasis delimiter runs from `at` on; escapes are skipped as CommonMark does. */
  function rest(line: string, from: number): void {
    let at = from;
    SPECIAL.lastIndex = at;
    for (let m = SPECIAL.exec(line); m !== null; m = SPECIAL.exec(line)) {
      const start = m.index;
      out.push(line.slice(at, start));
      const ch = line[start]!;
      if (ch === '\\') {
        const next = line[start + 1];
        at = next !== undefined && ASCII_PUNCTUATION.test(next) ? start + 2 : start + 1;
        out.push(line.slice(start, at));
      } else {
        let end = start + 1;
        while (line[end] === ch) end += 1;
        runs += 1;
        if (runs > STRUCTURE_LIMITS.emphasisRuns) {
          out.push(`\\${ch}`.repeat(end - start));
          limited = true;
        } else {
          out.push(line.slice(start, end));
        }
        at = end;
      }
      SPECIAL.lastIndex = at;
    }
    out.push(line.slice(at));
  }

  let lines = markdown.split('\n');
  if (lines.length > STRUCTURE_LIMITS.lines) {
    // Joined first, then bounded like any line: "-\n-\n-" joined is a chain of markers.
    lines = [...lines.slice(0, STRUCTURE_LIMITS.lines - 1), lines.slice(STRUCTURE_LIMITS.lines - 1).join(' ')];
    limited = true;
  }
  lines.forEach((line, index) => {
    if (index > 0) out.push('\n');
    rest(line, lineStart(line));
  });
  return { markdown: limited ? out.join('') : markdown, limited };
}

/**
 * Markdown to HTML that holds only `p`, `em`, `strong`, `ul`, `ol` (with a numeric `start`)
 * and `li`, with all text HTML-encoded and hidden characters shown as tokens. The first wall:
 * callers show it only after the second (`sanitize.ts`). `limited` says some markers were
 * shown as typed because of `STRUCTURE_LIMITS`.
 */
export function markdownToAllowListedHtml(markdown: string): { html: string; limited: boolean } {
  const bounded = limitStructure(normalizeLineEndings(markdown));
  return { html: micromark(bounded.markdown, { extensions: [syntax], htmlExtensions: [revealHiddenHtml] }), limited: bounded.limited };
}

/** micromark encodes exactly these four; the tags it writes have no other `>` or `<`. */
const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"' };

/**
 * The text a reader sees, without a DOM (isomorphic; used by the terms review). Only valid on
 * the output of `markdownToAllowListedHtml`: its text is encoded, so every `<` starts a tag.
 */
export function allowListedHtmlToText(allowListedHtml: string): string {
  return allowListedHtml.replace(/<[^>]*>/g, '').replace(/&(?:amp|lt|gt|quot);/g, (e) => ENTITIES[e] ?? e);
}
