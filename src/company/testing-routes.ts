import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as z from 'zod';
import { describeZodError } from '../protocol/describe-zod-error';
import type { Card } from './catalog';
import { readJson, sendJson, sendRefusal, type CompanyContext } from './http';
import { identifyCaller, type Caller, type Refusal } from './session';

/**
 * Testing mode (`createCompany({ testing: true })`, CLI `--testing`): routes a conformance kit
 * uses to set the reference Company up from outside, over HTTP only (docs/reference-company.md,
 * "Testing mode"). Off by default: then `/testing/*` is 404 like any unknown path.
 *
 * - `POST /testing/orders` `{}` → 201 `{ order_id, item_id, other_item_id }`: a fresh order with
 *   an active Stormline Jacket (M) and (S), so every probe has an item no other probe has
 *   exchanged (an item is exchanged at most once), and another item on the same order. It belongs to the caller's account when signed in, else it is a guest
 *   order that any signed-out Session may act on, like `ord_G5xa`.
 * - `POST /testing/clock` `{ advance_ms }` → 200 `{ now }`: moves the Company's clock forward, to
 *   reach an `expires_at` (section 3, "Expiry"; section 6, check 3) without waiting.
 * - `POST /testing/perform-delay` `{ ms }` → 200 `{ ms }`: each perform takes that long, and
 *   meanwhile requests for the operation get 503 + Retry-After (section 7; faults.holdPerformMs).
 *
 * Each takes the Poppy headers every other request takes (Poppy-Session, Poppy-Version 0.4,
 * optional Authorization), checked the same way (session.ts).
 */

/** The Company's clock as testing mode moves it. */
export interface TestingClock {
  now: () => number;
  advance: (ms: number) => void;
}

/** The longest perform delay: beyond it a client would take the Company for dead. */
export const MAX_PERFORM_DELAY_MS = 30_000;

/** 9999-12-31T23:59:59.999Z: the last instant an ISO 8601 date with a four-digit year can say. */
const LAST_INSTANT_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** The card every test order is paid with (a card number that is a test number everywhere). */
const TEST_CARD: Card = { brand: 'Visa', last4: '4242' };

const orderBodySchema = z.strictObject({}).optional();
const clockBodySchema = z.strictObject({ advance_ms: z.int().min(0) });
const performDelayBodySchema = z.strictObject({ ms: z.int().min(0).max(MAX_PERFORM_DELAY_MS) });

type Parsed<T> = { ok: true; value: T } | { ok: false; refusal: Refusal };

function invalidRequest(description: string): Refusal {
  return { status: 400, body: { error: 'invalid_request', error_description: description } };
}

async function parseBody<T>(req: IncomingMessage, schema: z.ZodType<T>): Promise<Parsed<T>> {
  const body = await readJson(req);
  if (!body.ok) return body;
  const parsed = schema.safeParse(body.value, { reportInput: true });
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, refusal: invalidRequest(describeZodError(parsed.error, 'body')) };
}

/**
 * `length` random characters of the ID alphabet (core 8.2) without `-`: the whole ID is then one
 * word, so the conversation's Company Agent, which reads sizes and intents as words
 * (conversation.ts), never finds one inside an order number it is told.
 */
function randomWord(length: number): string {
  let word = '';
  while (word.length < length) word += randomBytes(length).toString('base64url').replaceAll('-', '');
  return word.slice(0, length);
}

/**
 * A fresh order with two active jackets, a Stormline Jacket (M) and (S), the caller's account's
 * or a guest order: the second is "another action on the same order" (section 3, `operation_id`).
 */
function createOrder(context: CompanyContext, caller: Caller): { order_id: string; item_id: string; other_item_id: string } {
  let orderId = `ord_${randomWord(10)}`;
  while (context.catalog.orders.has(orderId)) orderId = `ord_${randomWord(10)}`;
  const itemId = `itm_${randomWord(8)}`;
  const otherItemId = `itm_${randomWord(8)}`;
  context.catalog.orders.set(orderId, {
    id: orderId,
    account: caller.accountId,
    card: TEST_CARD,
    items: [
      { id: itemId, sku: 'stormline-m', status: 'active' },
      { id: otherItemId, sku: 'stormline-s', status: 'active' },
    ],
    exchanges: [],
  });
  return { order_id: orderId, item_id: itemId, other_item_id: otherItemId };
}

type Route = (context: CompanyContext, clock: TestingClock, req: IncomingMessage, res: ServerResponse, caller: Caller) => Promise<void>;

async function postOrders(context: CompanyContext, _clock: TestingClock, req: IncomingMessage, res: ServerResponse, caller: Caller): Promise<void> {
  const body = await parseBody(req, orderBodySchema);
  if (!body.ok) return sendRefusal(context, res, body.refusal);
  return sendJson(context, res, 201, createOrder(context, caller));
}

async function postClock(context: CompanyContext, clock: TestingClock, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await parseBody(req, clockBodySchema);
  if (!body.ok) return sendRefusal(context, res, body.refusal);
  if (clock.now() + body.value.advance_ms > LAST_INSTANT_MS) {
    return sendRefusal(context, res, invalidRequest('body.advance_ms: expected a move that keeps the clock before the year 10000, got one past it'));
  }
  clock.advance(body.value.advance_ms);
  return sendJson(context, res, 200, { now: new Date(clock.now()).toISOString() });
}

async function postPerformDelay(context: CompanyContext, _clock: TestingClock, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await parseBody(req, performDelayBodySchema);
  if (!body.ok) return sendRefusal(context, res, body.refusal);
  context.faults.holdPerformMs = body.value.ms;
  return sendJson(context, res, 200, { ms: body.value.ms });
}

const ROUTES: Readonly<Record<string, Route>> = {
  '/testing/orders': postOrders,
  '/testing/clock': postClock,
  '/testing/perform-delay': postPerformDelay,
};

/** Handle a testing-mode request; false when the path isn't one of these (the server then answers 404). */
export async function handleTesting(context: CompanyContext, clock: TestingClock, req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> {
  const route = Object.hasOwn(ROUTES, path) ? ROUTES[path] : undefined;
  if (route === undefined) return false;
  if (req.method !== 'POST') {
    await sendJson(context, res, 405, { error: 'invalid_request', error_description: `${req.method ?? 'GET'} ${path}: only POST` }, { Allow: 'POST' });
    return true;
  }
  const identified = identifyCaller(req.headers, context.tokens);
  if (!identified.ok) {
    await sendRefusal(context, res, identified.refusal);
    return true;
  }
  await route(context, clock, req, res, identified.caller);
  return true;
}
