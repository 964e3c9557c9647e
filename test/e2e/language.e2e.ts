import { test, expect, type Page } from '@playwright/test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Stack, jacketOperation, readToEnd, STORMLINE, EXCHANGE_REQUEST } from './support/stack';
import { EXTENSION_DIR } from './support/chromium';
import type { Companion } from '../../src/agent/index.ts';
// @ts-expect-error: a plain ES module script without types
import { pseudoBuild, PSEUDO_OPEN, PSEUDO_CLOSE } from '../../scripts/pseudo-locale.mjs';

/**
 * Every visible string comes from messages.json, and a longer language does not clip: the
 * extension is built once more with a pseudo-localised English (accented, 40 % longer, wrapped in
 * ⟦ ⟧), and every state of every page is searched for text without the marks. Text that is data
 * (a Company's words, names, amounts, times) is marked `data-value` by the page and skipped.
 */
test.describe.configure({ mode: 'serial' });

let stack: Stack;
let agent: Companion;
let folder: string;
let counter = 0;

test.beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'countersign-pseudo-'));
  const extensionDir = (await pseudoBuild(EXTENSION_DIR, join(folder, 'extension'))) as string;
  stack = await Stack.start({ extensionDir });
  agent = await stack.pairedAgent('Desk agent');
});
test.afterAll(async () => {
  await agent?.close().catch(() => undefined);
  await stack?.close();
  await rm(folder, { recursive: true, force: true });
});

/** Visible text (and labels a screen reader reads) that is neither a message nor marked as data. */
function untranslated(page: Page, marks: string[]): Promise<string[]> {
  return page.evaluate((marks) => {
    // A message around an element (a time inside a sentence) is split in two: each half has one mark.
    const marked = (text: string) => marks.some((m) => text.includes(m));
    const found: string[] = [];
    const visible = (el: Element) => el.checkVisibility({ contentVisibilityAuto: true, visibilityProperty: true });
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent?.trim() ?? '';
      const parent = node.parentElement;
      if (!text || !parent || parent.closest('[data-value], script, style, [aria-hidden="true"]') || !visible(parent)) continue;
      if (!marked(text)) found.push(text);
    }
    for (const el of document.querySelectorAll('[aria-label], [placeholder], [aria-description]')) {
      if (el.closest('[data-value]')) continue;
      for (const name of ['aria-label', 'placeholder', 'aria-description']) {
        const value = el.getAttribute(name);
        if (value && !/^[\d\s]*$/.test(value) && !marked(value)) found.push(`${name}="${value}"`);
      }
    }
    return found;
  }, marks);
}

/** Elements whose text is wider than their box (clipped or spilling), and a page wider than the window. */
function clipped(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    if (document.documentElement.scrollWidth > window.innerWidth + 1) found.push(`page is ${document.documentElement.scrollWidth}px wide in a ${window.innerWidth}px window`);
    for (const el of document.querySelectorAll<HTMLElement>('button, label, h1, h2, h3, p, dt, dd, li, summary, th, td')) {
      // Headings clamp long names on purpose (the full name is in their title); screen-reader-only text has no box.
      if (!el.checkVisibility({ contentVisibilityAuto: true, visibilityProperty: true }) || el.matches('.heading, .visually-hidden')) continue;
      if (el.scrollWidth > el.clientWidth + 1) found.push(`${el.tagName.toLowerCase()}#${el.id || el.className}: ${el.scrollWidth} > ${el.clientWidth}`);
    }
    return found;
  });
}

async function expectAllTranslated(page: Page, state: string): Promise<void> {
  expect(await untranslated(page, [PSEUDO_OPEN as string, PSEUDO_CLOSE as string]), `${state}: text not from messages.json`).toEqual([]);
  expect(await clipped(page), `${state}: clipped`).toEqual([]);
}

function ask(overrides: Record<string, unknown> = {}, inMs = 10 * 60_000, company = STORMLINE) {
  const op = jacketOperation('rev1', inMs, { operation_id: `exc_pl${++counter}`, ...overrides });
  return { op, pending: agent.requestApproval({ company, operation: op, request: EXCHANGE_REQUEST, session: { kind: 'signed_in', account: 'anna@example.com' } }) };
}

async function opened(operationId: string): Promise<Page> {
  const page = await stack.approvalWindow();
  await page.setViewportSize({ width: 520, height: 490 });
  await page.locator(`#content[data-painted-key*=" ${operationId} "]`).waitFor();
  return page;
}

test('the approval window in every state: no string outside messages.json, nothing clipped', async () => {
  // A summary longer than the window: its end is below the fold, so the read hint shows.
  const conditions = Array.from({ length: 12 }, (_, i) => `Condition ${i + 1} of the exchange of order ord_7Hk2.`).join('\n\n');
  const plain = ask({ summary: `Exchange the jacket for **$70.00** more.\n\n${conditions}` });
  let page = await opened(plain.op.operation_id);
  await expect(page.locator('#read-hint')).toBeVisible();
  await expectAllTranslated(page, 'pending, summary below the fold');
  await readToEnd(page);
  await expectAllTranslated(page, 'pending');
  await page.locator('details.technical > summary').click();
  await expectAllTranslated(page, 'technical details open');

  const danger = ask({ summary: 'Exchange the jacket for **$7.00** more.', terms: { order_id: 'ord_7Hk2', price_difference: { amount: '700.00', currency: 'USD' } } }, 10 * 60_000, { name: 'Stormline Outfitters', origin: 'https://stormline.example.checkout-secure.co' });
  await page.locator('#next').click();
  await page.locator(`#content[data-painted-key*=" ${danger.op.operation_id} "]`).waitFor();
  await expect(page.getByTestId('risk')).toBeVisible();
  await expectAllTranslated(page, 'danger, origin warning, queue of two');
  await page.locator('#decline-all').click();
  await expect(page.locator('#decline-all-confirm-box')).toBeVisible();
  await expectAllTranslated(page, 'decline-all confirmation');
  await page.locator('#decline-all-confirm').click();
  expect((await plain.pending).status).toBe('declined');
  expect((await danger.pending).status).toBe('declined');
  await expect(page.getByTestId('result')).toBeVisible();
  await expectAllTranslated(page, 'result card');

  const first = ask({}, 25_000);
  page = await opened(first.op.operation_id);
  const second = jacketOperation('rev2', 10 * 60_000, { operation_id: first.op.operation_id, terms: { ...first.op.terms, price_difference: { amount: '75.00', currency: 'USD' } }, summary: first.op.summary.replace('$70.00', '$75.00') });
  const secondAsk = agent.requestApproval({ company: STORMLINE, operation: second, request: EXCHANGE_REQUEST, session: { kind: 'this_session' } });
  await page.locator(`#content[data-painted-key$=" rev2"]`).waitFor();
  await expect(page.getByTestId('changed')).toBeVisible();
  await expectAllTranslated(page, 'changed revision, compact result above');
  await readToEnd(page);
  await page.locator('#approve').click();
  expect((await secondAsk).status).toBe('approved');
  await expect(page.locator('#withdraw')).toBeVisible();
  await expectAllTranslated(page, 'approved, waiting to be sent');
  await page.locator('#withdraw').click();
  await expect(page.getByTestId('result')).toHaveAttribute('data-state', 'withdrawn');
  await expectAllTranslated(page, 'withdrawn');
});

test('the pairing card, the popup, the options page and the welcome page: no string outside messages.json', async () => {
  const other = await stack.agent('Laptop agent');
  const { fingerprint, confirmed } = await other.pair();
  const page = await stack.approvalWindow();
  const card = page.getByTestId('pairing').filter({ hasText: fingerprint });
  await card.getByTestId('pair-code-input').fill('000 000');
  await expectAllTranslated(page, 'pairing');
  await card.locator('#pair-reject').click();
  await confirmed.catch(() => undefined);
  await other.close();
  for (const path of ['/popup.html', '/options.html', '/welcome.html']) {
    const target = await stack.extensionPage(path);
    await target.setViewportSize(path === '/popup.html' ? { width: 400, height: 600 } : { width: 900, height: 800 });
    await target.locator('main, #app').first().waitFor();
    await target.waitForTimeout(300);
    await expectAllTranslated(target, path);
    await target.close();
  }
});
