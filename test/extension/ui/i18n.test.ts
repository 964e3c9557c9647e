// @vitest-environment jsdom
import { describe, it, expect, beforeEach } from 'vitest';
import { markData, pageTranslator, translator } from '../../../src/extension/ui/i18n';
import { englishTranslate } from './locale-table';

/** A `getMessage` over a small table of already-filled texts: `$1`… are the substitutions. */
function table(entries: Record<string, string>) {
  return (key: string, subs?: string | string[]): string => {
    const list = subs === undefined ? [] : Array.isArray(subs) ? subs : [subs];
    return (entries[key] ?? '').replace(/\$(\d)/g, (_, n: string) => list[Number(n) - 1] ?? '');
  };
}

describe('i18n: translator (docs/ui.md "Language": every string comes from messages.json)', () => {
  it('fills the message\'s named placeholders with the substitutions', () => {
    const t = englishTranslate();
    expect(t('approveHeading', 'Stormline Outfitters')).toBe('Stormline Outfitters asks to do this for you');
    expect(t('requestApi', ['POST', 'https://api.stormline.example/x'])).toBe('Your agent sent POST https://api.stormline.example/x with these values:');
  });

  it('a missing message shows its key, never a blank', () => {
    const t = englishTranslate();
    expect(t('noSuchMessageAnywhere')).toBe('noSuchMessageAnywhere');
  });
});

describe('i18n: plural (CLDR categories through Intl.PluralRules)', () => {
  it('English: 1 takes <key>_one, 0 and 3 take <key>_other, the count is the first substitution', () => {
    const t = englishTranslate();
    expect(t.plural('pairCodeMismatch', 1)).toBe('That is not the code. 1 try left.');
    expect(t.plural('pairCodeMismatch', 3)).toBe('That is not the code. 3 tries left.');
    expect(t.plural('pairCodeMismatch', 0)).toBe('That is not the code. 0 tries left.');
  });

  it('further substitutions follow the count', () => {
    const t = englishTranslate();
    expect(t.plural('resultDeclinedMany', 2, ['14:05'])).toBe('Declined 2 requests at 14:05 — nothing was approved.');
  });

  it('the count is formatted for the locale (1,234 in English, 1.234 in German)', () => {
    const entries = { n_other: '$1 items' };
    expect(translator(table(entries), 'en').plural('n', 1234)).toBe('1,234 items');
    expect(translator(table(entries), 'de').plural('n', 1234)).toBe('1.234 items');
  });

  it('uses the locale\'s own categories: Polish few and many', () => {
    const t = translator(table({ f_one: 'one $1', f_few: 'few $1', f_many: 'many $1', f_other: 'other $1' }), 'pl');
    expect(t.plural('f', 1)).toBe('one 1');
    expect(t.plural('f', 3)).toBe('few 3');
    expect(t.plural('f', 5)).toBe('many 5');
    expect(t.plural('f', 1.5)).toBe('other 1,5');
  });

  it('a category with no message falls back to <key>_other, and no message at all shows the key', () => {
    const t = translator(table({ g_other: 'other $1' }), 'en');
    expect(t.plural('g', 1)).toBe('other 1');
    expect(t.plural('nothing', 2)).toBe('nothing');
  });
});

describe('i18n: locale and direction', () => {
  it('locale is the language given; dir is rtl only when @@bidi_dir says rtl', () => {
    expect(translator(table({ '@@bidi_dir': 'rtl' }), 'ar').dir).toBe('rtl');
    expect(translator(table({ '@@bidi_dir': 'ltr' }), 'en').dir).toBe('ltr');
    expect(translator(table({ '@@bidi_dir': 'sideways' }), 'en').dir).toBe('ltr');
    expect(translator(table({}), 'fr').locale).toBe('fr');
  });

  describe('pageTranslator', () => {
    beforeEach(() => {
      document.documentElement.removeAttribute('lang');
      document.documentElement.removeAttribute('dir');
    });
    const fakeBrowser = (messages: Record<string, string>, ui = 'en') =>
      ({ i18n: { getMessage: table(messages), getUILanguage: () => ui } }) as never;

    it('takes @@ui_locale (pt_BR → pt-BR) and sets <html lang dir>', () => {
      const t = pageTranslator(fakeBrowser({ '@@ui_locale': 'pt_BR', '@@bidi_dir': 'ltr' }), document);
      expect(t.locale).toBe('pt-BR');
      expect(document.documentElement.lang).toBe('pt-BR');
      expect(document.documentElement.dir).toBe('ltr');
    });

    it('a right-to-left locale sets dir="rtl" on the page', () => {
      const t = pageTranslator(fakeBrowser({ '@@ui_locale': 'he', '@@bidi_dir': 'rtl' }), document);
      expect(t.dir).toBe('rtl');
      expect(document.documentElement.dir).toBe('rtl');
      expect(document.documentElement.lang).toBe('he');
    });

    it('without @@ui_locale it uses the browser\'s UI language; a locale Intl rejects becomes en', () => {
      expect(pageTranslator(fakeBrowser({}, 'de')).locale).toBe('de');
      expect(pageTranslator(fakeBrowser({ '@@ui_locale': 'not a locale!' })).locale).toBe('en');
    });
  });
});

describe('i18n: markData', () => {
  it('marks an element as data (data-value), which the pseudo-localisation check skips', () => {
    const span = markData(document.createElement('span'));
    expect(span.hasAttribute('data-value')).toBe(true);
  });
});
