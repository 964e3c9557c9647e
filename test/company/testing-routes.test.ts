import { describe, expect, it } from 'vitest';
import { ID_PATTERN, parseOperation } from '../../src/protocol/index';
import {
  ALEX,
  Clock,
  GUEST,
  OTHER_GUEST,
  SAM,
  SEED_DAY,
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
  send,
  sleep,
  startCompany,
  type Who,
} from './helpers';

// Testing mode (src/company/testing-routes.ts; docs/reference-company.md, "Testing mode"): what a
// conformance kit uses to set the reference Company up from outside.

const ROUTES = ['/testing/orders', '/testing/clock', '/testing/perform-delay'];

async function freshOrder(company: Awaited<ReturnType<typeof startCompany>>, who: Who): Promise<{ order_id: string; item_id: string }> {
  const reply = await post(company, '/testing/orders', who, {});
  expect(reply.status).toBe(201);
  return reply.body;
}

describe('testing mode: off by default', () => {
  it('answers 404 on every /testing route, like any unknown path', async () => {
    const company = await startCompany(new Clock());
    for (const path of ROUTES) {
      const reply = await post(company, path, ALEX, {});
      expect(reply.status).toBe(404);
      expect(reply.body.error).toBe('not_found');
    }
  });
});

describe('testing mode: POST /testing/orders', () => {
  it('creates an order of the signed-in account with an active Stormline Jacket (M) and (S), IDs shaped like IDs', async () => {
    const company = await startCompany(new Clock(), { testing: true });
    const created = await post(company, '/testing/orders', ALEX, {});
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(['item_id', 'order_id', 'other_item_id']);
    expect(created.body.order_id).toMatch(/^ord_[A-Za-z0-9_-]{10}$/);
    expect(created.body.item_id).toMatch(/^itm_[A-Za-z0-9_-]{8}$/);
    expect(created.body.other_item_id).toMatch(/^itm_[A-Za-z0-9_-]{8}$/);
    expect(created.body.other_item_id).not.toBe(created.body.item_id);
    expect(created.body.order_id).toMatch(ID_PATTERN);
    const order = (await get(company, `/orders/${created.body.order_id}`, ALEX)).body.order;
    expect(order.items).toEqual([
      { id: created.body.item_id, sku: 'stormline-m', name: 'Stormline Jacket (M)', status: 'active' },
      { id: created.body.other_item_id, sku: 'stormline-s', name: 'Stormline Jacket (S)', status: 'active' },
    ]);
    expect(order.exchanges).toEqual([]);
    expect(order.payments).toEqual([]);
    // The account's: another account doesn't see it, a signed-out Session is challenged.
    expect((await get(company, `/orders/${created.body.order_id}`, SAM)).status).toBe(404);
    expect((await get(company, `/orders/${created.body.order_id}`, GUEST)).status).toBe(401);
  });

  it('creates a guest order open to any signed-out Session when signed out; each order is new', async () => {
    const company = await startCompany(new Clock(), { testing: true });
    const first = await freshOrder(company, GUEST);
    const second = await freshOrder(company, GUEST);
    expect(second.order_id).not.toBe(first.order_id);
    expect((await get(company, `/orders/${first.order_id}`, OTHER_GUEST)).status).toBe(200);
    // An empty body is as good as {}.
    expect((await post(company, '/testing/orders', GUEST)).status).toBe(201);
  });

  it('refuses other bodies with 400 invalid_request, other methods with 405, and requests without the Poppy headers', async () => {
    const company = await startCompany(new Clock(), { testing: true });
    for (const body of [{ sku: 'stormline-l' }, [], 'order', null]) {
      const reply = await post(company, '/testing/orders', ALEX, body);
      expect(reply.status).toBe(400);
      expect(reply.body.error).toBe('invalid_request');
      expect(reply.body.error_description).toMatch(/^body/);
    }
    const notJson = await post(company, '/testing/orders', ALEX, undefined, { body: '{', headers: { 'Poppy-Session': 'sess_x', 'Poppy-Version': '0.4' } });
    expect(notJson.status).toBe(400);
    expect(notJson.body.error).toBe('invalid_request');
    const wrongMethod = await get(company, '/testing/orders', ALEX);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST');
    expect((await post(company, '/testing/orders', { ...ALEX, headers: { 'Poppy-Version': '0.3' } }, {})).body.error).toBe('unsupported_version');
    expect((await post(company, '/testing/orders', { ...ALEX, token: 'tok_nobody' }, {})).status).toBe(401);
    expect((await post(company, '/testing/nothing', ALEX, {})).status).toBe(404);
  });
});

describe('testing mode: a fresh order through every interface', () => {
  it('is exchanged through the API, and GET /orders/:id shows the exchange', async () => {
    const company = await startCompany(new Clock(), { testing: true });
    const { order_id, item_id } = await freshOrder(company, ALEX);
    const path = `/orders/${order_id}/exchanges`;
    const body = { item_id, replacement_sku: 'stormline-insulated-m' };
    const operation = await operationFor(company, path, ALEX, body);
    expect(operation.terms).toMatchObject({ order_id, item_id, replacement_sku: 'stormline-insulated-m', price_difference: { amount: '70.00', currency: 'USD' } });
    const performed = await post(company, path, { ...ALEX, approval: operation }, body);
    expect(performed.status).toBe(200);
    const order = (await get(company, `/orders/${order_id}`, ALEX)).body.order;
    expect(order.exchanges).toEqual([expect.objectContaining({ operation_id: operation.operation_id, returned_item_id: item_id })]);
    expect(company.state.performed.get(operation.operation_id)).toBe(1);
  });

  it('is exchanged through MCP exchange_item (a guest order, signed out)', async () => {
    const company = await startCompany(new Clock(), { testing: true });
    const { order_id, item_id } = await freshOrder(company, GUEST);
    const client = await mcpClient(company, GUEST);
    const args = { order_id, item_id, replacement_sku: 'stormline-insulated-m' };
    const operation = parseOperation((await callTool(client, 'exchange_item', args)).structuredContent.operation);
    const result = await callTool(client, 'exchange_item', args, approvalOf(operation));
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent.exchange).toMatchObject({ order_id, returned_item_id: item_id });
    expect((await get(company, `/orders/${order_id}`, GUEST)).body.order.exchanges).toHaveLength(1);
  });

  it('is exchanged by the conversation Company Agent when the message names the order', async () => {
    const company = await startCompany(new Clock(), { testing: true });
    const { order_id, item_id } = await freshOrder(company, ALEX);
    const conversation = await openConversation(company, ALEX);
    await send(company, conversation, ALEX, message(`Exchange my jacket on order ${order_id} for the insulated version`));
    const [offer] = await offeredOperations(company, conversation, ALEX);
    expect(offer!.terms).toMatchObject({ order_id, item_id, replacement_sku: 'stormline-insulated-m' });
    await send(company, conversation, ALEX, message('The user approved the exchange.', approvalOf(offer!)));
    const last = (await companyMessages(company, conversation, ALEX)).at(-1);
    expect(last.text).toMatch(/^Done\./);
    expect((await get(company, `/orders/${order_id}`, ALEX)).body.order.exchanges).toEqual([expect.objectContaining({ operation_id: offer!.operation_id })]);
  });
});

describe('testing mode: POST /testing/clock', () => {
  it('moves the Company clock forward by advance_ms and answers the Company time; 0 reads it', async () => {
    const company = await startCompany(new Clock(), { testing: true });
    const read = await post(company, '/testing/clock', ALEX, { advance_ms: 0 });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ now: new Date(SEED_DAY).toISOString() });
    expect(read.body.now).toBe('2026-10-08T19:05:00.000Z');
    const moved = await post(company, '/testing/clock', GUEST, { advance_ms: 90_500 });
    expect(moved.body).toEqual({ now: '2026-10-08T19:06:30.500Z' });
  });

  it('expires a revision: after its expires_at an approval gets a new revision, not a perform (section 6, check 3)', async () => {
    const company = await startCompany(new Clock(), { testing: true });
    const { order_id, item_id } = await freshOrder(company, ALEX);
    const path = `/orders/${order_id}/exchanges`;
    const body = { item_id, replacement_sku: 'stormline-insulated-m' };
    const operation = await operationFor(company, path, ALEX, body);
    const ms = Date.parse(operation.expires_at) - SEED_DAY + 1;
    expect((await post(company, '/testing/clock', ALEX, { advance_ms: ms })).status).toBe(200);
    const late = await post(company, path, { ...ALEX, approval: operation }, body);
    expect(late.status).toBe(403);
    expect(late.body.operation.revision).not.toBe(operation.revision);
    expect(company.state.performed.get(operation.operation_id)).toBeUndefined();
  });

  it('refuses a body without a non-negative integer advance_ms with 400 invalid_request', async () => {
    const company = await startCompany(new Clock(), { testing: true });
    for (const body of [{}, { advance_ms: -1 }, { advance_ms: 1.5 }, { advance_ms: '10' }, { advance_ms: 1, extra: true }, { advance_ms: 9e15 }, undefined]) {
      const reply = await post(company, '/testing/clock', ALEX, body);
      expect(reply.status).toBe(400);
      expect(reply.body.error).toBe('invalid_request');
      expect(reply.body.error_description).toMatch(/^body/);
    }
    // Nothing moved.
    expect((await post(company, '/testing/clock', ALEX, { advance_ms: 0 })).body.now).toBe('2026-10-08T19:05:00.000Z');
  });
});

describe('testing mode: POST /testing/perform-delay', () => {
  it('makes each perform take ms, answering 503 + Retry-After meanwhile (section 7); 0 turns it off', async () => {
    const company = await startCompany(new Clock(), { testing: true });
    const set = await post(company, '/testing/perform-delay', ALEX, { ms: 300 });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ ms: 300 });
    expect(company.faults.holdPerformMs).toBe(300);
    const { order_id, item_id } = await freshOrder(company, ALEX);
    const path = `/orders/${order_id}/exchanges`;
    const body = { item_id, replacement_sku: 'stormline-insulated-m' };
    const operation = await operationFor(company, path, ALEX, body);
    const first = post(company, path, { ...ALEX, approval: operation }, body);
    await sleep(60);
    const during = await post(company, path, { ...ALEX, approval: operation }, body);
    expect(during.status).toBe(503);
    expect(during.headers.get('retry-after')).toMatch(/^[0-9]+$/);
    expect((await first).status).toBe(200);
    expect((await post(company, '/testing/perform-delay', ALEX, { ms: 0 })).body).toEqual({ ms: 0 });
    expect(company.faults.holdPerformMs).toBe(0);
  });

  it('refuses ms outside 0..30000 or not an integer with 400 invalid_request', async () => {
    const company = await startCompany(new Clock(), { testing: true });
    for (const body of [{}, { ms: -1 }, { ms: 30_001 }, { ms: 0.5 }, { ms: null }, { ms: 10, advance_ms: 1 }]) {
      const reply = await post(company, '/testing/perform-delay', ALEX, body);
      expect(reply.status).toBe(400);
      expect(reply.body.error).toBe('invalid_request');
    }
    expect(company.faults.holdPerformMs).toBe(0);
    expect((await post(company, '/testing/perform-delay', ALEX, { ms: 30_000 })).status).toBe(200);
  });
});
