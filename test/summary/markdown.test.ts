import { micromark } from 'micromark';
import { describe, expect, it } from 'vitest';
import {
  DISABLED_CONSTRUCTS,
  ENABLED_CONSTRUCTS,
  STRUCTURE_LIMITS,
  limitStructure,
  allowListedHtmlToText,
  markdownToAllowListedHtml,
  normalizeLineEndings,
  revealHiddenHtml,
} from '../../src/summary/markdown.ts';
import { inspectText } from '../../src/summary/text-inspection.ts';

/**
 * src/summary/markdown.ts, the first wall, on its own: raw HTML stays text, and a hidden
 * character inside an HTML comment or tag is shown as a token whether or not micromark's HTML
 * constructs are on (they are off; `revealHiddenHtml` must not depend on it).
 */

const RLO = '\u202E';
const ZWSP = '\u200B';

describe('markdownToAllowListedHtml', () => {
  it('shows an HTML comment as typed, with its hidden characters as tokens', () => {
    for (const markdown of [`a <!-- ${RLO} --> b`, `<!-- ${RLO} -->`, `<!--\n${ZWSP}\n-->`, `<span title="${RLO}">x</span>`, `<div>\n${RLO}\n</div>`]) {
      const { html } = markdownToAllowListedHtml(markdown);
      expect(html).not.toContain(RLO);
      expect(html).not.toContain(ZWSP);
      expect(html).toMatch(/⟨U\+(202E|200B)⟩/);
      expect(html).toContain('&lt;');
      expect(html).not.toMatch(/<(?!\/?(p|em|strong|ul|ol|li)\b)/);
    }
    const summary = `Pay <!-- ${RLO}dsu --> 10 USD`;
    expect(markdownToAllowListedHtml(summary).html).toBe('<p>Pay &lt;!-- ⟨U+202E⟩dsu --&gt; 10 USD</p>');
    // The report comes from the same text (render.ts), so the comment's character is a finding.
    expect(inspectText(summary).findings.map((f) => f.label)).toEqual(['U+202E']);
  });

  it('keeps every construct but emphasis, lists, escapes and line endings off', () => {
    expect(DISABLED_CONSTRUCTS).toEqual(expect.arrayContaining(['htmlFlow', 'htmlText', 'autolink', 'labelStartLink', 'labelStartImage', 'characterReference']));
    expect([...ENABLED_CONSTRUCTS].sort()).toEqual(['attention', 'characterEscape', 'lineEnding', 'list']);
    expect(markdownToAllowListedHtml('<b>x</b> &#x202E; [a](http://e.example) <http://e.example> # h').html).toBe(
      '<p>&lt;b&gt;x&lt;/b&gt; &amp;#x202E; [a](http://e.example) &lt;http://e.example&gt; # h</p>',
    );
  });

  it('trailing two spaces make no <br>; the line ending stays a newline', () => {
    expect(markdownToAllowListedHtml('a  \nb').html).toBe('<p>a\nb</p>');
    expect(markdownToAllowListedHtml('a\\\nb').html).toBe('<p>a\\\nb</p>');
  });
});

describe('revealHiddenHtml with micromark’s HTML constructs switched on', () => {
  // As if `htmlFlow` and `htmlText` were taken off DISABLED_CONSTRUCTS: micromark then writes
  // a comment's text as htmlTextData / htmlFlowData, not as data.
  const withHtml = (markdown: string) => micromark(markdown, { htmlExtensions: [revealHiddenHtml] });

  it('still shows hidden characters in a comment, inline and as a block, as tokens', () => {
    expect(withHtml(`a <!-- ${RLO} --> b`)).toBe('<p>a &lt;!-- ⟨U+202E⟩ --&gt; b</p>');
    expect(withHtml(`<!-- ${ZWSP}x -->`)).toBe('&lt;!-- ⟨U+200B⟩x --&gt;');
    expect(withHtml(`<div title="${RLO}">`)).toBe('&lt;div title=&quot;⟨U+202E⟩&quot;&gt;');
  });

  it('without it, micromark would pass the character through: the reason for the handlers', () => {
    expect(micromark(`a <!-- ${RLO} --> b`)).toContain(RLO);
  });
});

describe('normalizeLineEndings and allowListedHtmlToText', () => {
  it('CRLF is one line ending, a lone CR a token', () => {
    expect(normalizeLineEndings('a\r\nb\rc')).toBe('a\nb⟨U+000D⟩c');
    expect(normalizeLineEndings('a\nb')).toBe('a\nb');
  });

  it('drops the tags and decodes the four entities micromark writes', () => {
    expect(allowListedHtmlToText('<p>a &amp; b &lt;c&gt; &quot;d&quot; &#39;</p>')).toBe('a & b <c> "d" &#39;');
  });
});

describe('limitStructure at its bounds', () => {
  it('counts a tab to the next multiple of four columns', () => {
    expect(STRUCTURE_LIMITS.indentColumns).toBe(32);
    expect(limitStructure(`${'\t'.repeat(8)}a`).limited).toBe(false);
    expect(limitStructure(` ${'\t'.repeat(8)}a`).limited).toBe(false); // 1 → 4, then 7 tabs: 32
    expect(limitStructure(`  \t${'\t'.repeat(7)}a`).limited).toBe(false);
    expect(limitStructure(`${'\t'.repeat(9)}a`)).toEqual({ markdown: `${' '.repeat(32)}a`, limited: true });
    expect(limitStructure(`${' '.repeat(33)}a`)).toEqual({ markdown: `${' '.repeat(32)}a`, limited: true });
    expect(limitStructure(`${' '.repeat(32)}a`).limited).toBe(false);
  });

  it('keeps the indentation of the lines under the limit once something else is limited', () => {
    const runs = '*a'.repeat(501);
    const { markdown, limited } = limitStructure(`  - x\n${runs}`);
    expect(limited).toBe(true);
    expect(markdown.startsWith('  - x\n')).toBe(true);
  });

  it('counts a delimiter run once, however long, and skips escaped characters', () => {
    expect(limitStructure('**a '.repeat(500)).limited).toBe(false);
    expect(limitStructure('**a '.repeat(501)).limited).toBe(true);
    // An escaped "\*" is no delimiter run: 500 runs besides it are still within the limit.
    expect(limitStructure(String.raw`\*` + ' *a'.repeat(500)).limited).toBe(false);
    expect(limitStructure(String.raw`\\*` + ' *a'.repeat(500)).limited).toBe(true); // "\\" escapes the backslash
    expect(limitStructure(' *a'.repeat(501)).limited).toBe(true);
    // Escapes and a backslash before a letter are kept as typed in a limited line.
    const escaped = String.raw`\* \a \\ ` + '*a'.repeat(501);
    expect(limitStructure(escaped)).toEqual({ markdown: String.raw`\* \a \\ ` + '*a'.repeat(500) + String.raw`\*a`, limited: true });
  });

  it('joins lines only past 1,000', () => {
    expect(limitStructure(`${'a\n'.repeat(999)}a`).limited).toBe(false);
    expect(limitStructure(`${'a\n'.repeat(1000)}a`)).toEqual({ markdown: `${'a\n'.repeat(999)}a a`, limited: true });
  });
});
