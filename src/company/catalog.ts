/**
 * The reference Company's records: Stormline Outfitters, the shop of the seed's jacket exchange
 * (spec section 3, "The operation"). Everything is in memory and starts from the same seed data
 * on each `createCompany`, so tests and the demo see the same shop.
 *
 * Money is kept in integer cents and written as the seed writes it: `"70.00"` in terms,
 * `$70.00` in summaries.
 */

export const CURRENCY = 'USD';

export interface Product {
  sku: string;
  /** The product line as a person reads it, without the size: "Stormline Insulated Jacket". */
  name: string;
  size: Size;
  priceCents: number;
}

export const SIZES = ['XS', 'S', 'M', 'L', 'XL'] as const;
export type Size = (typeof SIZES)[number];

const SIZE_WORDS: Record<Size, string> = { XS: 'extra small', S: 'small', M: 'medium', L: 'large', XL: 'extra large' };

export function sizeWord(size: Size): string {
  return SIZE_WORDS[size];
}

export interface Card {
  brand: string;
  last4: string;
}

export interface OrderItem {
  id: string;
  sku: string;
  /** `returned` once exchanged: an item is exchanged at most once, and the replacement is a new item. */
  status: 'active' | 'returned';
  /** Set on the replacement item, naming the exchange that created it. */
  exchangeId?: string;
}

export interface Exchange {
  id: string;
  operationId: string;
  returnedItemId: string;
  newItemId: string;
  replacementSku: string;
  priceDifferenceCents: number;
  createdAt: string;
  /** Written before approval by SpecBreak `start-before-approval` only (faults.ts); the perform replaces it. */
  pending?: true;
}

/** A card payment of an order: the price difference of an exchange, charged when it is performed. */
export interface Payment {
  id: string;
  operationId: string;
  amountCents: number;
  /** `held`: placed before the approval by SpecBreak `hold-before-approval` only (faults.ts); the perform captures it. */
  status: 'held' | 'captured';
  createdAt: string;
}

export interface Order {
  id: string;
  /** The account the order belongs to; null for a guest order (bought signed out). */
  account: string | null;
  card: Card;
  items: OrderItem[];
  exchanges: Exchange[];
  /** The card payments of its exchanges (none yet when absent). */
  payments?: Payment[];
}

export interface Subscription {
  id: string;
  account: string;
  plan: string;
  priceCents: number;
  card: Card;
  status: 'active' | 'cancelled';
  cancellation?: { operationId: string; atPeriodEnd: boolean; endsOn: string; cancelledAt: string };
}

export interface Catalog {
  products: Map<string, Product>;
  orders: Map<string, Order>;
  subscriptions: Map<string, Subscription>;
}

function jacketLine(prefix: string, name: string, priceCents: number): Product[] {
  return SIZES.map((size) => ({ sku: `${prefix}-${size.toLowerCase()}`, name, size, priceCents }));
}

/**
 * The seed data:
 * - `ord_7Hk2` (account `acct_alex`): item `itm_4Qa`, the Stormline Jacket (M), paid with a Visa
 *   ending in 4242. Exchanging it for `stormline-insulated-m` costs $70.00 more, as in the seed.
 * - `ord_Sm41` (account `acct_sam`): item `itm_7Pq`, the Stormline Jacket (L).
 * - `ord_G5xa` (a guest order, no account): item `itm_2Wb`, the Stormline Jacket (S); any
 *   Session may act on it, as a shop lets a guest manage an order by its number.
 * - `sub_3Fp9` (account `acct_alex`): the Stormline Trail Club, $12.00 a month.
 */
export function seedCatalog(): Catalog {
  const products = new Map<string, Product>();
  for (const p of [...jacketLine('stormline', 'Stormline Jacket', 130_00), ...jacketLine('stormline-insulated', 'Stormline Insulated Jacket', 200_00)]) {
    products.set(p.sku, p);
  }
  const visa: Card = { brand: 'Visa', last4: '4242' };
  const orders = new Map<string, Order>([
    ['ord_7Hk2', { id: 'ord_7Hk2', account: 'acct_alex', card: visa, items: [{ id: 'itm_4Qa', sku: 'stormline-m', status: 'active' }], exchanges: [] }],
    [
      'ord_Sm41',
      { id: 'ord_Sm41', account: 'acct_sam', card: { brand: 'Visa', last4: '1881' }, items: [{ id: 'itm_7Pq', sku: 'stormline-l', status: 'active' }], exchanges: [] },
    ],
    [
      'ord_G5xa',
      { id: 'ord_G5xa', account: null, card: { brand: 'Mastercard', last4: '5100' }, items: [{ id: 'itm_2Wb', sku: 'stormline-s', status: 'active' }], exchanges: [] },
    ],
  ]);
  const subscriptions = new Map<string, Subscription>([
    ['sub_3Fp9', { id: 'sub_3Fp9', account: 'acct_alex', plan: 'Stormline Trail Club', priceCents: 12_00, card: visa, status: 'active' }],
  ]);
  return { products, orders, subscriptions };
}

/** `"70.00"`: the amount as the seed's terms write it. */
export function amount(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** `$70.00`: the amount as the seed's summary writes it. */
export function dollars(cents: number): string {
  return `$${amount(cents)}`;
}

/** `Visa ending in 4242`: the card as summaries and terms name it (section 3: the recipient of a charge is part of the terms). */
export function cardLabel(card: Card): string {
  return `${card.brand} ending in ${card.last4}`;
}

/** `Stormline Jacket (M)`. */
export function productLabel(product: Product): string {
  return `${product.name} (${product.size})`;
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** `2026-10-08` for an instant, in UTC (the shop's calendar). */
export function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** `October 8, 2026` for an ISO date. */
export function longDate(iso: string): string {
  const [y, m, d] = iso.split('-').map(Number) as [number, number, number];
  return `${MONTHS[m - 1]} ${d}, ${y}`;
}

/** The first day of the next month (UTC): when a monthly subscription's current period ends. */
export function periodEnd(ms: number): string {
  const now = new Date(ms);
  return isoDate(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}
