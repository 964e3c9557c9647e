// @vitest-environment jsdom
/**
 * The 424 XSS inputs of the shared corpus, each fed as Markdown through the whole pipeline
 * (spec section 3 "Formatting", section 8): nothing can be followed, loaded or run, and the
 * text of the link, image or tag stays visible, since hiding what the Company wrote is as wrong
 * as rendering it.
 */
import { describe, expect, it } from 'vitest';
import { renderSummaryView } from '../../src/summary/index.ts';
import { countOf, countUnescaped, domViolations, fixture } from './helpers.ts';

interface XssCase {
  source: string;
  id: string;
  kind: string;
  title: string | null;
  input: string;
}

const cases = fixture<{ cases: XssCase[] }>('xss/xss-inputs.json').cases;

describe('XSS corpus through the summary pipeline', () => {
  it('has the 424 cases the corpus README counts', () => {
    expect(cases).toHaveLength(424);
  });

  for (const c of cases) {
    const title = c.title ?? c.kind;
    it(`${c.id}: ${title.length > 70 ? `${title.slice(0, 69)}…` : title}`, () => {
      const view = renderSummaryView(c.input, document, { limit: Infinity });
      const holder = document.createElement('div');
      holder.append(view.fragment);
      expect(domViolations(holder)).toEqual([]);
      // The first wall alone already held: the second removed nothing.
      expect(view.sanitizerRemovals).toBe(0);
      // Every unescaped "<" survives as text the reader can see.
      expect(countOf(holder.textContent ?? '', '<')).toBeGreaterThanOrEqual(countUnescaped(c.input, '<'));
    });
  }
});
