/**
 * The second wall: DOMPurify with an allow-list of exactly what the first wall may emit
 * (spec section 3, "Formatting"). If micromark were ever tricked into writing anything else,
 * this is where it stops. On correct input it removes nothing (the tests hold it to that).
 *
 * DOMPurify needs a DOM window. In the extension that is the page's `window`; in Node it is a
 * jsdom window the caller passes in. One DOMPurify instance per window, created on first use,
 * carries our one hook and is never shared with other code, so nobody can loosen it.
 */
import createDOMPurify, { type Config, type DOMPurify, type WindowLike } from 'dompurify';
import { CountersignError } from '../protocol/errors.ts';

export type { WindowLike };

export const ALLOWED_TAGS = ['p', 'em', 'strong', 'ul', 'ol', 'li'] as const;

/** `ol@start`: CommonMark writes at most nine digits (0.31.2, "List items"). */
const START_VALUE = /^\d{1,9}$/;

const CONFIG = {
  ALLOWED_TAGS: [...ALLOWED_TAGS],
  ALLOWED_ATTR: ['start'],
  ALLOW_ARIA_ATTR: false,
  ALLOW_DATA_ATTR: false,
  ALLOW_UNKNOWN_PROTOCOLS: false,
  ALLOW_SELF_CLOSE_IN_ATTR: false,
  // Text of an element that is not allowed stays as text: hiding what the Company wrote is as
  // wrong as rendering it (the first wall has already turned all markup into text anyway).
  KEEP_CONTENT: true,
} satisfies Config;

const instances = new WeakMap<object, DOMPurify>();

function purifierFor(window: WindowLike): DOMPurify {
  let purify = instances.get(window);
  if (purify === undefined) {
    purify = createDOMPurify(window);
    if (!purify.isSupported) {
      throw new CountersignError('ERR_ARGUMENT_INVALID', 'window: expected a DOM window DOMPurify supports, got one it does not');
    }
    // DOMPurify's ALLOWED_ATTR is global; `start` is allowed on `ol` only, and only as a number.
    purify.addHook('uponSanitizeAttribute', (node, data) => {
      if (data.attrName !== 'start' || node.nodeName !== 'OL' || !START_VALUE.test(data.attrValue)) {
        data.keepAttr = false;
      }
    });
    instances.set(window, purify);
  }
  return purify;
}

/** The page's window in a browser (or a jsdom test environment); otherwise the caller must pass one. */
export function resolveWindow(window: WindowLike | null | undefined): WindowLike {
  if (window) return window;
  const global = (globalThis as { window?: WindowLike }).window;
  if (global) return global;
  throw new CountersignError(
    'ERR_ARGUMENT_INVALID',
    'options.window: expected a DOM window outside a browser (for example a jsdom window), got nothing',
  );
}

/**
 * DOMPurify parses into a `<body>` of its own and lists that wrapper as removed (it is not on
 * the allow-list; its content is kept). The first wall never writes `<body>`, so every other
 * entry is a real removal.
 */
function removals(purify: DOMPurify): number {
  return purify.removed.filter((entry) => !('element' in entry && entry.element.nodeName === 'BODY')).length;
}

export interface Sanitized<T> {
  value: T;
  /** How many elements or attributes DOMPurify took out: 0 unless the first wall failed. */
  removed: number;
}

export function sanitizeToHtml(allowListedHtml: string, window: WindowLike): Sanitized<string> {
  const purify = purifierFor(window);
  const value = purify.sanitize(allowListedHtml, { ...CONFIG, RETURN_DOM: false, RETURN_DOM_FRAGMENT: false });
  return { value, removed: removals(purify) };
}

export function sanitizeToFragment(allowListedHtml: string, window: WindowLike): Sanitized<DocumentFragment> {
  const purify = purifierFor(window);
  const value = purify.sanitize(allowListedHtml, { ...CONFIG, RETURN_DOM_FRAGMENT: true });
  return { value, removed: removals(purify) };
}
