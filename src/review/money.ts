/**
 * The money in `terms` and which way it goes. Spec section 3 asks that "any amount" be in the
 * summary and in the terms; section 5 asks the Personal Agent to check that the two agree. To
 * say that "free" or "you get $70.00 back" disagrees with the terms, the review must know
 * whether an amount in the terms is a charge, money to the person, or neither. This file is
 * the one place that decides it (`moneyDirection`).
 */
import { canonicalDecimal, currencyCode } from './statements.ts';
import { isPlainObject, type PathSegment } from './values.ts';

/**
 * - `charge`: the person pays it;
 * - `refund`: the person receives it (a refund, a credit, a payout);
 * - `none`: an amount for information (a discount, a waived fee, an original price) or zero.
 */
export type MoneyDirection = 'charge' | 'refund' | 'none';

export interface TermsAmount {
  path: PathSegment[];
  /** Canonical decimal without sign: "70.00" → "70". */
  value: string;
  negative: boolean;
  /** The ISO 4217 code in capitals ("usd" is USD, see `currencyCode`); null for a money-named number without one (`{ "fee": 5 }`): any currency matches. */
  currency: string | null;
  direction: MoneyDirection;
  /** Lower-case words of the path's keys: `price_difference` → ["price", "difference"]. */
  words: string[];
  /** From a `{ amount, currency }` object rather than a flat or bare member. */
  object: boolean;
  /** As written, with its currency in capitals: "70.00 USD" (a plain decimal and a code: safe to show). */
  shown: string;
}

export interface TermsMoney {
  amounts: TermsAmount[];
  /** Whole counts of two or more under quantity keys (`nights: 3`): unit prices are `amount / n`. */
  quantities: number[];
}

/** Words of a key: `price_difference`, `priceDifference`, `price-difference` → ["price", "difference"]. */
export function keyWords(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== '');
}

/** Keys whose amount is information, not a payment either way. Checked first. */
const NONE_WORDS = new Set([
  'waived', 'waive', 'waiver', 'discount', 'discounts', 'discounted', 'saving', 'savings', 'saved', 'original', 'was',
  'list', 'regular', 'msrp', 'compare', 'retail', 'worth', 'limit', 'threshold', 'max', 'maximum', 'min', 'minimum',
  'coverage', 'insured', 'estimate', 'estimated',
]);
/** Keys whose amount goes to the person. */
const REFUND_WORDS = new Set([
  'refund', 'refunds', 'refunded', 'credit', 'credits', 'credited', 'cashback', 'reimbursement', 'reimbursed',
  'reimburse', 'rebate', 'payout', 'compensation', 'chargeback',
]);
/** Keys under which a number is money even without a currency beside it. */
const MONEY_WORDS = new Set([
  'amount', 'price', 'total', 'subtotal', 'fee', 'fees', 'cost', 'charge', 'fare', 'deposit', 'refund', 'balance', 'due',
  'payment', 'tax', 'vat', 'tip', 'credit', 'discount', 'payout', 'surcharge', 'difference',
]);
/** Keys that count things, never money, even next to a `currency`. */
const QUANTITY_WORDS = new Set([
  'quantity', 'qty', 'count', 'nights', 'seats', 'tickets', 'guests', 'people', 'persons', 'passengers', 'units',
  'items', 'installments', 'instalments', 'months', 'weeks', 'days', 'pieces', 'pairs', 'rooms', 'number',
]);
const NOT_MONEY_WORDS = new Set([...QUANTITY_WORDS, 'rate', 'percent', 'percentage', 'pct', 'ratio', 'size', 'id', 'year', 'version']);

/**
 * Which way an amount goes, from its path and sign:
 * 1. a key on the path says it is information (`waived_fee`, `discount`, `original_price`),
 *    or it is zero: `none`;
 * 2. a key says it goes to the person (`refund`, `credit`, `payout`, `cashback`): `refund`,
 *    whatever its sign (Companies write refunds with either sign);
 * 3. otherwise a negative amount is `refund` (`price_difference: -20.00`), a positive one `charge`.
 * "credit" in `credit_card_fee` is the card, not a credit.
 */
export function moneyDirection(words: readonly string[], value: string, negative: boolean): MoneyDirection {
  if (/^0(?:\.0+)?$/.test(value) || words.some((w) => NONE_WORDS.has(w))) return 'none';
  if (words.some((w, i) => REFUND_WORDS.has(w) && !(w === 'credit' && words[i + 1] === 'card'))) return 'refund';
  if (words.includes('cash') && words[words.indexOf('cash') + 1] === 'back') return 'refund';
  return negative ? 'refund' : 'charge';
}

function isNegative(value: string | number): boolean {
  return /^[-\u2212]/.test(String(value));
}

function decimalOf(value: unknown): string | null {
  return typeof value === 'string' || typeof value === 'number' ? canonicalDecimal(value) : null;
}

const MAX_DEPTH = 32;
const MAX_AMOUNTS = 200;

/**
 * The amounts in `terms`:
 * - `{ "amount": "70.00", "currency": "USD" }` objects, the seed's shape (spec section 3);
 * - in an object with a `currency` code, each sibling number or decimal string that is not a
 *   count (`{ "price": "5.00", "currency": "USD" }`);
 * - a number or decimal string under a money word (`{ "fee": 5 }`), in no stated currency.
 */
export function termsMoney(terms: Record<string, unknown> | undefined): TermsMoney {
  const amounts: TermsAmount[] = [];
  const quantities: number[] = [];
  const add = (path: PathSegment[], raw: string | number, currency: string | null, object: boolean): void => {
    const value = canonicalDecimal(raw);
    if (value === null || amounts.length >= MAX_AMOUNTS) return;
    const words = path.flatMap((s) => (typeof s === 'string' ? keyWords(s) : []));
    const negative = isNegative(raw) && /[1-9]/.test(value);
    const shown = currency === null ? String(raw) : `${String(raw)} ${currency}`;
    amounts.push({ path, value, negative, currency, direction: moneyDirection(words, value, negative), words, object, shown });
  };
  const walk = (value: unknown, path: PathSegment[], depth: number): void => {
    if (depth > MAX_DEPTH) return;
    if (Array.isArray(value)) {
      value.forEach((child, i) => walk(child, [...path, i], depth + 1));
      return;
    }
    if (!isPlainObject(value)) {
      const last = path[path.length - 1];
      const words = typeof last === 'string' ? keyWords(last) : [];
      if (words.some((w) => QUANTITY_WORDS.has(w)) && typeof value === 'number' && Number.isSafeInteger(value) && value >= 2) {
        quantities.push(value);
      } else if (decimalOf(value) !== null && words.some((w) => MONEY_WORDS.has(w)) && !words.some((w) => NOT_MONEY_WORDS.has(w))) {
        add(path, value as string | number, null, false);
      }
      return;
    }
    const code = currencyCode(value.currency);
    if (code !== null && decimalOf(value.amount) !== null) {
      add(path, value.amount as string | number, code, true);
      for (const [key, child] of Object.entries(value)) if (key !== 'amount' && key !== 'currency') walk(child, [...path, key], depth + 1);
      return;
    }
    for (const [key, child] of Object.entries(value)) {
      const words = keyWords(key);
      if (code !== null && key !== 'currency' && decimalOf(child) !== null && !words.some((w) => NOT_MONEY_WORDS.has(w))) {
        add([...path, key], child as string | number, code, false);
      } else {
        walk(child, [...path, key], depth + 1);
      }
    }
  };
  if (isPlainObject(terms)) walk(terms, [], 0);
  return { amounts, quantities };
}

/** Signed value in millionths, for sums and unit prices without floating point; null past 6 places. */
export function toMicros(value: string): bigint | null {
  const [int, frac = ''] = value.split('.');
  if (frac.length > 6) return null;
  return BigInt(int!) * 1_000_000n + BigInt(frac.padEnd(6, '0'));
}

export function fromMicros(micros: bigint): string {
  const abs = micros < 0n ? -micros : micros;
  const int = abs / 1_000_000n;
  const frac = (abs % 1_000_000n).toString().padStart(6, '0');
  return canonicalDecimal(`${int}.${frac}`)!;
}
