import { describe, expect, it } from 'vitest';
import { expiresAtMs, isId, parseOperation } from '../../src/protocol/index';
import {
  ALEX,
  ALEX_PHONE,
  CANCEL_PATH,
  Clock,
  EXCHANGE_L,
  EXCHANGE_M,
  EXCHANGE_PATH,
  GUEST,
  GUEST_EXCHANGE,
  GUEST_PATH,
  OTHER_GUEST,
  SAM,
  approvalOf,
  callTool,
  companyMessages,
  get,
  mcpClient,
  message,
  offeredOperations,
  openConversation,
  operationFor,
  post,
  rawToolCall,
  send,
  startCompany,
} from './helpers';

// Section 3, "The operation": what the Company MUST and MUST NOT do with operation_id, revision,
// summary, terms and expires_at, and who can approve an operation.

describe('section 3: the operation (Company)', () => {
  it('3 operation_id "Identifies the action, not a kind of action. It stays the same when the terms change"', async () => {
    const clock = new Clock();
    const company = await startCompany(clock);
    const m = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
    const l = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_L);
    const guest = await operationFor(company, GUEST_PATH, GUEST, GUEST_EXCHANGE);
    const cancel = await operationFor(company, CANCEL_PATH, ALEX);
    expect(l.operation_id).toBe(m.operation_id);
    expect(new Set([m.operation_id, guest.operation_id, cancel.operation_id]).size).toBe(3);
    // The same action through MCP is the same operation (at most once holds across interfaces).
    const client = await mcpClient(company, ALEX);
    const result = await callTool(client, 'exchange_item', { order_id: 'ord_7Hk2', ...EXCHANGE_M });
    expect(result.structuredContent.operation.operation_id).toBe(m.operation_id);
  });

  it('3 "the Company MUST NOT use it for another action" (an exchanged item is gone; its replacement is a new action with a new ID)', async () => {
    const company = await startCompany(new Clock());
    const first = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
    expect((await post(company, EXCHANGE_PATH, { ...ALEX, approval: first }, EXCHANGE_M)).status).toBe(200);
    const again = await post(company, EXCHANGE_PATH, ALEX, EXCHANGE_L);
    expect(again.status).toBe(409);
    expect(again.body.operation).toBeUndefined();
    const order = (await get(company, '/orders/ord_7Hk2', ALEX)).body.order;
    const replacement = order.items.find((i: { status: string }) => i.status === 'active');
    const next = await operationFor(company, EXCHANGE_PATH, ALEX, { item_id: replacement.id, replacement_sku: 'stormline-insulated-l' });
    expect(next.operation_id).not.toBe(first.operation_id);
  });

  it('3 "operation_id ... has the same characters as the IDs in spec 8.2"; revision: "An opaque string with the same characters"', async () => {
    const company = await startCompany(new Clock());
    for (const [path, who, body] of [
      [EXCHANGE_PATH, ALEX, EXCHANGE_M],
      [GUEST_PATH, GUEST, GUEST_EXCHANGE],
      [CANCEL_PATH, ALEX, { at_period_end: false }],
    ] as const) {
      const operation = await operationFor(company, path, who, body);
      expect(isId(operation.operation_id)).toBe(true);
      expect(isId(operation.revision)).toBe(true);
      expect(parseOperation(operation)).toEqual(operation);
    }
  });

  it('3 revision: "which the Company changes whenever the summary, terms, or expires_at change"', async () => {
    const clock = new Clock();
    const company = await startCompany(clock);
    const m = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
    const l = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_L);
    expect(l.terms).not.toEqual(m.terms);
    expect(l.revision).not.toBe(m.revision);
    clock.advance(5 * 60_000);
    const later = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
    expect(later.expires_at).not.toBe(m.expires_at);
    expect(later.revision).not.toBe(m.revision);
    // A price change changes summary and terms, and so the revision.
    company.state.catalog.products.get('stormline-insulated-m')!.priceCents += 500;
    const dearer = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
    expect(dearer.summary).toContain('$75.00');
    expect(dearer.revision).not.toBe(later.revision);
  });

  it('3 "Everything that affects the action ... MUST be in the revision\'s summary, and in terms if present"', async () => {
    const company = await startCompany(new Clock());
    const exchange = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
    expect(exchange.summary).toBe(
      'Exchange the Stormline Jacket (M) on order ord_7Hk2 for the Stormline Insulated Jacket (M), for $70.00 more, charged to the Visa ending in 4242 used for the order.',
    );
    expect(exchange.terms).toEqual({
      order_id: 'ord_7Hk2',
      item_id: 'itm_4Qa',
      replacement_sku: 'stormline-insulated-m',
      price_difference: { amount: '70.00', currency: 'USD' },
      payment_method: 'Visa ending in 4242',
    });
    const cancel = await operationFor(company, CANCEL_PATH, ALEX, { at_period_end: true });
    expect(cancel.summary).toContain('sub_3Fp9');
    expect(cancel.summary).toContain('$12.00 a month');
    expect(cancel.summary).toContain('November 1, 2026');
    expect(cancel.summary).toContain('Visa ending in 4242');
    expect(cancel.terms).toMatchObject({ subscription_id: 'sub_3Fp9', at_period_end: true, ends_on: '2026-11-01', payment_method: 'Visa ending in 4242' });
    const now = await operationFor(company, CANCEL_PATH, ALEX, { at_period_end: false });
    expect(now.summary).toContain('October 8, 2026');
    expect(now.summary).toContain('no refund');
    expect(now.terms).toMatchObject({ at_period_end: false, ends_on: '2026-10-08' });
  });

  it('3 "The Company MUST perform only what the approved revision describes"', async () => {
    const company = await startCompany(new Clock());
    const m = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
    // An approval of M with a request for L performs nothing.
    const mismatched = await post(company, EXCHANGE_PATH, { ...ALEX, approval: m }, EXCHANGE_L);
    expect(mismatched.status).toBe(403);
    expect(company.state.performed.size).toBe(0);
    const done = await post(company, EXCHANGE_PATH, { ...ALEX, approval: m }, EXCHANGE_M);
    expect(done.status).toBe(200);
    expect(done.body.exchange).toMatchObject({
      order_id: 'ord_7Hk2',
      returned_item_id: 'itm_4Qa',
      new_item: { sku: 'stormline-insulated-m' },
      price_difference: m.terms?.price_difference,
      payment_method: 'Visa ending in 4242',
    });
  });

  it('3 "The Company MUST perform only what the approved revision describes" (a cancellation now; an exchange at no price difference)', async () => {
    const company = await startCompany(new Clock());
    const now = await operationFor(company, CANCEL_PATH, ALEX, { at_period_end: false });
    const cancelled = await post(company, CANCEL_PATH, { ...ALEX, approval: now }, { at_period_end: false });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.subscription).toMatchObject({ status: 'cancelled', at_period_end: false, ends_on: '2026-10-08' });
    expect(now.terms).toMatchObject({ at_period_end: false, ends_on: '2026-10-08' });
    const record = (await get(company, '/subscriptions/sub_3Fp9', ALEX)).body.subscription;
    expect(record).toMatchObject({ status: 'cancelled', cancellation: { operation_id: now.operation_id, at_period_end: false, ends_on: '2026-10-08' } });
    // Another size of the same jacket costs the same: the revision says so, and nothing is charged.
    const client = await mcpClient(company, ALEX);
    const args = { order_id: 'ord_7Hk2', item_id: 'itm_4Qa', replacement_sku: 'stormline-l' };
    const same = parseOperation((await callTool(client, 'exchange_item', args)).structuredContent.operation);
    expect(same.terms?.price_difference).toEqual({ amount: '0.00', currency: 'USD' });
    expect(same.summary).toContain('for no price difference ($0.00)');
    const done = await callTool(client, 'exchange_item', args, approvalOf(same));
    expect(done.isError).toBeFalsy();
    expect(done.structuredContent.exchange).toMatchObject({ new_item: { sku: 'stormline-l' }, price_difference: { amount: '0.00', currency: 'USD' } });
    expect(done.content[0].text).toContain('there was nothing to pay');
    expect(company.state.performed.size).toBe(2);
  });

  it('3 "and MUST NOT start the action before it receives an approval for it"', async () => {
    const company = await startCompany(new Clock());
    for (let i = 0; i < 3; i++) {
      await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
      await operationFor(company, CANCEL_PATH, ALEX);
    }
    const client = await mcpClient(company, ALEX);
    expect((await callTool(client, 'exchange_item', { order_id: 'ord_7Hk2', ...EXCHANGE_M })).isError).toBe(true);
    expect(company.state.performed.size).toBe(0);
    const order = (await get(company, '/orders/ord_7Hk2', ALEX)).body.order;
    expect(order.exchanges).toEqual([]);
    expect((await get(company, '/subscriptions/sub_3Fp9', ALEX)).body.subscription.status).toBe('active');
  });

  it('3 "It MUST NOT give two different sets of terms the same revision"', async () => {
    const company = await startCompany(new Clock());
    const revisions = new Map<string, string>();
    const record = (revision: string, terms: unknown): void => {
      const key = JSON.stringify(terms);
      const seen = revisions.get(revision);
      if (seen !== undefined) expect(seen).toBe(key);
      revisions.set(revision, key);
    };
    for (const size of ['xs', 's', 'm', 'l', 'xl']) {
      for (const line of ['stormline', 'stormline-insulated']) {
        if (`${line}-${size}` === 'stormline-m') continue;
        const operation = await operationFor(company, EXCHANGE_PATH, ALEX, { item_id: 'itm_4Qa', replacement_sku: `${line}-${size}` });
        record(operation.revision, operation.terms);
      }
    }
    for (const atPeriodEnd of [true, false]) {
      const operation = await operationFor(company, CANCEL_PATH, ALEX, { at_period_end: atPeriodEnd });
      record(operation.revision, operation.terms);
    }
    expect(revisions.size).toBe(11);
  });

  it('3 "Whichever revision is approved, the Company MUST perform each operation at most once"', async () => {
    const company = await startCompany(new Clock());
    const m = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
    const l = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_L);
    expect((await post(company, EXCHANGE_PATH, { ...ALEX, approval: l }, EXCHANGE_L)).status).toBe(200);
    const second = await post(company, EXCHANGE_PATH, { ...ALEX, approval: m }, EXCHANGE_M);
    expect(second.status).toBe(200);
    expect(second.body.exchange.new_item.sku).toBe('stormline-insulated-l');
    expect(company.state.performed.get(m.operation_id)).toBe(1);
    expect((await get(company, '/orders/ord_7Hk2', ALEX)).body.order.exchanges).toHaveLength(1);
  });

  it('3 "A Company doesn\'t have to store operations that haven\'t been performed" (revisions are computed from the request)', async () => {
    const clock = new Clock();
    const one = await startCompany(clock);
    const two = await startCompany(clock);
    const fromOne = await operationFor(one, EXCHANGE_PATH, ALEX, EXCHANGE_M);
    // The same request, again or to another instance with the same key, gets the same revision.
    expect(await operationFor(one, EXCHANGE_PATH, ALEX, EXCHANGE_M)).toEqual(fromOne);
    expect(await operationFor(two, EXCHANGE_PATH, ALEX, EXCHANGE_M)).toEqual(fromOne);
    // ... and the instance that never saw it accepts its approval.
    expect((await post(two, EXCHANGE_PATH, { ...ALEX, approval: fromOne }, EXCHANGE_M)).status).toBe(200);
  });

  it('3 expires_at: "The last time an approval of this revision is accepted"', async () => {
    const clock = new Clock();
    const company = await startCompany(clock);
    const operation = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
    // At least the 15 minutes the Company gives the User to read and decide ("Expiry").
    expect(expiresAtMs(operation) - clock.ms).toBeGreaterThanOrEqual(15 * 60_000);
    clock.set(expiresAtMs(operation));
    expect((await post(company, EXCHANGE_PATH, { ...ALEX, approval: operation }, EXCHANGE_M)).status).toBe(200);
  });

  describe('3 "Who can approve it"', () => {
    it('3 "An operation returned in a signed-out Session can be approved only in that Session"', async () => {
      const company = await startCompany(new Clock());
      const operation = await operationFor(company, GUEST_PATH, GUEST, GUEST_EXCHANGE);
      for (const who of [OTHER_GUEST, ALEX, SAM]) {
        const reply = await post(company, GUEST_PATH, { ...who, approval: operation }, GUEST_EXCHANGE);
        expect(reply.status, who.session).toBe(403);
        expect(reply.body.operation.revision).not.toBe(operation.revision);
      }
      expect(company.state.performed.size).toBe(0);
      expect((await post(company, GUEST_PATH, { ...GUEST, approval: operation }, GUEST_EXCHANGE)).status).toBe(200);
    });

    it('3 "An operation returned in a signed-out Session can be approved only in that Session" (MCP: the Session of the HTTP request)', async () => {
      const company = await startCompany(new Clock());
      const args = { order_id: 'ord_G5xa', ...GUEST_EXCHANGE };
      const mine = await mcpClient(company, GUEST);
      const theirs = await mcpClient(company, OTHER_GUEST);
      const operation = (await callTool(mine, 'exchange_item', args)).structuredContent.operation;
      const refused = await callTool(theirs, 'exchange_item', args, approvalOf(operation));
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent.operation.revision).not.toBe(operation.revision);
      expect(company.state.performed.size).toBe(0);
      expect((await callTool(mine, 'exchange_item', args, approvalOf(operation))).isError).toBeFalsy();
    });

    it('3 "An operation returned in a signed-out Session can be approved only in that Session" (also once that Session signed in)', async () => {
      const company = await startCompany(new Clock());
      const operation = await operationFor(company, GUEST_PATH, GUEST, GUEST_EXCHANGE);
      const reply = await post(company, GUEST_PATH, { ...GUEST, token: 'tok_alex', approval: operation }, GUEST_EXCHANGE);
      expect(reply.status).toBe(200);
    });

    it('3 "One returned in a signed-in Session belongs to the account: any Session of the same Personal Agent and User can approve it while signed in to the same account"', async () => {
      const company = await startCompany(new Clock());
      const operation = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
      const reply = await post(company, EXCHANGE_PATH, { ...ALEX_PHONE, approval: operation }, EXCHANGE_M);
      expect(reply.status).toBe(200);
      expect(company.state.performed.get(operation.operation_id)).toBe(1);
    });

    it('3 "One returned in a signed-in Session belongs to the account" (another account can\'t approve it)', async () => {
      const company = await startCompany(new Clock());
      const operation = await operationFor(company, GUEST_PATH, ALEX, GUEST_EXCHANGE);
      const reply = await post(company, GUEST_PATH, { ...SAM, approval: operation }, GUEST_EXCHANGE);
      expect(reply.status).toBe(403);
      expect(reply.body.operation.revision).not.toBe(operation.revision);
      expect(company.state.performed.size).toBe(0);
    });

    it('3 "A signed-out Session of the same Personal Agent and User gets a challenge for the account"', async () => {
      const company = await startCompany(new Clock());
      // An account's operation on a guest order, then the same Session signs out.
      const operation = await operationFor(company, GUEST_PATH, { session: 'sess_shared', token: 'tok_alex' }, GUEST_EXCHANGE);
      const reply = await post(company, GUEST_PATH, { session: 'sess_shared', approval: operation }, GUEST_EXCHANGE);
      expect(reply.status).toBe(401);
      expect(reply.headers.get('www-authenticate')).toMatch(/^Bearer/);
      // The account's own order: the token checks (core 7) challenge first.
      const own = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
      const signedOut = await post(company, EXCHANGE_PATH, { session: ALEX.session, approval: own }, EXCHANGE_M);
      expect(signedOut.status).toBe(401);
      expect(signedOut.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(company.state.performed.size).toBe(0);
    });

    it('3 "A signed-out Session of the same Personal Agent and User gets a challenge for the account" (MCP and conversation)', async () => {
      const company = await startCompany(new Clock());
      const signedIn = { session: 'sess_shared', token: 'tok_alex' };
      const signedOut = { session: 'sess_shared' };
      // MCP: the account's operation on a guest order; the same Session, signed out, gets HTTP 401.
      const args = { order_id: 'ord_G5xa', ...GUEST_EXCHANGE };
      const operation = parseOperation((await callTool(await mcpClient(company, signedIn), 'exchange_item', args)).structuredContent.operation);
      const mcp = await rawToolCall(company, signedOut, 'exchange_item', args, approvalOf(operation));
      expect(mcp.status).toBe(401);
      expect(mcp.headers.get('www-authenticate')).toMatch(/^Bearer/);
      // Conversation: the Session's conversation, where the exchange was offered to the account.
      const conversation = await openConversation(company, signedOut);
      await send(company, conversation, signedIn, message('Please exchange the jacket on order ord_G5xa for the insulated one.'));
      const [offer] = await offeredOperations(company, conversation, signedIn);
      await send(company, conversation, signedOut, message('The user approved the exchange.', approvalOf(offer!)));
      const challenge = (await companyMessages(company, conversation, signedOut)).at(-1);
      expect(challenge.text).toContain('please sign in');
      expect(challenge.extensions).toBeUndefined();
      expect(company.state.performed.size).toBe(0);
      // Signed in again, the same approval performs.
      await send(company, conversation, signedIn, message('The user approved the exchange.', approvalOf(offer!)));
      expect(company.state.performed.get(offer!.operation_id)).toBe(1);
    });
  });
});
