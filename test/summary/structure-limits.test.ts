// @vitest-environment jsdom
/**
 * STRUCTURE_LIMITS: crafted summaries within the display limit must not freeze the window
 * ("a 1 MiB summary must not freeze the window"; micromark's emphasis and list
 * handling cost more than linear time), and bounding them must not hide any text.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { STRUCTURE_LIMITS, prepareSummary, summaryToText } from '../../src/summary/index.ts';
import { limitStructure } from '../../src/summary/markdown.ts';
import { domViolations, parseHtml } from './helpers.ts';

const lowercase = (text: string) => (text.match(/[a-z]/g) ?? []).sort().join('');

describe('limitStructure', () => {
  it('leaves an ordinary summary untouched', () => {
    const md = '**Change.** Pay *$70.00* for ord_7Hk2.\n\n- one\n- two\n  1. nested\n\n    indented';
    expect(limitStructure(md)).toEqual({ markdown: md, limited: false });
  });

  it('escapes emphasis runs past the limit', () => {
    const md = '*a* '.repeat(STRUCTURE_LIMITS.emphasisRuns / 2 + 1);
    const { markdown, limited } = limitStructure(md);
    expect(limited).toBe(true);
    expect(markdown.endsWith('\\*a\\* ')).toBe(true);
    const html = prepareSummary(md).html;
    expect(html.match(/<em>/g)).toHaveLength(STRUCTURE_LIMITS.emphasisRuns / 2);
    expect(html.endsWith('*a*</p>')).toBe(true);
  });

  it('escapes a list marker past the chain limit, so the rest of the line is text', () => {
    expect(limitStructure('- - - - - - x').markdown).toBe('- - - - \\- - x');
    expect(limitStructure('1. 2. 3. 4. 5. x').markdown).toBe('1. 2. 3. 4. 5\\. x');
  });

  it('caps indentation, and the number of list items', () => {
    expect(limitStructure(`${' '.repeat(40)}- x`).markdown).toBe(`${' '.repeat(32)}- x`);
    // Two markers a line, so the item limit (1,000) is reached before the line limit.
    const items = '- - i\n'.repeat(STRUCTURE_LIMITS.listItems / 2 + 1);
    expect(limitStructure(items).markdown.endsWith('- - i\n\\- - i\n')).toBe(true);
    expect(parseHtml(document, prepareSummary(items, { showAll: true }).html).querySelectorAll('li')).toHaveLength(STRUCTURE_LIMITS.listItems);
  });

  it('joins lines past the line limit, and bounds the joined line too', () => {
    // 1,010 "-" lines: 999 stay, the last 11 become one line "- - - …", a chain of markers,
    // whose second marker is the 1,001st list item and is escaped.
    const { markdown } = limitStructure('-\n'.repeat(STRUCTURE_LIMITS.lines + 10));
    const lines = markdown.split('\n');
    expect(lines).toHaveLength(STRUCTURE_LIMITS.lines);
    expect(lines.at(-1)).toBe(`- \\-${' -'.repeat(9)} `);
  });

  it('skips escaped characters the way CommonMark does', () => {
    const md = `${'\\*'.repeat(600)} *a*`;
    expect(limitStructure(md)).toEqual({ markdown: md, limited: false });
  });

  it('reports formattingLimited', () => {
    expect(prepareSummary('- '.repeat(10)).formattingLimited).toBe(true);
    expect(prepareSummary('- a').formattingLimited).toBe(false);
  });
});

describe('crafted 20 kB summaries render quickly and stay safe', () => {
  const crafted: Record<string, string> = {
    'nested list markers': '- '.repeat(10_000),
    'nested ordered lists': '1. '.repeat(6_666),
    'alternating * and _': '*_'.repeat(10_000),
    'strong openers': '**a'.repeat(6_666),
    'lazy continuation lines': `- a\n${'b\n'.repeat(9_990)}`,
    'empty list items': '-\n'.repeat(10_000),
    'nested emphasis': `${'*a _a '.repeat(1_666)}b${' a_ a*'.repeat(1_666)}`,
  };
  for (const [name, markdown] of Object.entries(crafted)) {
    it(name, () => {
      const started = performance.now();
      const rendered = prepareSummary(markdown);
      // Before the limits: from seconds to minutes. Now tens to hundreds of milliseconds;
      // the bound is loose for a busy CI machine.
      expect(performance.now() - started).toBeLessThan(5_000);
      expect(rendered.formattingLimited).toBe(true);
      expect(domViolations(parseHtml(document, rendered.html))).toEqual([]);
    });
  }
});

// Skipped under `npm run mutation` (vitest.mutation.config.ts): a thousand runs for every mutant it covers.
describe.skipIf(process.env.COUNTERSIGN_MUTATION === '1')('no text is lost to the limits (fast-check, 1,000 runs)', () => {
  it('every lowercase letter the Company wrote is on the screen, limits or not', () => {
    const unit = fc.array(fc.constantFrom('- ', '1. ', '*', '_', '**', 'a', 'b', ' ', '\n', '\n\n', '  ', '\t', '\\', 'x*', '_y'), { minLength: 1, maxLength: 6 }).map((a) => a.join(''));
    const markdown = fc.oneof(
      fc.tuple(unit, fc.integer({ min: 1, max: 600 })).map(([u, n]) => u.repeat(n)),
      fc.array(unit, { maxLength: 60 }).map((a) => a.join('')),
    );
    fc.assert(
      fc.property(markdown, (md) => {
        // The text without a DOM: the second wall removes nothing (see the property tests).
        expect(lowercase(summaryToText(md, { showAll: true }).text)).toBe(lowercase(md));
      }),
      { numRuns: 1_000 },
    );
    // A thousand pipelines take about 9 s alone; beside another file on two cores, more than 20.
  }, 60_000);
});
