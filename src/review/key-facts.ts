/**
 * The key facts of an operation, from its `terms` data alone (spec section 3: "The Personal
 * Agent shows the User the `summary`, and MAY also show values from `terms`"). The window
 * shows them as one "You approve" line beside the summary, so the person sees the amount the
 * Company will act on even when the summary words it otherwise, and it names what moved
 * between two revisions (`factChanges`). Nothing here reads the summary: a fact is only ever
 * what the terms hold, formatted by the browser's `Intl`.
 *
 * Formatting never throws, and each fact is formatted on its own: a value `Intl` cannot format
 * (an amount with more than the 100 decimals ECMA-402 allows) is shown exactly as the terms
 * write it, marked `unformatted`, and `factFindings` makes a danger of it. Values are compared
 * as exact decimal strings, never as floats.
 *
 * Keys and values are Company text: hidden characters in them are shown as tokens
 * (`revealHidden`); in the one-line facts long text is cut, in a change never.
 */
import { CountersignError } from '../protocol/errors.ts';
import { describeNumber, describeValue } from '../protocol/issues.ts';
import { inspectText, revealHidden } from '../summary/text-inspection.ts';
import { reviewText } from './messages.ts';
import { finding } from './rules.ts';
import { keyWords, termsMoney, type MoneyDirection } from './money.ts';
import { canonicalDecimal } from './statements.ts';
import type { ReviewFinding } from './types.ts';
import { formatPath, isPlainObject, type PathSegment } from './values.ts';

export type KeyFactKind = 'money' | 'date' | 'identifier' | 'text' | 'number' | 'boolean';

export interface KeyFact {
  /** Where in `terms`, as the review writes it: `price_difference`, `items[0].sku`. */
  path: string;
  /**
   * For an old → new pair of the terms (`old_departure` and `new_departure`, `seat_before` and
   * `seat_after`): the old value, formatted like `value`, which is the new one. The pair is one
   * fact, labelled with what the two keys share ("Departure"), at the new value's path.
   */
  before?: string;
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
  /** `Intl` could not format the value: `value` is exactly what the terms write ("700.000…1 USD"). */
  unformatted?: true;
}

export interface KeyFactsOptions {
  /** BCP 47 locale for `Intl`; default the browser's. */
  locale?: string;
  /**
   * The person's time zone; default the browser's. A timestamp is shown at the wall time it was
   * written with (a flight leaving at 07:05+01:00 leaves at 7:05, whatever zone the person is
   * in), and its offset is named ("UTC+01:00") only when it is not this zone's offset at that
   * instant. A date without a time, or a time without an offset, is shown as written.
   */
  timeZone?: string;
  /** At most this many facts; default `KEY_FACTS_LIMIT`. */
  limit?: number;
}

/** One fact that differs between two revisions of the terms; null where a revision has none. */
export interface KeyFactChange {
  path: string;
  /** The key made readable, whole. */
  label: string;
  /** Each value whole, never cut; null when that revision has no value there. */
  before: KeyFact | null;
  after: KeyFact | null;
}

/** Eight facts fit one line of the window and still name the order, item and amount. */
export const KEY_FACTS_LIMIT = 8;

/**
 * Facts by what they mean to the person (docs/ui.md, "Key facts"): what it costs, then what
 * changes, then when, how many and what, and last the references that only identify the thing.
 */
const KIND_ORDER: Record<KeyFactKind, number> = { money: 0, date: 2, number: 3, text: 4, boolean: 5, identifier: 6 };
/** An old → new pair, or a value the terms call new: ranked after money, before the rest. */
const CHANGE_RANK = 1;
/** For the one-line facts only: the values a summary's worth of data holds, looked at before sorting. */
const MAX_DEPTH = 16;
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

function labelOf(path: readonly PathSegment[], whole: boolean): string {
  const parts = path.map((s) => (typeof s === 'number' ? String(s + 1) : readableKey(s)));
  const label = parts.join(' ');
  const shown = label.charAt(0).toUpperCase() + label.slice(1);
  return whole ? shown : cut(shown, MAX_LABEL);
}

/**
 * A JSON number as the decimal it is, every digit of its shortest round trip and no exponent:
 * 1e-7 → "0.0000001", 1.5e21 → "1500000000000000000000", 0.0004 → "0.0004".
 */
function plainDecimal(value: number): string {
  const text = String(value);
  const m = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!m) return text;
  const [, sign, int, frac = '', exponent] = m;
  const digits = `${int}${frac}`;
  const point = int!.length + Number(exponent);
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/**
 * Formatters by locale and options: building one costs far more than using it, and terms repeat
 * a currency and a precision. Bounded, so hostile terms cannot grow it.
 */
const FORMATTERS = new Map<string, Intl.NumberFormat>();

function numberFormat(locale: string | undefined, options: Intl.NumberFormatOptions): Intl.NumberFormat {
  const key = JSON.stringify([locale ?? null, options]);
  let format = FORMATTERS.get(key);
  if (format === undefined) {
    if (FORMATTERS.size >= 64) FORMATTERS.clear();
    format = new Intl.NumberFormat(locale, options);
    FORMATTERS.set(key, format);
  }
  return format;
}

/** How many digits a canonical decimal has after its point. */
function decimalsOf(value: string): number {
  return (value.split('.')[1] ?? '').length;
}

function formatMoney(raw: string | number, currency: string, locale: string | undefined): string {
  const value = canonicalDecimal(raw)!;
  const negative = /^[-\u2212]/.test(String(raw)) && /[1-9]/.test(value);
  const signed = `${negative ? '-' : ''}${value}`;
  const base = numberFormat(locale, { style: 'currency', currency });
  const decimals = decimalsOf(value);
  const digits = base.resolvedOptions().maximumFractionDigits ?? 2;
  // Never round the Company's amount: 70.005 USD is shown as $70.005, not $70.01. Past 100
  // decimals Intl throws a RangeError: the caller then shows the amount as written.
  const format = decimals > digits ? numberFormat(locale, { style: 'currency', currency, minimumFractionDigits: digits, maximumFractionDigits: decimals }) : base;
  // A decimal string keeps every digit (Intl.NumberFormat v3); a JSON number could already have lost some.
  return format.format(signed as unknown as number);
}

/** Every digit of the number: 0.0004 is "0.0004", never Intl's default three decimals' "0". */
function formatNumber(value: number, locale: string | undefined): string {
  const decimal = plainDecimal(value);
  return numberFormat(locale, { maximumFractionDigits: decimalsOf(decimal) }).format(decimal as unknown as number);
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
  // The wall time as written: formatted in UTC from the written fields, never re-zoned.
  const shown = new Intl.DateTimeFormat(options.locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(wall);
  if (zone === undefined) return shown;
  const offset = /^[Zz]$/.test(zone) ? 0 : (zone.startsWith('-') ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
  const instant = new Date(wall.getTime() - offset * 60_000);
  return offset === personalOffset(instant, options.timeZone) ? shown : `${shown} ${offsetName(offset)}`;
}

/** The offset from UTC, in minutes, of the person's zone (or `timeZone`) at `instant`. */
function personalOffset(instant: Date, timeZone: string | undefined): number {
  const name = new Intl.DateTimeFormat('en-US', { timeZoneName: 'longOffset', timeZone }).formatToParts(instant).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  const m = /^GMT([+-\u2212])(\d{2}):(\d{2})$/.exec(name);
  return m === null ? 0 : (m[1] === '+' ? 1 : -1) * (Number(m[2]) * 60 + Number(m[3]));
}

/** "UTC", "UTC+01:00", "UTC\u221207:00": the offset as written, named the way clocks name it. */
function offsetName(offset: number): string {
  if (offset === 0) return 'UTC';
  const abs = Math.abs(offset);
  return `UTC${offset < 0 ? '\u2212' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
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
 * One value of the terms as a fact: an amount (`{ amount, currency }` or a flat member, found
 * by `termsMoney`), or a scalar, an empty object or list, or null where the terms have one.
 */
interface Leaf {
  path: PathSegment[];
  value: unknown;
  money?: { raw: string | number; currency: string; direction: MoneyDirection; value: string; negative: boolean };
}

/** The amounts of the terms, and the paths of their `amount` and `currency` members, taken by them. */
function moneyLeaves(terms: Record<string, unknown>): { leaves: Leaf[]; taken: Set<string> } {
  const leaves: Leaf[] = [];
  const taken = new Set<string>();
  for (const amount of termsMoney(terms).amounts) {
    if (amount.currency === null) continue;
    // The amount as written in the terms, where it is: `{ amount, currency }` or a flat member.
    let holder: unknown = terms;
    for (const segment of amount.path) holder = (holder as Record<string | number, unknown>)[segment];
    const raw = isPlainObject(holder) ? holder.amount : holder;
    if (typeof raw !== 'string' && typeof raw !== 'number') continue;
    leaves.push({ path: amount.path, value: raw, money: { raw, currency: amount.currency, direction: amount.direction, value: amount.value, negative: amount.negative } });
    const parent = amount.object ? amount.path : amount.path.slice(0, -1);
    taken.add(formatPath(amount.object ? [...parent, 'amount'] : amount.path));
    taken.add(formatPath([...parent, 'currency']));
  }
  return { leaves, taken };
}

/**
 * Every value under `terms` in the order the terms write them, depth first, with an explicit
 * stack (hostile depth cannot overflow the call stack). `visit` answers false to stop; values
 * deeper than `maxDepth` levels are not visited.
 */
function eachLeaf(terms: Record<string, unknown>, visit: (path: PathSegment[], value: unknown) => boolean, maxDepth = Infinity): void {
  const stack: Array<[PathSegment[], unknown]> = [[[], terms]];
  while (stack.length > 0) {
    const [path, value] = stack.pop()!;
    if (path.length > maxDepth) continue;
    const entries: Array<[PathSegment, unknown]> | null = Array.isArray(value) ? value.map((v, i) => [i, v]) : isPlainObject(value) ? Object.entries(value) : null;
    if (entries === null || (entries.length === 0 && path.length > 0)) {
      if (!visit(path, value)) return;
      continue;
    }
    for (let i = entries.length - 1; i >= 0; i -= 1) stack.push([[...path, entries[i]![0]], entries[i]![1]]);
  }
}

/** What a value is, for comparing two revisions: amounts and numbers as exact decimal strings, never floats; null when it is no JSON. */
function exactOf(leaf: Leaf): string | null {
  const { value, money } = leaf;
  if (money) return `money ${money.negative ? '-' : ''}${money.value} ${money.currency}`;
  if (value === null) return 'null';
  if (Array.isArray(value)) return '[]';
  if (isPlainObject(value)) return '{}';
  if (typeof value === 'number') return Number.isFinite(value) ? `number ${plainDecimal(value)}` : null;
  if (typeof value === 'string' || typeof value === 'boolean') return `${typeof value} ${String(value)}`;
  return null;
}

/**
 * The leaf for the person. Each fact on its own: what `Intl` throws on is shown as the terms
 * write it, marked `unformatted`, and never takes the other facts with it.
 */
function factOf(leaf: Leaf, options: KeyFactsOptions, whole: boolean): KeyFact {
  const { path, value, money } = leaf;
  const where = formatPath(path);
  const label = labelOf(path, whole);
  if (money) {
    const fact = { path: where, label, kind: 'money' as const, direction: money.direction };
    try {
      return { ...fact, value: formatMoney(money.raw, money.currency, options.locale) };
    } catch {
      const written = typeof money.raw === 'number' ? plainDecimal(money.raw) : money.raw;
      return { ...fact, value: `${written} ${money.currency}`, unformatted: true };
    }
  }
  if (typeof value === 'boolean') return { path: where, label, value: value ? 'Yes' : 'No', kind: 'boolean' };
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return { path: where, label, value: String(value), kind: 'number' };
    try {
      return { path: where, label, value: formatNumber(value, options.locale), kind: 'number' };
    } catch {
      return { path: where, label, value: plainDecimal(value), kind: 'number', unformatted: true };
    }
  }
  if (typeof value !== 'string') return { path: where, label, value: value === null ? 'null' : Array.isArray(value) ? '[]' : '{}', kind: 'text' };
  let date: string | null = null;
  try {
    date = formatDate(value, options);
  } catch {
    // A date Intl throws on is shown as written, which is what it is.
  }
  if (date !== null) return { path: where, label, value: date, kind: 'date' };
  const shown = revealHidden(value, { singleLine: true });
  const identifier = value !== '' && !/\s/.test(value) && /[\d_\-.:/@]/.test(value);
  return { path: where, label, value: whole ? shown : cut(shown, MAX_VALUE), kind: identifier ? 'identifier' : 'text' };
}

function checkTerms(terms: unknown, name: string): asserts terms is Record<string, unknown> {
  if (!isPlainObject(terms)) throw new CountersignError('ERR_OPERATION_INVALID', `${name}: expected a JSON object (spec section 3), got ${describeValue(terms)}`);
}

/**
 * The facts of `terms` to show with the summary: amounts first, then dates, identifiers,
 * numbers, text and yes/no values, each group in the order of the terms, at most
 * `options.limit` (default 8). `null` values are left out. Empty when there are no terms.
 */
export function keyFacts(terms: Record<string, unknown> | undefined, options: KeyFactsOptions = {}): KeyFact[] {
  checkOptions(options);
  if (terms === undefined) return [];
  checkTerms(terms, 'operation.terms');
  const limit = options.limit ?? KEY_FACTS_LIMIT;
  const { leaves: candidates, taken } = moneyLeaves(terms);
  eachLeaf(
    terms,
    (path, value) => {
      if (candidates.length >= MAX_CANDIDATES) return false;
      const scalar = typeof value === 'string' || typeof value === 'boolean' || typeof value === 'number';
      if (scalar && !taken.has(formatPath(path))) candidates.push({ path, value });
      return true;
    },
    MAX_DEPTH,
  );
  const { ranked, pairs } = pairChanges(candidates);
  return ranked
    .map((leaf, order) => {
      const fact = factOf(leaf, options, false);
      const pair = pairs.get(leaf);
      if (pair === undefined) return { fact, rank: fact.kind !== 'money' && isNewSide(leaf.path) ? CHANGE_RANK : KIND_ORDER[fact.kind], order };
      const before = factOf(pair.old, options, false);
      return { fact: { ...fact, label: cut(pair.label, MAX_LABEL), before: before.value }, rank: fact.kind === 'money' ? KIND_ORDER.money : CHANGE_RANK, order };
    })
    .sort((a, b) => a.rank - b.rank || a.order - b.order)
    .slice(0, limit)
    .map(({ fact }) => fact);
}

/** Key words that say a value is the old side of a change, and the new side. */
const OLD_WORDS = new Set(['old', 'previous', 'prev', 'original', 'current', 'before', 'from', 'was']);
const NEW_WORDS = new Set(['new', 'updated', 'changed', 'after', 'to', 'now', 'proposed', 'revised']);

/** The key's words without the one that says old or new, and which side it says: `old_departure` → ["departure"], old. */
function sideOf(path: readonly PathSegment[]): { stem: string; side: 'old' | 'new' } | null {
  const key = path.at(-1);
  if (typeof key !== 'string') return null;
  const words = keyWords(key);
  if (words.length < 2) return null;
  for (const [index, rest] of [[0, words.slice(1)], [words.length - 1, words.slice(0, -1)]] as const) {
    const word = words[index]!;
    const side = OLD_WORDS.has(word) ? 'old' : NEW_WORDS.has(word) ? 'new' : null;
    if (side !== null) return { stem: JSON.stringify([...path.slice(0, -1), rest.join(' ')]), side };
  }
  return null;
}

function isNewSide(path: readonly PathSegment[]): boolean {
  return sideOf(path)?.side === 'new';
}

/**
 * Old → new pairs among the candidates: two values under one parent whose keys differ only by an
 * old word and a new word (`old_departure` / `new_departure`, `seat_before` / `seat_after`). The
 * old value leaves the list and rides with the new one, so a change reads as one fact and the new
 * value is never the one left out.
 */
function pairChanges(candidates: readonly Leaf[]): { ranked: Leaf[]; pairs: Map<Leaf, { old: Leaf; label: string }> } {
  const olds = new Map<string, Leaf>();
  for (const leaf of candidates) {
    const side = sideOf(leaf.path);
    if (side?.side === 'old' && !olds.has(side.stem)) olds.set(side.stem, leaf);
  }
  const pairs = new Map<Leaf, { old: Leaf; label: string }>();
  const paired = new Set<Leaf>();
  for (const leaf of candidates) {
    const side = sideOf(leaf.path);
    const old = side?.side === 'new' ? olds.get(side.stem) : undefined;
    if (old === undefined || paired.has(old) || (old.money === undefined) !== (leaf.money === undefined)) continue;
    const stem = (JSON.parse(side!.stem) as string[]).at(-1)!;
    pairs.set(leaf, { old, label: labelOf([...leaf.path.slice(0, -1), stem.replace(/ /g, '_')], true) });
    paired.add(old);
  }
  return { ranked: candidates.filter((leaf) => !paired.has(leaf)), pairs };
}

/**
 * Every value of the terms with what it is, amounts first, at any depth and however many, by
 * its place. The place is the keys themselves, not `formatPath`'s text: a key with a hidden
 * character and a key that spells its token ("a⟨U+200B⟩") read alike, and are two places.
 */
function everyLeaf(terms: Record<string, unknown>): Map<string, { leaf: Leaf; exact: string }> {
  const { leaves, taken } = moneyLeaves(terms);
  const out = new Map<string, { leaf: Leaf; exact: string }>();
  const add = (leaf: Leaf) => {
    const exact = exactOf(leaf);
    if (exact !== null) out.set(JSON.stringify(leaf.path), { leaf, exact });
  };
  leaves.forEach(add);
  eachLeaf(terms, (path, value) => {
    if (!taken.has(formatPath(path))) add({ path, value });
    return true;
  });
  return out;
}

/**
 * What differs between the terms of two revisions (spec section 3, "New terms"), fact by fact:
 * amounts first, then in the order of the new terms, then what the new terms no longer have.
 * Every value at any depth and however many, compared as written (amounts and numbers as exact
 * decimals: "70.00" and "70" USD are one amount, 0.0003 and 0.0004 two numbers); each value whole.
 */
export function factChanges(previous: Record<string, unknown> | undefined, next: Record<string, unknown> | undefined, options: KeyFactsOptions = {}): KeyFactChange[] {
  checkOptions(options);
  if (previous !== undefined) checkTerms(previous, 'previous.terms');
  if (next !== undefined) checkTerms(next, 'next.terms');
  const before = previous === undefined ? new Map<string, { leaf: Leaf; exact: string }>() : everyLeaf(previous);
  const after = next === undefined ? new Map<string, { leaf: Leaf; exact: string }>() : everyLeaf(next);
  const changes: Array<KeyFactChange & { money: boolean }> = [];
  const change = (at: Leaf, old: Leaf | undefined, now: Leaf | undefined) => {
    const path = formatPath(at.path);
    const money = old?.money !== undefined || now?.money !== undefined;
    changes.push({ path, label: labelOf(at.path, true), before: old ? factOf(old, options, true) : null, after: now ? factOf(now, options, true) : null, money });
  };
  for (const [place, now] of after) {
    const old = before.get(place);
    if (old?.exact !== now.exact) change(now.leaf, old?.leaf, now.leaf);
  }
  for (const [place, old] of before) if (!after.has(place)) change(old.leaf, old.leaf, undefined);
  // Amounts first: the sort is stable, so the rest keep the terms' order.
  return changes.sort((a, b) => Number(b.money) - Number(a.money)).map(({ money: _money, ...change }) => change);
}

/**
 * A danger for each value of the terms `Intl` cannot format (an amount or number with more than
 * 100 decimals), which the window shows exactly as the terms write it: at that precision the
 * person has to read every digit, and no honest price needs it.
 */
export function factFindings(terms: Record<string, unknown> | undefined, options: KeyFactsOptions = {}): ReviewFinding[] {
  checkOptions(options);
  if (terms === undefined) return [];
  checkTerms(terms, 'operation.terms');
  const findings: ReviewFinding[] = [];
  for (const { leaf } of everyLeaf(terms).values()) {
    if (leaf.money === undefined && typeof leaf.value !== 'number') continue;
    const fact = factOf(leaf, options, true);
    if (!fact.unformatted) continue;
    const said = fact.path === '' ? reviewText('review_factUnformattedWhole', { value: fact.value }) : reviewText('review_factUnformatted', { path: fact.path, value: fact.value });
    findings.push(finding('danger', 'fact-unformatted', fact.path, said));
  }
  return findings;
}

/** One line of the facts: "Price difference $70.00 · Order ID ord_7Hk2 · Item ID itm_4Qa". */
export function youApproveLine(facts: readonly KeyFact[]): string {
  const given: unknown = facts;
  if (!Array.isArray(given)) throw new CountersignError('ERR_ARGUMENT_INVALID', `facts: expected the list keyFacts returns, got ${describeValue(given)}`);
  return facts.map((f) => `${f.label} ${f.value}`).join(' \u00B7 ');
}
