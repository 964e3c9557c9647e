import { test, expect, type Page } from '@playwright/test';
import { Stack, jacketOperation, pageMessage, snapshotOf, STORMLINE, EXCHANGE_REQUEST } from './support/stack';
import type { ApprovalResult, Companion } from '../../src/agent/index.ts';

/**
 * Bridge protocol v2 end to end (docs/bridge-protocol.md, "Answers and order" and "The life of an
 * approval"): real Debian Chromium with the built extension, the real bridge, the real SDK. A
 * handful of the model test's scenarios, and a burst of requests from several agents at once.
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

function ask(a: Companion, operation: ReturnType<typeof jacketOperation>, signal?: AbortSignal): Promise<ApprovalResult> {
  return a.requestApproval({ company: STORMLINE, operation, request: EXCHANGE_REQUEST, session: { kind: 'this_session' }, ...(signal ? { signal } : {}) });
}

async function painted(page: Page, operationId: string, revision = 'rev1'): Promise<void> {
  await page.locator(`#content[data-painted-key$=" ${operationId} ${revision}"]`).waitFor();
}

async function approve(page: Page): Promise<void> {
  await expect(page.locator('#approve')).toBeEnabled({ timeout: 3000 });
  await page.locator('#approve').click();
}

test('section 7 in order: "failed" and the next revision sent back to back; the next revision is asked, not refused', async () => {
  const id = `exc_v2_${++counter}`;
  const first = ask(agent, jacketOperation('rev1', 10 * 60_000, { operation_id: id }));
  const page = await stack.approvalWindow();
  await painted(page, id);
  await approve(page);
  const result = await first;
  expect(result.status).toBe('approved');
  if (result.status !== 'approved') return;
  expect(await agent.markSent(result.approval)).toBe(true);
  // Not awaited: the outcome and the request leave together, as in a retry loop.
  const reported = agent.reportOutcome({ ...result.approval, outcome: 'failed' });
  const second = ask(agent, jacketOperation('rev2', 10 * 60_000, { operation_id: id }));
  expect(await reported).toBe(true);
  await painted(page, id, 'rev2');
  await page.locator('#decline').click();
  expect((await second).status).toBe('declined');
});

test('withdraw first: the agent\'s approval_sent is refused (ERR_TOO_LATE) and markSent says do not send', async () => {
  const id = `exc_v2_${++counter}`;
  const pending = ask(agent, jacketOperation('rev1', 10 * 60_000, { operation_id: id }));
  const page = await stack.approvalWindow();
  await painted(page, id);
  await approve(page);
  const result = await pending;
  if (result.status !== 'approved') throw new Error(result.status);
  await page.locator('#withdraw').click();
  await expect.poll(() => agent.isWithdrawn(id, 'rev1')).toBe(true);
  expect(await agent.markSent(result.approval)).toBe(false);
});

test('sent first: a withdrawal is too late, the window says so, and the outcome is still recorded', async () => {
  const id = `exc_v2_${++counter}`;
  const pending = ask(agent, jacketOperation('rev1', 10 * 60_000, { operation_id: id }));
  const page = await stack.approvalWindow();
  await painted(page, id);
  await approve(page);
  const result = await pending;
  if (result.status !== 'approved') throw new Error(result.status);
  expect(await agent.markSent(result.approval)).toBe(true);
  // The person's Withdraw as the window sends it, arriving after the agent's "sent".
  const answer = await pageMessage(page, { type: 'countersign/withdraw', key: await page.locator('#content').getAttribute('data-painted-key'), trusted: true });
  expect(answer).toEqual({ ok: true, tooLate: true });
  expect(await agent.reportOutcome({ ...result.approval, outcome: 'performed' })).toBe(true);
  const history = await pageMessage<Array<{ state: string; operation: { operation_id: string } }>>(page, { type: 'countersign/history', query: '', limit: 50 });
  expect(history.find((v) => v.operation.operation_id === id)?.state).toBe('performed');
});

test('cancel: the request is answered "cancelled"; asking the same revision again asks the person again', async () => {
  const id = `exc_v2_${++counter}`;
  const op = jacketOperation('rev1', 10 * 60_000, { operation_id: id });
  const controller = new AbortController();
  const first = ask(agent, op, controller.signal);
  const page = await stack.approvalWindow();
  await painted(page, id);
  controller.abort(new Error('the user closed the chat'));
  await expect(first).rejects.toThrow('the user closed the chat');
  // The prompt is closed: the window no longer holds it.
  const held = async () => (await snapshotOf(page)).active.filter((v) => v.operation.operation_id === id).length;
  await expect.poll(held).toBe(0);
  const again = ask(agent, op);
  await painted(page, id);
  await approve(page);
  expect((await again).status).toBe('approved');
});

test('a burst: 4 agents ask 25 each at once; one window, nobody past the limit of 20, every ask answered once', async () => {
  const agents = [agent];
  for (const i of [1, 2, 3]) agents.push(await stack.pairedAgent(`Burst agent ${i}`));
  let refused = 0;
  const asks = agents.flatMap((a, n) =>
    Array.from({ length: 25 }, (_, i) => ask(a, jacketOperation('rev1', 10 * 60_000, { operation_id: `exc_burst_${n}_${i}` })).then(
      (r) => r.status,
      (e: { code?: string }) => {
        refused += 1;
        return e.code ?? 'error';
      },
    )),
  );
  const page = await stack.approvalWindow();
  const pendingCount = async () => (await snapshotOf(page)).active.filter((v) => v.state === 'pending').length;
  await expect.poll(pendingCount, { timeout: 20_000 }).toBe(80);
  // Every ask past the limit is answered at once; only then does the person decline the rest.
  await expect.poll(() => refused, { timeout: 20_000 }).toBe(20);
  expect(stack.context.pages().filter((p) => p.url().includes('/approve.html'))).toHaveLength(1);
  expect(await pendingCount()).toBe(80);
  await page.locator('#decline-all').click();
  await page.locator('#decline-all-confirm').click();
  const results = await Promise.all(asks);
  for (let n = 0; n < agents.length; n++) {
    const mine = results.slice(n * 25, n * 25 + 25);
    expect(mine.filter((r) => r === 'declined'), JSON.stringify(mine)).toHaveLength(20);
    expect(mine.filter((r) => r === 'ERR_THROTTLED'), JSON.stringify(mine)).toHaveLength(5);
  }
  for (const a of agents.slice(1)) await a.close();
});

test('after a browser restart every stored prompt shows its agent disconnected until the agent asks again', async () => {
  const id = `exc_v2_${++counter}`;
  const op = jacketOperation('rev1', 10 * 60_000, { operation_id: id });
  const pending = ask(agent, op);
  await painted(await stack.approvalWindow(), id);
  await stack.restartBrowser();
  expect((await pending).status).toBe('unavailable');
  await agent.close();
  const window = await (async () => {
    const page = await stack.extensionPage('/approve.html');
    await painted(page, id);
    return page;
  })();
  await expect(window.locator('#agent-gone')).toBeVisible();
  agent = await stack.agent('Desk agent');
  const again = ask(agent, op);
  await expect(window.locator('#agent-gone')).toBeHidden({ timeout: 5000 });
  await window.locator('#decline').click();
  expect((await again).status).toBe('declined');
});

test('while an approval waits, a repaired bridge is reached within seconds, not after a 30 s backoff', async () => {
  const { rename } = await import('node:fs/promises');
  const { join } = await import('node:path'); // eslint-disable-line @typescript-eslint/unbound-method -- node:path's join uses no `this` (its types declare it as a method)
  const id = `exc_v2_${++counter}`;
  const op = jacketOperation('rev1', 10 * 60_000, { operation_id: id });
  const pending = ask(agent, op);
  const page = await stack.approvalWindow();
  await painted(page, id);
  // The bridge breaks: its host manifest is gone and the running one is killed. Every reconnect
  // fails for 20 s, long enough for a plain backoff (0.5 s doubling) to have grown to 16 s.
  const manifest = join(stack.profile, 'NativeMessagingHosts', 'dev.countersign.bridge.json');
  await rename(manifest, `${manifest}.away`);
  stack.killBridge();
  await expect(page.locator('#bridge-down')).toBeVisible();
  await page.waitForTimeout(20_000);
  await rename(`${manifest}.away`, manifest);
  const repairedAt = Date.now();
  await expect(page.locator('#bridge-down')).toBeHidden({ timeout: 10_000 });
  // Capped at 2 s while someone waits (plus the bridge's own start).
  expect(Date.now() - repairedAt).toBeLessThan(5_000);
  expect((await pending).status).toBe('unavailable');
  await agent.close();
  agent = await stack.agent('Desk agent');
  const again = ask(agent, op);
  await painted(page, id);
  await page.locator('#decline').click();
  expect((await again).status).toBe('declined');
});
