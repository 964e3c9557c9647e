import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as z from 'zod';
import { describeZodError } from '../protocol/describe-zod-error';
import { approvalFromMessage, idSchema, isCountersignError, type Approval, type JsonObject, type Operation } from '../protocol/index';
import { exchangePlan, orderAccess } from './actions';
import { SIZES, dollars, productLabel, sizeWord, type Order, type Size } from './catalog';
import { dropConnection, readJson, sendJson, sendRefusal, type CompanyContext } from './http';
import type { CheckContext, Connection } from './operations';
import { approvableScopes, declaresOperations, identifyCaller, primaryScope, type Caller, type Scope } from './session';

/**
 * The reference Company's conversation endpoint and its scripted Company Agent (sections 4 and 6,
 * "Conversations"; core 8, whose text we don't have: docs/core-assumptions.md, "Conversation
 * events" and "A retried message").
 *
 * - `POST /conversations` → 201 `{ id, created_at }`. The conversation belongs to the Session, or
 *   to the account when signed in, as an operation does (section 3, "Who can approve it").
 * - `POST /conversations/:id/messages` with a Personal Agent message `{ id, author: { type:
 *   "agent" }, text, extensions? }` → 201 `{ event }` (the event of that message). The Company
 *   Agent's replies are appended as events before the response is sent. A message retried with
 *   the same `id` gets the original response and adds nothing (section 7, core 8.3).
 * - `GET /conversations/:id/events?after=<event id>&wait=<seconds>` → `{ events }`, the events
 *   after that one; `wait` (at most 30) holds the request until there is one.
 *
 * The Company Agent: asked to exchange (text mentioning exchange, swap or insulated), it offers
 * the exchange in a message carrying `extensions.operations.operation` (section 4); asked for
 * another size ("size L", "large"), it sends a new revision of the same operation in a later
 * message; on a message whose `extensions.operations.approval` passes section 6's checks it
 * performs the exchange and says how it went in a later message. "The message's text doesn't
 * approve anything, whatever it says. Only the approval does." Without `Poppy-Extensions`
 * declaring operations v2 it never sends an operation (section 2) and leaves the approval to
 * the website.
 */

export interface MessageEvent {
  id: string;
  type: 'message';
  created_at: string;
  message: {
    id: string;
    role: 'company' | 'user';
    author: { type: string };
    text: string;
    extensions?: JsonObject;
  };
}

interface StoredResponse {
  status: number;
  body: JsonObject;
  /** Only the first answer can be dropped; a retry gets the stored response. */
  connection: Connection;
}

interface Offer {
  orderId: string;
  itemId: string;
  sku: string;
  operationId: string;
  /** The revision the Company sent last for this operation in this conversation. */
  revision: string;
}

interface Conversation {
  id: string;
  owner: Scope;
  createdAt: string;
  events: MessageEvent[];
  /** Responses by Personal Agent message ID (core 8.3: a retried message gets the original response). */
  responses: Map<string, Promise<StoredResponse>>;
  /** The exchange under discussion, and every operation offered here by ID (check 3: "the operation is the conversation's"). */
  current?: Offer;
  offers: Map<string, Offer>;
  waiters: Set<() => void>;
}

const MAX_WAIT_SECONDS = 30;

/**
 * SpecBreak `reply-to-repeated-approval`: how late the Company Agent answers a repeated approval.
 * Later than a reader that stops at the first silence (docs/conformance.md, `quietMs`, 300 ms),
 * well within the time a reply may take (`replyTimeoutMs`, 5 s).
 */
export const LATE_REPLY_MS = 1_000;

const messageSchema = z.object({
  id: idSchema,
  author: z.object({ type: z.enum(['agent', 'user']) }),
  text: z.string().max(10_000),
  extensions: z.record(z.string(), z.unknown()).optional(),
});

function newId(prefix: string): string {
  return `${prefix}_${randomBytes(9).toString('base64url')}`;
}

const SIZE_WORDS: [RegExp, Size][] = [
  [/\bextra[ -]small\b/i, 'XS'],
  [/\bextra[ -]large\b/i, 'XL'],
  [/\bsmall\b/i, 'S'],
  [/\bmedium\b/i, 'M'],
  [/\blarge\b/i, 'L'],
];

/** "size L", "in a large", "(XL)". */
export function sizeIn(text: string): Size | undefined {
  const explicit = /\bsize\s+(XS|S|M|L|XL)\b/i.exec(text) ?? /\((XS|S|M|L|XL)\)/i.exec(text);
  if (explicit !== null) return (explicit[1] as string).toUpperCase() as Size;
  for (const [pattern, size] of SIZE_WORDS) if (pattern.test(text)) return size;
  return undefined;
}

const EXCHANGE_INTENT = /\b(exchange|swap|insulated)\b/i;
const APPROVAL_WORDS = /\b(approve[ds]?|yes|go ahead|confirm(ed)?|ok(ay)?)\b/i;

export class Conversations {
  readonly #context: CompanyContext;
  readonly #conversations = new Map<string, Conversation>();
  readonly #timers = new Set<NodeJS.Timeout>();

  constructor(context: CompanyContext) {
    this.#context = context;
  }

  #now(): string {
    return new Date(this.#context.now()).toISOString();
  }

  #append(conversation: Conversation, message: MessageEvent['message']): MessageEvent {
    const event: MessageEvent = { id: `evt_${conversation.events.length + 1}`, type: 'message', created_at: this.#now(), message };
    conversation.events.push(event);
    for (const wake of conversation.waiters) wake();
    conversation.waiters.clear();
    return event;
  }

  #say(conversation: Conversation, text: string, operation?: Operation): void {
    const message: MessageEvent['message'] = { id: newId('msg'), role: 'company', author: { type: 'agent' }, text };
    // Section 4, "Conversations": "A Company message carries the operation in extensions.operations.operation".
    if (operation !== undefined) message.extensions = { operations: { operation: operation as unknown as JsonObject } };
    this.#append(conversation, message);
  }

  /** SpecBreak `reply-to-repeated-approval` only: a Company message LATE_REPLY_MS from now, as a slow Company Agent would send it. */
  #later(conversation: Conversation, text: string): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      this.#say(conversation, text);
    }, LATE_REPLY_MS);
    timer.unref();
    this.#timers.add(timer);
  }

  /** The order a message is about: one it names, the one under discussion, or the account's first with a jacket. */
  #orderFor(conversation: Conversation, caller: Caller, text: string): Order | string {
    const named = /\b(ord_[A-Za-z0-9_-]+)/.exec(text)?.[1] ?? conversation.current?.orderId;
    if (named !== undefined) {
      const access = orderAccess(this.#context, caller, named);
      if (access.ok) return access.value;
      return access.challenge ? `Please sign in to your Stormline account so I can see order ${named}.` : `I can't find order ${named}.`;
    }
    if (caller.accountId !== null) {
      for (const order of this.#context.catalog.orders.values()) {
        if (order.account === caller.accountId && order.items.some((i) => i.status === 'active')) return order;
      }
    }
    return 'Which order is it? Tell me the order number (it starts with ord_).';
  }

  /** Offer the exchange, or a new revision of it (section 3, "New terms"; section 4). */
  #offer(conversation: Conversation, caller: Caller, declared: boolean, text: string): void {
    const order = this.#orderFor(conversation, caller, text);
    if (typeof order === 'string') return this.#say(conversation, order);
    const discussed = conversation.current?.orderId === order.id ? conversation.current : undefined;
    // An item the message names ("item itm_9Zz") is another exchange than the one under discussion.
    const named = /\b(itm_[A-Za-z0-9_-]+)/.exec(text)?.[1];
    if (named !== undefined && !order.items.some((i) => i.id === named)) return this.#say(conversation, `I can't find item ${named} on order ${order.id}.`);
    const item = order.items.find((i) => i.id === (named ?? discussed?.itemId)) ?? order.items.find((i) => i.status === 'active');
    const previous = discussed?.itemId === item?.id ? discussed : undefined;
    const current = item === undefined ? undefined : this.#context.catalog.products.get(item.sku);
    if (item === undefined || current === undefined) return this.#say(conversation, `There is nothing left to exchange on order ${order.id}.`);
    const previousProduct = previous === undefined ? undefined : this.#context.catalog.products.get(previous.sku);
    const line = /\binsulated\b/i.test(text) || previousProduct === undefined ? 'stormline-insulated' : previousProduct.sku.replace(/-[a-z]+$/, '');
    const size = sizeIn(text) ?? previousProduct?.size ?? current.size;
    const sku = `${line}-${size.toLowerCase()}`;
    const replacement = this.#context.catalog.products.get(sku);
    if (replacement === undefined) return this.#say(conversation, `We don't have that in ${SIZES.join(', ')}.`);
    const plan = exchangePlan(this.#context, order, { orderId: order.id, itemId: item.id, replacementSku: sku });
    const check: CheckContext = { binding: `conversation ${conversation.id}`, caller, declared };
    const decision = this.#context.operations.decide(check, plan);
    const difference = replacement.priceCents - current.priceCents;
    const price = difference > 0 ? `for ${dollars(difference)} more` : 'at no extra cost';
    switch (decision.kind) {
      case 'operation': {
        const offer: Offer = { orderId: order.id, itemId: item.id, sku, operationId: decision.operation.operation_id, revision: decision.operation.revision };
        conversation.current = offer;
        conversation.offers.set(offer.operationId, offer);
        const opening = previous === undefined ? `I can exchange it for the ${productLabel(replacement)}` : `Sure: here it is in ${sizeWord(size)} instead, the ${productLabel(replacement)},`;
        return this.#say(conversation, `${opening} ${price}. I'll do it once you approve.`, decision.operation);
      }
      case 'extension_required':
        // Section 2: no operation without the declaration; the Company handles approval itself.
        return this.#say(
          conversation,
          `I can exchange it for the ${productLabel(replacement)} ${price}. Your assistant didn't declare approvals (the operations extension), so please confirm it on our website: ${this.#context.baseUrl()}/orders/${order.id}`,
        );
      case 'busy':
        return this.#say(conversation, 'That exchange is being made right now; I will tell you how it went.');
      case 'refused':
        return this.#say(conversation, `I can't do that: ${decision.error.description}.`);
      default:
        return this.#say(conversation, 'I can help you exchange an item of your order.');
    }
  }

  /** A message with an approval (section 6, "Conversations"). */
  async #approve(conversation: Conversation, caller: Caller, approval: Approval): Promise<Connection> {
    const offer = conversation.offers.get(approval.operation_id);
    const order = offer === undefined ? undefined : orderAccess(this.#context, caller, offer.orderId);
    if (offer === undefined || order === undefined || !order.ok) {
      // Check 3: "in a conversation, the operation is the conversation's".
      this.#say(conversation, `I haven't offered operation ${approval.operation_id} in this conversation, so I haven't done anything.`);
      return 'answer';
    }
    const plan = exchangePlan(this.#context, order.value, { orderId: offer.orderId, itemId: offer.itemId, replacementSku: offer.sku });
    const check: CheckContext = {
      binding: `conversation ${conversation.id}`,
      caller,
      declared: true,
      approval,
      // Only the revision the Company sent last for this operation: the terms asked for now.
      acceptRevision: (revision) => revision === conversation.offers.get(approval.operation_id)?.revision,
    };
    const decision = this.#context.operations.decide(check, plan);
    switch (decision.kind) {
      case 'perform': {
        const performed = await this.#context.operations.perform(decision);
        // "The Company Agent performs the action and says how it went in a later message."
        this.#say(conversation, `Done. ${performed.record.outcome.text}`);
        return performed.connection;
      }
      case 'performed':
        // SpecBreak `reply-to-repeated-approval` answers it, a little later (breaks section 7, "a new message with the same approval adds nothing").
        if (this.#context.faults.breaks.has('reply-to-repeated-approval')) this.#later(conversation, "That exchange is already done; there's nothing more to do.");
        return 'answer';
      case 'busy':
        // Section 7: "a new message with the same approval adds nothing" (a busy one is reported when done).
        return 'answer';
      case 'operation': {
        const renewed: Offer = { ...offer, revision: decision.operation.revision };
        conversation.offers.set(offer.operationId, renewed);
        if (conversation.current?.operationId === offer.operationId) conversation.current = renewed;
        this.#say(conversation, `Those terms aren't the current ones, so I haven't done anything yet. Here they are again; I'll do it once you approve.`, decision.operation);
        return 'answer';
      }
      case 'challenge':
        this.#say(conversation, 'This exchange belongs to your account: please sign in to approve it. Nothing was done.');
        return 'answer';
      case 'refused':
        this.#say(conversation, `I can't do that: ${decision.error.description}.`);
        return 'answer';
      case 'extension_required':
        return 'answer';
    }
  }

  /** The scripted Company Agent's turn after a Personal Agent message. */
  async #respond(conversation: Conversation, caller: Caller, declared: boolean, text: string, approval: Approval | undefined): Promise<Connection> {
    if (approval !== undefined && declared) return this.#approve(conversation, caller, approval);
    if (EXCHANGE_INTENT.test(text) || (conversation.current !== undefined && sizeIn(text) !== undefined)) {
      this.#offer(conversation, caller, declared, text);
      return 'answer';
    }
    if (conversation.current !== undefined && APPROVAL_WORDS.test(text)) {
      // SpecBreak `text-approves` takes the words for the approval (breaks section 6, "The message's
      // text doesn't approve anything, whatever it says").
      const { operationId, revision } = conversation.current;
      if (this.#context.faults.breaks.has('text-approves')) return this.#approve(conversation, caller, { operation_id: operationId, revision });
      // Section 6: "The message's text doesn't approve anything, whatever it says."
      this.#say(conversation, "I can only go ahead with the approval itself, from your assistant's approval screen. A message saying so isn't one, so nothing was done.");
      return 'answer';
    }
    this.#say(conversation, 'I can help you exchange an item of your order, for example for the insulated version or another size.');
    return 'answer';
  }

  #find(caller: Caller, id: string): Conversation | undefined {
    const conversation = this.#conversations.get(id);
    return conversation !== undefined && approvableScopes(caller).includes(conversation.owner) ? conversation : undefined;
  }

  /** Handle a request under `/conversations`; false when the path isn't one of these. */
  async handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    const path = url.pathname;
    const messages = /^\/conversations\/([^/]+)\/messages$/.exec(path);
    const events = /^\/conversations\/([^/]+)\/events$/.exec(path);
    const create = path === '/conversations';
    if (!(create && req.method === 'POST') && !(messages !== null && req.method === 'POST') && !(events !== null && req.method === 'GET')) return false;
    const context = this.#context;
    const identified = identifyCaller(req.headers, context.tokens);
    if (!identified.ok) {
      await sendRefusal(context, res, identified.refusal);
      return true;
    }
    const caller = identified.caller;

    if (create) {
      const conversation: Conversation = {
        id: newId('cnv'),
        owner: primaryScope(caller),
        createdAt: this.#now(),
        events: [],
        responses: new Map(),
        offers: new Map(),
        waiters: new Set(),
      };
      this.#conversations.set(conversation.id, conversation);
      await sendJson(context, res, 201, { id: conversation.id, created_at: conversation.createdAt });
      return true;
    }

    const conversation = this.#find(caller, decodeURIComponent((messages ?? events)?.[1] ?? ''));
    if (conversation === undefined) {
      await sendRefusal(context, res, { status: 404, body: { error: 'not_found', error_description: 'no such conversation' } });
      return true;
    }

    if (events !== null) {
      await this.#events(conversation, res, url);
      return true;
    }

    const declared = declaresOperations(req.headers, context.faults.breaks);
    if (!declared.ok) {
      await sendRefusal(context, res, declared.refusal);
      return true;
    }
    const body = await readJson(req);
    if (!body.ok) {
      await sendRefusal(context, res, body.refusal);
      return true;
    }
    const parsed = messageSchema.safeParse(body.value, { reportInput: true });
    if (!parsed.success) {
      const detail = describeZodError(parsed.error, 'message');
      await sendRefusal(context, res, { status: 400, body: { error: 'invalid_message', error_description: detail } });
      return true;
    }
    const message = parsed.data;
    const earlier = conversation.responses.get(message.id);
    if (earlier !== undefined) {
      // Core 8.3 and section 7: "a message retried with the same ID gets the original response".
      const stored = await earlier;
      await sendJson(context, res, stored.status, stored.body);
      return true;
    }
    let approval: Approval | undefined;
    try {
      approval = approvalFromMessage(message);
    } catch (cause) {
      if (!isCountersignError(cause)) throw cause;
      await sendRefusal(context, res, { status: 400, body: { error: 'invalid_message', error_description: cause.message } });
      return true;
    }
    const pending = this.#accept(conversation, caller, declared.declared, message, approval);
    conversation.responses.set(message.id, pending);
    const stored = await pending;
    if (dropConnection(res, stored.connection)) return true;
    await sendJson(context, res, stored.status, stored.body);
    return true;
  }

  async #accept(
    conversation: Conversation,
    caller: Caller,
    declared: boolean,
    message: z.infer<typeof messageSchema>,
    approval: Approval | undefined,
  ): Promise<StoredResponse> {
    const stored: MessageEvent['message'] = { id: message.id, role: 'user', author: { type: message.author.type }, text: message.text };
    if (message.extensions !== undefined) stored.extensions = message.extensions as JsonObject;
    const event = this.#append(conversation, stored);
    const connection = await this.#respond(conversation, caller, declared, message.text, approval);
    return { status: 201, body: { event: event as unknown as JsonObject }, connection };
  }

  async #events(conversation: Conversation, res: ServerResponse, url: URL): Promise<void> {
    const after = url.searchParams.get('after');
    let start = 0;
    if (after !== null && after !== '') {
      const index = conversation.events.findIndex((e) => e.id === after);
      if (index < 0) {
        await sendRefusal(this.#context, res, { status: 400, body: { error: 'invalid_request', error_description: `no event ${after}` } });
        return;
      }
      start = index + 1;
    }
    const wait = Math.min(MAX_WAIT_SECONDS, Math.max(0, Number(url.searchParams.get('wait') ?? 0) || 0));
    if (conversation.events.length <= start && wait > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, wait * 1000);
        function done(): void {
          clearTimeout(timer);
          conversation.waiters.delete(done);
          resolve();
        }
        conversation.waiters.add(done);
        res.on('close', done);
      });
    }
    await sendJson(this.#context, res, 200, { events: conversation.events.slice(start) });
  }

  /** Wake every waiting events request (the Company is closing). */
  close(): void {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    for (const conversation of this.#conversations.values()) {
      for (const wake of conversation.waiters) wake();
      conversation.waiters.clear();
    }
  }
}
