import { describe, expect, it } from 'vitest';
import { expiresAtMs, parseOperation } from '../../src/protocol/index';
import {
  ALEX,
  ALEX_PHONE,
  CANCEL_PATH,
  Clock,
  EXCHANGE_M,
  EXCHANGE_PATH,
  approvalOf,
  callTool,
  companyMessages,
  events,
  expectDropped,
  get,
  mcpClient,
  message,
  offeredOperations,
  openConversation,
  operationFor,
  post,
  rawToolCall,
  send,
  sleep,
  startCompany,
} from './helpers';

// Section 7, "Retries and at most once": the Company half.

const TOOL_ARGS = { order_id: 'ord_7Hk2', ...EXCHANGE_M };

describe('section 7: retries and at most once (Company)', () => {
  it('7 "The Company MUST perform each operation at most once, however many times its approval is sent" (50 concurrent API retries)', async () => {
    const company = await startCompany(new Clock());
    const operation = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
    const replies = await Promise.all(Array.from({ length: 50 }, (_, i) => post(company, EXCHANGE_PATH, { ...(i % 2 === 0 ? ALEX : ALEX_PHONE), approval: operation }, EXCHANGE_M)));
    expect(company.state.performed.get(operation.operation_id)).toBe(1);
    for (const reply of replies) {
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual(replies[0]!.body);
    }
    expect((await get(company, '/orders/ord_7Hk2', ALEX)).body.order.exchanges).toHaveLength(1);
  });

  it('7 "The Company MUST perform each operation at most once, however many times its approval is sent" (50 concurrent MCP retries while it is slow)', async () => {
    const company = await startCompany(new Clock());
    company.faults.holdPerformMs = 150;
    const client = await mcpClient(company, ALEX);
    const operation = parseOperation((await callTool(client, 'exchange_item', TOOL_ARGS)).structuredContent.operation);
    const settled = await Promise.allSettled(Array.from({ length: 50 }, () => callTool(client, 'exchange_item', TOOL_ARGS, approvalOf(operation))));
    expect(company.state.performed.get(operation.operation_id)).toBe(1);
    const results = settled.filter((s) => s.status === 'fulfilled').map((s) => s.value);
    // Those that arrived while it was being performed got HTTP 503 (rejected by the SDK client); the others its result.
    expect(results.length).toBeGreaterThan(0);
    for (const result of results) expect(result.structuredContent).toEqual(results[0].structuredContent);
    const again = await callTool(client, 'exchange_item', TOOL_ARGS, approvalOf(operation));
    expect(again.structuredContent).toEqual(results[0].structuredContent);
    expect(company.state.performed.get(operation.operation_id)).toBe(1);
  });

  it('7 "The Company MUST perform each operation at most once, however many times its approval is sent" (through every interface)', async () => {
    const company = await startCompany(new Clock());
    const conversation = await openConversation(company, ALEX);
    await send(company, conversation, ALEX, message('I want to exchange my jacket for the insulated one.'));
    const [offer] = await offeredOperations(company, conversation, ALEX);
    await send(company, conversation, ALEX, message('The user approved the exchange.', approvalOf(offer!)));
    expect(company.state.performed.get(offer!.operation_id)).toBe(1);
    const api = await post(company, EXCHANGE_PATH, { ...ALEX, approval: offer! }, EXCHANGE_M);
    expect(api.status).toBe(200);
    const tool = await callTool(await mcpClient(company, ALEX), 'exchange_item', TOOL_ARGS, approvalOf(offer!));
    expect(tool.isError).toBeFalsy();
    expect(tool.structuredContent).toEqual(api.body);
    expect(company.state.performed.get(offer!.operation_id)).toBe(1);
  });

  it('7 "A request with the approval of an operation already performed gets the response the Company gave the first time" (API)', async () => {
    const company = await startCompany(new Clock());
    const operation = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
    const first = await post(company, EXCHANGE_PATH, { ...ALEX, approval: operation }, EXCHANGE_M);
    for (let i = 0; i < 3; i++) {
      const retry = await post(company, EXCHANGE_PATH, { ...ALEX, approval: operation }, EXCHANGE_M);
      expect(retry.status).toBe(first.status);
      expect(retry.text).toBe(first.text);
    }
  });

  it('7 "A request with the approval of an operation already performed gets the response the Company gave the first time" (MCP)', async () => {
    const company = await startCompany(new Clock());
    const client = await mcpClient(company, ALEX);
    const operation = parseOperation((await callTool(client, 'exchange_item', TOOL_ARGS)).structuredContent.operation);
    const first = await callTool(client, 'exchange_item', TOOL_ARGS, approvalOf(operation));
    const retry = await callTool(client, 'exchange_item', TOOL_ARGS, approvalOf(operation));
    expect(retry).toEqual(first);
    expect(company.state.performed.get(operation.operation_id)).toBe(1);
  });

  it('7 "The Company MUST remember that it performed an operation at least until the approved revision\'s expires_at"', async () => {
    const clock = new Clock();
    const company = await startCompany(clock);
    const operation = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
    const first = await post(company, EXCHANGE_PATH, { ...ALEX, approval: operation }, EXCHANGE_M);
    for (const at of [clock.ms + 60_000, expiresAtMs(operation) - 1, expiresAtMs(operation)]) {
      clock.set(at);
      const retry = await post(company, EXCHANGE_PATH, { ...ALEX, approval: operation }, EXCHANGE_M);
      expect(retry.body).toEqual(first.body);
    }
    expect(company.state.performed.get(operation.operation_id)).toBe(1);
  });

  it('7 "The Company MUST remember that it performed an operation ... and while it is being performed" / "responds with HTTP 503 and a Retry-After header" (API)', async () => {
    const company = await startCompany(new Clock());
    const operation = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
    company.faults.holdPerformMs = 400;
    const first = post(company, EXCHANGE_PATH, { ...ALEX, approval: operation }, EXCHANGE_M);
    await sleep(50);
    const during = await Promise.all(Array.from({ length: 10 }, () => post(company, EXCHANGE_PATH, { ...ALEX, approval: operation }, EXCHANGE_M)));
    for (const reply of during) {
      expect(reply.status).toBe(503);
      expect(Number(reply.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(reply.body).toMatchObject({ error: 'operation_in_progress', operation_id: operation.operation_id });
    }
    // A request without the approval doesn't get a new operation for the action under way either.
    expect((await post(company, EXCHANGE_PATH, ALEX, EXCHANGE_M)).status).toBe(503);
    const done = await first;
    expect(done.status).toBe(200);
    const after = await post(company, EXCHANGE_PATH, { ...ALEX, approval: operation }, EXCHANGE_M);
    expect(after.body).toEqual(done.body);
    expect(company.state.performed.get(operation.operation_id)).toBe(1);
  });

  it('7 "An API or MCP server responds with HTTP 503 and a Retry-After header" (MCP)', async () => {
    const company = await startCompany(new Clock());
    const client = await mcpClient(company, ALEX);
    const operation = parseOperation((await callTool(client, 'exchange_item', TOOL_ARGS)).structuredContent.operation);
    company.faults.holdPerformMs = 400;
    const first = callTool(client, 'exchange_item', TOOL_ARGS, approvalOf(operation));
    await sleep(50);
    const during = await rawToolCall(company, ALEX, 'exchange_item', TOOL_ARGS, approvalOf(operation));
    expect(during.status).toBe(503);
    expect(Number(during.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await first).isError).toBeFalsy();
    expect(company.state.performed.get(operation.operation_id)).toBe(1);
  });

  it('7 "While ... the Company doesn\'t know whether it took effect ... the Company MUST NOT respond as if it failed" (crash between performing and answering)', async () => {
    const company = await startCompany(new Clock());
    const operation = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
    company.faults.crashAfterPerform = 1;
    company.faults.crashUnknownMs = 400;
    await expectDropped(post(company, EXCHANGE_PATH, { ...ALEX, approval: operation }, EXCHANGE_M));
    expect(company.state.performed.get(operation.operation_id)).toBe(1);
    const unknown = await post(company, EXCHANGE_PATH, { ...ALEX, approval: operation }, EXCHANGE_M);
    expect(unknown.status).toBe(503);
    expect(Number(unknown.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    await sleep(450);
    const known = await post(company, EXCHANGE_PATH, { ...ALEX, approval: operation }, EXCHANGE_M);
    // "... or one that says the same": the exchange that was performed.
    expect(known.status).toBe(200);
    const order = (await get(company, '/orders/ord_7Hk2', ALEX)).body.order;
    expect(order.exchanges).toHaveLength(1);
    expect(known.body.exchange.id).toBe(order.exchanges[0].id);
    expect(company.state.performed.get(operation.operation_id)).toBe(1);
  });

  it('7 "If a request with an approval fails or times out, the Personal Agent sends it again with the same approval" (the Company answers a retry after a dropped response)', async () => {
    const company = await startCompany(new Clock());
    const operation = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
    company.faults.dropAfterPerform = 1;
    await expectDropped(post(company, EXCHANGE_PATH, { ...ALEX, approval: operation }, EXCHANGE_M));
    expect(company.state.performed.get(operation.operation_id)).toBe(1);
    const retry = await post(company, EXCHANGE_PATH, { ...ALEX, approval: operation }, EXCHANGE_M);
    expect(retry.status).toBe(200);
    expect(retry.body.exchange.new_item.sku).toBe('stormline-insulated-m');
    // "... such as from the order in the Company's API".
    expect((await get(company, '/orders/ord_7Hk2', ALEX)).body.order.exchanges[0].operation_id).toBe(operation.operation_id);
    expect(company.state.performed.get(operation.operation_id)).toBe(1);
  });

  it('7 "If a request with an approval fails or times out, the Personal Agent sends it again with the same approval" (a slow answer after the client gave up)', async () => {
    const company = await startCompany(new Clock());
    const operation = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
    company.faults.delayMs = 300;
    await expectDropped(post(company, EXCHANGE_PATH, { ...ALEX, approval: operation }, EXCHANGE_M, { signal: AbortSignal.timeout(50) }));
    company.faults.delayMs = 0;
    const retry = await post(company, EXCHANGE_PATH, { ...ALEX, approval: operation }, EXCHANGE_M);
    expect(retry.status).toBe(200);
    expect(company.state.performed.get(operation.operation_id)).toBe(1);
  });

  it('7 the MCP server answers a retry after a dropped tool call response with the same result', async () => {
    const company = await startCompany(new Clock());
    const client = await mcpClient(company, ALEX);
    const operation = parseOperation((await callTool(client, 'exchange_item', TOOL_ARGS)).structuredContent.operation);
    company.faults.dropAfterPerform = 1;
    await expectDropped(callTool(client, 'exchange_item', TOOL_ARGS, approvalOf(operation)));
    const retry = await callTool(client, 'exchange_item', TOOL_ARGS, approvalOf(operation));
    expect(retry.isError).toBeFalsy();
    expect(retry.structuredContent.exchange.new_item.sku).toBe('stormline-insulated-m');
    expect(company.state.performed.get(operation.operation_id)).toBe(1);
  });

  it('7 "The Company MUST perform each operation at most once" (asked again without the approval once it was performed: an ordinary refusal, no new operation)', async () => {
    const company = await startCompany(new Clock());
    const cancel = await operationFor(company, CANCEL_PATH, ALEX);
    expect((await post(company, CANCEL_PATH, { ...ALEX, approval: cancel })).status).toBe(200);
    const again = await post(company, CANCEL_PATH, ALEX);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: 'subscription_not_active' });
    expect(again.body.operation).toBeUndefined();
    // In a conversation: the exchanged item can't be offered again, in any size.
    const conversation = await openConversation(company, ALEX);
    await send(company, conversation, ALEX, message('Exchange my jacket for the insulated one, please.'));
    const [offer] = await offeredOperations(company, conversation, ALEX);
    await send(company, conversation, ALEX, message('The user approved the exchange.', approvalOf(offer!)));
    await send(company, conversation, ALEX, message('Size L, please.'));
    const reply = (await companyMessages(company, conversation, ALEX)).at(-1);
    expect(reply.text).toContain('already exchanged');
    expect(reply.extensions).toBeUndefined();
    expect(await offeredOperations(company, conversation, ALEX)).toHaveLength(1);
    expect(company.state.performed.get(cancel.operation_id)).toBe(1);
    expect(company.state.performed.get(offer!.operation_id)).toBe(1);
  });

  describe('7 conversations', () => {
    it('7 "In a conversation, a message retried with the same ID gets the original response"', async () => {
      const company = await startCompany(new Clock());
      const conversation = await openConversation(company, ALEX);
      const ask = message('Exchange my jacket for the insulated one, please.');
      const first = await send(company, conversation, ALEX, ask);
      const before = await events(company, conversation, ALEX);
      const again = await send(company, conversation, ALEX, ask);
      expect(again.status).toBe(first.status);
      expect(again.text).toBe(first.text);
      expect(await events(company, conversation, ALEX)).toEqual(before);
      const [offer] = await offeredOperations(company, conversation, ALEX);
      const approval = message('The user approved the exchange.', approvalOf(offer!));
      const approved = await send(company, conversation, ALEX, approval);
      const afterApproval = await events(company, conversation, ALEX);
      for (let i = 0; i < 3; i++) {
        const retry = await send(company, conversation, ALEX, approval);
        expect(retry.text).toBe(approved.text);
      }
      expect(await events(company, conversation, ALEX)).toEqual(afterApproval);
      expect(company.state.performed.get(offer!.operation_id)).toBe(1);
    });

    it('7 "... and a new message with the same approval adds nothing"', async () => {
      const company = await startCompany(new Clock());
      const conversation = await openConversation(company, ALEX);
      await send(company, conversation, ALEX, message('Exchange my jacket for the insulated one, please.'));
      const [offer] = await offeredOperations(company, conversation, ALEX);
      await send(company, conversation, ALEX, message('The user approved the exchange.', approvalOf(offer!)));
      const replies = await companyMessages(company, conversation, ALEX);
      for (let i = 0; i < 3; i++) expect((await send(company, conversation, ALEX, message('Approved again.', approvalOf(offer!)))).status).toBe(201);
      expect(await companyMessages(company, conversation, ALEX)).toEqual(replies);
      expect(company.state.performed.get(offer!.operation_id)).toBe(1);
    });

    it('7 "While an operation is being performed ... the Company MUST NOT respond as if it failed" (a conversation asked for new terms meanwhile)', async () => {
      const company = await startCompany(new Clock());
      const conversation = await openConversation(company, ALEX);
      await send(company, conversation, ALEX, message('Exchange my jacket for the insulated one, please.'));
      const [offer] = await offeredOperations(company, conversation, ALEX);
      company.faults.holdPerformMs = 400;
      const approving = send(company, conversation, ALEX, message('The user approved the exchange.', approvalOf(offer!)));
      await sleep(50);
      expect((await send(company, conversation, ALEX, message('Size L, please.'))).status).toBe(201);
      const during = (await companyMessages(company, conversation, ALEX)).at(-1);
      expect(during.text).toContain('being made right now');
      expect(during.extensions).toBeUndefined();
      expect((await approving).status).toBe(201);
      expect((await companyMessages(company, conversation, ALEX)).at(-1).text).toMatch(/^Done\. Exchanged .* for the Stormline Insulated Jacket \(M\)/);
      expect(await offeredOperations(company, conversation, ALEX)).toHaveLength(1);
      expect(company.state.performed.get(offer!.operation_id)).toBe(1);
    });

    it('7 a conversation message whose response was dropped after performing gets the original response when retried', async () => {
      const company = await startCompany(new Clock());
      const conversation = await openConversation(company, ALEX);
      await send(company, conversation, ALEX, message('Exchange my jacket for the insulated one, please.'));
      const [offer] = await offeredOperations(company, conversation, ALEX);
      const approval = message('The user approved the exchange.', approvalOf(offer!));
      company.faults.dropAfterPerform = 1;
      await expectDropped(send(company, conversation, ALEX, approval));
      const retry = await send(company, conversation, ALEX, approval);
      expect(retry.status).toBe(201);
      expect(retry.body.event.message.id).toBe(approval.id);
      const reports = (await companyMessages(company, conversation, ALEX)).filter((m) => m.text.startsWith('Done.'));
      expect(reports).toHaveLength(1);
      expect(company.state.performed.get(offer!.operation_id)).toBe(1);
    });
  });
});
