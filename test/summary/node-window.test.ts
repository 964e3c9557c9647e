/**
 * In Node (no global window) the summary pipeline takes a jsdom window from the caller, as the
 * benchmark and any server-side check do; without one it says so instead of rendering unsafely.
 */
import { JSDOM } from 'jsdom';
import { describe, expect, it } from 'vitest';
import { prepareSummary, summaryToSafeHtml, summaryToText } from '../../src/summary/index.ts';

describe('the summary pipeline in Node', () => {
  it('renders with a jsdom window passed in', () => {
    const { window } = new JSDOM('');
    expect(summaryToSafeHtml('**$70.00** <img src=x onerror=alert(1)>', { window })).toBe('<p><strong>$70.00</strong> &lt;img src=x onerror=alert(1)&gt;</p>');
    expect(prepareSummary('a', { window }).sanitizerRemovals).toBe(0);
  });

  it('refuses to render without a window', () => {
    expect(() => summaryToSafeHtml('x')).toThrow(expect.objectContaining({ code: 'ERR_ARGUMENT_INVALID' }));
  });

  it('gives the visible text without any DOM', () => {
    expect(summaryToText('*a* [b](c)').text).toBe('a [b](c)');
  });
});
