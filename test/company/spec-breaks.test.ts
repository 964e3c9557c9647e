import { describe, expect, it } from 'vitest';
import { parseOperation, type Operation } from '../../src/protocol/index';
import { SPEC_BREAKS, createCompany, type SpecBreak } from '../../src/company/index';
import { LATE_REPLY_MS } from '../../src/company/conversation';
import {
  ALEX,
  Clock,
  EXCHANGE_L,
  EXCHANGE_M,
  EXCHANGE_PATH,
  GUEST,
  GUEST_EXCHANGE,
  GUEST_PATH,
  OTHER_GUEST,
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
  sleep,
  startCompany,
  type Who,
} from './helpers';

// The spec-breaking switches (src/company/faults.ts, SPEC_BREAKS; docs/reference-company.md,
// "Spec-breaking switches"): each breaks one sentence of the operations extension v2. One test
// per switch: with it on, the sentence is broken as seen from outside; with it off, it holds.

const TOOL_ARGS = { order_id: 'ord_7Hk2', ...EXCHANGE_M };
const MINUTE = 60_000;

async function companyBreaking(name: SpecBreak | undefined, clock = new Clock()): Promise<Awaited<ReturnType<typeof startCompany>>> {
  const company = await startCompany(clock);
  if (name !== undefined) company.faults.breaks.add(name);
  return company;
}

/** Both ways: `run` gets a Company with the switch on, then one with it off. */
async function onAndOff(name: SpecBreak, run: (on: boolean, company: Awaited<ReturnType<typeof startCompany>>, clock: Clock) => Promise<void>): Promise<void> {
  for (const on of [true, false]) {
    const clock = new Clock();
    await run(on, await companyBreaking(on ? name : undefined, clock), clock);
  }
}

function exchangesOf(company: Awaited<ReturnType<typeof startCompany>>, orderId = 'ord_7Hk2', who: Who = ALEX): Promise<any[]> {
  return get(company, `/orders/${orderId}`, who).then((reply) => reply.body.order.exchanges);
}

/** A conversation's offer approved, then approved again in a new message; the Company messages from before the second. */
async function approvedTwice(company: Awaited<ReturnType<typeof startCompany>>): Promise<{ conversation: string; offer: Operation; before: any[] }> {
  const conversation = await openConversation(company, ALEX);
  await send(company, conversation, ALEX, message('Exchange my jacket for the insulated one, please.'));
  const [offer] = await offeredOperations(company, conversation, ALEX);
  await send(company, conversation, ALEX, message('The user approved the exchange.', approvalOf(offer!)));
  const before = await companyMessages(company, conversation, ALEX);
  await send(company, conversation, ALEX, message('The user approved the exchange.', approvalOf(offer!)));
  return { conversation, offer: offer!, before };
}

describe('spec-breaking switches: the list', () => {
  it('SPEC_BREAKS names 26 distinct switches; breaks starts empty and reset() clears it', async () => {
    expect(SPEC_BREAKS).toHaveLength(26);
    expect(new Set(SPEC_BREAKS).size).toBe(26);
    const company = await createCompany({ log: () => undefined });
    try {
      expect(company.faults.breaks.size).toBe(0);
      company.faults.breaks.add('replay-error');
      company.faults.reset();
      expect(company.faults.breaks.size).toBe(0);
    } finally {
      await company.close();
    }
  });
});

describe('spec-breaking switches: each breaks its one sentence', () => {
  it('perform-twice-concurrently: 7 "The Company MUST perform each operation at most once" (5 parallel approvals perform 5 times)', async () => {
    await onAndOff('perform-twice-concurrently', async (on, company) => {
      const operation = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
      const replies = await Promise.all(Array.from({ length: 5 }, () => post(company, EXCHANGE_PATH, { ...ALEX, approval: operation }, EXCHANGE_M)));
      for (const reply of replies) expect(reply.status).toBe(200);
      expect(company.state.performed.get(operation.operation_id)).toBe(on ? 5 : 1);
      expect(await exchangesOf(company)).toHaveLength(on ? 5 : 1);
    });
    // A single approval still performs once and replies normally.
    const company = await companyBreaking('perform-twice-concurrently');
    const operation = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
    const reply = await post(company, EXCHANGE_PATH, { ...ALEX, approval: operation }, EXCHANGE_M);
    expect(reply.status).toBe(200);
    expect(reply.body.exchange.status).toBe('completed');
    const retry = await post(company, EXCHANGE_PATH, { ...ALEX, approval: operation }, EXCHANGE_M);
    expect(retry.text).toBe(reply.text);
    expect(company.state.performed.get(operation.operation_id)).toBe(1);
  });

  it('same-revision-for-new-terms: 3 "It MUST NOT give two different sets of terms the same revision"', async () => {
    await onAndOff('same-revision-for-new-terms', async (on, company) => {
      const medium = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
      const large = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_L);
      expect(large.terms).not.toEqual(medium.terms);
      expect(large.operation_id).toBe(medium.operation_id);
      expect(large.revision === medium.revision).toBe(on);
    });
  });

  it('echo-named-revision: 6 "A Company MUST NOT answer an approval with the revision it names"', async () => {
    await onAndOff('echo-named-revision', async (on, company, clock) => {
      const operation = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
      clock.advance(16 * MINUTE);
      // Check 3 fails (expired): the answer is an operation, with the named revision when broken.
      const reply = await post(company, EXCHANGE_PATH, { ...ALEX, approval: operation }, EXCHANGE_M);
      expect(reply.status).toBe(403);
      expect(reply.body.operation.revision === operation.revision).toBe(on);
      expect(company.state.performed.get(operation.operation_id)).toBeUndefined();
    });
  });

  it('operations-without-declaration: 2 "A Company MUST NOT return operations in response to a request that doesn\'t declare it"', async () => {
    await onAndOff('operations-without-declaration', async (on, company) => {
      for (const declare of [false, '"operations";v="3"']) {
        const reply = await post(company, EXCHANGE_PATH, { ...ALEX, declare }, EXCHANGE_M);
        expect(reply.status).toBe(on ? 403 : 400);
        expect(reply.body.error).toBe(on ? 'approval_required' : 'extension_required');
        expect(reply.body.operation !== undefined).toBe(on);
      }
      const tool = await callTool(await mcpClient(company, { ...ALEX, declare: false }), 'exchange_item', TOOL_ARGS);
      expect(tool.isError).toBe(true);
      expect(tool.structuredContent?.operation !== undefined).toBe(on);
      const conversation = await openConversation(company, { ...ALEX, declare: false });
      await send(company, conversation, { ...ALEX, declare: false }, message('I want to exchange my jacket for the insulated one.'));
      expect(await offeredOperations(company, conversation, ALEX)).toHaveLength(on ? 1 : 0);
      expect(company.state.performed.size).toBe(0);
    });
  });

  it('refuse-unknown-approval-members: 6 "Companies MUST ignore members of Poppy-Approval they don\'t recognize"', async () => {
    await onAndOff('refuse-unknown-approval-members', async (on, company) => {
      const operation = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
      const withMember = `operation_id="${operation.operation_id}", revision="${operation.revision}", note="from v3"`;
      const reply = await post(company, EXCHANGE_PATH, { ...ALEX, approval: withMember }, EXCHANGE_M);
      expect(reply.status).toBe(on ? 400 : 200);
      if (on) expect(reply.body).toMatchObject({ error: 'invalid_approval', error_description: expect.stringContaining('note') });
      // Parameters are not members: still ignored.
      const withParameter = `operation_id="${operation.operation_id}";v=3, revision="${operation.revision}"`;
      expect((await post(company, EXCHANGE_PATH, { ...ALEX, approval: withParameter }, EXCHANGE_M)).status).toBe(200);
      expect(company.state.performed.get(operation.operation_id)).toBe(1);
    });
  });

  it('token-as-string: 6 "a Dictionary Structured Field ... with operation_id and revision as Strings" (a Token is accepted)', async () => {
    await onAndOff('token-as-string', async (on, company) => {
      const operation = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
      const token = `operation_id=${operation.operation_id}, revision="${operation.revision}"`;
      const reply = await post(company, EXCHANGE_PATH, { ...ALEX, approval: token }, EXCHANGE_M);
      expect(reply.status).toBe(on ? 200 : 400);
      if (!on) expect(reply.body.error).toBe('invalid_approval');
      expect(company.state.performed.get(operation.operation_id)).toBe(on ? 1 : undefined);
      // Strings are still accepted, and a repeated member is still refused.
      const repeated = `operation_id=${operation.operation_id}, operation_id="${operation.operation_id}", revision="${operation.revision}"`;
      expect((await post(company, EXCHANGE_PATH, { ...ALEX, approval: repeated }, EXCHANGE_M)).status).toBe(400);
      expect((await post(company, EXCHANGE_PATH, { ...ALEX, approval: operation }, EXCHANGE_M)).status).toBe(200);
    });
  });

  it('replay-error: 7 "gets the response the Company gave the first time, or one that says the same" (API, MCP, conversation)', async () => {
    await onAndOff('replay-error', async (on, company) => {
      const operation = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
      const first = await post(company, EXCHANGE_PATH, { ...ALEX, approval: operation }, EXCHANGE_M);
      expect(first.status).toBe(200);
      const retry = await post(company, EXCHANGE_PATH, { ...ALEX, approval: operation }, EXCHANGE_M);
      expect(retry.status).toBe(on ? 409 : 200);
      expect(on ? retry.body.error : retry.text).toBe(on ? 'already_performed' : first.text);
      const tool = await callTool(await mcpClient(company, ALEX), 'exchange_item', TOOL_ARGS, approvalOf(operation));
      expect(tool.isError === true).toBe(on);
      if (on) expect(tool.content[0].text).toMatch(/already done/);
      expect(company.state.performed.get(operation.operation_id)).toBe(1);
    });
    await onAndOff('replay-error', async (on, company) => {
      const { conversation, offer, before } = await approvedTwice(company);
      const after = await companyMessages(company, conversation, ALEX);
      expect(after.length - before.length).toBe(on ? 1 : 0);
      if (on) expect(after.at(-1).text).toMatch(/already done/);
      expect(company.state.performed.get(offer.operation_id)).toBe(1);
    });
  });

  it('forget-early: 7 "The Company MUST remember that it performed an operation at least until the approved revision\'s expires_at"', async () => {
    await onAndOff('forget-early', async (on, company, clock) => {
      const operation = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
      const first = await post(company, EXCHANGE_PATH, { ...ALEX, approval: operation }, EXCHANGE_M);
      clock.advance(MINUTE);
      expect((await post(company, EXCHANGE_PATH, { ...ALEX, approval: operation }, EXCHANGE_M)).text).toBe(first.text);
      clock.advance(2 * MINUTE);
      expect(clock.ms).toBeLessThan(Date.parse(operation.expires_at));
      const retry = await post(company, EXCHANGE_PATH, { ...ALEX, approval: operation }, EXCHANGE_M);
      expect(retry.status).toBe(on ? 409 : 200);
      if (on) expect(retry.body.error).toBe('item_not_exchangeable');
      else expect(retry.text).toBe(first.text);
      // Forgotten or not, never performed twice.
      expect(company.state.performed.get(operation.operation_id)).toBe(1);
    });
  });

  it('fail-while-performing: 7 "While an operation is being performed ... the Company MUST NOT respond as if it failed"', async () => {
    await onAndOff('fail-while-performing', async (on, company) => {
      company.faults.holdPerformMs = 300;
      const operation = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
      const first = post(company, EXCHANGE_PATH, { ...ALEX, approval: operation }, EXCHANGE_M);
      await sleep(60);
      const during = await post(company, EXCHANGE_PATH, { ...ALEX, approval: operation }, EXCHANGE_M);
      expect(during.status).toBe(on ? 409 : 503);
      if (on) expect(during.body.error).toBe('operation_failed');
      else expect(during.headers.get('retry-after')).not.toBeNull();
      if (on) {
        const tool = await callTool(await mcpClient(company, ALEX), 'exchange_item', TOOL_ARGS, approvalOf(operation));
        expect(tool.isError).toBe(true);
        expect(tool.content[0].text).toMatch(/failed/);
      }
      const done = await first;
      expect(done.status).toBe(200);
      // It completed, and later retries get the first response.
      expect((await post(company, EXCHANGE_PATH, { ...ALEX, approval: operation }, EXCHANGE_M)).text).toBe(done.text);
      expect(company.state.performed.get(operation.operation_id)).toBe(1);
    });
  });

  it('new-operation-id-for-new-terms: 3 operation_id "stays the same when the terms change"', async () => {
    await onAndOff('new-operation-id-for-new-terms', async (on, company) => {
      const medium = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
      const large = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_L);
      expect(large.operation_id === medium.operation_id).toBe(!on);
      expect(large.revision).not.toBe(medium.revision);
      // The item is exchanged once whichever operation is approved.
      expect((await post(company, EXCHANGE_PATH, { ...ALEX, approval: medium }, EXCHANGE_M)).status).toBe(200);
      expect((await post(company, EXCHANGE_PATH, { ...ALEX, approval: large }, EXCHANGE_L)).status).toBe(on ? 409 : 200);
      expect(await exchangesOf(company)).toHaveLength(1);
    });
  });

  it('accept-expired-revision: 6 check 3 "The revision is one the Company returned for this operation, it hasn\'t expired"', async () => {
    await onAndOff('accept-expired-revision', async (on, company, clock) => {
      const operation = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
      clock.set(Date.parse(operation.expires_at) + 1);
      const reply = await post(company, EXCHANGE_PATH, { ...ALEX, approval: operation }, EXCHANGE_M);
      expect(reply.status).toBe(on ? 200 : 403);
      expect(company.state.performed.get(operation.operation_id)).toBe(on ? 1 : undefined);
    });
  });

  it('any-session-approves: 3 "An operation returned in a signed-out Session can be approved only in that Session"', async () => {
    await onAndOff('any-session-approves', async (on, company) => {
      const operation = await operationFor(company, GUEST_PATH, GUEST, GUEST_EXCHANGE);
      const other = await post(company, GUEST_PATH, { ...OTHER_GUEST, approval: operation }, GUEST_EXCHANGE);
      expect(other.status).toBe(on ? 200 : 403);
      expect(company.state.performed.get(operation.operation_id)).toBe(on ? 1 : undefined);
      expect(await exchangesOf(company, 'ord_G5xa', GUEST)).toHaveLength(on ? 1 : 0);
    });
    // The Session that got it can still approve it, once.
    const company = await companyBreaking('any-session-approves');
    const operation = await operationFor(company, GUEST_PATH, GUEST, GUEST_EXCHANGE);
    expect((await post(company, GUEST_PATH, { ...GUEST, approval: operation }, GUEST_EXCHANGE)).status).toBe(200);
    expect(company.state.performed.get(operation.operation_id)).toBe(1);
  });

  it('accept-other-interface-revision: 6 check 3 "The API request or tool call is the one that returned the operation"', async () => {
    await onAndOff('accept-other-interface-revision', async (on, company) => {
      const client = await mcpClient(company, ALEX);
      const operation = parseOperation((await callTool(client, 'exchange_item', TOOL_ARGS)).structuredContent.operation);
      const reply = await post(company, EXCHANGE_PATH, { ...ALEX, approval: operation }, EXCHANGE_M);
      expect(reply.status).toBe(on ? 200 : 403);
      expect(company.state.performed.get(operation.operation_id)).toBe(on ? 1 : undefined);
    });
  });

  it('start-before-approval: 3 "MUST NOT start the action before it receives an approval for it"', async () => {
    await onAndOff('start-before-approval', async (on, company) => {
      const operation = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
      await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
      const held = await exchangesOf(company);
      expect(held).toEqual(on ? [expect.objectContaining({ operation_id: operation.operation_id, returned_item_id: 'itm_4Qa' })] : []);
      const order = (await get(company, '/orders/ord_7Hk2', ALEX)).body.order;
      expect(order.items).toEqual([expect.objectContaining({ id: 'itm_4Qa', status: 'active' })]);
      expect(company.state.performed.get(operation.operation_id)).toBeUndefined();
      // The approval still performs normally, and the order shows one exchange.
      expect((await post(company, EXCHANGE_PATH, { ...ALEX, approval: operation }, EXCHANGE_M)).status).toBe(200);
      expect(await exchangesOf(company)).toHaveLength(1);
      expect(company.state.performed.get(operation.operation_id)).toBe(1);
    });
  });

  it('mcp-error-without-declaration: 2 "A tool that needs the extension returns an ordinary tool error instead"', async () => {
    await onAndOff('mcp-error-without-declaration', async (on, company) => {
      const raw = await rawToolCall(company, { ...ALEX, declare: false }, 'exchange_item', TOOL_ARGS);
      expect(raw.status).toBe(200);
      if (on) {
        expect(raw.body).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32600, message: 'extension_required', data: { extension: 'operations' } } });
        await expect(callTool(await mcpClient(company, { ...ALEX, declare: false }), 'exchange_item', TOOL_ARGS)).rejects.toThrow(/extension_required/);
      } else {
        expect(raw.body.result).toMatchObject({ isError: true });
        expect(raw.body.result.structuredContent).toBeUndefined();
      }
      // A declared call is unchanged.
      const declared = await callTool(await mcpClient(company, ALEX), 'exchange_item', TOOL_ARGS);
      expect(declared.structuredContent.operation.operation_id).toMatch(/^exc_/);
    });
  });

  it('text-approves: 6 "The message\'s text doesn\'t approve anything, whatever it says"', async () => {
    await onAndOff('text-approves', async (on, company) => {
      const conversation = await openConversation(company, ALEX);
      await send(company, conversation, ALEX, message('Exchange my jacket for the insulated one, please.'));
      const [offer] = await offeredOperations(company, conversation, ALEX);
      await send(company, conversation, ALEX, message('I approve, go ahead.'));
      const last = (await companyMessages(company, conversation, ALEX)).at(-1);
      expect(last.text.startsWith('Done.')).toBe(on);
      expect(company.state.performed.get(offer!.operation_id)).toBe(on ? 1 : undefined);
    });
  });

  it('approval-required-401: 4 "The API responds with HTTP 403 ... It isn\'t an authorization error, so it doesn\'t go in WWW-Authenticate"', async () => {
    await onAndOff('approval-required-401', async (on, company) => {
      for (const who of [ALEX, GUEST]) {
        const [path, body] = who === ALEX ? [EXCHANGE_PATH, EXCHANGE_M] : [GUEST_PATH, GUEST_EXCHANGE];
        const reply = await post(company, path, who, body);
        expect(reply.status).toBe(on ? 401 : 403);
        expect(reply.headers.get('www-authenticate')).toBe(on ? 'Bearer error="approval_required"' : null);
        expect(reply.body.error).toBe('approval_required');
        const operation = reply.body.operation as Operation;
        expect((await post(company, path, { ...who, approval: operation }, body)).status).toBe(200);
      }
    });
  });

  it('lock-per-revision: 3 "Whichever revision is approved, the Company MUST perform each operation at most once" (the API\'s and the tool\'s revision at once)', async () => {
    await onAndOff('lock-per-revision', async (on, company) => {
      const api = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
      const tool = parseOperation((await callTool(await mcpClient(company, ALEX), 'exchange_item', TOOL_ARGS)).structuredContent.operation);
      expect(tool.operation_id).toBe(api.operation_id);
      expect(tool.revision).not.toBe(api.revision);
      const client = await mcpClient(company, ALEX);
      await Promise.all([post(company, EXCHANGE_PATH, { ...ALEX, approval: api }, EXCHANGE_M), callTool(client, 'exchange_item', TOOL_ARGS, approvalOf(tool))]);
      expect(company.state.performed.get(api.operation_id)).toBe(on ? 2 : 1);
      expect(await exchangesOf(company)).toHaveLength(on ? 2 : 1);
    });
    // One revision approved several times at once still performs once: the lock holds for it.
    const company = await companyBreaking('lock-per-revision');
    const operation = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
    const replies = await Promise.all(Array.from({ length: 4 }, () => post(company, EXCHANGE_PATH, { ...ALEX, approval: operation }, EXCHANGE_M)));
    expect(new Set(replies.map((r) => r.text)).size).toBe(1);
    expect(company.state.performed.get(operation.operation_id)).toBe(1);
  });

  it('reply-to-repeated-approval: 7 "a new message with the same approval adds nothing" (a late reply)', async () => {
    await onAndOff('reply-to-repeated-approval', async (on, company) => {
      const { conversation, offer, before } = await approvedTwice(company);
      // Nothing at once: the reply comes later.
      expect(await companyMessages(company, conversation, ALEX)).toHaveLength(before.length);
      await sleep(LATE_REPLY_MS + 200);
      const after = await companyMessages(company, conversation, ALEX);
      expect(after.length - before.length).toBe(on ? 1 : 0);
      if (on) expect(after.at(-1).text).toMatch(/already done/);
      expect(company.state.performed.get(offer.operation_id)).toBe(1);
    });
  });

  it('reuse-operation-id-after-perform: 3 "the Company MUST NOT use it for another action" (the next exchange on the same order)', async () => {
    await onAndOff('reuse-operation-id-after-perform', async (on, company) => {
      const order = company.state.catalog.orders.get('ord_7Hk2')!;
      order.items.push({ id: 'itm_9Zz', sku: 'stormline-s', status: 'active' });
      const small = { item_id: 'itm_9Zz', replacement_sku: 'stormline-insulated-s' };
      const first = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
      // Before the perform the other item has its own operation either way.
      expect((await operationFor(company, EXCHANGE_PATH, ALEX, small)).operation_id).not.toBe(first.operation_id);
      expect((await post(company, EXCHANGE_PATH, { ...ALEX, approval: first }, EXCHANGE_M)).status).toBe(200);
      const next = await operationFor(company, EXCHANGE_PATH, ALEX, small);
      expect(next.operation_id === first.operation_id).toBe(on);
      expect(next.terms).toMatchObject({ item_id: 'itm_9Zz' });
      // In a conversation, the Company Agent offers the item the message names.
      const conversation = await openConversation(company, ALEX);
      await send(company, conversation, ALEX, message('Please exchange item itm_9Zz on order ord_7Hk2 for the insulated version in size S.'));
      const [offer] = await offeredOperations(company, conversation, ALEX);
      expect(offer?.terms).toMatchObject({ item_id: 'itm_9Zz', replacement_sku: 'stormline-insulated-s' });
      expect(offer?.operation_id === first.operation_id).toBe(on);
      await send(company, conversation, ALEX, message('Please exchange item itm_nope on order ord_7Hk2.'));
      expect((await companyMessages(company, conversation, ALEX)).at(-1).text).toBe("I can't find item itm_nope on order ord_7Hk2.");
    });
  });

  it('lenient-declaration: 2 "MUST NOT return operations in response to a request that doesn\'t declare it" (the name without a String v)', async () => {
    await onAndOff('lenient-declaration', async (on, company) => {
      for (const declare of ['"operations"', '"operations";v=2', 'operations;v="2"']) {
        const reply = await post(company, EXCHANGE_PATH, { ...ALEX, declare }, EXCHANGE_M);
        expect(reply.body.error, declare).toBe(on ? 'approval_required' : 'extension_required');
      }
      // Another major version still doesn't declare it, and the declaration still does.
      expect((await post(company, EXCHANGE_PATH, { ...ALEX, declare: '"operations";v="3"' }, EXCHANGE_M)).body.error).toBe('extension_required');
      expect((await post(company, EXCHANGE_PATH, ALEX, EXCHANGE_M)).body.error).toBe('approval_required');
    });
  });

  it('exact-version-only: 2 "Support means that the Company can return operations" (v="2.1" is version 2)', async () => {
    await onAndOff('exact-version-only', async (on, company) => {
      for (const declare of ['"operations";v="2.1"', '"payments";v="1", "operations";v="2.1"']) {
        const reply = await post(company, EXCHANGE_PATH, { ...ALEX, declare }, EXCHANGE_M);
        expect(reply.body.error, declare).toBe(on ? 'extension_required' : 'approval_required');
      }
      expect((await post(company, EXCHANGE_PATH, ALEX, EXCHANGE_M)).body.error).toBe('approval_required');
      expect((await post(company, EXCHANGE_PATH, { ...ALEX, declare: '"operations";v="3"' }, EXCHANGE_M)).body.error).toBe('extension_required');
    });
  });

  it('hold-before-approval: 3 "MUST NOT start the action before it receives an approval for it" (a card hold, the exchanges untouched)', async () => {
    await onAndOff('hold-before-approval', async (on, company) => {
      const operation = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
      await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
      const before = (await get(company, '/orders/ord_7Hk2', ALEX)).body.order;
      expect(before.exchanges).toEqual([]);
      expect(before.payments).toEqual(on ? [expect.objectContaining({ operation_id: operation.operation_id, status: 'held', amount: { amount: '70.00', currency: 'USD' } })] : []);
      // The perform captures it: one payment per perform either way.
      expect((await post(company, EXCHANGE_PATH, { ...ALEX, approval: operation }, EXCHANGE_M)).status).toBe(200);
      const after = (await get(company, '/orders/ord_7Hk2', ALEX)).body.order;
      expect(after.payments).toEqual([expect.objectContaining({ operation_id: operation.operation_id, status: 'captured' })]);
      expect(after.exchanges).toHaveLength(1);
    });
  });

  it('mcp-approval-as-rpc-error: 4 "The tool returns an error result, with isError set to true" (a JSON-RPC error instead)', async () => {
    await onAndOff('mcp-approval-as-rpc-error', async (on, company) => {
      const raw = await rawToolCall(company, ALEX, 'exchange_item', TOOL_ARGS);
      expect(raw.status).toBe(200);
      const operation = parseOperation(on ? raw.body.error.data.operation : raw.body.result.structuredContent.operation);
      if (on) expect(raw.body.error).toMatchObject({ code: -32001, message: 'approval_required' });
      else expect(raw.body.result.isError).toBe(true);
      // The approval is still accepted through the tool.
      const done = await rawToolCall(company, ALEX, 'exchange_item', TOOL_ARGS, approvalOf(operation));
      expect(done.body.result.isError).toBeUndefined();
      expect(company.state.performed.get(operation.operation_id)).toBe(1);
    });
  });

  it('echo-expired-revision: 6 "A Company MUST NOT answer an approval with the revision it names" (an expired one only)', async () => {
    await onAndOff('echo-expired-revision', async (on, company, clock) => {
      const operation = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
      // A forged revision is never handed back, either way.
      const forged = `${operation.revision.slice(0, -1)}${operation.revision.endsWith('Q') ? 'R' : 'Q'}`;
      const refused = await post(company, EXCHANGE_PATH, { ...ALEX, approval: { operation_id: operation.operation_id, revision: forged } }, EXCHANGE_M);
      expect(refused.body.operation.revision).not.toBe(forged);
      clock.set(Date.parse(operation.expires_at) + 1_000);
      const reply = await post(company, EXCHANGE_PATH, { ...ALEX, approval: operation }, EXCHANGE_M);
      expect(reply.status).toBe(403);
      expect(reply.body.operation.revision === operation.revision).toBe(on);
      if (on) expect(reply.body.operation.expires_at).toBe(operation.expires_at);
      expect(company.state.performed.get(operation.operation_id)).toBeUndefined();
    });
  });

  it('date-member-only-last: 6 "Companies MUST ignore members of Poppy-Approval they don\'t recognize" (a Date before other members, as structured-headers 2.1.0 parses)', async () => {
    await onAndOff('date-member-only-last', async (on, company) => {
      const medium = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
      const first = `future_date=@1659578233, operation_id="${medium.operation_id}", revision="${medium.revision}"`;
      const reply = await post(company, EXCHANGE_PATH, { ...ALEX, approval: first }, EXCHANGE_M);
      expect(reply.status).toBe(on ? 400 : 200);
      if (on) expect(reply.body.error).toBe('invalid_approval');
      // A Date at the very end is read either way.
      const last = `operation_id="${medium.operation_id}", revision="${medium.revision}", future_date=@1659578233`;
      expect((await post(company, EXCHANGE_PATH, { ...ALEX, approval: last }, EXCHANGE_M)).status).toBe(200);
      expect(company.state.performed.get(medium.operation_id)).toBe(1);
    });
  });
});
