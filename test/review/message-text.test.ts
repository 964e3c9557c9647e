/**
 * Every sentence of the review and summary checks, shown in the browser's language: each
 * `message` must be exactly what its messages.json entry gives with its `text.substitutions`,
 * filled the way Chrome's `i18n.getMessage` fills it ($1 to $9 through named placeholders).
 * The entries are the ones generated from the tables (`reviewChromeMessages`), read back as
 * JSON, over real findings: the misleading-summary fixtures, and inputs that reach every message.
 */
import { describe, expect, it } from 'vitest';
import { REVIEW_MESSAGES, reviewChromeMessages } from '../../src/review/messages.ts';
import { localize, placeholderOrder, type ChromeMessage, type Localized, type MessageText } from '../../src/summary/message-text.ts';
import { SUMMARY_MESSAGES, summaryText } from '../../src/summary/messages.ts';
import { displayOrigin, inspectCompanyName, inspectText } from '../../src/summary/index.ts';
import { fixture } from '../summary/helpers.ts';
import { diffed, reviewed } from './sentences.ts';
import { fillMessage } from '../extension/ui/locale-table';

type Messages = Record<string, ChromeMessage>;

function getMessage(messages: Messages, key: string, substitutions: readonly string[]): string {
  const entry = messages[key];
  return entry ? fillMessage(entry, substitutions) : '';
}

/** What the window shows for `text` in English, as it would pick the plural form. */
function shown(messages: Messages, text: MessageText): string {
  return localize(text, (key, subs) => getMessage(messages, key, subs), 'en');
}

const MESSAGES: Messages = JSON.parse(JSON.stringify(reviewChromeMessages())) as Messages;
const TABLES = { ...REVIEW_MESSAGES, ...SUMMARY_MESSAGES };

const spoofing = fixture<{ characters: Array<{ cp: string; char: string }> }>('unicode/spoofing-characters.json');

const NAMES = [
  'Stormline \u041eutfitters',
  'Stormline \u0416utfitters',
  '\u0421\u0442\u043e\u0440\u043c line Outfitters',
  '\ua4d0ank',
  'Stormline \u16A0utfitters',
  'Stormline \u16A0\u16A2utfitters',
  'P\u0251yments Ltd',
  'P\u0251yments Lt\u0501 \u017f',
  'Yap\u0131 Kredi',
  '\u0420\u0430\u0443\u0440\u0430\u04cf',
  '\u0420\u0430\u0443\u200b\u0440\u0430\u04cf',
  '\ua4d0\ua4ee',
  '\u3007\u30ed',
  'S\u0336tormline Outfitters',
  'S\u0336t\u0337ormline',
  'Z\u0301\u0302\u0303algo',
  'Z\u0301\u0302\u0303alg\u0301\u0302\u0303o',
  'Cafe\u0301',
  'Cafe\u0301 Cre\u0300me',
  ...spoofing.characters.map(({ char }) => `Storm${char}line \u041eutfitters`),
];

const ORIGINS = [
  'http://example.com',
  'https://user:pw@example.com',
  'https://192.0.2.7:8080',
  'https://co.uk',
  'https://a.very.long.chain.of.labels.before.the.shop.stormline.example',
  'https://stormline.example.checkout-secure.co',
  'https://login.paypal.com.secure.evil.co',
  'https://\u0430pple.com',
  'https://\u0430\u0440\u0440\u04cf\u0435.com',
  'https://\u0251pple.com',
  'https://stra\u00dfe.de',
  'https://\u13aa\u13a2\u13a2.com',
  'https://\u092d\u093e\u0930\u09241\u0967.com',
  'https://www.example.com.',
];

function reviewSentences(): Localized[] {
  const { findings, checked } = reviewed();
  return [...findings, ...checked];
}

function diffSentences(): Localized[] {
  const { findings, terms, expiry } = diffed();
  return [...findings, ...terms, ...expiry];
}

function summarySentences(): Localized[] {
  const texts = [...spoofing.characters.map(({ char }) => `a${char}b`), 'a\u2028b\u00A0c\u0007d\uFFF9e\u200Bf\u202Eg', 'line\nbreak'];
  const out: Localized[] = [];
  for (const text of texts) out.push(...inspectText(text).findings, ...inspectText(text, { singleLine: true }).findings);
  for (const name of NAMES) out.push(...inspectCompanyName(name));
  for (const url of ORIGINS) {
    const origin = displayOrigin(url);
    out.push(...origin.warnings, { message: origin.ownerSentence, text: origin.ownerText });
  }
  // Not reached from outside: the URL parser refuses a label that is not valid punycode before
  // the IDN check sees it, and of the scripts that may mix without Latin only Han has a
  // look-alike of a Latin letter, so a name made only of look-alikes is in one script.
  out.push(summaryText('origin_idnInvalid'), summaryText('name_wholeScriptMany', { name: '\u201C\u3007\u201D', scripts: 'Han, Katakana' }));
  return out;
}

const ALL = [...reviewSentences(), ...diffSentences(), ...summarySentences()];

describe('messages.json entries of the review and summary checks', () => {
  it('give back every English message from its substitutions, as Chrome fills them', () => {
    for (const { message, text } of ALL) expect(shown(MESSAGES, text), text.key).toBe(message);
  });

  it('reach every message of the tables (so the comparison above covers them all)', () => {
    const reached = new Set(ALL.map((s) => s.text.key));
    expect(Object.keys(TABLES).filter((key) => !reached.has(key))).toEqual([]);
  });

  it('have valid names, $1 to $9 only, and a count first in every counted message', () => {
    for (const [key, template] of Object.entries(TABLES)) {
      const order = placeholderOrder(template);
      expect(key).toMatch(/^(?:review|checked|diff|hidden|name|origin)_[A-Za-z0-9]+$/);
      expect(order.length).toBeLessThanOrEqual(9);
      if (typeof template !== 'string') expect(order[0]).toBe('count');
    }
    for (const [key, entry] of Object.entries(MESSAGES)) {
      for (const [, placeholder] of Object.entries(entry.placeholders ?? {})) expect(placeholder.content, key).toMatch(/^\$[1-9]$/);
      expect(entry.message, key).not.toMatch(/\{[a-z_]+\}/);
    }
  });

  it('keep data values only in substitutions, in placeholder order', () => {
    for (const { text } of ALL) {
      const template = TABLES[text.key as keyof typeof TABLES];
      expect(text.substitutions).toHaveLength(placeholderOrder(template).length);
      if (text.count !== undefined) expect(text.substitutions[0]).toBe(new Intl.NumberFormat('en-US').format(text.count));
    }
  });

  it('writes a dollar sign in the English as $$, so Chrome shows it as one', () => {
    const messages = JSON.parse(JSON.stringify({ ...MESSAGES, dollar: { message: 'Costs $$5 for $AMOUNT$', placeholders: { amount: { content: '$1' } } } })) as Messages;
    expect(getMessage(messages, 'dollar', ['$1.00'])).toBe('Costs $5 for $1.00');
  });
});

describe('localize', () => {
  const table: Messages = {
    hidden_x_one: { message: '$COUNT$ Zeichen', placeholders: { count: { content: '$1' } } },
    hidden_x_other: { message: '$COUNT$ Zeichen ($WHAT$)', placeholders: { count: { content: '$1' }, what: { content: '$2' } } },
    hidden_x_few: { message: '$COUNT$ znaki', placeholders: { count: { content: '$1' } } },
  };
  const lookup = (key: string, subs: string[]) => getMessage(table, key, subs);

  it('picks the locale plural form, formats the count for the locale, and falls back to _other', () => {
    expect(localize({ key: 'hidden_x', substitutions: ['20,000', 'U+202E'], count: 20_000 }, lookup, 'de')).toBe('20.000 Zeichen (U+202E)');
    expect(localize({ key: 'hidden_x', substitutions: ['3'], count: 3 }, lookup, 'pl')).toBe('3 znaki');
    expect(localize({ key: 'hidden_x', substitutions: ['1'], count: 1 }, lookup, 'de')).toBe('1 Zeichen');
    expect(localize({ key: 'missing', substitutions: [] }, lookup, 'de')).toBe('missing');
  });
});
