import { randomBytes } from 'node:crypto';
import { isId, type JsonObject } from '../protocol/index';
import {
  CURRENCY,
  amount,
  cardLabel,
  dollars,
  isoDate,
  longDate,
  periodEnd,
  productLabel,
  type Catalog,
  type Order,
  type OrderItem,
  type Product,
  type Subscription,
} from './catalog';
import type { CompanyFaults } from './faults';
import type { ActionError, ActionPlan, Described, Operations, Outcome } from './operations';
import type { Caller } from './session';

/**
 * The two actions of the reference Company that need the User's approval (section 1: "A Company
 * chooses which actions need approval"): exchanging an item of an order (the seed's jacket
 * exchange) and cancelling a subscription. Each becomes an ActionPlan: its operation ID, and
 * what it would do now, written as summary and terms (section 3: "Everything that affects the
 * action, such as what it changes, any amount, date, or recipient, or a condition for
 * cancelling, MUST be in the revision's summary, and in terms if present").
 */

export interface ActionDeps {
  catalog: Catalog;
  operations: Operations;
  now: () => number;
  faults: CompanyFaults;
}

function newId(prefix: string): string {
  return `${prefix}_${randomBytes(6).toString('base64url')}`;
}

function notFound(what: string): ActionError {
  return { status: 404, error: 'not_found', description: `${what} was not found` };
}

/** Access to a resource (the token checks of core 7, which come before section 6's checks). */
export type Access<T> = { ok: true; value: T } | { ok: false; error: ActionError; challenge: boolean };

function owned<T extends { account: string | null }>(resource: T | undefined, caller: Caller, what: string): Access<T> {
  if (resource === undefined) return { ok: false, error: notFound(what), challenge: false };
  if (resource.account === null || resource.account === caller.accountId) return { ok: true, value: resource };
  if (caller.accountId === null) {
    // Signed out, and the resource belongs to an account: the challenge for the account (core 7).
    return { ok: false, error: { status: 401, error: 'sign_in_required', description: `sign in to the account that ${what} belongs to` }, challenge: true };
  }
  // Another account's: as if it didn't exist.
  return { ok: false, error: notFound(what), challenge: false };
}

export function orderAccess(deps: ActionDeps, caller: Caller, orderId: string): Access<Order> {
  return owned(isId(orderId) ? deps.catalog.orders.get(orderId) : undefined, caller, `order ${orderId}`);
}

export function subscriptionAccess(deps: ActionDeps, caller: Caller, subscriptionId: string): Access<Subscription> {
  return owned(isId(subscriptionId) ? deps.catalog.subscriptions.get(subscriptionId) : undefined, caller, `subscription ${subscriptionId}`);
}

export interface ExchangeRequest {
  orderId: string;
  itemId: string;
  replacementSku: string;
}

/** One exchange as described: the item, what it becomes, and the price difference. */
interface ExchangeTerms {
  order: Order;
  item: OrderItem;
  current: Product;
  replacement: Product;
  differenceCents: number;
  operationId: string;
}

/** Exactly what the summary says (section 3: "MUST perform only what the approved revision describes"). */
function performExchange(deps: ActionDeps, x: ExchangeTerms): Outcome {
  const { order, item, current, replacement, differenceCents, operationId } = x;
  item.status = 'returned';
  const newItem = { id: newId('itm'), sku: replacement.sku, status: 'active' as const, exchangeId: newId('exg') };
  order.items.push(newItem);
  // SpecBreak `start-before-approval` (faults.ts) wrote a pending exchange when the operation was
  // offered: this exchange takes its place, so the order still shows one exchange per perform.
  order.exchanges = order.exchanges.filter((e) => !(e.pending === true && e.operationId === operationId));
  const exchange = {
    id: newItem.exchangeId,
    operationId,
    returnedItemId: item.id,
    newItemId: newItem.id,
    replacementSku: replacement.sku,
    priceDifferenceCents: differenceCents,
    createdAt: new Date(deps.now()).toISOString(),
  };
  order.exchanges.push(exchange);
  chargeDifference(deps, x, 'captured');
  const card = cardLabel(order.card);
  const charged = differenceCents > 0 ? `${dollars(differenceCents)} was charged to the ${card}` : 'there was nothing to pay';
  return {
    data: {
      exchange: {
        id: exchange.id,
        status: 'completed',
        order_id: order.id,
        returned_item_id: item.id,
        new_item: { id: newItem.id, sku: replacement.sku, name: productLabel(replacement) },
        price_difference: { amount: amount(differenceCents), currency: CURRENCY },
        payment_method: card,
        created_at: exchange.createdAt,
      },
    },
    text: `Exchanged the ${productLabel(current)} on order ${order.id} for the ${productLabel(replacement)} (new item ${newItem.id}); ${charged}.`,
  };
}

/**
 * SpecBreak `start-before-approval` only: the exchange is started when it is offered, as a
 * pending exchange on the order that looks like a performed one from outside (the item stays
 * active, nothing is counted as performed). One per operation.
 */
function startExchangeEarly(deps: ActionDeps, x: ExchangeTerms): void {
  if (x.order.exchanges.some((e) => e.operationId === x.operationId)) return;
  x.order.exchanges.push({
    id: newId('exg'),
    operationId: x.operationId,
    returnedItemId: x.item.id,
    newItemId: newId('itm'),
    replacementSku: x.replacement.sku,
    priceDifferenceCents: x.differenceCents,
    createdAt: new Date(deps.now()).toISOString(),
    pending: true,
  });
}

/**
 * The card payment of an exchange's price difference, one per operation: captured when the
 * exchange is performed, or (SpecBreak `hold-before-approval` only) held when it is offered and
 * captured by the perform, so the order still shows one payment per perform.
 */
function chargeDifference(deps: ActionDeps, x: ExchangeTerms, status: 'held' | 'captured'): void {
  if (x.differenceCents <= 0) return;
  const payments = (x.order.payments ??= []);
  const held = payments.find((p) => p.operationId === x.operationId && p.status === 'held');
  if (held !== undefined) {
    held.status = status;
    return;
  }
  payments.push({ id: newId('pay'), operationId: x.operationId, amountCents: x.differenceCents, status, createdAt: new Date(deps.now()).toISOString() });
}

/** Why the item can't be exchanged for this SKU, or what the exchange would be. */
function exchangeTerms(deps: ActionDeps, order: Order, request: ExchangeRequest, operationId: string): ExchangeTerms | ActionError {
  const item = order.items.find((i) => i.id === request.itemId);
  if (item === undefined) return notFound(`item ${request.itemId} on order ${order.id}`);
  if (item.status !== 'active') return { status: 409, error: 'item_not_exchangeable', description: `item ${item.id} on order ${order.id} was already exchanged` };
  const current = deps.catalog.products.get(item.sku);
  const replacement = deps.catalog.products.get(request.replacementSku);
  if (current === undefined) return { status: 409, error: 'item_not_exchangeable', description: `item ${item.id} can't be exchanged` };
  if (replacement === undefined) return { status: 422, error: 'unknown_sku', description: `there is no product ${request.replacementSku}` };
  if (replacement.sku === current.sku) return { status: 422, error: 'same_sku', description: `item ${item.id} already is ${productLabel(current)}` };
  const differenceCents = replacement.priceCents - current.priceCents;
  if (differenceCents < 0) {
    return { status: 422, error: 'exchange_not_offered', description: 'exchanges for a cheaper product are made as a return and a new order' };
  }
  return { order, item, current, replacement, differenceCents, operationId };
}

/**
 * SpecBreak `reuse-operation-id-after-perform` only: once an exchange on the order was performed,
 * the next exchange of another item on it takes the performed one's identity, so its operation ID
 * (breaks section 3, `operation_id`: "the Company MUST NOT use it for another action").
 */
function reusedItemId(deps: ActionDeps, order: Order, request: ExchangeRequest): string | undefined {
  if (!deps.faults.breaks.has('reuse-operation-id-after-perform')) return undefined;
  return order.exchanges.findLast((e) => e.pending !== true && e.returnedItemId !== request.itemId)?.returnedItemId;
}

/**
 * The jacket exchange (section 3's example). Its identity is the order and the item: "The
 * Company decides which requests are for the same action, from its own records, such as the
 * order and item being exchanged" (section 3, "New terms"). A different size is the same
 * operation with a new revision; the exchanged item is returned and the replacement is a new
 * item, so the same operation ID never names another action.
 */
export function exchangePlan(deps: ActionDeps, order: Order, request: ExchangeRequest): ActionPlan {
  const identity: JsonObject = { action: 'exchange', order_id: order.id, item_id: reusedItemId(deps, order, request) ?? request.itemId };
  // SpecBreak `new-operation-id-for-new-terms` makes the size part of the action (breaks section 3,
  // `operation_id`: "It stays the same when the terms change").
  if (deps.faults.breaks.has('new-operation-id-for-new-terms')) identity.replacement_sku = request.replacementSku;
  return {
    prefix: 'exc',
    identity,
    describe(_nowMs: number, operationId: string): Described {
      const x = exchangeTerms(deps, order, request, operationId);
      if (!('item' in x)) return { ok: false, error: x };
      const card = cardLabel(order.card);
      const cost =
        x.differenceCents > 0 ? `for ${dollars(x.differenceCents)} more, charged to the ${card} used for the order` : `for no price difference (${dollars(0)}), on the ${card} used for the order`;
      const summary = `Exchange the ${productLabel(x.current)} on order ${order.id} for the ${productLabel(x.replacement)}, ${cost}.`;
      const terms: JsonObject = {
        order_id: order.id,
        item_id: x.item.id,
        replacement_sku: x.replacement.sku,
        price_difference: { amount: amount(x.differenceCents), currency: CURRENCY },
        payment_method: card,
      };
      return {
        ok: true,
        description: { summary, terms, perform: () => performExchange(deps, x), startEarly: () => startExchangeEarly(deps, x), holdEarly: () => chargeDifference(deps, x, 'held') },
      };
    },
  };
}

export interface CancelRequest {
  /** Defaults to true: the subscription runs to the end of the period already paid for. */
  atPeriodEnd: boolean;
}

/** Cancelling a subscription, at the end of the period or now. Its identity is the subscription. */
export function cancelPlan(deps: ActionDeps, subscription: Subscription, request: CancelRequest): ActionPlan {
  return {
    prefix: 'can',
    identity: { action: 'cancel_subscription', subscription_id: subscription.id },
    describe(nowMs: number, operationId: string): Described {
      if (subscription.status !== 'active') {
        return { ok: false, error: { status: 409, error: 'subscription_not_active', description: `subscription ${subscription.id} is already cancelled` } };
      }
      const endsOn = request.atPeriodEnd ? periodEnd(nowMs) : isoDate(nowMs);
      const card = cardLabel(subscription.card);
      const plan = `the ${subscription.plan} membership (${subscription.id}, ${dollars(subscription.priceCents)} a month)`;
      const when = request.atPeriodEnd
        ? `at the end of the current period: it stays active until ${longDate(endsOn)}`
        : `now: it ends today, ${longDate(endsOn)}, with no refund for the rest of the current period`;
      const summary = `Cancel ${plan} ${when}, and no further payments are taken from the ${card}.`;
      const terms: JsonObject = {
        subscription_id: subscription.id,
        plan: subscription.plan,
        price: { amount: amount(subscription.priceCents), currency: CURRENCY },
        at_period_end: request.atPeriodEnd,
        ends_on: endsOn,
        payment_method: card,
      };
      return {
        ok: true,
        description: {
          summary,
          terms,
          perform: () => {
            const cancelledAt = new Date(deps.now()).toISOString();
            subscription.status = 'cancelled';
            subscription.cancellation = { operationId, atPeriodEnd: request.atPeriodEnd, endsOn, cancelledAt };
            return {
              data: {
                subscription: {
                  id: subscription.id,
                  status: 'cancelled',
                  plan: subscription.plan,
                  at_period_end: request.atPeriodEnd,
                  ends_on: endsOn,
                  cancelled_at: cancelledAt,
                },
              },
              text: `Cancelled ${plan}; it ${request.atPeriodEnd ? 'stays active until' : 'ended on'} ${longDate(endsOn)}, and no further payments are taken from the ${card}.`,
            };
          },
        },
      };
    },
  };
}

/** An order as `GET /orders/:id` shows it: how a Personal Agent finds out whether an exchange was performed (section 7). */
export function orderView(deps: ActionDeps, order: Order): JsonObject {
  return {
    order: {
      id: order.id,
      payment_method: cardLabel(order.card),
      items: order.items.map((item) => {
        const product = deps.catalog.products.get(item.sku);
        return { id: item.id, sku: item.sku, name: product === undefined ? item.sku : productLabel(product), status: item.status };
      }),
      exchanges: order.exchanges.map((e) => ({
        id: e.id,
        operation_id: e.operationId,
        returned_item_id: e.returnedItemId,
        new_item_id: e.newItemId,
        replacement_sku: e.replacementSku,
        price_difference: { amount: amount(e.priceDifferenceCents), currency: CURRENCY },
        created_at: e.createdAt,
      })),
      payments: (order.payments ?? []).map((p) => ({
        id: p.id,
        operation_id: p.operationId,
        amount: { amount: amount(p.amountCents), currency: CURRENCY },
        status: p.status,
        created_at: p.createdAt,
      })),
    },
  };
}

export function subscriptionView(subscription: Subscription): JsonObject {
  const cancellation: JsonObject | null =
    subscription.cancellation === undefined
      ? null
      : {
          operation_id: subscription.cancellation.operationId,
          at_period_end: subscription.cancellation.atPeriodEnd,
          ends_on: subscription.cancellation.endsOn,
          cancelled_at: subscription.cancellation.cancelledAt,
        };
  return {
    subscription: {
      id: subscription.id,
      plan: subscription.plan,
      price: { amount: amount(subscription.priceCents), currency: CURRENCY },
      payment_method: cardLabel(subscription.card),
      status: subscription.status,
      cancellation,
    },
  };
}
