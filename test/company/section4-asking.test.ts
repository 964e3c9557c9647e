import { describe, expect, it } from 'vitest';
import { operationFromApiResponse, operationFromEvent, operationFromToolResult, parseOperation } from '../../src/protocol/index';
import {
  ALEX,
  CANCEL_PATH,
  Clock,
  EXCHANGE_M,
  EXCHANGE_PATH,
  GUEST,
  GUEST_EXCHANGE,
  GUEST_PATH,
  callTool,
  events,
  get,
  mcpClient,
  message,
  offeredOperations,
  openConversation,
  post,
  send,
  startCompany,
} from './helpers';

// Section 4, "Asking for approval": how the Company returns an operation through each interface.

describe('section 4: asking for approval (Company)', () => {
  it('4 "A Company that wants the User\'s approval for an action refuses the request for it, performs nothing, and returns the operation"', async () => {
    const company = await startCompany(new Clock());
    const reply = await post(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
    expect(reply.status).toBe(403);
    expect(operationFromApiResponse(reply.status, reply.body).kind).toBe('operation');
    expect(company.state.performed.size).toBe(0);
    expect((await get(company, '/orders/ord_7Hk2', ALEX)).body.order.items).toEqual([
      { id: 'itm_4Qa', sku: 'stormline-m', name: 'Stormline Jacket (M)', status: 'active' },
    ]);
  });

  it('4 "The API responds with HTTP 403 and a JSON body with error set to approval_required and the operation in operation"', async () => {
    const company = await startCompany(new Clock());
    for (const [path, body] of [
      [EXCHANGE_PATH, EXCHANGE_M],
      [CANCEL_PATH, undefined],
      [CANCEL_PATH, { at_period_end: false }],
    ] as const) {
      const reply = await post(company, path, ALEX, body);
      expect(reply.status).toBe(403);
      expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
      expect(reply.body.error).toBe('approval_required');
      expect(parseOperation(reply.body.operation)).toEqual(reply.body.operation);
      expect(operationFromApiResponse(reply.status, reply.body)).toEqual({ kind: 'operation', operation: reply.body.operation });
    }
  });

  it('4 "It isn\'t an authorization error, so it doesn\'t go in WWW-Authenticate, and it works the same signed in or out"', async () => {
    const company = await startCompany(new Clock());
    const signedIn = await post(company, GUEST_PATH, ALEX, GUEST_EXCHANGE);
    const signedOut = await post(company, GUEST_PATH, GUEST, GUEST_EXCHANGE);
    for (const reply of [signedIn, signedOut]) {
      expect(reply.status).toBe(403);
      expect(reply.body.error).toBe('approval_required');
      expect(reply.headers.get('www-authenticate')).toBeNull();
    }
    expect(signedOut.body.operation.summary).toBe(signedIn.body.operation.summary);
    expect(signedOut.body.operation.terms).toEqual(signedIn.body.operation.terms);
  });

  it('4 "The tool returns an error result, with isError set to true, the operation in operation in structuredContent, and the summary as text"', async () => {
    const company = await startCompany(new Clock());
    const client = await mcpClient(company, ALEX);
    for (const [name, args] of [
      ['exchange_item', { order_id: 'ord_7Hk2', ...EXCHANGE_M }],
      ['cancel_subscription', { subscription_id: 'sub_3Fp9', at_period_end: false }],
    ] as const) {
      const result = await callTool(client, name, args);
      expect(result.isError).toBe(true);
      const operation = parseOperation(result.structuredContent.operation);
      expect(result.content).toEqual([{ type: 'text', text: expect.stringContaining(operation.summary) }]);
      expect(operationFromToolResult(result)).toEqual({ kind: 'operation', operation });
    }
    expect(company.state.performed.size).toBe(0);
  });

  it('4 "A Company message carries the operation in extensions.operations.operation"', async () => {
    const company = await startCompany(new Clock());
    const conversation = await openConversation(company, ALEX);
    await send(company, conversation, ALEX, message('Hi! Could I exchange my Stormline Jacket for the insulated version?'));
    const all = await events(company, conversation, ALEX);
    const offer = all.find((e) => e.message.role === 'company');
    expect(offer).toMatchObject({ type: 'message', message: { role: 'company', author: { type: 'agent' } } });
    expect(offer.id).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(Number.isNaN(Date.parse(offer.created_at))).toBe(false);
    expect(offer.message.text).toContain("I'll do it once you approve.");
    const found = operationFromEvent(offer);
    expect(found.kind).toBe('operation');
    expect(found.kind === 'operation' && found.operation.terms).toMatchObject({ order_id: 'ord_7Hk2', item_id: 'itm_4Qa', replacement_sku: 'stormline-insulated-m' });
    expect(company.state.performed.size).toBe(0);
  });

  it('4 "If the terms change during the conversation, the Company sends the new revision in a later message"', async () => {
    const company = await startCompany(new Clock());
    const conversation = await openConversation(company, ALEX);
    await send(company, conversation, ALEX, message('I would like to exchange my jacket for the insulated one.'));
    const [first] = await offeredOperations(company, conversation, ALEX);
    await send(company, conversation, ALEX, message('Actually, size L please.'));
    const offered = await offeredOperations(company, conversation, ALEX);
    expect(offered).toHaveLength(2);
    const second = offered[1]!;
    expect(second.operation_id).toBe(first!.operation_id);
    expect(second.revision).not.toBe(first!.revision);
    expect(second.terms).toMatchObject({ replacement_sku: 'stormline-insulated-l' });
    expect(second.summary).toContain('Stormline Insulated Jacket (L)');
    const all = await events(company, conversation, ALEX);
    const index = (id: string): number => all.findIndex((e) => e.message.extensions?.operations?.operation?.revision === id);
    expect(index(second.revision)).toBeGreaterThan(index(first!.revision));
  });
});
