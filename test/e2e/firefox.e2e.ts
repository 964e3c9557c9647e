import { test, expect } from '@playwright/test';
import type { Page } from 'puppeteer-core';
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { FIREFOX_UUID, FirefoxStack, until } from './support/firefox';
import { jacketOperation, rawSocket, STORMLINE, EXCHANGE_REQUEST } from './support/stack';
import type { Companion } from '../../src/agent/index.ts';

/**
 * The Chromium end-to-end flows that Firefox can run, in Debian firefox-esr with the
 * Firefox MV3 build (event page), a real bridge and the SDK.
 */
test.describe.configure({ mode: 'serial' });

let stack: FirefoxStack;
let agent: Companion;
let counter = 0;

test.beforeAll(async () => {
  test.setTimeout(90_000);
  stack = await FirefoxStack.start();
  agent = await stack.pairedAgent('Firefox agent');
});
test.afterAll(async () => {
  await agent?.close().catch(() => undefined);
  await stack?.close();
});

function ask(a: Companion, operation: ReturnType<typeof jacketOperation>, request = EXCHANGE_REQUEST) {
  return a.requestApproval({ company: STORMLINE, operation, request, session: { kind: 'this_session' } });
}
const fresh = (inMs?: number) => jacketOperation('rev1', inMs, { operation_id: `exc_ff${++counter}` });

/** Waits until the window has painted this operation (it marks `${agent} ${operation_id} ${revision}`). */
async function waitShowing(page: Page, operationId: string): Promise<void> {
  await page.waitForSelector(`#content[data-painted-key*=" ${operationId} "]`, { timeout: 10_000 });
  expect(await text(page, '[data-testid="terms"]')).toContain('ord_7Hk2');
}
/**
 * As a person turns to the window. Headless firefox-esr 140.12 takes the focus from an open
 * approval window when the next request brings it forward (windows.update), so its document has
 * no focus and the Approve delay, which runs only while the window has it, never ends; a window
 * the person looks at has it.
 */
async function lookAt(page: Page): Promise<void> {
  await page.bringToFront();
}
async function approveWhenEnabled(page: Page): Promise<void> {
  await lookAt(page);
  // As a person would: read down to the end of the summary (Approve arms only once it was on screen).
  await page.$eval('[data-testid="summary"]', (el) => el.scrollIntoView({ block: 'end' }));
  await page.waitForSelector('#approve:not([disabled])', { timeout: 5000 });
  await page.click('#approve');
}
const text = (page: Page, selector: string) => page.$eval(selector, (el) => el.textContent ?? '');

test('Firefox: pair, then a trusted click approves and the SDK verifies the signed decision', async () => {
  const op = fresh();
  const pending = ask(agent, op);
  const page = await stack.approvalWindow();
  await waitShowing(page, op.operation_id);
  expect(await text(page, '[data-testid="summary"] strong')).toBe('$70.00');
  expect(await page.$eval('#approve', (b) => (b as HTMLButtonElement).disabled)).toBe(true);
  await approveWhenEnabled(page);
  const result = await pending;
  expect(result.status).toBe('approved');
  if (result.status === 'approved') expect(result.decision.operation_id).toBe(op.operation_id);
});

test('Firefox: decline', async () => {
  const op = fresh();
  const pending = ask(agent, op);
  const page = await stack.approvalWindow();
  await waitShowing(page, op.operation_id);
  await page.click('#decline');
  expect((await pending).status).toBe('declined');
});

test('Firefox: expiry', async () => {
  const op = fresh(2500);
  const pending = ask(agent, op);
  const page = await stack.approvalWindow();
  await waitShowing(page, op.operation_id);
  expect((await pending).status).toBe('expired');
});

test('Firefox: a new revision supersedes the pending one and shows what changed', async () => {
  const first = fresh();
  const p1 = ask(agent, first);
  const page = await stack.approvalWindow();
  await waitShowing(page, first.operation_id);
  const second = { ...first, revision: 'rev2', summary: first.summary.replace(/\(M\)/g, '(L)'), terms: { ...first.terms, replacement_sku: 'stormline-insulated-l' } };
  const p2 = ask(agent, second, { ...EXCHANGE_REQUEST, body: { item_id: 'itm_4Qa', replacement_sku: 'stormline-insulated-l' } });
  expect((await p1).status).toBe('superseded');
  await page.waitForSelector('[data-testid="diff"] ins');
  expect(await text(page, '[data-testid="diff"] ins')).toBe('L');
  await approveWhenEnabled(page);
  expect((await p2).status).toBe('approved');
});

test('Firefox: withdraw before the agent sent it', async () => {
  const op = fresh();
  const pending = ask(agent, op);
  const page = await stack.approvalWindow();
  await waitShowing(page, op.operation_id);
  await approveWhenEnabled(page);
  const result = await pending;
  expect(result.status).toBe('approved');
  if (result.status !== 'approved') return;
  await page.waitForSelector('#withdraw:not([hidden])');
  await page.click('#withdraw');
  await expect.poll(() => agent.isWithdrawn(op.operation_id, 'rev1')).toBe(true);
  expect(await agent.markSent(result.approval)).toBe(false);
});

test('Firefox: an unpaired agent is refused with a typed error', async () => {
  const stranger = await stack.agent('Stranger', 'stranger');
  await stranger.close();
  await cp(join(stack.root, 'agents', 'Firefox-agent', 'extension-key.json'), join(stack.root, 'agents', 'stranger', 'extension-key.json'));
  const again = await stack.agent('Stranger', 'stranger');
  await expect(ask(again, fresh())).rejects.toMatchObject({ code: 'ERR_AGENT_NOT_PAIRED' });
  await again.close();
});

test('Firefox: malformed messages get typed errors', async () => {
  const raw = await rawSocket(await stack.socket());
  raw.send('{not json');
  raw.send(JSON.stringify({ type: 'approval_request', v: 2, id: 'x2', nonce: 'A'.repeat(43), company: STORMLINE, operation: jacketOperation(), request: EXCHANGE_REQUEST, session: { kind: 'this_session' } }));
  await expect.poll(() => raw.replies.filter((r) => (r as { type: string }).type === 'error').length).toBeGreaterThanOrEqual(2);
  const codes = raw.replies.filter((r) => (r as { type: string }).type === 'error').map((r) => (r as { code: string }).code);
  expect(codes).toEqual(expect.arrayContaining(['ERR_FRAME_INVALID', 'ERR_AUTH_FAILED']));
  raw.close();
});

/**
 * The window's main states in Firefox, as screenshots at its opening size (docs/ui.md). Light
 * only: WebDriver BiDi has no colour-scheme emulation (the Chromium suite covers dark). Values
 * that change between runs (countdown, clock times, agent keys) are hidden before the picture,
 * the way the Chromium suite masks them.
 */
async function firefoxShot(page: Page, name: string): Promise<void> {
  await page.evaluate(() => {
    document.body.style.setProperty('font-family', '"DejaVu Sans", sans-serif');
    for (const el of document.querySelectorAll<HTMLElement>('#countdown, .fingerprint, time, [data-testid="pair-agent"]')) el.style.visibility = 'hidden';
  });
  await new Promise((r) => setTimeout(r, 300));
  expect(Buffer.from(await page.screenshot()), name).toMatchSnapshot(`firefox-${name}-light.png`, { maxDiffPixelRatio: 0.01 });
}

test('Firefox: the main states of the window match their screenshots (pending, danger, result)', async () => {
  const plain = fresh();
  const p1 = ask(agent, plain);
  const page = await stack.approvalWindow();
  // puppeteer sends the viewport and a screen orientation together; firefox-esr 140.12 takes the
  // viewport and answers the orientation with "unknown command", which is no failure here.
  // The window may still be taking the size the background opened it with: set the viewport
  // again until the page reports it.
  await expect(async () => {
    await page.setViewport({ width: 520, height: 490 }).catch((error: unknown) => {
      if (!(error instanceof Error && error.message.includes('setScreenOrientationOverride'))) throw error;
    });
    expect(await page.evaluate(() => [innerWidth, innerHeight])).toEqual([520, 490]);
  }).toPass({ timeout: 10_000 });
  await waitShowing(page, plain.operation_id);
  await lookAt(page);
  await page.$eval('[data-testid="summary"]', (el) => el.scrollIntoView({ block: 'end' }));
  await page.waitForSelector('#approve:not([disabled])', { timeout: 5000 });
  await page.$eval('#content', (el) => el.scrollTo(0, 0));
  await firefoxShot(page, 'pending');
  await page.click('#decline');
  expect((await p1).status).toBe('declined');
  await page.waitForSelector('[data-testid="result"]');
  await firefoxShot(page, 'result-declined');

  const danger = jacketOperation('rev1', 10 * 60_000, {
    operation_id: `exc_ff${++counter}`,
    summary: 'Exchange the jacket on order ord_7Hk2 for **$7.00** more.',
    terms: { order_id: 'ord_7Hk2', price_difference: { amount: '700.00', currency: 'USD' } },
  });
  const p2 = ask(agent, danger);
  await page.waitForSelector(`#content[data-painted-key*=" ${danger.operation_id} "]`, { timeout: 10_000 });
  await page.waitForSelector('[data-testid="risk"]');
  expect(await text(page, '#approve')).toBe('Approve anyway · pay $700.00');
  await firefoxShot(page, 'danger');
  await page.click('#decline');
  expect((await p2).status).toBe('declined');
});

test('Firefox: passkeys are shown as unavailable in the options page, with the error Firefox ESR gives extension pages', async () => {
  // WebDriver BiDi may not navigate to an extension page: the extension's own window opens it.
  const opener = await stack.approvalWindow();
  await opener.evaluate(() => (globalThis as unknown as { browser: { tabs: { create(o: { url: string }): Promise<unknown> } } }).browser.tabs.create({ url: '/options.html' }));
  const page = await optionsPage();
  try {
    await until(page, (prefix) => document.querySelector('#passkey-status')?.textContent?.startsWith(prefix) === true, 'Passkeys are not available');
    // The reason is the browser's own: SecurityError for a page in front, NotAllowedError for one that is not.
    expect(await text(page, '#passkey-status')).toMatch(/^Passkeys are not available in this browser: (SecurityError|NotAllowedError): \S/);
    expect(await page.$eval('#passkey-register', (el) => (el as HTMLElement).hidden)).toBe(true);
    await page.screenshot({ path: 'test-results/passkey-firefox-unavailable.png' });
  } finally {
    await page.close();
  }
});

test('finding: Firefox opened 2 approval windows for 2 requests 100-250 ms apart; now one window shows both', async () => {
  test.setTimeout(120_000);
  type Runtime = { getURL(path: string): string; getContexts(filter: { contextTypes: string[] }): Promise<Array<{ windowId: number; documentUrl?: string }>>; sendMessage(m: unknown): Promise<unknown> };
  type Windows = { remove(id: number): Promise<void> };
  /** The windows showing the approval page, as the extension itself lists them. */
  const approvalWindows = (p: Page) =>
    p.evaluate(async () => {
      const runtime = (globalThis as unknown as { browser: { runtime: Runtime } }).browser.runtime;
      const url = runtime.getURL('/approve.html');
      return [...new Set((await runtime.getContexts({ contextTypes: ['TAB'] })).filter((c) => c.documentUrl?.startsWith(url)).map((c) => c.windowId))];
    });
  // The page asked closes its own window last, which ends the call (its context is gone).
  const closeAll = (p: Page) =>
    p
      .evaluate(async () => {
        const browser = (globalThis as unknown as { browser: { runtime: Runtime; windows: Windows & { getCurrent(): Promise<{ id: number }> } } }).browser;
        const url = browser.runtime.getURL('/approve.html');
        const own = (await browser.windows.getCurrent()).id;
        const ids = new Set((await browser.runtime.getContexts({ contextTypes: ['TAB'] })).filter((c) => c.documentUrl?.startsWith(url)).map((c) => c.windowId));
        for (const id of [...ids].filter((id) => id !== own)) await browser.windows.remove(id).catch(() => undefined);
        await browser.windows.remove(own);
      })
      .catch(() => undefined);
  // The race showed about one time in three on a loaded machine: every gap of the range, twice.
  const seen: Record<string, number> = {};
  for (const gap of [100, 150, 200, 250, 100, 150, 200, 250]) {
    // Start from no window, as after the person closed it.
    await closeAll(await stack.approvalWindow());
    await new Promise((r) => setTimeout(r, 300));
    const first = fresh();
    const second = fresh();
    const p1 = ask(agent, first);
    await new Promise((r) => setTimeout(r, gap));
    const p2 = ask(agent, second);
    const page = await stack.approvalWindow();
    // Long enough for a second window's page to load, had one been opened.
    await new Promise((r) => setTimeout(r, 2500));
    seen[`${gap} ms #${Object.keys(seen).length + 1}`] = (await approvalWindows(page)).length;
    await page.evaluate(() => (globalThis as unknown as { browser: { runtime: Runtime } }).browser.runtime.sendMessage({ type: 'countersign/decline-all', trusted: true }));
    expect((await p1).status).toBe('declined');
    expect((await p2).status).toBe('declined');
  }
  expect(Object.values(seen).every((n) => n === 1), JSON.stringify(seen)).toBe(true);
});

/** The options page the extension opened (found by its location, as approvalWindow finds the window). */
async function optionsPage(timeoutMs = 10_000): Promise<Page> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const page of await stack.browser.pages()) {
      const href = await Promise.race([page.evaluate(() => location.href).catch(() => ''), new Promise<string>((r) => setTimeout(() => r(''), 500))]);
      if (href === `moz-extension://${FIREFOX_UUID}/options.html`) return page;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the options page did not open');
}
