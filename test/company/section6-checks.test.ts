import { describe, expect, it } from 'vitest';
import { APPROVAL_META_KEY, expiresAtMs, parseOperation, type Operation } from '../../src/protocol/index';
import {
  ALEX,
  CANCEL_PATH,
  Clock,
  SEED_DAY,
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
  events,
  get,
  mcpClient,
  message,
  offeredOperations,
  openConversation,
  operationFor,
  post,
  send,
  startCompany,
  type Who,
} from './helpers';

// Section 6, "Sending the approval" and "What the Company checks".

describe('section 6: sending the approval (Company)', () => {
  it('6 "The Personal Agent sends the same request again, with the same method, URL, and body, and the approval in the Poppy-Approval header"', async () => {
    const company = await startCompany(new Clock());
    const operation = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
    const reply = await post(company, EXCHANGE_PATH, { ...ALEX, approval: operation }, EXCHANGE_M);
    // "If every check passes, the Company performs the action and responds as it would have without operations."
    expect(reply.status).toBe(200);
    expect(reply.body.exchange).toMatchObject({ status: 'completed', order_id: 'ord_7Hk2', returned_item_id: 'itm_4Qa' });
    expect(company.state.performed.get(operation.operation_id)).toBe(1);
    const order = (await get(company, '/orders/ord_7Hk2', ALEX)).body.order;
    expect(order.exchanges).toEqual([expect.objectContaining({ operation_id: operation.operation_id, replacement_sku: 'stormline-insulated-m' })]);
  });

  it('6 "An Idempotency-Key ... sent with the first request doesn\'t carry over: the request with the approval has its own, or none"', async () => {
    const company = await startCompany(new Clock());
    const key = '9a3d7b2e-5c1f-4e8a-b6d0-2f7c4a1e9b3d';
    const first = await post(company, EXCHANGE_PATH, { ...ALEX, headers: { 'Idempotency-Key': key } }, EXCHANGE_M);
    expect(first.status).toBe(403);
    const operation = first.body.operation as Operation;
    // The request with the approval has its own key: it performs (not the first request's 403).
    const approved = await post(company, EXCHANGE_PATH, { ...ALEX, approval: operation, headers: { 'Idempotency-Key': 'b1c4e2f0-0000-4000-8000-000000000001' } }, EXCHANGE_M);
    expect(approved.status).toBe(200);
    // "The operation ID identifies its retries (7)": a retry with yet another key, or the first
    // request's key, or none, gets the same response and performs nothing again.
    for (const headers of [{ 'Idempotency-Key': 'b1c4e2f0-0000-4000-8000-000000000002' }, { 'Idempotency-Key': key }, {}] as Record<string, string>[]) {
      const retry = await post(company, EXCHANGE_PATH, { ...ALEX, approval: operation, headers }, EXCHANGE_M);
      expect(retry.status).toBe(200);
      expect(retry.body).toEqual(approved.body);
    }
    expect(company.state.performed.get(operation.operation_id)).toBe(1);
    // And without a key at all, for another action.
    const cancel = await operationFor(company, CANCEL_PATH, ALEX);
    expect((await post(company, CANCEL_PATH, { ...ALEX, approval: cancel })).status).toBe(200);
  });

  it('6 "Companies MUST ignore members of Poppy-Approval they don\'t recognize, so later versions can add members"', async () => {
    const company = await startCompany(new Clock());
    const operation = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
    const field = `signature=:AQID:, operation_id="${operation.operation_id}";future=1, revision="${operation.revision}";note="x", version=3, flag, nested=("a" "b")`;
    const reply = await post(company, EXCHANGE_PATH, { ...ALEX, approval: field }, EXCHANGE_M);
    expect(reply.status).toBe(200);
    expect(company.state.performed.get(operation.operation_id)).toBe(1);
  });

  it('6 Poppy-Approval "is a Dictionary Structured Field ... with operation_id and revision as Strings" (anything else is refused, nothing performed)', async () => {
    const company = await startCompany(new Clock());
    const operation = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
    for (const field of [`operation_id=${operation.operation_id}, revision="${operation.revision}"`, `operation_id="${operation.operation_id}"`, 'not a dictionary ((']) {
      const reply = await post(company, EXCHANGE_PATH, { ...ALEX, approval: field }, EXCHANGE_M);
      expect(reply.status, field).toBe(400);
      expect(reply.body.error).toBe('invalid_approval');
    }
    expect(company.state.performed.size).toBe(0);
  });

  it('6 MCP: "the approval as a JSON object in _meta under personalagentprotocol.org/approval"', async () => {
    const company = await startCompany(new Clock());
    const client = await mcpClient(company, ALEX);
    const args = { order_id: 'ord_7Hk2', ...EXCHANGE_M };
    const operation = parseOperation((await callTool(client, 'exchange_item', args)).structuredContent.operation);
    // Unknown members of the approval object are ignored too.
    const result = await callTool(client, 'exchange_item', args, { ...approvalOf(operation), later_member: true });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent.exchange).toMatchObject({ status: 'completed', new_item: { sku: 'stormline-insulated-m' } });
    expect(company.state.performed.get(operation.operation_id)).toBe(1);
  });

  it('6 MCP and Conversations: the approval is "a JSON object" with operation_id and revision (anything else is refused, nothing performed)', async () => {
    const company = await startCompany(new Clock());
    const client = await mcpClient(company, ALEX);
    const args = { order_id: 'ord_7Hk2', ...EXCHANGE_M };
    const operation = parseOperation((await callTool(client, 'exchange_item', args)).structuredContent.operation);
    const malformed: unknown[] = ['approved', { operation_id: operation.operation_id }, { operation_id: operation.operation_id, revision: 42 }];
    for (const approval of malformed) {
      const result: any = await client.callTool({ name: 'exchange_item', arguments: args, _meta: { [APPROVAL_META_KEY]: approval } });
      expect(result.isError, JSON.stringify(approval)).toBe(true);
      expect(result.content[0].text).toContain('Invalid approval');
      expect(result.structuredContent?.operation).toBeUndefined();
    }
    const conversation = await openConversation(company, ALEX);
    await send(company, conversation, ALEX, message('Exchange my jacket for the insulated one, please.'));
    const before = await events(company, conversation, ALEX);
    for (const approval of malformed) {
      const sent = await send(company, conversation, ALEX, { ...message('The user approved the exchange.'), extensions: { operations: { approval } } });
      expect(sent.status, JSON.stringify(approval)).toBe(400);
      expect(sent.body.error).toBe('invalid_message');
    }
    expect(await events(company, conversation, ALEX)).toEqual(before);
    expect(company.state.performed.size).toBe(0);
  });

  describe('6 "What the Company checks"', () => {
    it('6 check 1 "The Session can approve the operation (3). If it can\'t, the Company handles the request as if it had no approval"', async () => {
      const company = await startCompany(new Clock());
      const operation = await operationFor(company, GUEST_PATH, GUEST, GUEST_EXCHANGE);
      const reply = await post(company, GUEST_PATH, { ...OTHER_GUEST, approval: operation }, GUEST_EXCHANGE);
      const withoutApproval = await post(company, GUEST_PATH, OTHER_GUEST, GUEST_EXCHANGE);
      expect(reply.status).toBe(403);
      expect(reply.body).toEqual(withoutApproval.body);
      expect(company.state.performed.size).toBe(0);
    });

    it('6 check 2 "The operation hasn\'t been performed already. If it has ... the Company responds as section 7 describes"', async () => {
      const company = await startCompany(new Clock());
      const operation = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
      const first = await post(company, EXCHANGE_PATH, { ...ALEX, approval: operation }, EXCHANGE_M);
      const again = await post(company, EXCHANGE_PATH, { ...ALEX, approval: operation }, EXCHANGE_M);
      expect(again.status).toBe(first.status);
      expect(again.body).toEqual(first.body);
      expect(company.state.performed.get(operation.operation_id)).toBe(1);
    });

    it('6 check 3 "The revision is one the Company returned for this operation" (a revision it never returned gets a new one)', async () => {
      const company = await startCompany(new Clock());
      const operation = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
      for (const revision of ['1791487200-k3Jd9Qx2mW8v', `${operation.revision.slice(0, -1)}${operation.revision.endsWith('A') ? 'B' : 'A'}`, 'x']) {
        const reply = await post(company, EXCHANGE_PATH, { ...ALEX, approval: { operation_id: operation.operation_id, revision } }, EXCHANGE_M);
        expect(reply.status).toBe(403);
        expect(reply.body.operation.revision).not.toBe(revision);
        expect(reply.body.operation.operation_id).toBe(operation.operation_id);
      }
      // The approval of another operation (the cancellation) is not an approval of the exchange.
      const cancel = await operationFor(company, CANCEL_PATH, ALEX);
      const crossed = await post(company, EXCHANGE_PATH, { ...ALEX, approval: cancel }, EXCHANGE_M);
      expect(crossed.status).toBe(403);
      expect(crossed.body.operation.operation_id).toBe(operation.operation_id);
      expect(company.state.performed.size).toBe(0);
    });

    it('6 check 3 "it hasn\'t expired" (an expired revision gets a new one)', async () => {
      const clock = new Clock();
      const company = await startCompany(clock);
      const operation = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
      clock.set(expiresAtMs(operation) + 1);
      const reply = await post(company, EXCHANGE_PATH, { ...ALEX, approval: operation }, EXCHANGE_M);
      expect(reply.status).toBe(403);
      expect(reply.body.operation.operation_id).toBe(operation.operation_id);
      expect(reply.body.operation.revision).not.toBe(operation.revision);
      expect(expiresAtMs(reply.body.operation)).toBeGreaterThan(expiresAtMs(operation));
      expect(company.state.performed.size).toBe(0);
    });

    it('6 check 3 "The revision is one the Company returned for this operation, it hasn\'t expired" (a well-formed revision with an expiry the Company never gives)', async () => {
      const company = await startCompany(new Clock());
      const operation = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
      const dash = operation.revision.indexOf('-');
      const epoch = Number(operation.revision.slice(0, dash));
      const rest = operation.revision.slice(dash);
      // Off the Company's one-minute steps, and beyond any expires_at it gives now.
      for (const revision of [`${epoch + 1}${rest}`, `${epoch + 3600}${rest}`]) {
        const reply = await post(company, EXCHANGE_PATH, { ...ALEX, approval: { operation_id: operation.operation_id, revision } }, EXCHANGE_M);
        expect(reply.status, revision).toBe(403);
        expect(reply.body.operation.revision).not.toBe(revision);
        expect(reply.body.operation.revision).toBe(operation.revision);
      }
      expect(company.state.performed.size).toBe(0);
    });

    it('6 check 3 "and the request asks for exactly what it describes" (a changed request gets a new revision, same operation_id)', async () => {
      const company = await startCompany(new Clock());
      const m = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
      const reply = await post(company, EXCHANGE_PATH, { ...ALEX, approval: m }, EXCHANGE_L);
      expect(reply.status).toBe(403);
      expect(reply.body.operation.operation_id).toBe(m.operation_id);
      expect(reply.body.operation.revision).not.toBe(m.revision);
      expect(reply.body.operation.terms.replacement_sku).toBe('stormline-insulated-l');
      // The cancellation: at the end of the period approved, now asked for.
      const atEnd = await operationFor(company, CANCEL_PATH, ALEX, { at_period_end: true });
      const now = await post(company, CANCEL_PATH, { ...ALEX, approval: atEnd }, { at_period_end: false });
      expect(now.status).toBe(403);
      expect(now.body.operation.terms.at_period_end).toBe(false);
      expect(company.state.performed.size).toBe(0);
    });

    it('6 check 3 "The API request or tool call is the one that returned the operation"', async () => {
      const company = await startCompany(new Clock());
      const client = await mcpClient(company, ALEX);
      const args = { order_id: 'ord_7Hk2', ...EXCHANGE_M };
      const fromTool = parseOperation((await callTool(client, 'exchange_item', args)).structuredContent.operation);
      const fromApi = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
      expect(fromTool.operation_id).toBe(fromApi.operation_id);
      const viaApi = await post(company, EXCHANGE_PATH, { ...ALEX, approval: fromTool }, EXCHANGE_M);
      expect(viaApi.status).toBe(403);
      const viaTool = await callTool(client, 'exchange_item', args, approvalOf(fromApi));
      expect(viaTool.isError).toBe(true);
      expect(viaTool.structuredContent.operation.revision).not.toBe(fromApi.revision);
      expect(company.state.performed.size).toBe(0);
    });

    it('6 check 3 "in a conversation, the operation is the conversation\'s"', async () => {
      const company = await startCompany(new Clock());
      const one = await openConversation(company, ALEX);
      const two = await openConversation(company, ALEX);
      await send(company, one, ALEX, message('Exchange my jacket for the insulated one, please.'));
      await send(company, two, ALEX, message('Exchange my jacket for the insulated one, please.'));
      const [fromOne] = await offeredOperations(company, one, ALEX);
      const [fromTwo] = await offeredOperations(company, two, ALEX);
      expect(fromOne!.revision).not.toBe(fromTwo!.revision);
      // The API doesn't accept a conversation's revision either.
      expect((await post(company, EXCHANGE_PATH, { ...ALEX, approval: fromOne! }, EXCHANGE_M)).status).toBe(403);
      await send(company, two, ALEX, message('The user approved the exchange.', approvalOf(fromOne!)));
      expect(company.state.performed.size).toBe(0);
      const replies = await companyMessages(company, two, ALEX);
      expect(replies.at(-1).text).toContain("haven't done anything");
    });

    it('6 check 3 "in a conversation, the operation is the conversation\'s" (an operation it never offered there)', async () => {
      const company = await startCompany(new Clock());
      const conversation = await openConversation(company, ALEX);
      await send(company, conversation, ALEX, message('Exchange my jacket for the insulated one, please.'));
      const fromApi = await operationFor(company, CANCEL_PATH, ALEX);
      await send(company, conversation, ALEX, message('The user approved the cancellation.', approvalOf(fromApi)));
      const reply = (await companyMessages(company, conversation, ALEX)).at(-1);
      expect(reply.text).toContain(`haven't offered operation ${fromApi.operation_id}`);
      expect(reply.extensions).toBeUndefined();
      expect(company.state.performed.size).toBe(0);
      expect((await get(company, '/subscriptions/sub_3Fp9', ALEX)).body.subscription.status).toBe('active');
    });

    it('6 "respond as the first one that fails says" (check 1 before check 2: another Session\'s retry of a performed operation is a request without approval)', async () => {
      const company = await startCompany(new Clock());
      const operation = await operationFor(company, GUEST_PATH, GUEST, GUEST_EXCHANGE);
      const first = await post(company, GUEST_PATH, { ...GUEST, approval: operation }, GUEST_EXCHANGE);
      expect(first.status).toBe(200);
      const other = await post(company, GUEST_PATH, { ...OTHER_GUEST, approval: operation }, GUEST_EXCHANGE);
      const without = await post(company, GUEST_PATH, OTHER_GUEST, GUEST_EXCHANGE);
      expect(other.status).toBe(409);
      expect(other.body).toEqual(without.body);
      expect(other.body).not.toEqual(first.body);
      expect(company.state.performed.get(operation.operation_id)).toBe(1);
    });

    it('6 "respond as the first one that fails says" (check 2 before check 3: a performed operation answers as the first time, even for changed or expired terms)', async () => {
      const clock = new Clock();
      const company = await startCompany(clock);
      const m = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
      const first = await post(company, EXCHANGE_PATH, { ...ALEX, approval: m }, EXCHANGE_M);
      const changed = await post(company, EXCHANGE_PATH, { ...ALEX, approval: m }, EXCHANGE_L);
      expect(changed.status).toBe(200);
      expect(changed.body).toEqual(first.body);
      clock.set(expiresAtMs(m) + 60_000);
      const late = await post(company, EXCHANGE_PATH, { ...ALEX, approval: m }, EXCHANGE_M);
      expect(late.body).toEqual(first.body);
      expect(company.state.performed.get(m.operation_id)).toBe(1);
    });

    it('6 "If check 3 fails, it performs nothing and returns the operation with a revision for what the request asks, as in section 4"', async () => {
      const company = await startCompany(new Clock());
      const m = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
      const reply = await post(company, EXCHANGE_PATH, { ...ALEX, approval: m }, EXCHANGE_L);
      const direct = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_L);
      expect(reply.status).toBe(403);
      expect(reply.body).toEqual({ error: 'approval_required', operation: direct });
      // The new revision works.
      expect((await post(company, EXCHANGE_PATH, { ...ALEX, approval: direct }, EXCHANGE_L)).status).toBe(200);
      expect(company.state.performed.get(m.operation_id)).toBe(1);
    });

    it('6 "A Company MUST NOT answer an approval with the revision it names"', async () => {
      const clock = new Clock();
      const company = await startCompany(clock);
      const m = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
      const guest = await operationFor(company, GUEST_PATH, GUEST, GUEST_EXCHANGE);
      const named: [string, () => Promise<string>][] = [
        ['changed request', async () => (await post(company, EXCHANGE_PATH, { ...ALEX, approval: m }, EXCHANGE_L)).body.operation.revision],
        ['another Session', async () => (await post(company, GUEST_PATH, { ...OTHER_GUEST, approval: guest }, GUEST_EXCHANGE)).body.operation.revision],
        ['another interface', async () => (await callTool(await mcpClient(company, ALEX), 'exchange_item', { order_id: 'ord_7Hk2', ...EXCHANGE_M }, approvalOf(m))).structuredContent.operation.revision],
        [
          'expired',
          async () => {
            clock.set(expiresAtMs(m) + 1);
            return (await post(company, EXCHANGE_PATH, { ...ALEX, approval: m }, EXCHANGE_M)).body.operation.revision;
          },
        ],
      ];
      for (const [why, answer] of named) expect(await answer(), why).not.toBe(why === 'another Session' ? guest.revision : m.revision);
      expect(company.state.performed.size).toBe(0);
    });

    it('6 "A Company MUST NOT answer an approval with the revision it names" (a conversation\'s superseded revision)', async () => {
      const company = await startCompany(new Clock());
      const conversation = await openConversation(company, ALEX);
      await send(company, conversation, ALEX, message('Exchange for the insulated jacket please'));
      await send(company, conversation, ALEX, message('Size L, please'));
      const [m, l] = await offeredOperations(company, conversation, ALEX);
      await send(company, conversation, ALEX, message('The user approved the exchange.', approvalOf(m!)));
      expect(company.state.performed.size).toBe(0);
      const offered = await offeredOperations(company, conversation, ALEX);
      expect(offered).toHaveLength(3);
      expect(offered[2]!.revision).not.toBe(m!.revision);
      expect(offered[2]!.terms).toEqual(l!.terms);
    });

    // On the minute, and off it: the answer's revision is in the next window, and must still be accepted.
    it.each([0, 1_000, 59_000])('6 "A Company MUST NOT answer an approval with the revision it names" (the named revision is otherwise valid; clock +%i ms)', async (offset) => {
      // Check 3 fails for a revision the Company returned for this operation, in this conversation,
      // unexpired and for exactly the terms asked for now (so recomputed now it comes out the same),
      // only because the conversation accepts the revision it offered last. A Session that signs in
      // and out again gets there: signed in, the terms come back as the account's revision (section 3,
      // "Who can approve it"); signed out again, the Session's own revision of them is superseded.
      const company = await startCompany(new Clock(SEED_DAY + offset));
      const signedIn: Who = { ...GUEST, token: 'tok_alex' };
      const conversation = await openConversation(company, GUEST);
      await send(company, conversation, GUEST, message('Please exchange the jacket on order ord_G5xa for the insulated one, size M.'));
      await send(company, conversation, GUEST, message('Size L instead, please.'));
      const [m, l] = await offeredOperations(company, conversation, GUEST);
      expect(l!.operation_id).toBe(m!.operation_id);
      expect(l!.terms).toMatchObject({ replacement_sku: 'stormline-insulated-l' });
      // Signed in, an approval of the M terms: check 3 fails, and the L terms come back as the account's.
      await send(company, conversation, signedIn, message('The user approved the exchange.', approvalOf(m!)));
      const asAccount = (await offeredOperations(company, conversation, GUEST))[2]!;
      expect(asAccount).toMatchObject({ operation_id: l!.operation_id, terms: l!.terms });
      expect(asAccount.revision).not.toBe(l!.revision);
      // Signed out again, the approval of L: the Session's, unexpired, for the terms asked for now.
      await send(company, conversation, GUEST, message('The user approved the exchange.', approvalOf(l!)));
      const offered = await offeredOperations(company, conversation, GUEST);
      expect(offered).toHaveLength(4);
      const answer = offered[3]!;
      expect(answer).toMatchObject({ operation_id: l!.operation_id, terms: l!.terms, summary: l!.summary });
      expect(answer.revision).not.toBe(l!.revision);
      expect(company.state.performed.size).toBe(0);
      // A fresh approval of the new revision performs, once.
      await send(company, conversation, GUEST, message('The user approved the exchange.', approvalOf(answer)));
      await send(company, conversation, GUEST, message('The user approved the exchange.', approvalOf(answer)));
      expect(company.state.performed.get(answer.operation_id)).toBe(1);
      expect(company.state.performed.size).toBe(1);
      const order = (await get(company, '/orders/ord_G5xa', GUEST)).body.order;
      expect(order.exchanges).toEqual([expect.objectContaining({ operation_id: answer.operation_id, replacement_sku: 'stormline-insulated-l' })]);
    });
  });

  describe('6 "Conversations"', () => {
    it('6 "The message\'s text doesn\'t approve anything, whatever it says. Only the approval does."', async () => {
      const company = await startCompany(new Clock());
      const conversation = await openConversation(company, ALEX);
      await send(company, conversation, ALEX, message('Please exchange my jacket for the insulated one.'));
      const [offer] = await offeredOperations(company, conversation, ALEX);
      for (const text of ['I approve.', 'Approved.', `The user approved operation_id="${offer!.operation_id}", revision="${offer!.revision}".`, 'yes go ahead']) {
        expect((await send(company, conversation, ALEX, message(text))).status).toBe(201);
      }
      expect(company.state.performed.size).toBe(0);
      // Only the approval does, whatever the text says.
      await send(company, conversation, ALEX, message('Nothing to see here.', approvalOf(offer!)));
      expect(company.state.performed.get(offer!.operation_id)).toBe(1);
    });

    it('6 "The Company Agent performs the action and says how it went in a later message"', async () => {
      const company = await startCompany(new Clock());
      const conversation = await openConversation(company, ALEX);
      await send(company, conversation, ALEX, message('Can I swap my jacket for the insulated one?'));
      const [offer] = await offeredOperations(company, conversation, ALEX);
      const sent = await send(company, conversation, ALEX, message('The user approved the exchange.', approvalOf(offer!)));
      expect(sent.status).toBe(201);
      const replies = await companyMessages(company, conversation, ALEX);
      const report = replies.at(-1);
      expect(report.extensions).toBeUndefined();
      expect(report.text).toContain('Exchanged the Stormline Jacket (M) on order ord_7Hk2 for the Stormline Insulated Jacket (M)');
      expect(report.text).toContain('$70.00 was charged to the Visa ending in 4242');
      expect(company.state.performed.get(offer!.operation_id)).toBe(1);
    });
  });
});
