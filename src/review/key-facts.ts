/**
 * The key facts of an operation, from its `terms` data alone (spec section 3: "The Personal
 * Agent shows the User the `summary`, and MAY also show values from `terms`"). The window
 * shows them as one "You approve" line beside the summary, so the person sees the amount the
 * Company will act on even when the summary words it otherwise. Nothing here reads the
 * summary: a fact is only ever what the terms hold, formatted by the browser's `Intl`.
 *
 * Keys and values are Company text: hidden characters in them are shown as tokens
 * (`revealHidden`), and long text is cut.
 */
import { CountersignError } from '../protocol/errors.ts';
import { describeNumber, describeValue } from '../protocol/issues.ts';
import { inspectText, revealHidden } from '../summary/text-inspection.ts';
import { keyWords, termsMoney, type MoneyDirection } from './money.ts';
import { canonicalDecimal } from './statements.ts';
import { formatPath, isPlainObject, type PathSegment } from './values.ts';

export type KeyFactKind = 'money' | 'date' | 'identifier' | 'text' | 'number' | 'boolean';

export interface KeyFact {
  /** Where in `terms`, as the review writes it: `price_difference`, `items[0].sku`. */
  path: string;
  /** The key made readable: `price_difference` → "Price difference", `order_id` → "Order ID". */
  label: string;
  /** The value formatted for the person: "$70.00", "Oct 8, 2026, 7:20 PM UTC", "ord_7Hk2". */
  value: string;
  kind: KeyFactKind;
  /**
   * For money: which way it goes, as the review reads the key and sign (`price_difference` 70.00
   * is a charge, `refund` or a negative amount is money back, `deposit_held` neither).
   */
  direction?: MoneyDirection;
}

export interface KeyFactsOptions {
  /** BCP 47 locale for `Intl`; default the browser's. */
  locale?: string;
  /**
   * Time zone for timestamps; default the person's own. `Intl` can't format in the offset the
   * timestamp was written with (`-07:00` is not a time zone), so a timestamp is shown at the
   * same instant in this zone, with the zone's name after it. A date without a time, or a time
   * without an offset, is shown as written.
   */
  timeZone?: string;
  /** At most this many facts; default `KEY_FACTS_LIMIT`. */
  limit?: number;
}

/** Eight facts fit one line of the window and still name the order, item and amount. */
export const KEY_FACTS_LIMIT = 8;

const KIND_ORDER: Record<KeyFactKind, number> = { money: 0, date: 1, identifier: 2, number: 3, text: 4, boolean: 5 };
const MAX_DEPTH = 16;
/** Values looked at before sorting; terms larger than this are not a summary's worth of data. */
const MAX_CANDIDATES = 200;
const MAX_VALUE = 60;
const MAX_LABEL = 40;

const ACRONYMS = new Set([
  'id', 'sku', 'url', 'uri', 'iban', 'bic', 'swift', 'vat', 'gst', 'eta', 'pnr', 'uuid', 'api', 'iso', 'utc', 'sms', 'pdf',
  'qr', 'ean', 'upc', 'isbn', 'imei', 'vin', 'pin', 'otp', 'tv',
]);

function cut(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}\u2026` : text;
}

/** `price_difference` → "Price difference", `replacementSku` → "Replacement SKU", `order_ids` → "Order IDs". */
function readableKey(key: string): string {
  // A key with hidden characters is shown as it is, tokens included, never tidied into words.
  if (inspectText(key, { singleLine: true }).findings.length > 0) return revealHidden(key, { singleLine: true });
  const words = keyWords(key).map((w) => {
    if (ACRONYMS.has(w)) return w.toUpperCase();
    if (w.endsWith('s') && ACRONYMS.has(w.slice(0, -1))) return `${w.slice(0, -1).toUpperCase()}s`;
    return w;
  });
  if (words.length === 0) return key === '' ? '(empty)' : key;
  const first = words[0]!;
  words[0] = first === first.toLowerCase() ? first.charAt(0).toUpperCase() + first.slice(1) : first;
  return words.join(' ');
}

function labelOf(path: readonly PathSegment[]): string {
  const parts = path.map((s) => (typeof s === 'number' ? String(s + 1) : readableKey(s)));
  const label = parts.join(' ');
  return cut(label.charAt(0).toUpperCase() + label.slice(1), MAX_LABEL);
}

function formatMoney(raw: string | number, currency: string, locale: string | undefined): string {
  const value = canonicalDecimal(raw)!;
  const negative = /^[-\u2212]/.test(String(raw)) && /[1-9]/.test(value);
  const signed = `${negative ? '-' : ''}${value}`;
  const base = new Intl.NumberFormat(locale, { style: 'currency', currency });
  const decimals = (value.split('.')[1] ?? '').length;
  const digits = base.resolvedOptions().maximumFractionDigits ?? 2;
  // Never round the Company's amount: 70.005 USD is shown as $70.005, not $70.01.
  const format = decimals > digits ? new Intl.NumberFormat(locale, { style: 'currency', currency, minimumFractionDigits: digits, maximumFractionDigits: decimals }) : base;
  // A decimal string keeps every digit (Intl.NumberFormat v3); a JSON number could already have lost some.
  return format.format(signed as unknown as number);
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?([Zz]|[+-]\d{2}:\d{2})?)?$/;

function formatDate(value: string, options: KeyFactsOptions): string | null {
  const m = DATE.exec(value);
  if (!m) return null;
  const [, y, mo, d, h, mi, sec, zone] = m;
  const fields = [Number(y), Number(mo) - 1, Number(d), Number(h ?? 0), Number(mi ?? 0), Math.min(Number(sec ?? 0), 59)] as const;
  const wall = new Date(Date.UTC(...fields));
  // 2026-02-30 or 25:00 is not a date: shown as text. So is a year before 100, which Date.UTC
  // would read as 19xx.
  if (wall.getUTCFullYear() !== fields[0] || wall.getUTCMonth() !== fields[1] || wall.getUTCDate() !== fields[2] || wall.getUTCHours() !== fields[3] || wall.getUTCMinutes() !== fields[4]) return null;
  if (h === undefined) return new Intl.DateTimeFormat(options.locale, { dateStyle: 'medium', timeZone: 'UTC' }).format(wall);
  if (zone === undefined) return new Intl.DateTimeFormat(options.locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(wall);
  const offset = /^[Zz]$/.test(zone) ? 0 : (zone.startsWith('-') ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
  const instant = new Date(wall.getTime() - offset * 60_000);
  const shown = new Intl.DateTimeFormat(options.locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: options.timeZone }).format(instant);
  const name = new Intl.DateTimeFormat(options.locale, { hour: 'numeric', timeZoneName: 'short', timeZone: options.timeZone })
    .formatToParts(instant)
    .find((p) => p.type === 'timeZoneName')?.value;
  return name ? `${shown} ${name}` : shown;
}

function checkOptions(options: KeyFactsOptions): void {
  if (typeof options !== 'object' || options === null) throw new CountersignError('ERR_ARGUMENT_INVALID', `options: expected an object, got ${describeValue(options)}`);
  const { locale, timeZone, limit } = options;
  if (limit !== undefined && !(Number.isSafeInteger(limit) && limit >= 0)) {
    throw new CountersignError('ERR_ARGUMENT_INVALID', `options.limit: expected a whole number, 0 or more, got ${describeNumber(limit)}`);
  }
  try {
    if (locale !== undefined) Intl.getCanonicalLocales(locale);
  } catch (cause) {
    throw new CountersignError('ERR_ARGUMENT_INVALID', 'options.locale: expected a locale Intl knows, got one it does not', { cause });
  }
  try {
    if (timeZone !== undefined) new Intl.DateTimeFormat('en', { timeZone });
  } catch (cause) {
    throw new CountersignError('ERR_ARGUMENT_INVALID', 'options.timeZone: expected a time zone Intl knows, got one it does not', { cause });
  }
}

/**
 * The facts of `terms` to show with the summary: amounts first, then dates, identifiers,
 * numbers, text and yes/no values, each group in the order of the terms, at most
 * `options.limit` (default 8). `null` values are left out. Empty when there are no terms.
 */
export function keyFacts(terms: Record<string, unknown> | undefined, options: KeyFactsOptions = {}): KeyFact[] {
  checkOptions(options);
  if (terms === undefined) return [];
  if (!isPlainObject(terms)) throw new CountersignError('ERR_OPERATION_INVALID', `operation.terms: expected a JSON object (spec section 3), got ${describeValue(terms)}`);
  const limit = options.limit ?? KEY_FACTS_LIMIT;
  const facts: KeyFact[] = [];
  const taken = new Set<string>();
  for (const amount of termsMoney(terms).amounts) {
    if (amount.currency === null) continue;
    const path = formatPath(amount.path);
    // The amount as written in the terms, where it is: `{ amount, currency }` or a flat member.
    let holder: unknown = terms;
    for (const segment of amount.path) holder = (holder as Record<string | number, unknown>)[segment];
    const raw = isPlainObject(holder) ? holder.amount : holder;
    if (typeof raw !== 'string' && typeof raw !== 'number') continue;
    facts.push({ path, label: labelOf(amount.path), value: formatMoney(raw, amount.currency, options.locale), kind: 'money', direction: amount.direction });
    const parent = amount.object ? amount.path : amount.path.slice(0, -1);
    taken.add(formatPath(amount.object ? [...parent, 'amount'] : amount.path));
    taken.add(formatPath([...parent, 'currency']));
  }
  const walk = (value: unknown, path: PathSegment[], depth: number): void => {
    if (depth > MAX_DEPTH || facts.length >= MAX_CANDIDATES) return;
    if (Array.isArray(value)) {
      value.forEach((child, i) => walk(child, [...path, i], depth + 1));
      return;
    }
    if (isPlainObject(value)) {
      for (const [key, child] of Object.entries(value)) walk(child, [...path, key], depth + 1);
      return;
    }
    const where = formatPath(path);
    if (taken.has(where) || value === null || value === undefined) return;
    const label = labelOf(path);
    if (typeof value === 'boolean') facts.push({ path: where, label, value: value ? 'Yes' : 'No', kind: 'boolean' });
    else if (typeof value === 'number') facts.push({ path: where, label, value: Number.isFinite(value) ? new Intl.NumberFormat(options.locale).format(value) : String(value), kind: 'number' });
    else if (typeof value === 'string') {
      const date = formatDate(value, options);
      if (date !== null) facts.push({ path: where, label, value: date, kind: 'date' });
      else {
        const shown = cut(revealHidden(value, { singleLine: true }), MAX_VALUE);
        const identifier = value !== '' && !/\s/.test(value) && /[\d_\-.:/@]/.test(value);
        facts.push({ path: where, label, value: shown, kind: identifier ? 'identifier' : 'text' });
      }
    }
  };
  walk(terms, [], 0);
  return facts
    .map((fact, order) => ({ fact, order }))
    .sort((a, b) => KIND_ORDER[a.fact.kind] - KIND_ORDER[b.fact.kind] || a.order - b.order)
    .slice(0, limit)
    .map(({ fact }) => fact);
}

/** One line of the facts: "Price difference $70.00 · Order ID ord_7Hk2 · Item ID itm_4Qa". */
export function youApproveLine(facts: readonly KeyFact[]): string {
  const given: unknown = facts;
  if (!Array.isArray(given)) throw new CountersignError('ERR_ARGUMENT_INVALID', `facts: expected the list keyFacts returns, got ${describeValue(given)}`);
  return facts.map((f) => `${f.label} ${f.value}`).join(' \u00B7 ');
}
