// @vitest-environment jsdom
/**
 * Property tests (fast-check, 1,000 runs each) for the invariants of the summary pipeline and
 * the text and origin checks (spec section 3 "Formatting", sections 5 and 8).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cutSummary, displayOrigin, inspectText, prepareSummary } from '../../src/summary/index.ts';
import { markdownToAllowListedHtml } from '../../src/summary/markdown.ts';
import { countOf, countUnescaped, domViolations, parseHtml } from './helpers.ts';

const RUNS = { numRuns: 1_000 };

/** Markdown syntax, markup, URLs, references and hidden characters, in any order. */
const piece = fc.constantFrom(
  '*', '**', '_', '__', '[', ']', '(', ')', '<', '>', '!', '&', '#', '`', '~', '\\', '=', '-', '"', "'",
  '\n', '\n\n', '  \n', '\r', '\r\n', '- ', '* ', '+ ', '1. ', '7) ', '123456789. ', '> ', '    ', '\t',
  '[x](javascript:alert(1))', '![i](data:image/svg+xml,<svg onload=alert(1)>)', '<https://evil.example>',
  '<script>alert(1)</script>', '<img src=x onerror=alert(1)>', '<!-- c -->', '<a href="x">', '[x]: /u',
  '&#x202E;', '&lt;', '&amp;', '\u202E', '\u200B', '\u00A0', '\u2028', '\u{E0041}', '\uFEFF', '\u0000',
  'a', 'b', ' ', '$70.00', 'ord_7Hk2', '\u2764\uFE0F',
);
const markdown = fc.oneof(
  fc.array(piece, { maxLength: 40 }).map((parts) => parts.join('')),
  fc.array(fc.oneof(piece, fc.string({ unit: 'binary', maxLength: 6 })), { maxLength: 30 }).map((parts) => parts.join('')),
  fc.string({ unit: 'binary', maxLength: 200 }),
);

describe('summary pipeline invariants', () => {
  it('only allow-listed elements, only a numeric ol@start, and the second wall removes nothing', () => {
    fc.assert(
      fc.property(markdown, (md) => {
        const rendered = prepareSummary(md);
        expect(domViolations(parseHtml(document, rendered.html))).toEqual([]);
        expect(rendered.sanitizerRemovals).toBe(0);
      }),
      RUNS,
    );
  });

  it('the first wall alone writes nothing but the allow-list', () => {
    fc.assert(
      fc.property(markdown, (md) => {
        const tags = markdownToAllowListedHtml(md).html.match(/<[^>]*>/g) ?? [];
        for (const tag of tags) expect(tag).toMatch(/^<\/?(?:p|em|strong|ul|li|ol(?: start="\d{1,9}")?)>$/);
      }),
      RUNS,
    );
  });

  it('no hidden character reaches the screen, and every one is reported', () => {
    fc.assert(
      fc.property(markdown, (md) => {
        const rendered = prepareSummary(md);
        const shown = parseHtml(document, rendered.html).textContent ?? '';
        expect(inspectText(shown).findings).toEqual([]);
        expect(rendered.findings).toEqual(inspectText(md).findings);
      }),
      RUNS,
    );
  });

  it('brackets and angle brackets the Company wrote stay visible', () => {
    fc.assert(
      fc.property(markdown, (md) => {
        const dom = parseHtml(document, prepareSummary(md).html);
        const shown = dom.textContent ?? '';
        for (const mark of '<>[](') expect(countOf(shown, mark)).toBeGreaterThanOrEqual(countUnescaped(md, mark));
        // ")" is also CommonMark's other ordered-list delimiter ("7) "): only that may consume one.
        const orderedItems = dom.querySelectorAll('ol > li').length;
        expect(countOf(shown, ')') + orderedItems).toBeGreaterThanOrEqual(countUnescaped(md, ')'));
      }),
      RUNS,
    );
  });

  it('the display limit shows a prefix, never longer than the limit, never half a surrogate pair', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), fc.integer({ min: 1, max: 300 }), (text, limit) => {
        const { shown, truncated } = cutSummary(text, limit);
        expect(text.startsWith(shown)).toBe(true);
        expect(shown.length).toBeLessThanOrEqual(limit);
        expect(truncated).toBe(text.length > limit);
        if (!truncated) expect(shown).toBe(text);
        // Ending on a high surrogate is fine only if the text did too (a lone one), not mid-pair.
        const last = shown.charCodeAt(shown.length - 1);
        const next = text.charCodeAt(shown.length);
        if (last >= 0xd800 && last <= 0xdbff) expect(next >= 0xdc00 && next <= 0xdfff).toBe(false);
        if (truncated) expect(shown.length).toBeGreaterThanOrEqual(Math.max(0, limit - 201));
      }),
      RUNS,
    );
  });
});

describe('inspectText invariants', () => {
  it('the display hides nothing, and the original is the segments with each token put back', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), fc.boolean(), (text, singleLine) => {
        const result = inspectText(text, { singleLine });
        expect(inspectText(result.display, { singleLine }).findings).toEqual([]);
        const original = result.segments.map((s) => (s.type === 'text' ? s.text : String.fromCodePoint(s.finding.codePoint))).join('');
        expect(original).toBe(text);
        expect(result.segments.map((s) => (s.type === 'text' ? s.text : s.token)).join('')).toBe(result.display);
        for (const f of result.findings) expect(text.codePointAt(f.index)).toBe(f.codePoint);
      }),
      RUNS,
    );
  });
});

describe('displayOrigin invariants', () => {
  const labelChar = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789-') },
    { weight: 1, arbitrary: fc.constantFrom('\u0430', '\u0435', '\u043e', '\u0440', '\u0251', '\u0131', '\u00fc', '\u00df', '\u4f8b', '\u30c6', '\u03b1', '\u0661', '\u2044', '\u{1F600}') },
  );
  const label = fc.array(labelChar, { minLength: 1, maxLength: 30 }).map((chars) => chars.join(''));
  const host = fc.tuple(fc.array(label, { maxLength: 5 }), fc.constantFrom('com', 'co.uk', 'de', 'github.io', 'xn--p1ai', 'example')).map(([labels, tld]) => [...labels, 'shop', tld].join('.'));

  it('the registrable domain is always whole, at the end, and the subdomain never longer than the limit', () => {
    fc.assert(
      fc.property(host, fc.constantFrom('', ':8443'), fc.integer({ min: 2, max: 40 }), (h, port, max) => {
        let origin;
        try {
          origin = displayOrigin(`https://${h}${port}/`, { maxSubdomainLength: max });
        } catch (error) {
          // Only the URL parser may refuse a generated name, and then as a CountersignError.
          expect(error).toMatchObject({ name: 'CountersignError', code: 'ERR_ARGUMENT_INVALID' });
          return;
        }
        expect(origin.display.endsWith(`${origin.registrableDomain}${port}`)).toBe(true);
        expect(Array.from(origin.subdomain).length).toBeLessThanOrEqual(max);
        expect(origin.display).toBe(`https://${origin.subdomain ? `${origin.subdomain}.` : ''}${origin.registrableDomain}${port}`);
        if (origin.punycode) expect(origin.host).toBe(origin.asciiHost);
        expect(origin.host.endsWith(origin.registrableDomain)).toBe(true);
        expect(origin.ownerSentence).toContain(origin.registrableDomain.replace(/\.$/, ''));
        // A spelled domain is always inside the subdomain, and always said in words.
        const spells = origin.warnings.some((w) => w.code === 'subdomain-spells-domain');
        expect(spells).toBe(origin.spelledDomain !== null);
        if (origin.spelledDomain !== null) expect(`.${origin.fullSubdomain}.`).toContain(`.${origin.spelledDomain}.`);
      }),
      RUNS,
    );
  });
});
