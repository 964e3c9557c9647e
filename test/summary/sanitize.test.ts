/**
 * The second wall on its own (src/summary/sanitize.ts): DOMPurify with the summary's allow-list,
 * one instance per window. Each test takes a new jsdom window, so it sees the instance built for
 * it, hook included, and not one another test left behind.
 */
import { JSDOM } from 'jsdom';
import { describe, expect, it } from 'vitest';
import { resolveWindow, sanitizeToFragment, sanitizeToHtml, type WindowLike } from '../../src/summary/sanitize.ts';

const freshWindow = () => new JSDOM('').window as unknown as WindowLike;

describe('sanitizeToHtml', () => {
  it('keeps `start` on an ordered list only, and only as a number of at most nine digits', () => {
    const window = freshWindow();
    expect(sanitizeToHtml('<ol start="3"><li>a</li></ol>', window)).toEqual({ value: '<ol start="3"><li>a</li></ol>', removed: 0 });
    expect(sanitizeToHtml('<ol start="3x"><li>a</li></ol>', window)).toEqual({ value: '<ol><li>a</li></ol>', removed: 1 });
    expect(sanitizeToHtml('<ol start="1234567890"><li>a</li></ol>', window).value).toBe('<ol><li>a</li></ol>');
  });

  it('takes `start` off every other element, on the first call in a window too', () => {
    expect(sanitizeToHtml('<ul start="3"><li>a</li></ul>', freshWindow())).toEqual({ value: '<ul><li>a</li></ul>', removed: 1 });
    expect(sanitizeToHtml('<p start="3">a</p>', freshWindow())).toEqual({ value: '<p>a</p>', removed: 1 });
  });

  it('takes out attributes and elements beyond the allow-list, counting each, and keeps their text', () => {
    expect(sanitizeToHtml('<p title="x" class="y">a</p>', freshWindow())).toEqual({ value: '<p>a</p>', removed: 2 });
    expect(sanitizeToHtml('<p><a href="https://x.example">link</a></p>', freshWindow())).toEqual({ value: '<p>link</p>', removed: 1 });
  });

  it('refuses a window DOMPurify cannot work in', () => {
    expect(() => sanitizeToHtml('<p>a</p>', {} as WindowLike)).toThrow(
      expect.objectContaining({ code: 'ERR_ARGUMENT_INVALID', message: 'window: expected a DOM window DOMPurify supports, got one it does not' }),
    );
  });
});

describe('sanitizeToFragment', () => {
  it('gives a document fragment, with the same rules', () => {
    const { value, removed } = sanitizeToFragment('<ul start="3"><li>a</li></ul>', freshWindow());
    expect(value.nodeType).toBe(11);
    expect(value.firstChild?.nodeName).toBe('UL');
    expect((value.firstChild as Element).hasAttribute('start')).toBe(false);
    expect(removed).toBe(1);
  });
});

describe('resolveWindow', () => {
  it('takes the window it is given', () => {
    const window = freshWindow();
    expect(resolveWindow(window)).toBe(window);
  });

  it('says what it needs outside a browser, where there is no global window', () => {
    expect(globalThis).not.toHaveProperty('window');
    expect(() => resolveWindow(undefined)).toThrow(
      expect.objectContaining({
        code: 'ERR_ARGUMENT_INVALID',
        message: 'options.window: expected a DOM window outside a browser (for example a jsdom window), got nothing',
      }),
    );
    expect(() => resolveWindow(null)).toThrow(expect.objectContaining({ code: 'ERR_ARGUMENT_INVALID' }));
  });
});
