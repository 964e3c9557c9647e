/**
 * Does the summary state a value? The matchers behind the terms review (spec section 5: the
 * Personal Agent checks that the terms agree with the summary). They read the summary as the
 * person sees it (`summaryToText`: Markdown markers consumed, hidden characters shown as
 * tokens), so a value split by a zero-width space does not count as stated.
 *
 * Deliberately literal. An amount must appear as a number with its currency next to it; an ID
 * must appear character for character. Words ("seventy dollars", "free") are not understood:
 * a false "not stated" costs the user a second look, a false "stated" could cost them money.
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
};

export function isCurrencyCode(value: string): boolean {
  return /^[A-Z]{3}$/.test(value);
}

export function knownCurrency(value: string): boolean {
  return Object.hasOwn(CURRENCY_SIGNS, value);
}

function signsOf(currency: string): readonly string[] {
  return [currency, ...(CURRENCY_SIGNS[currency] ?? [])];
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

interface NumberMention {
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

function signBefore(text: string, index: number, sign: string): boolean {
  let head = text.slice(Math.max(0, index - sign.length - 24), index);
  head = head.replace(SPACER_END, '').replace(/[-\u2212]$/, '').replace(SPACER_END, '');
  if (!head.endsWith(sign)) return false;
  // Whatever the sign, a letter before it makes it another sign: "CA$" is not "$", "USDT" not "USD".
  const prior = head[head.length - sign.length - 1];
  return prior === undefined || !WORDLIKE.test(prior);
}

function signAfter(text: string, index: number, sign: string): boolean {
  const tail = text.slice(index, index + sign.length + 24).replace(SPACER, '');
  if (!tail.startsWith(sign)) return false;
  // A code must end there: "70 USDT" and "70 USD-ish" are not dollars.
  const next = tail[sign.length];
  return next === undefined || !(WORDLIKE.test(sign[sign.length - 1]!) ? ID_CHAR : WORDLIKE).test(next);
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
