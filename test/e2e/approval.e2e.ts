import { test, expect, type Page } from '@playwright/test';
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { Stack, jacketOperation, rawSocket, STORMLINE, EXCHANGE_REQUEST } from './support/stack';
import type { Companion } from '../../src/agent/index.ts';

/**
 * End to end in Debian Chromium: a real bridge process started by the browser, agents
 * using the SDK over the bridge's socket, real IndexedDB and WebCrypto in the extension, and
 * real clicks in the extension's own approval window.
 */
test.describe.configure({ mode: 'serial' });

let stack: Stack;
let agent: Companion;
let counter = 0;

test.beforeAll(async () => {
  stack = await Stack.start();
  agent = await stack.pairedAgent('Desk agent');
});
test.afterAll(async () => {
  await agent?.close().catch(() => undefined);
  await stack?.close();
});

function ask(a: Companion, operation: ReturnType<typeof jacketOperation>) {
  return a.requestApproval({ company: STORMLINE, operation, request: EXCHANGE_REQUEST, session: { kind: 'this_session' } });
}

function freshOperation(inMs?: number, revision = 'rev1') {
  return jacketOperation(revision, inMs, { operation_id: `exc_e2e${++counter}` });
}

async function badge(): Promise<string> {
  return stack.worker.evaluate(() => (globalThis as unknown as { chrome: { action: { getBadgeText(d: object): Promise<string> } } }).chrome.action.getBadgeText({}));
}

/** How many waiting items of one operation the background holds (read from IndexedDB). */
async function activeCount(operationId: string): Promise<number> {
  const page = await stack.approvalWindow().catch(() => null) ?? stack.context.pages()[0]!;
  return page.evaluate(async (id) => {
    const snap = await (globalThis as unknown as { chrome: { runtime: { sendMessage(m: unknown): Promise<{ active: Array<{ operation: { operation_id: string } }> }> } } }).chrome.runtime.sendMessage({ type: 'countersign/snapshot' });
    return snap.active.filter((v) => v.operation.operation_id === id).length;
  }, operationId);
}

async function showing(page: Page, operationId: string): Promise<void> {
  await expect(page.getByTestId('summary')).toBeVisible();
  await expect(page.locator('#content')).toContainText(STORMLINE.name);
  // The window marks which revision it painted (`${agent} ${operation_id} ${revision}`): wait for this one.
  await page.locator(`#content[data-painted-key*=" ${operationId} "]`).waitFor();
  await expect(page.getByTestId('terms')).toContainText('ord_7Hk2');
}

test('section 5: pairing pins keys; Approve waits ~1 s; a trusted click returns a decision the SDK verified', async () => {
  const op = freshOperation();
  const pending = ask(agent, op);
  const page = await stack.approvalWindow();
  await showing(page, op.operation_id);

  // What the person sees: the Company's name and origin, the summary rendered (bold allowed),
  // the review's verdict, and the terms table.
  await expect(page.getByTestId('origin')).toContainText('stormline.example');
  await expect(page.getByTestId('summary').locator('strong')).toHaveText('$70.00');
  // What the review checked, never a claim that the terms "agree"; the last line is the terms' data.
  await expect(page.getByTestId('checked')).toContainText('Every amount in the terms appears in the summary');
  await expect(page.getByTestId('technical')).not.toContainText('agree');
  // What the click does, on the button, from the terms: the one amount the person pays.
  await expect(page.locator('#approve')).toHaveText('Approve · pay $70.00');
  await expect(page.getByTestId('agent')).toContainText(agent.fingerprint);
  expect(await badge()).toBe('1');

  const approve = page.locator('#approve');
  await expect(approve).toBeDisabled();
  await expect(approve).toBeEnabled({ timeout: 3000 });
  await approve.click();
  const result = await pending;
  expect(result.status).toBe('approved');
  if (result.status !== 'approved') return;
  expect(result.approval).toEqual({ operation_id: op.operation_id, revision: 'rev1' });
  expect(result.decision.aud).toBe(agent.agentKeyThumbprint);
  await expect.poll(badge).toBe('');
  await expect(page.locator('#status')).toContainText('You approved this');
  // The same revision asked again: the stored decision, no second prompt.
  const again = await ask(agent, op);
  expect(again.status).toBe('approved');
  expect(await badge()).toBe('');
  expect(await agent.markSent(result.approval)).toBe(true);
  await agent.reportOutcome({ ...result.approval, outcome: 'performed' });
});

test('Decline always works and returns a signed decline', async () => {
  const op = freshOperation();
  const pending = ask(agent, op);
  const page = await stack.approvalWindow();
  await showing(page, op.operation_id);
  await page.locator('#decline').click();
  expect((await pending).status).toBe('declined');
});

test('section 3 "Expiry": an expired revision cannot be approved and the agent hears "expired"', async () => {
  const op = freshOperation(2500);
  const pending = ask(agent, op);
  const page = await stack.approvalWindow();
  await showing(page, op.operation_id);
  await expect(page.locator('#countdown')).toContainText('left to decide');
  expect((await pending).status).toBe('expired');
  await expect(page.locator('#approve')).toBeHidden();
});

test('section 3 "New terms": a new revision supersedes the pending one and the window shows what changed', async () => {
  const first = freshOperation();
  const pendingFirst = ask(agent, first);
  const page = await stack.approvalWindow();
  await showing(page, first.operation_id);
  const second = {
    ...first,
    revision: 'rev2',
    summary: first.summary.replace(/\(M\)/g, '(L)'),
    terms: { ...first.terms, replacement_sku: 'stormline-insulated-l' },
  };
  const pendingSecond = agent.requestApproval({ company: STORMLINE, operation: second, request: { ...EXCHANGE_REQUEST, body: { item_id: 'itm_4Qa', replacement_sku: 'stormline-insulated-l' } }, session: { kind: 'this_session' } });
  expect((await pendingFirst).status).toBe('superseded');
  await expect(page.getByTestId('diff')).toBeVisible();
  await expect(page.getByTestId('diff').locator('ins').first()).toHaveText('L');
  await expect(page.getByTestId('diff').locator('del').first()).toHaveText('M');
  await expect(page.locator('#approve')).toBeEnabled({ timeout: 3000 });
  await page.locator('#approve').click();
  expect((await pendingSecond).status).toBe('approved');
});

test('section 5: the person withdraws before the agent sent it, so the agent does not send it', async () => {
  const op = freshOperation();
  const pending = ask(agent, op);
  const page = await stack.approvalWindow();
  await showing(page, op.operation_id);
  await expect(page.locator('#approve')).toBeEnabled({ timeout: 3000 });
  await page.locator('#approve').click();
  const result = await pending;
  expect(result.status).toBe('approved');
  if (result.status !== 'approved') return;
  await page.locator('#withdraw').click();
  await expect.poll(() => agent.isWithdrawn(op.operation_id, 'rev1')).toBe(true);
  expect(await agent.markSent(result.approval)).toBe(false);
});

test('an agent the person never paired gets a typed error and no window item', async () => {
  // A second agent that knows the extension key (pin copied) but was never confirmed.
  const stranger = await stack.agent('Stranger', 'stranger');
  await stranger.close();
  await cp(join(stack.root, 'agents', 'Desk-agent', 'extension-key.json'), join(stack.root, 'agents', 'stranger', 'extension-key.json'));
  const reconnected = await stack.agent('Stranger', 'stranger');
  const op = freshOperation();
  await expect(ask(reconnected, op)).rejects.toMatchObject({ code: 'ERR_AGENT_NOT_PAIRED' });
  expect(await activeCount(op.operation_id)).toBe(0);
  expect(await badge()).toBe('');
  await reconnected.close();
});

test('malformed messages on the socket get typed errors and change nothing', async () => {
  const raw = await rawSocket(await stack.socket());
  const { replies } = raw;
  const frame = (text: string) => raw.send(text);
  frame('{not json');
  frame(JSON.stringify({ type: 'approval_request', v: 2, id: 'x1', nonce: 'short', company: STORMLINE, operation: { operation_id: 'bad id' } }));
  frame(JSON.stringify({ type: 'approval_request', v: 2, id: 'x2', nonce: 'A'.repeat(43), company: STORMLINE, operation: jacketOperation(), request: EXCHANGE_REQUEST, session: { kind: 'this_session' } }));
  await expect.poll(() => replies.filter((r) => (r as { type: string }).type === 'error').length).toBeGreaterThanOrEqual(3);
  const codes = replies.filter((r) => (r as { type: string }).type === 'error').map((r) => (r as { code: string }).code);
  expect(codes).toContain('ERR_FRAME_INVALID');
  expect(codes).toContain('ERR_AUTH_FAILED'); // a well-formed request without the key proof
  expect(codes.some((c) => c === 'ERR_BRIDGE_MESSAGE_INVALID' || c === 'ERR_OPERATION_INVALID')).toBe(true);
  raw.close();
  expect(await badge()).toBe('');
});

test('a service-worker stop loses nothing and duplicates nothing: the pending approval comes back as it was', async () => {
  const op = freshOperation();
  const pending = ask(agent, op);
  let page = await stack.approvalWindow();
  await showing(page, op.operation_id);
  await stack.stopWorker();
  // The bridge went away with the worker: the SDK reports the companion unavailable.
  expect((await pending).status).toBe('unavailable');
  await agent.close();
  // Anything that wakes the worker brings the bridge back; the page reconnects by itself.
  await page.evaluate(() => (globalThis as unknown as { chrome: { runtime: { sendMessage(m: unknown): Promise<unknown> } } }).chrome.runtime.sendMessage({ type: 'countersign/version' }));
  agent = await stack.agent('Desk agent');
  const again = ask(agent, op);
  page = await stack.approvalWindow();
  await showing(page, op.operation_id);
  expect(await activeCount(op.operation_id)).toBe(1);
  await expect(page.locator('#approve')).toBeEnabled({ timeout: 5000 });
  await page.locator('#approve').click();
  expect((await again).status).toBe('approved');
});

test('killing the bridge mid-approval: the extension reconnects and nothing is lost or doubled', async () => {
  const op = freshOperation();
  const pending = ask(agent, op);
  const page = await stack.approvalWindow();
  await showing(page, op.operation_id);
  stack.killBridge();
  expect((await pending).status).toBe('unavailable');
  await agent.close();
  await expect(page.locator('#bridge-down')).toBeVisible();
  // The background reconnects with backoff and a new bridge replaces the dead socket.
  await expect(page.locator('#bridge-down')).toBeHidden({ timeout: 10_000 });
  agent = await stack.agent('Desk agent');
  const again = ask(agent, op);
  expect(await activeCount(op.operation_id)).toBe(1);
  await expect(page.locator('#approve')).toBeEnabled({ timeout: 5000 });
  await page.locator('#approve').click();
  expect((await again).status).toBe('approved');
});

test('restarting the browser with a pending approval: it is still pending, once', async () => {
  const op = freshOperation();
  const pending = ask(agent, op);
  await showing(await stack.approvalWindow(), op.operation_id);
  await stack.restartBrowser();
  expect((await pending).status).toBe('unavailable');
  await agent.close();
  agent = await stack.agent('Desk agent');
  const again = ask(agent, op);
  const page = await stack.approvalWindow();
  await showing(page, op.operation_id);
  expect(await activeCount(op.operation_id)).toBe(1);
  await expect(page.locator('#approve')).toBeEnabled({ timeout: 5000 });
  await page.locator('#approve').click();
  expect((await again).status).toBe('approved');
});

test('revoking an agent in the options page: its next request is refused with a typed error', async () => {
  const temp = await stack.pairedAgent('Temporary agent');
  const options = await stack.extensionPage('/options.html');
  const revoke = options.getByRole('button', { name: 'Revoke Temporary agent' });
  await revoke.click();
  // Revoking asks first: nothing happens until the person confirms in the dialog.
  await expect(options.getByTestId('confirm')).toContainText('Temporary agent');
  await options.getByTestId('confirm-act').click();
  await expect(revoke).toBeHidden();
  await expect(ask(temp, freshOperation())).rejects.toMatchObject({ code: 'ERR_AGENT_REVOKED' });
  const popup = await stack.extensionPage('/popup.html');
  await expect(popup.getByTestId('diagnosis')).toContainText('“Temporary agent” was revoked');
  await temp.close();
  await options.close();
  await popup.close();
});

test('accessibility (axe) of the approval window, popup and options: 0 violations; a screenshot of the jacket exchange', async () => {
  const { default: AxeBuilder } = await import('@axe-core/playwright');
  const op = jacketOperation('rev1', 10 * 60_000);
  const pending = ask(agent, op);
  const page = await stack.approvalWindow();
  await showing(page, op.operation_id);
  await expect(page.locator('#approve')).toBeEnabled({ timeout: 3000 });
  await page.screenshot({ path: 'test-results/approval-window-jacket-exchange.png', fullPage: true });
  for (const target of [page, await stack.extensionPage('/popup.html'), await stack.extensionPage('/options.html')]) {
    const result = await new AxeBuilder({ page: target }).analyze();
    expect(result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), target.url()).toEqual([]);
  }
  await page.locator('#decline').click();
  expect((await pending).status).toBe('declined');
});
