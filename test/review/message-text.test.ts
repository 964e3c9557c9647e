/**
 * Every sentence of the review and summary checks, shown in the browser's language: each
 * `message` must be exactly what its messages.json entry gives with its `text.substitutions`,
 * filled the way Chrome's `i18n.getMessage` fills it ($1 to $9 through named placeholders).
 * The entries are the ones generated from the tables (`reviewChromeMessages`), read back as
 * JSON, over real findings: the misleading-summary fixtures, and inputs that reach every message.
 */
import { describe, expect, it } from 'vitest';
import { diffExpiry, diffRevisions, diffTerms, factFindings, reviewOperation, type ReviewInput } from '../../src/review/index.ts';
import { REVIEW_MESSAGES, reviewChromeMessages } from '../../src/review/messages.ts';
import { localize, placeholderOrder, type ChromeMessage, type Localized, type MessageText } from '../../src/summary/message-text.ts';
import { SUMMARY_MESSAGES, summaryText } from '../../src/summary/messages.ts';
import { displayOrigin, inspectCompanyName, inspectText } from '../../src/summary/index.ts';
import { fixture } from '../summary/helpers.ts';
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

interface Case {
  id: string;
  summary: string;
  terms?: Record<string, unknown>;
  request?: Record<string, unknown>;
}

const cases = fixture<{ misleading: Case[]; honest: Case[] }>('misleading-summaries/cases.json');
const holdout = fixture<{ misleading: Case[]; honest: Case[] }>('misleading-summaries/holdout.json');
const spoofing = fixture<{ characters: Array<{ cp: string; char: string }> }>('unicode/spoofing-characters.json');

const JACKET = {
  operation_id: 'exc_5Rt2',
  revision: 'r1',
  summary: 'Exchange the Stormline Jacket (M) on order ord_7Hk2 for the Stormline Insulated Jacket (M), for **$70.00** more.',
  terms: { order_id: 'ord_7Hk2', item_id: 'itm_4Qa', price_difference: { amount: '70.00', currency: 'USD' } },
  expires_at: '2026-10-08T12:20:00-07:00',
};

function deep(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: 'x' };
  for (let i = 0; i < levels; i += 1) value = { next: value };
  return value;
}

/** Review inputs beyond the fixtures, so that every review_ and checked_ message is reached. */
const REVIEWS: ReviewInput[] = [
  ...[...cases.misleading, ...cases.honest, ...holdout.misleading, ...holdout.honest],
  ...cases.misleading.map(({ summary, terms }) => ({ summary, terms })),
  { summary: 'Anything' },
  { summary: 'Anything', terms: {} },
  { summary: 'Ships 2026-10-08 to Lyon', terms: { ship_on: '2026-10-09', nights: 3, gift: true, note: null, city: 'Paris' }, request: { city: 'Paris' } },
  { summary: 'Ships to Lyon', terms: { city: 'Paris', weight: 3 } },
  { summary: 'Ships', terms: { city: 'Paris' }, request: { sku: 'a' } },
  { summary: 'Ships to Paris', terms: { city: 'Paris' }, request: { city: 'Lyon' } },
  { summary: 'Ships', terms: { city: 'Paris' }, request: { city: 'Lyon' } },
  { summary: 'Pay $5.00', terms: { amount: '5.00', currency: 'USD' }, request: { amount: '6.00', currency: 'USD' } },
  { summary: 'Pay', terms: { amount: '5.00', currency: 'USD' }, request: { amount: '6.00', currency: 'USD' } },
  { summary: 'Pay nothing', terms: { amount: '5.00', currency: 'USD' } },
  { summary: 'Items', terms: { items: ['a'] }, request: { items: ['a', 'b'] } },
  { summary: 'Items', terms: { items: ['a', 'b'] }, request: { items: ['a', 'b', 'c'] } },
  { summary: 'x', terms: { 'k\u202E': 'v\u200B', ['z\u200B\u200C\u200D\u2060\uFEFF\u00AD\u2061']: 'w\u202E' } },
  { summary: 'x', terms: deep(40) },
  { summary: 'Total: $700.00. Total today: $7.00. Total due: $9.00.', terms: { total: { amount: '700.00', currency: 'USD' } } },
  { summary: 'Pay $12.00, about \u20AC645.', terms: {} },
  { summary: 'Pay $12.00.', terms: { sku: 'abc' } },
  { summary: 'You get $210.00 back.', terms: { total: { amount: '70.00', currency: 'USD' }, nights: 3 } },
  { summary: 'You are charged $210.00.', terms: { refund: { amount: '70.00', currency: 'USD' }, nights: 3 } },
];

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
  const out: Localized[] = [];
  for (const input of REVIEWS) {
    const { findings, checked } = reviewOperation({ summary: input.summary, terms: input.terms, request: input.request });
    out.push(...findings, ...checked);
  }
  out.push(...reviewOperation({ summary: `Pay $70.00. ${'x '.repeat(50)}`, terms: JACKET.terms }, { limit: 20 }).findings);
  out.push(...reviewOperation({ summary: 'Pay $70.00. x', terms: JACKET.terms }, { limit: 1 }).findings);
  // An amount with more decimals than Intl formats, in a member and as the whole terms.
  const unformatted = `1.${'0'.repeat(100)}1`;
  out.push(...factFindings({ fee: { amount: unformatted, currency: 'USD' } }), ...factFindings({ amount: unformatted, currency: 'USD' }));
  return out;
}

function diffSentences(): Localized[] {
  const second = { ...JACKET, revision: 'r2', summary: JACKET.summary.replace('$70.00', '$75.00'), terms: { ...JACKET.terms, price_difference: { amount: '75.00', currency: 'USD' } } };
  const out: Localized[] = [
    ...diffRevisions(JACKET, second).findings,
    ...diffRevisions(JACKET, { ...second, revision: 'r1' }).findings,
    ...diffRevisions(JACKET, { ...JACKET, revision: 'r2' }).findings,
    ...diffRevisions(JACKET, second).terms,
    ...diffTerms(undefined, { a: 1 }),
    ...diffTerms({ a: 1 }, undefined),
    ...diffTerms({ a: 1, items: [{ sku: 'x' }, { sku: 'y' }], gone: true, shape: 'text', 'k\u202E': 'a' }, { a: 2, items: [{ sku: 'x', qty: 2 }], added: null, shape: { now: 'object' }, 'k\u202E': 'a\u200B' }),
    ...diffTerms({ a: 1 }, [] as never),
  ];
  const base = Date.parse('2026-10-08T12:00:00Z');
  for (const ms of [1, 7, 1_000, 45_000, 60_000, 600_000, 3_600_000, 5_400_000, 86_400_000, 3 * 86_400_000, 1_000 * 86_400_000]) {
    for (const sign of [1, -1]) out.push(diffExpiry('2026-10-08T12:00:00.000Z', new Date(base + sign * ms).toISOString())!);
  }
  out.push(diffExpiry('2026-10-08T12:20:00Z', '2026-10-08T05:20:00-07:00')!, diffExpiry('2026-10-08T12:20:00Z', 'soon')!);
  return out;
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
