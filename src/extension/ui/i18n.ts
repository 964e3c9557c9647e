import type { browser as browserApi } from 'wxt/browser';

type Browser = typeof browserApi;

/**
 * Every string the extension's pages show comes from `_locales/<lang>/messages.json` through
 * this function (docs/ui.md, "Language"). Substitutions fill the message's placeholders; they are
 * data (names, amounts, times), never sentences glued together in code.
 */
export interface Translate {
  (key: string, substitutions?: string | string[]): string;
  /**
   * A counted message: `<key>_<category>` for the locale's CLDR plural category of `count`
   * (`Intl.PluralRules`: one, few, many, other …), falling back to `<key>_other`. The count is
   * the first substitution, formatted for the locale.
   */
  plural(key: string, count: number, substitutions?: string[]): string;
  /** The BCP 47 language the messages are in, for `Intl` and the page's `lang`. */
  readonly locale: string;
  /** `rtl` for right-to-left locales (`@@bidi_dir`), else `ltr`. */
  readonly dir: 'ltr' | 'rtl';
}

type GetMessage = (key: string, substitutions?: string | string[]) => string;

/** A `Translate` over any `getMessage` (the browser's, or a table in unit tests). */
export function translator(getMessage: GetMessage, locale: string): Translate {
  const rules = new Intl.PluralRules(locale);
  const numbers = new Intl.NumberFormat(locale);
  // A missing message shows its key: a visible bug, never a blank button.
  const t = ((key: string, substitutions?: string | string[]) => getMessage(key, substitutions) || key) as Translate;
  t.plural = (key, count, substitutions = []) => {
    const subs = [numbers.format(count), ...substitutions];
    return getMessage(`${key}_${rules.select(count)}`, subs) || getMessage(`${key}_other`, subs) || key;
  };
  Object.defineProperty(t, 'locale', { value: locale });
  Object.defineProperty(t, 'dir', { value: getMessage('@@bidi_dir') === 'rtl' ? 'rtl' : 'ltr' });
  return t;
}

/**
 * The language the extension's messages are in (BCP 47), for `Intl`: the pages' and the
 * background's, which formats the facts it sends them (src/extension/snapshot-review.ts).
 */
export function uiLocale(browser: Browser): string {
  return safeLocale(browser.i18n.getMessage('@@ui_locale').replace(/_/g, '-') || browser.i18n.getUILanguage() || 'en');
}

/** The page's translator, from the browser's UI language; also sets `<html lang dir>`. */
export function pageTranslator(browser: Browser, doc?: Document): Translate {
  const getMessage: GetMessage = (key, subs) => browser.i18n.getMessage(key as never, subs);
  const t = translator(getMessage, uiLocale(browser));
  if (doc) {
    doc.documentElement.lang = t.locale;
    doc.documentElement.dir = t.dir;
  }
  return t;
}

function safeLocale(locale: string): string {
  try {
    return Intl.getCanonicalLocales(locale)[0] ?? 'en';
  } catch {
    return 'en';
  }
}

/**
 * Marks an element whose text is data, not a message: a Company's or agent's words, a name,
 * an amount, a time, a code. The pseudo-localisation test skips these and fails on any other
 * visible text that did not come through `Translate`.
 */
export function markData<T extends HTMLElement>(element: T): T {
  element.dataset.value = '';
  return element;
}
