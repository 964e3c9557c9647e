import { test, expect } from '@playwright/test';
import { randomUUID } from 'node:crypto';
import { Stack } from './support/stack';
import { createCompany } from '../../src/company/index';
import { performApi, performTool, performConversation, type Companion, type FindOutcome } from '../../src/agent/index';

/**
 * End to end in Chromium: the reference Company over real HTTP and MCP, the SDK's
 * performWithApproval for each interface, and a real click in the approval window. The Company
 * counts how often it performed each operation: exactly once each.
 */
test.describe.configure({ mode: 'serial' });

let stack: Stack;
let agent: Companion;
let company: Awaited<ReturnType<typeof createCompany>>;

test.beforeAll(async () => {
  company = await createCompany({ port: 0 });
  stack = await Stack.start();
  agent = await stack.pairedAgent('Interfaces agent');
});
test.afterAll(async () => {
  await agent?.close().catch(() => undefined);
  await stack?.close();
  await company?.close();
});

const session = (token?: string) => ({ 'Poppy-Session': `sess_${randomUUID().replace(/-/g, '')}`, 'Poppy-Version': '0.4', ...(token ? { Authorization: `Bearer ${token}` } : {}) });
const findOutcome = (orderId: string, headers: Record<string, string>, sku: string): FindOutcome => async () => {
  const res = await fetch(`${company.url}/orders/${orderId}`, { headers });
  return res.ok ? { performed: (await res.text()).includes(sku) } : undefined;
};

/** Approves the next prompt in the window with a real click, once Approve is enabled. */
async function approveInWindow(expectText: string): Promise<void> {
  const page = await stack.approvalWindow();
  await expect(page.getByTestId('summary')).toContainText(expectText, { timeout: 10_000 });
  await expect(page.locator('#approve')).toBeEnabled({ timeout: 5000 });
  await page.locator('#approve').click();
}

test('section 6 APIs: the same request again with Poppy-Approval, performed once', async () => {
  const headers = session('tok_alex');
  const result = performApi({
    companion: agent,
    company: { origin: company.url },
    session: { kind: 'signed_in', account: 'alex' },
    headers,
    request: { method: 'POST', url: `${company.url}/orders/ord_7Hk2/exchanges`, body: { item_id: 'itm_4Qa', replacement_sku: 'stormline-insulated-m' } },
    findOutcome: findOutcome('ord_7Hk2', headers, 'stormline-insulated-m'),
  });
  await approveInWindow('Stormline Insulated Jacket (M)');
  const r = await result;
  expect(r.status).toBe('performed');
  if (r.status === 'performed') expect(company.state.performed.get(r.operation.operation_id)).toBe(1);
});

test('section 6 MCP: the same tool call with _meta approval, performed once', async () => {
  const headers = session('tok_sam');
  const result = performTool({
    companion: agent,
    company: { origin: company.url },
    session: { kind: 'signed_in', account: 'sam' },
    headers,
    tool: 'exchange_item',
    arguments: { order_id: 'ord_Sm41', item_id: 'itm_7Pq', replacement_sku: 'stormline-insulated-l' },
    findOutcome: findOutcome('ord_Sm41', headers, 'stormline-insulated-l'),
  });
  await approveInWindow('Stormline Insulated Jacket (L)');
  const r = await result;
  expect(r.status).toBe('performed');
  if (r.status === 'performed') expect(company.state.performed.get(r.operation.operation_id)).toBe(1);
});

test('section 6 Conversations: an approval message (its text approves nothing by itself), performed once', async () => {
  const headers = session();
  const created = (await (await fetch(`${company.url}/conversations`, { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: '{}' })).json()) as { id: string };
  const result = performConversation({
    companion: agent,
    company: { origin: company.url },
    session: { kind: 'this_session' },
    headers,
    conversationId: created.id,
    message: { id: `msg_${randomUUID().replace(/-/g, '')}`, text: 'Please exchange the jacket on order ord_G5xa for the insulated one.' },
    findOutcome: findOutcome('ord_G5xa', headers, 'stormline-insulated-s'),
  });
  await approveInWindow('Stormline Insulated Jacket (S)');
  const r = await result;
  expect(r.status).toBe('performed');
  if (r.status === 'performed') expect(company.state.performed.get(r.operation.operation_id)).toBe(1);
  expect([...company.state.performed.values()]).toEqual([1, 1, 1]);
});
