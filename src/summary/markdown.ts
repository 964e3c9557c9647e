/**
 * The first wall: CommonMark 0.31.2 through micromark with every construct switched off except
 * the ones spec section 3 ("Formatting") allows in a `summary`: emphasis and strong emphasis
 * (`attention`), paragraphs (the default flow content) and lists (`list`).
 *
 * What those need and stays on:
 * - blank lines and line endings (not disableable: they are how paragraphs and loose lists end);
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

const html: HtmlExtension = {
  exit: {
    // Two trailing spaces: no `<br />` (see above). The line ending that follows is compiled
    // by micromark as usual, so the break becomes a newline in the text.
    hardBreakTrailing() {},
    // Every piece of text the Company wrote passes here: hidden characters become visible
    // tokens (`⟨U+202E⟩`) after Markdown has been parsed, so the tokens cannot change the
    // parse (CommonMark treats e.g. NBSP as white space when it decides what is emphasis).
    data(token) {
      this.raw(this.encode(revealHidden(this.sliceSerialize(token))));
    },
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
 * Markdown to HTML that holds only `p`, `em`, `strong`, `ul`, `ol` (with a numeric `start`)
 * and `li`, with all text HTML-encoded and hidden characters shown as tokens. The first wall:
 * callers show it only after the second (`sanitize.ts`).
 */
export function markdownToAllowListedHtml(markdown: string): string {
  return micromark(normalizeLineEndings(markdown), { extensions: [syntax], htmlExtensions: [html] });
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
