// @vitest-environment jsdom
/**
 * The summary pipeline's decisions (spec section 3 "Formatting"): what each switched-off
 * construct becomes, hard breaks, hidden characters in a summary, the display limit.
 */
import { describe, expect, it } from 'vitest';
import {
  SUMMARY_DISPLAY_LIMIT,
  cutSummary,
  hiddenToken,
  prepareSummary,
  renderSummary,
  renderSummaryView,
  summaryToSafeHtml,
  summaryToText,
} from '../../src/summary/index.ts';
import { sanitizeToHtml } from '../../src/summary/sanitize.ts';
import { isCountersignError } from '../../src/protocol/errors.ts';
import { domViolations, fixture, parseHtml } from './helpers.ts';

const SEED = 'Exchange the Stormline Jacket (M) on order ord_7Hk2 for the Stormline Insulated Jacket (M), for $70.00 more, charged to the card used for the order.';

function text(markdown: string): string {
  return parseHtml(document, summaryToSafeHtml(markdown)).textContent ?? '';
}

describe('what the summary profile renders', () => {
  it("renders the seed's summary (spec section 3) as one paragraph", () => {
    expect(summaryToSafeHtml(SEED)).toBe(`<p>${SEED}</p>`);
  });

  it('renders emphasis, strong, paragraphs and both kinds of list', () => {
    expect(summaryToSafeHtml('*a* **b** _c_ __d__\n\nnext')).toBe('<p><em>a</em> <strong>b</strong> <em>c</em> <strong>d</strong></p>\n<p>next</p>');
    expect(summaryToSafeHtml('- one\n- two')).toBe('<ul>\n<li>one</li>\n<li>two</li>\n</ul>');
    expect(summaryToSafeHtml('7. seven\n8. eight')).toBe('<ol start="7">\n<li>seven</li>\n<li>eight</li>\n</ol>');
  });

  it.each([
    ['link', '[Approve here](https://evil.example/)', '[Approve here](https://evil.example/)'],
    ['image', '![logo](https://evil.example/x.png)', '![logo](https://evil.example/x.png)'],
    ['autolink', '<https://evil.example/>', '<https://evil.example/>'],
    ['email autolink', '<pay@evil.example>', '<pay@evil.example>'],
    ['raw HTML', 'a <img src=x onerror=alert(1)> b', 'a <img src=x onerror=alert(1)> b'],
    ['HTML block', '<script>alert(1)</script>', '<script>alert(1)</script>'],
    ['ATX heading', '# Approved', '# Approved'],
    ['setext heading', 'Approved\n===', 'Approved\n==='],
    ['code span', '`rm -rf`', '`rm -rf`'],
    ['fenced code', '```\ncode\n```', '```\ncode\n```'],
    ['block quote', '> quoted', '> quoted'],
    ['thematic break', '---', '---'],
    ['definition', '[x]: https://evil.example/', '[x]: https://evil.example/'],
    ['reference link', '[x]\n\n[x]: https://evil.example/', '[x]\n[x]: https://evil.example/'],
    ['character references', '&amp; &#x202E; &lt;b&gt;', '&amp; &#x202E; &lt;b&gt;'],
    ['backslash hard break', 'a\\\nb', 'a\\\nb'],
  ])('shows a %s as the text the Company wrote', (_name, markdown, visible) => {
    const html = summaryToSafeHtml(markdown);
    expect(domViolations(parseHtml(document, html))).toEqual([]);
    expect(text(markdown)).toBe(visible);
  });

  it('keeps indented code as text (leading indentation is not shown, as in any paragraph)', () => {
    expect(text('    indented')).toBe('indented');
  });

  it('turns a two-space hard break into a plain line ending, never <br>', () => {
    const html = summaryToSafeHtml('Total $70.00  \nCharged to your card');
    expect(html).toBe('<p>Total $70.00\nCharged to your card</p>');
    expect(html).not.toContain('<br');
  });

  it('keeps a backslash escape as the escaped character', () => {
    expect(text('\\*not emphasis\\*')).toBe('*not emphasis*');
  });

  it('normalises CRLF and shows a lone CR as a token', () => {
    expect(summaryToSafeHtml('a\r\nb')).toBe('<p>a\nb</p>');
    expect(text('a\rb')).toBe(`a${hiddenToken(0x0d)}b`);
    expect(prepareSummary('a\rb').findings.map((f) => f.label)).toEqual(['U+000D']);
  });

  it('turns NUL into U+FFFD (CommonMark security rule) and reports it', () => {
    expect(text('a\u0000b')).toBe('a\uFFFDb');
    expect(prepareSummary('a\u0000b').findings.map((f) => f.label)).toEqual(['U+0000']);
  });

  it('shows hidden characters without changing the Markdown parse (CommonMark example 353)', () => {
    expect(summaryToSafeHtml('*\u00A0a\u00A0*')).toBe(`<p>*${hiddenToken(0xa0)}a${hiddenToken(0xa0)}*</p>`);
  });

  it('summaryToText gives the words on screen: markers consumed, tokens in', () => {
    expect(summaryToText('**$70**.00 for ord\\_7Hk2\u200B').text).toBe(`$70.00 for ord_7Hk2${hiddenToken(0x200b)}`);
  });
});

describe('the second wall', () => {
  it('keeps start on ol only, and only as a number', () => {
    const html = sanitizeToHtml('<ol start="3"><li start="4">a</li></ol><ol start="javascript:x"><li>b</li></ol><p start="2">c</p>', window).value;
    expect(html).toBe('<ol start="3"><li>a</li></ol><ol><li>b</li></ol><p>c</p>');
  });

  it('drops what the first wall would never write, keeping its text', () => {
    const result = sanitizeToHtml('<p><a href="javascript:alert(1)">x</a><img src=x onerror=alert(1)><script>alert(1)</script>y</p>', window);
    expect(result.value).toBe('<p>xy</p>');
    expect(result.removed).toBeGreaterThan(0);
  });
});

describe('renderSummary', () => {
  it('returns a fragment owned by the given document', () => {
    const fragment = renderSummary('**hi**', document);
    expect(fragment.ownerDocument).toBe(document);
    expect(fragment.firstChild?.nodeName).toBe('P');
  });

  it('works for a document without a window (it borrows the page window and imports the nodes)', () => {
    const other = document.implementation.createHTMLDocument('x');
    expect(other.defaultView).toBeNull();
    const fragment = renderSummary('- *a*', other);
    expect(fragment.ownerDocument).toBe(other);
    expect(fragment.querySelector('em')?.textContent).toBe('a');
  });

  it('reports findings, truncation and sanitizer removals with the fragment', () => {
    const view = renderSummaryView('Pay\u202E now', document);
    expect(view.findings.map((f) => f.label)).toEqual(['U+202E']);
    expect(view.truncated).toBe(false);
    expect(view.sanitizerRemovals).toBe(0);
  });
});

describe('every character of spoofing-characters.json placed in a summary', () => {
  const characters = fixture<{ characters: Array<{ cp: string; char: string; name: string | null }> }>('unicode/spoofing-characters.json').characters;
  for (const c of characters) {
    it(`${c.cp} ${c.name ?? ''} is shown as a token and reported`, () => {
      const code = Number.parseInt(c.cp.slice(2), 16);
      const view = renderSummaryView(`Pay *A${c.char}B* now`, document);
      const shown = Array.from(view.fragment.childNodes, (n) => n.textContent).join('');
      expect(shown).toBe(`Pay A${hiddenToken(code)}B now`);
      expect(shown).not.toContain(c.char);
      expect(view.findings.map((f) => f.codePoint)).toEqual([code]);
    });
  }
});

describe('the display limit', () => {
  const MiB = 1024 * 1024;

  it('shows 20,000 characters of a 1 MiB summary, fast, and says it was cut', () => {
    const big = 'Pay **$70.00** for the jacket. '.repeat(Math.ceil(MiB / 31)).slice(0, MiB);
    const started = performance.now();
    const view = renderSummaryView(big, document);
    const elapsed = performance.now() - started;
    expect(view.truncated).toBe(true);
    expect(view.totalLength).toBe(MiB);
    expect(view.shownLength).toBeLessThanOrEqual(SUMMARY_DISPLAY_LIMIT);
    expect(view.shownLength).toBeGreaterThan(SUMMARY_DISPLAY_LIMIT - 200);
    // A generous bound for a slow CI machine; it takes a few tens of milliseconds.
    expect(elapsed).toBeLessThan(2_000);
  });

  it('shows everything with limit: Infinity or showAll', () => {
    const long = 'word '.repeat(30_000);
    expect(prepareSummary(long, { limit: Infinity })).toMatchObject({ truncated: false, shownLength: long.length });
    expect(prepareSummary(long, { showAll: true, limit: 10 })).toMatchObject({ truncated: false, shownLength: long.length });
    expect(prepareSummary(long)).toMatchObject({ truncated: true, totalLength: long.length });
  });

  it('cuts at white space near the limit, so a number is not split', () => {
    const { shown, truncated } = cutSummary('Pay $1,000,000.00 now', 12);
    expect(truncated).toBe(true);
    expect(shown).toBe('Pay');
  });

  it('never splits a surrogate pair when there is no white space to cut at', () => {
    const { shown } = cutSummary('\u{1F600}'.repeat(300), 301);
    expect(shown.length).toBe(300);
    expect(shown).toBe('\u{1F600}'.repeat(150));
  });

  it('refuses a limit that is not a positive integer or Infinity', () => {
    for (const limit of [0, -1, 1.5, Number.NaN]) {
      expect(() => prepareSummary('x', { limit }), String(limit)).toThrow(expect.objectContaining({ code: 'ERR_ARGUMENT_INVALID' }));
    }
  });

  it('refuses a summary that is not a string', () => {
    try {
      summaryToSafeHtml(42 as unknown as string);
      expect.unreachable();
    } catch (error) {
      expect(isCountersignError(error, 'ERR_ARGUMENT_INVALID')).toBe(true);
    }
  });
});

describe('cutSummary, at the edges of the cut', () => {
  const long = (text: string, length: number) => text + 'x'.repeat(length - text.length);

  it('shows a text of exactly the limit whole, even with white space in it', () => {
    expect(cutSummary('ab cd', 5)).toEqual({ shown: 'ab cd', truncated: false });
  });

  it('cuts at the limit itself when the text has no white space at all', () => {
    expect(cutSummary('abcdefgh', 5)).toEqual({ shown: 'abcde', truncated: true });
  });

  it('keeps a whole surrogate pair that ends at the limit, and steps back from one cut in half', () => {
    // 'ab' + U+1F600 (D83D DE00) + 'cd'
    expect(cutSummary('ab\u{1F600}cd', 4)).toEqual({ shown: 'ab\u{1F600}', truncated: true });
    expect(cutSummary('ab\u{1F600}cd', 3)).toEqual({ shown: 'ab', truncated: true });
  });

  it('steps back from the first and the last high surrogates (U+D800 and U+DBFF)', () => {
    expect(cutSummary('ab\u{10000}cd', 3)).toEqual({ shown: 'ab', truncated: true });
    expect(cutSummary('ab\u{10FC00}cd', 3)).toEqual({ shown: 'ab', truncated: true });
  });

  it('does not step back from a character just past the high surrogates', () => {
    // U+DC00 alone (a low surrogate) ends the cut: it is not the start of a pair.
    expect(cutSummary('ab\uDC00cd', 3)).toEqual({ shown: 'ab\uDC00', truncated: true });
  });

  it('looks for white space in the last 200 code units only', () => {
    // The space at index 0 is 201 units from the limit: too far, so the cut is at the limit.
    const text = long(' ', 400);
    expect(cutSummary(text, 201).shown).toBe(text.slice(0, 201));
    // At index 1, exactly 200 units back: the cut is there.
    const near = 'x ' + 'x'.repeat(398);
    expect(cutSummary(near, 201).shown).toBe('x');
  });

  it.each([
    ['a line feed', '\n'],
    ['a tab', '\t'],
    ['a carriage return', '\r'],
    ['a space', ' '],
  ])('cuts at %s', (_, space) => {
    expect(cutSummary(`Pay${space}$1,000,000.00 now`, 12)).toEqual({ shown: 'Pay', truncated: true });
  });

  it('does not cut at other white space (a no-break space stays inside the word)', () => {
    expect(cutSummary('Pay\u00A0$1,000,000.00 now', 12)).toEqual({ shown: 'Pay\u00A0$1,000,0', truncated: true });
  });

  it('names the bad limit and the bad summary in its errors', () => {
    expect(() => cutSummary('x', 0)).toThrow('limit: expected a positive integer or Infinity, got 0');
    expect(() => cutSummary('x', '3' as unknown as number)).toThrow('limit: expected a positive integer or Infinity, got a string of 1 character');
    expect(() => prepareSummary(42 as unknown as string)).toThrow(/^summary: expected a string, got /);
  });
});
