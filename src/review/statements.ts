// Longer than 500 lines on purpose: every matcher of "does the summary state this value" (amounts
// in digits and in words, dates, IDs, currencies) reads the same normalised text, and wording.ts
// builds its rules on them; split, each would need its own copy of the text rules.
/**
 * Does the summary state a value? The matchers behind the terms review (spec section 5: the
 * Personal Agent checks that the terms agree with the summary). They read the summary as the
 * person sees it (`summaryToText`: Markdown markers consumed, hidden characters shown as
 * tokens), so a value split by a zero-width space does not count as stated.
 *
 * Deliberately literal. For a terms amount to be stated it must appear as digits with its
 * currency next to it; an ID must appear character for character. "seventy dollars" does not
 * state 70.00 USD: a false "not stated" costs the user a second look, a false "stated" could
 * cost them money. The other way round, `moneyMentions` does read amounts in words, since
 * "seven dollars" beside 700.00 USD must not pass as no amount at all.
 */

/** A decimal as a canonical string without sign: "070.50" → "70.5", "70.00" → "70". Null if not a decimal. */
export function canonicalDecimal(value: string | number): string | null {
  // No trimming: " 70.00" with a BOM or NBSP around it is not a clean amount, it is text.
  const text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : value;
  const match = /^[-+\u2212]?(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) return null;
  const int = match[1]!.replace(/^0+(?=\d)/, '');
  const frac = (match[2] ?? '').replace(/0+$/, '');
  return frac ? `${int}.${frac}` : int;
}

/**
 * Currency signs a summary may use instead of the ISO 4217 code (the code itself is always
 * accepted). A bare `$` counts only for USD: for CAD or AUD it would tell the reader the wrong
 * currency, so those need their prefixed sign or code.
 */
const CURRENCY_SIGNS: Record<string, readonly string[]> = {
  USD: ['$', 'US$'],
  EUR: ['\u20AC'],
  GBP: ['\u00A3'],
  JPY: ['\u00A5', '\uFFE5', 'JP\u00A5'],
  CNY: ['\u00A5', 'CN\u00A5', '\u5143'],
  INR: ['\u20B9'],
  KRW: ['\u20A9'],
  CAD: ['CA$', 'C$'],
  AUD: ['A$', 'AU$'],
  NZD: ['NZ$'],
  HKD: ['HK$'],
  SGD: ['S$'],
  MXN: ['MX$'],
  BRL: ['R$'],
  CHF: ['Fr.'],
  SEK: ['kr'],
  NOK: ['kr'],
  DKK: ['kr'],
  PLN: ['z\u0142'],
  ILS: ['\u20AA'],
  TRY: ['\u20BA'],
  RUB: ['\u20BD'],
  UAH: ['\u20B4'],
  PHP: ['\u20B1'],
  THB: ['\u0E3F'],
  VND: ['\u20AB'],
  NGN: ['\u20A6'],
  // Codes without a sign of their own here: still currencies when written next to a number.
  ZAR: [], AED: [], SAR: [], QAR: [], KWD: [], BHD: [], CZK: [], HUF: [], RON: [], BGN: [], ISK: [],
  ARS: [], CLP: [], COP: [], PEN: [], UYU: [], IDR: [], MYR: [], TWD: [], PKR: [], BDT: [], LKR: [],
  EGP: [], MAD: [], KES: [], GHS: [], KZT: [],
};

/**
 * Words after a number that name a currency ("700 dollars", "70 euros"). A word for several
 * currencies stands for all of them; "cents" is a hundredth of any of them.
 */
const CURRENCY_WORDS: ReadonlyArray<readonly [RegExp, readonly string[], number]> = [
  [/^(?:US|U\.S\.)\s+dollars?\b/i, ['USD'], 1],
  [/^Canadian\s+dollars?\b/i, ['CAD'], 1],
  [/^Australian\s+dollars?\b/i, ['AUD'], 1],
  [/^dollars?\b/i, ['USD', 'CAD', 'AUD', 'NZD', 'HKD', 'SGD', 'MXN'], 1],
  [/^bucks?\b/i, ['USD', 'CAD', 'AUD', 'NZD'], 1],
  [/^euros?\b/i, ['EUR'], 1],
  [/^pounds?(?: sterling)?\b/i, ['GBP'], 1],
  [/^yen\b/i, ['JPY'], 1],
  [/^cents?\b/i, ['USD', 'EUR', 'CAD', 'AUD', 'NZD', 'HKD', 'SGD', 'MXN'], 100],
  [/^pence\b/i, ['GBP'], 100],
];

/**
 * Currencies usually written with a decimal comma, where "7.000" may mean seven thousand. For
 * any other currency a reader takes "$7.000" as seven and "$7,000" as seven thousand, and the
 * review reads the amount as they would (spec section 5: the difference that matters is the
 * one the person sees).
 */
const COMMA_DECIMAL = new Set(['EUR', 'CHF', 'SEK', 'NOK', 'DKK', 'PLN', 'BRL', 'TRY', 'RUB', 'UAH', 'VND', 'CZK', 'HUF', 'RON', 'BGN', 'ISK', 'ARS', 'CLP', 'COP', 'IDR', 'ZAR']);

export function isCurrencyCode(value: string): boolean {
  return /^[A-Z]{3}$/.test(value);
}

/**
 * The ISO 4217 code a `currency` member of the terms names, in capitals, or null. ISO 4217
 * writes its codes in capitals, but the code is the three letters: "usd" is USD (ECMA-402's
 * IsWellFormedCurrencyCode reads codes without regard to case, and payment APIs send them in
 * lower case). So the casing is normalised rather than reported: an amount in "usd" is money in
 * USD, checked as such, and a warning about the casing would fire on honest Companies alike.
 */
export function currencyCode(value: unknown): string | null {
  return typeof value === 'string' && /^[A-Za-z]{3}$/.test(value) ? value.toUpperCase() : null;
}

export function knownCurrency(value: string): boolean {
  return Object.hasOwn(CURRENCY_SIGNS, value);
}

/** Codes whose lower case is an English word ("try", "pen", "mad"): only the capitals are the code. */
const CODE_WORDS = new Set(['TRY', 'PEN', 'MAD', 'ALL', 'CUP', 'TOP', 'BOB', 'GEL', 'MOP', 'BAM']);

function signsOf(currency: string): readonly string[] {
  // "70 usd" in a summary is read as dollars by the person, so it is the code too.
  const lower = CODE_WORDS.has(currency) ? [] : [currency.toLowerCase()];
  return [currency, ...lower, ...(CURRENCY_SIGNS[currency] ?? [])];
}

const WORDLIKE = /[\p{L}\p{N}\p{M}]/u;
/** Characters an ID is made of: a match must not continue into more of them. */
const ID_CHAR = /[\p{L}\p{N}\p{M}_-]/u;

/**
 * One space between a number and its currency, or none; a no-break or thin space counts too,
 * even though the reader sees it as its token (it is reported separately).
 */
const SPACER = /^(?: |\u27E8U\+(?:00A0|202F|2009|2007)\u27E9)/;
const SPACER_END = /(?: |\u27E8U\+(?:00A0|202F|2009|2007)\u27E9)$/;

export interface NumberMention {
  start: number;
  end: number;
  /** Canonical values the digits can mean: "1.234" is 1.234 or, European style, 1234. */
  values: string[];
}

function readings(raw: string): string[] {
  const out = new Set<string>();
  for (const [decimal, group] of [['.', ','], [',', '.']] as const) {
    const parts = raw.split(decimal);
    if (parts.length > 2) continue;
    const groups = parts[0]!.split(group);
    if (groups.length > 1 && (groups[0]!.length > 3 || groups.slice(1).some((g) => g.length !== 3))) continue;
    const int = groups.join('');
    const frac = parts[1];
    if (!/^\d+$/.test(int) || (frac !== undefined && !/^\d+$/.test(frac))) continue;
    const value = canonicalDecimal(frac === undefined ? int : `${int}.${frac}`);
    if (value !== null) out.add(value);
  }
  return [...out];
}

/** Every number in the text that is not the tail of a word or ID ("ord_7Hk2" has none). */
export function numberMentions(text: string): NumberMention[] {
  const mentions: NumberMention[] = [];
  const re = /\d(?:[\d.,]*\d)?/g;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    // Not the tail of an ID or a date ("ord_7Hk2", "2026-10-08"), but "$-70" and "-70" are numbers.
    const before = text[m.index - 1];
    const beforeMinus = before === '-' ? text[m.index - 2] : undefined;
    if (before === '-' ? beforeMinus !== undefined && ID_CHAR.test(beforeMinus) : before !== undefined && (ID_CHAR.test(before) || before === '.' || before === ',')) continue;
    mentions.push({ start: m.index, end: m.index + m[0].length, values: readings(m[0]) });
  }
  return mentions;
}

/** Where `sign` starts when it stands just before the number at `index`, or -1. */
function signStartBefore(text: string, index: number, sign: string): number {
  const from = Math.max(0, index - sign.length - 24);
  let head = text.slice(from, index);
  head = head.replace(SPACER_END, '').replace(/[-\u2212]$/, '').replace(SPACER_END, '');
  if (!head.endsWith(sign)) return -1;
  // Whatever the sign, a letter before it makes it another sign: "CA$" is not "$", "USDT" not "USD".
  const prior = head[head.length - sign.length - 1];
  return prior === undefined || !WORDLIKE.test(prior) ? from + head.length - sign.length : -1;
}

/** Where `sign` ends when it stands just after the number ending at `index`, or -1. */
function signEndAfter(text: string, index: number, sign: string): number {
  const raw = text.slice(index, index + sign.length + 24);
  const tail = raw.replace(SPACER, '');
  if (!tail.startsWith(sign)) return -1;
  // A code must end there: "70 USDT" and "70 USD-ish" are not dollars.
  const next = tail[sign.length];
  const ends = next === undefined || !(WORDLIKE.test(sign[sign.length - 1]!) ? ID_CHAR : WORDLIKE).test(next);
  return ends ? index + raw.length - tail.length + sign.length : -1;
}

function signBefore(text: string, index: number, sign: string): boolean {
  return signStartBefore(text, index, sign) >= 0;
}

function signAfter(text: string, index: number, sign: string): boolean {
  return signEndAfter(text, index, sign) >= 0;
}

/** `$70.00`, `$70`, `70.00 USD`, `USD 70`, `70,00 €`, `-$70.00`: the amount with its currency. */
export function statesMoney(text: string, mentions: readonly NumberMention[], amount: string, currency: string): boolean {
  const want = canonicalDecimal(amount);
  if (want === null) return false;
  const signs = signsOf(currency);
  return mentions.some(
    (m) => m.values.includes(want) && signs.some((s) => signBefore(text, m.start, s) || signAfter(text, m.end, s)),
  );
}

/** An amount as the summary presents it: a number with a currency next to it. */
export interface MoneyMention {
  /** The span of sign, number and code in the text ("$70.00", "70,00 \u20AC", "seven dollars"). */
  start: number;
  end: number;
  /** Where the digits (or the number words) are. */
  numberStart: number;
  numberEnd: number;
  /** Canonical values, as a reader takes them (see `COMMA_DECIMAL`). */
  values: string[];
  /** The ISO codes the sign or code can mean; empty for a bare number presented as money. */
  currencies: string[];
  /** Written with a minus sign ("-$70.00", "$-70.00", "\u221270.00 USD"): money off or back, to a reader. */
  negative: boolean;
}

/** "7.00" → "0.07": a canonical decimal divided by 10^places. */
function shiftDown(value: string, places: number): string {
  const [int, frac = ''] = value.split('.');
  const digits = int!.padStart(places + 1, '0') + frac;
  const point = digits.length - frac.length - places;
  return canonicalDecimal(`${digits.slice(0, point)}.${digits.slice(point)}`) ?? value;
}

/** "1.2" → "1200000" for 6 places: a canonical decimal times 10^places. */
function shiftUp(value: string, places: number): string {
  const [int, frac = ''] = value.split('.');
  const digits = `${int!}${frac.padEnd(places, '0')}`;
  const point = int!.length + places;
  return canonicalDecimal(`${digits.slice(0, point)}.${digits.slice(point) || '0'}`) ?? value;
}

/**
 * Words just before a bare number that present it as money ("You pay 7.00", "Total: 7.00"):
 * such a number is read as an amount in an unnamed currency, so "You pay 7.00" can't hide
 * beside "700.00 USD" only because it has no sign.
 */
const MONEY_WORDS_BEFORE = /\b(?:pay|pays|paying|paid|total|due|charged?|costs?|price|fee|amount|refund(?:ed)?|balance|deposit)\b(?:[^\p{L}\p{N}\n]+\p{L}+){0,2}[^\p{L}\p{N}\n]{1,4}$/iu;

/** A word after a number that multiplies it: "$7 hundred" is 700 to a reader, not 7. */
const SCALE_AFTER = /^[^\S\n]+(hundred|thousand|million|billion)\b/i;
const SCALE_PLACES: Record<string, number> = { hundred: 2, thousand: 3, million: 6, billion: 9 };

/** A minus sign: hyphen-minus, U+2212, or the en dash typeset as one. */
const MINUS = /[-\u2212\u2013]/;

const UNIT_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
const TEEN_WORDS = ['ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen'];
const TENS_WORDS = ['twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
const BIG_WORDS: Record<string, number> = { thousand: 1_000, million: 1_000_000, billion: 1_000_000_000 };

type WordKind = 'start' | 'a' | 'unit' | 'teen' | 'tens' | 'hundred' | 'big' | 'and';

/** Which kind of number word may follow which: "seventy-five", "fifteen hundred", "a thousand", "seven hundred and fifty". */
const FOLLOWS: Record<Exclude<WordKind, 'start'>, readonly WordKind[]> = {
  a: ['start'],
  unit: ['start', 'tens', 'hundred', 'big', 'and'],
  teen: ['start', 'hundred', 'big', 'and'],
  tens: ['start', 'hundred', 'big', 'and'],
  hundred: ['a', 'unit', 'teen', 'tens'],
  big: ['a', 'unit', 'teen', 'tens', 'hundred'],
  and: ['hundred', 'big'],
};

function wordKind(word: string): Exclude<WordKind, 'start'> | null {
  if (UNIT_WORDS.includes(word)) return 'unit';
  if (TEEN_WORDS.includes(word)) return 'teen';
  if (TENS_WORDS.includes(word)) return 'tens';
  if (word === 'hundred') return 'hundred';
  if (Object.hasOwn(BIG_WORDS, word)) return 'big';
  if (word === 'and') return 'and';
  return word === 'a' || word === 'an' ? 'a' : null;
}

/**
 * English numbers written in words ("seven", "seventy-five", "seven hundred and fifty", "a
 * thousand"), as number mentions: a summary that spells its amount ("seven dollars") states it
 * as plainly as digits do. "zero" stands alone; "a" counts only before "hundred" or "thousand".
 */
export function wordNumberMentions(text: string): NumberMention[] {
  const words = [...text.matchAll(/\p{L}+/gu)].map((m) => ({ start: m.index, end: m.index + m[0].length, kind: wordKind(m[0].toLowerCase()), word: m[0].toLowerCase() }));
  const out: NumberMention[] = [];
  for (let i = 0; i < words.length; i += 1) {
    const first = words[i]!;
    if (first.kind === null || first.kind === 'and') continue;
    let total = 0;
    let current = 0;
    let last: WordKind = 'start';
    let end = -1;
    for (let j = i; j < words.length; j += 1) {
      const w = words[j]!;
      if (w.kind === null || !FOLLOWS[w.kind].includes(last)) break;
      if (j > i && !/^(?:[^\S\n]+|-)$/.test(text.slice(words[j - 1]!.end, w.start))) break;
      if (w.kind === 'unit' && w.word === 'zero' && last !== 'start') break;
      if (w.kind === 'unit' || w.kind === 'teen' || w.kind === 'tens') {
        current += w.kind === 'unit' ? UNIT_WORDS.indexOf(w.word) : w.kind === 'teen' ? 10 + TEEN_WORDS.indexOf(w.word) : 20 + 10 * TENS_WORDS.indexOf(w.word);
      } else if (w.kind === 'hundred') {
        current = (current || 1) * 100;
      } else if (w.kind === 'big') {
        total += (current || 1) * BIG_WORDS[w.word]!;
        current = 0;
      }
      last = w.kind;
      if (w.kind !== 'a' && w.kind !== 'and') end = j;
      if (w.word === 'zero') break;
    }
    if (end < 0) continue;
    out.push({ start: first.start, end: words[end]!.end, values: [String(total + current)] });
    i = end;
  }
  return out;
}

/** The currency word after a number ("dollars", "euros", "cents"): where it ends, its codes, and the places "cents" shifts by. */
function currencyWordAfter(text: string, index: number): { end: number; codes: readonly string[]; places: number } | null {
  const raw = text.slice(index, index + 30);
  const tail = raw.replace(SPACER, '');
  for (const [word, codes, divisor] of CURRENCY_WORDS) {
    const found = word.exec(tail);
    if (found) return { end: index + raw.length - tail.length + found[0].length, codes, places: divisor === 100 ? 2 : 0 };
  }
  return null;
}

/** [code, sign, whether the sign is a three-letter code] for each sign of `code`. */
function signsWithCodes(code: string): Array<readonly [string, string, boolean]> {
  return signsOf(code).map((sign) => [code, sign, /^[A-Za-z]{3}$/.test(sign)] as const);
}

const KNOWN_SIGNS = Object.keys(CURRENCY_SIGNS).flatMap(signsWithCodes);

/**
 * Every amount the summary presents: a number with a currency sign, code or word next to it
 * (spec section 3: "any amount" must be in the summary, so this is how the summary states
 * one), plus a bare number with two decimals right after words like "pay" or "total". A number
 * in words counts with a currency word or code after it ("seven dollars"), and "and fifty
 * cents" after dollars adds to them. `codes` adds currencies beyond the built-in ones (those of
 * the terms).
 */
export function moneyMentions(text: string, mentions: readonly NumberMention[], codes: Iterable<string> = []): MoneyMention[] {
  const extra = [...new Set(codes)].filter((code) => isCurrencyCode(code) && !knownCurrency(code)).flatMap(signsWithCodes);
  // Only the signs the text holds are tried (a code as a word of its own), each only where it
  // occurs next to the number: a fast first look, since most signs are codes and few are used.
  const words = new Set(text.match(/(?<![A-Za-z])[A-Za-z]{3}(?![A-Za-z])/g));
  const signs = [...KNOWN_SIGNS, ...extra].filter(([, sign, isCode]) => (isCode ? words.has(sign) : text.includes(sign)));
  const near = (from: number, to: number) => text.slice(Math.max(0, from), to);
  const spelled = wordNumberMentions(text).map((m) => ({ ...m, spelled: true }));
  const numbers = [...mentions.map((m) => ({ ...m, spelled: false })), ...spelled].sort((a, b) => a.start - b.start);
  const out: Array<MoneyMention & { places: number }> = [];
  for (const m of numbers) {
    if (m.values.length === 0) continue;
    const scale = m.spelled ? null : SCALE_AFTER.exec(text.slice(m.end, m.end + 12));
    const numberEnd = scale ? m.end + scale[0].length : m.end;
    const currencies = new Set<string>();
    let start = m.start;
    let end = numberEnd;
    let places = 0;
    const head = near(m.start - 30, m.start);
    const tail = near(numberEnd, numberEnd + 30);
    for (const [code, sign] of signs) {
      // A sign next to the number lies whole within 30 characters of it (signs are 3 characters at most).
      if (!head.includes(sign) && !tail.includes(sign)) continue;
      // A sign before a number in words ("$seven") is no way to write an amount.
      const before = m.spelled ? -1 : signStartBefore(text, m.start, sign);
      const after = signEndAfter(text, numberEnd, sign);
      if (before >= 0) {
        currencies.add(code);
        start = Math.min(start, before);
      }
      if (after >= 0) {
        currencies.add(code);
        end = Math.max(end, after);
      }
    }
    if (currencies.size === 0) {
      const word = currencyWordAfter(text, numberEnd);
      if (word) {
        for (const code of word.codes) currencies.add(code);
        end = word.end;
        places = word.places;
      }
    }
    let values = m.values;
    if (currencies.size === 0) {
      const raw = text.slice(m.start, m.end);
      if (m.spelled || !/[.,]\d{2}$/.test(raw) || !MONEY_WORDS_BEFORE.test(text.slice(Math.max(0, m.start - 40), m.start))) continue;
    } else if (values.length > 1 && ![...currencies].some((c) => COMMA_DECIMAL.has(c))) {
      values = values.slice(0, 1);
    }
    if (scale) values = values.map((v) => shiftUp(v, SCALE_PLACES[scale[1]!.toLowerCase()]!));
    if (places > 0) values = values.map((v) => shiftDown(v, places));
    const lead = text[start - 1];
    const leadingMinus = lead !== undefined && MINUS.test(lead) && !WORDLIKE.test(text[start - 2] ?? ' ');
    const negative = leadingMinus || MINUS.test(text.slice(start, m.start));
    // The minus is part of the amount as the person reads it ("-$700.00"), so it is in the span.
    if (leadingMinus) start -= 1;
    const previous = out[out.length - 1];
    // "twelve dollars and fifty cents": one amount, 12.5.
    if (previous && previous.places === 0 && places === 2 && /^[^\S\n]+and[^\S\n]+$/.test(text.slice(previous.end, m.start)) && values.length === 1 && Number(values[0]) < 1) {
      previous.values = previous.values.map((v) => canonicalDecimal(`${v}.${values[0]!.split('.')[1] ?? '0'}`) ?? v);
      previous.end = end;
      continue;
    }
    out.push({ start, end, numberStart: m.start, numberEnd: m.end, values, currencies: [...currencies], negative, places });
  }
  return out.map(({ places: _places, ...m }) => m);
}

/** The number, in any grouping: 1234.5 is stated by "1,234.50" and by "1234.5". */
export function statesNumber(mentions: readonly NumberMention[], value: string | number): boolean {
  const want = canonicalDecimal(value);
  return want !== null && mentions.some((m) => m.values.includes(want));
}

/** The exact characters, not as part of a longer ID ("itm_4Q" is not stated by "itm_4Qa"). */
export function statesLiteral(text: string, value: string): boolean {
  if (value === '') return true;
  const guardStart = ID_CHAR.test(value[0]!);
  const guardEnd = ID_CHAR.test(value[value.length - 1]!);
  for (let at = text.indexOf(value); at >= 0; at = text.indexOf(value, at + 1)) {
    const before = text[at - 1];
    const after = text[at + value.length];
    if (guardStart && before !== undefined && ID_CHAR.test(before)) continue;
    if (guardEnd && after !== undefined && ID_CHAR.test(after)) continue;
    return true;
  }
  return false;
}

/**
 * A currency code is stated by the code or by one of its signs, standing alone as next to an
 * amount: no letter before it ("CA$" is not "$"), no more of a code after it ("USDT").
 */
export function statesCurrency(text: string, currency: string): boolean {
  return signsOf(currency).some((sign) => {
    const endsInLetter = WORDLIKE.test(sign[sign.length - 1]!);
    for (let at = text.indexOf(sign); at >= 0; at = text.indexOf(sign, at + 1)) {
      const prior = text[at - 1];
      const next = text[at + sign.length];
      if ((prior === undefined || !WORDLIKE.test(prior)) && !(endsInLetter && next !== undefined && ID_CHAR.test(next))) return true;
    }
    return false;
  });
}

/**
 * A lower-case slug ("stormline-insulated-m") is stated when its words appear, in order, as
 * whole words ("the Stormline Insulated Jacket (M)"). Only hyphenated lower-case slugs: IDs
 * with underscores or mixed case must appear literally.
 */
export function statesSlug(text: string, value: string): boolean {
  if (!/^[a-z0-9]+(?:-[a-z0-9]+)+$/.test(value)) return false;
  const words: string[] = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  let at = 0;
  for (const part of value.split('-')) {
    const found = words.indexOf(part, at);
    if (found < 0) return false;
    at = found + 1;
  }
  return true;
}

/** Words of a money key too general to name what the amount is for. */
const GENERIC_KEY_WORDS = new Set(['amount', 'price', 'total', 'cost', 'charge', 'value', 'money', 'sum', 'final', 'new', 'old']);

/**
 * A zero amount is stated by words that name it as nothing: `fee: 0.00` by "No fee", "fee-free"
 * or "the fee is waived"; `shipping: 0.00` by "free shipping" or "shipping: free". Only for
 * zero, and only when a word of its key (`keyWords`, lower case) is named: "free" alone says
 * nothing about which amount is meant.
 */
export function statesZeroByName(text: string, keyWords: readonly string[]): boolean {
  const lower = text.toLowerCase();
  return keyWords.some((word) => {
    if (word.length < 3 || GENERIC_KEY_WORDS.has(word) || !/^[\p{L}\p{N}]+$/u.test(word)) return false;
    const w = `${word}s?`;
    return new RegExp(
      `\\b(?:no|free|zero|without)\\s+(?:[\\p{L}-]+\\s+){0,2}${w}\\b|\\b${w}-free\\b|\\b${w}\\s*(?::|is|are|will\\s+be)\\s*(?:also\\s+)?(?:free|waived|none|nil|included)\\b`,
      'u',
    ).test(lower);
  });
}

const MONTHS = [
  ['january', 'jan'], ['february', 'feb'], ['march', 'mar'], ['april', 'apr'], ['may', 'may'], ['june', 'jun'],
  ['july', 'jul'], ['august', 'aug'], ['september', 'sep', 'sept'], ['october', 'oct'], ['november', 'nov'], ['december', 'dec'],
] as const;

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:\d{2})?)?$/;

export function isIsoDate(value: string): boolean {
  return ISO_DATE.test(value);
}

/**
 * A date (or the date of an RFC 3339 timestamp, as written, in its own offset) is stated by
 * the ISO date or by an English month-name date: "October 8, 2026", "8 Oct 2026", "Oct. 8th".
 * A year, when the summary gives one, must be the same. The time of day is not checked.
 */
export function statesDate(text: string, value: string): boolean {
  const m = ISO_DATE.exec(value);
  if (!m) return false;
  const [, year, month, day] = m;
  if (text.includes(`${year}-${month}-${day}`)) return true;
  const names = MONTHS[Number(month) - 1];
  if (!names) return false;
  const monthName = `(?:${names.join('|')})\\.?`;
  const dayNumber = `0?${Number(day)}(?:st|nd|rd|th)?`;
  const yearTail = `(?:,?\\s+${year}(?!\\d)|(?!,?\\s+\\d{4}))`;
  const forms = new RegExp(
    `(?<![\\p{L}\\p{N}])(?:${monthName}\\s+${dayNumber}(?!\\d)${yearTail}|${dayNumber}\\s+(?:of\\s+)?${monthName}(?![\\p{L}])${yearTail})`,
    'iu',
  );
  return forms.test(text);
}
