import { describe, expect, it } from 'vitest';
import {
  approvalOf,
  callTool,
  Clock,
  GUEST,
  GUEST_EXCHANGE,
  GUEST_PATH,
  mcpClient,
  message,
  offeredOperations,
  openConversation,
  OTHER_GUEST,
  post,
  send,
  companyMessages,
  startCompany,
} from './helpers';

/**
 * The guest order `ord_G5xa` is open to any signed-out Session. Section 3 ("Who can approve it"):
 * an operation returned in a signed-out Session can be approved only in that Session; section 6,
 * check 2, and section 7: the approval of an operation already performed gets the response the
 * Company gave the first time, or one that says the same. So each Session gets an operation of
 * its own for the same action (docs/reference-company.md, "How operations are computed"): when
 * Session A's is performed, Session B's approval of its own operation is not the approval of a
 * performed operation, and "nothing was done" is true for it. Over the API, MCP and a conversation.
 */
describe('section 3 and 7: one guest order, two signed-out Sessions', () => {
  it('API: each Session gets its own operation; B\'s approval after A\'s was performed performs nothing and says so truthfully', async () => {
    const company = await startCompany(new Clock());
    const a = (await post(company, GUEST_PATH, GUEST, GUEST_EXCHANGE)).body.operation;
    const b = (await post(company, GUEST_PATH, OTHER_GUEST, GUEST_EXCHANGE)).body.operation;
    expect(a.operation_id).not.toBe(b.operation_id);
    expect(a.summary).toBe(b.summary);
    const first = await post(company, GUEST_PATH, { ...GUEST, approval: approvalOf(a) }, GUEST_EXCHANGE);
    expect(first.status).toBe(200);
    // A's retry: the first response again (section 7).
    expect((await post(company, GUEST_PATH, { ...GUEST, approval: approvalOf(a) }, GUEST_EXCHANGE)).text).toBe(first.text);
    const second = await post(company, GUEST_PATH, { ...OTHER_GUEST, approval: approvalOf(b) }, GUEST_EXCHANGE);
    expect(second.status).toBe(409);
    expect(second.body.error).toBe('item_not_exchangeable');
    expect([...company.state.performed]).toEqual([[a.operation_id, 1]]);
    // B's operation was never performed, so its approval is not owed A's response.
    expect(company.state.performed.has(b.operation_id)).toBe(false);
  });

  it('MCP: the same, and B\'s "Nothing was done" is about its own operation, which was not performed', async () => {
    const company = await startCompany(new Clock());
    const args = { order_id: 'ord_G5xa', ...GUEST_EXCHANGE };
    const mine = await mcpClient(company, GUEST);
    const theirs = await mcpClient(company, OTHER_GUEST);
    const a = (await callTool(mine, 'exchange_item', args)).structuredContent.operation;
    const b = (await callTool(theirs, 'exchange_item', args)).structuredContent.operation;
    expect(a.operation_id).not.toBe(b.operation_id);
    expect((await callTool(mine, 'exchange_item', args, approvalOf(a))).isError).toBeFalsy();
    const refused = await callTool(theirs, 'exchange_item', args, approvalOf(b));
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toMatch(/already exchanged/);
    expect([...company.state.performed]).toEqual([[a.operation_id, 1]]);
  });

  it('A\'s approval sent in B\'s Session is handled as no approval (check 1), even after A\'s was performed', async () => {
    const company = await startCompany(new Clock());
    const a = (await post(company, GUEST_PATH, GUEST, GUEST_EXCHANGE)).body.operation;
    expect((await post(company, GUEST_PATH, { ...GUEST, approval: approvalOf(a) }, GUEST_EXCHANGE)).status).toBe(200);
    const borrowed = await post(company, GUEST_PATH, { ...OTHER_GUEST, approval: approvalOf(a) }, GUEST_EXCHANGE);
    // Not A's response (B never approved anything); the item is exchanged, so nothing to offer either.
    expect(borrowed.status).toBe(409);
    expect(borrowed.text).not.toContain('exg_');
    expect([...company.state.performed]).toEqual([[a.operation_id, 1]]);
  });

  it('conversation: each Session is offered its own operation; B\'s approval after A\'s exchange performs nothing', async () => {
    const company = await startCompany(new Clock());
    const ca = await openConversation(company, GUEST);
    const cb = await openConversation(company, OTHER_GUEST);
    const ask = 'Please exchange the jacket on order ord_G5xa for the insulated one';
    await send(company, ca, GUEST, message(ask));
    await send(company, cb, OTHER_GUEST, message(ask));
    const [a] = await offeredOperations(company, ca, GUEST);
    const [b] = await offeredOperations(company, cb, OTHER_GUEST);
    expect(a!.operation_id).not.toBe(b!.operation_id);
    await send(company, ca, GUEST, message('Approved.', approvalOf(a!)));
    await send(company, cb, OTHER_GUEST, message('Approved.', approvalOf(b!)));
    const last = (await companyMessages(company, cb, OTHER_GUEST)).at(-1);
    expect(last.text).toMatch(/can't|already exchanged/);
    expect(last.text).not.toMatch(/^Done/);
    expect([...company.state.performed]).toEqual([[a!.operation_id, 1]]);
  });
});
