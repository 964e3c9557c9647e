import { test, expect, type Page } from '@playwright/test';
import { Stack, jacketOperation, STORMLINE, EXCHANGE_REQUEST } from './support/stack';
import type { Companion } from '../../src/agent/index.ts';

/**
 * Every state of the approval window as the person sees it, at the window's opening size, in
 * light and dark (docs/ui.md). Each state is a real request from a real agent through the real
 * bridge; the baselines under experience.e2e.ts-snapshots/ were looked at one by one. Values that
 * change from run to run (countdowns, clock times, agent keys) are masked, nothing else.
 */
test.describe.configure({ mode: 'serial' });

/** The approval window's page at its opening size (520 × 560 outer, less the window's frame). */
export const OPENING = { width: 520, height: 490 };

let stack: Stack;
let agent: Companion;
let counter = 0;

test.beforeAll(async () => {
  stack = await Stack.start();
  agent = await stack.pairedAgent('Desk agent');
  const page = await stack.approvalWindow();
  await dismiss(page, 'paired');
});
test.afterAll(async () => {
  await agent?.close().catch(() => undefined);
  await stack?.close();
});

type Operation = ReturnType<typeof jacketOperation>;

function operation(overrides: Record<string, unknown> = {}, inMs = 10 * 60_000, revision = 'rev1'): Operation {
  return jacketOperation(revision, inMs, { operation_id: `exc_ux${++counter}`, ...overrides });
}

function ask(op: Operation, company: { name: string; origin: string } = STORMLINE, session: { kind: 'this_session' } | { kind: 'signed_in'; account?: string } = { kind: 'this_session' }) {
  return agent.requestApproval({ company, operation: op, request: EXCHANGE_REQUEST, session });
}

/** The window, painted with this operation, sized and coloured for a screenshot. */
async function windowFor(operationId: string | null, scheme: 'light' | 'dark' = 'light'): Promise<Page> {
  const page = await stack.approvalWindow();
  // In front, as a person looking at it: the arm delay runs only then, and the window stays open.
  await page.bringToFront();
  await page.setViewportSize(OPENING);
  // Drawn again at the opening size: what was on screen before the resize must not count as read.
  await page.reload();
  await page.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' });
  // Fixed fonts: the same faces on every machine that installs Debian's chromium.
  // (Set through the CSSOM: the page's CSP refuses inline style elements, as it should.)
  await page.evaluate(() => document.body.style.setProperty('font-family', '"DejaVu Sans", sans-serif'));
  if (operationId) await page.locator(`#content[data-painted-key*=" ${operationId} "]`).waitFor();
  return page;
}

const masks = (page: Page) => [page.locator('#countdown'), page.locator('.fingerprint'), page.locator('[data-testid="pair-agent"]'), page.locator('[data-testid="result"] time'), page.locator('.card.result .agent')];

/** The screenshot of a state, and axe on the same state: 0 violations in light and in dark. */
async function shot(page: Page, name: string): Promise<void> {
  await expect(page).toHaveScreenshot(`${name}.png`, { mask: masks(page), animations: 'disabled', caret: 'hide', maxDiffPixelRatio: 0.01 });
  const { default: AxeBuilder } = await import('@axe-core/playwright');
  const result = await new AxeBuilder({ page }).analyze();
  expect(result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), name).toEqual([]);
}

/** Close on the last card: the window closes itself, as nothing is left; wait until it has. */
async function dismiss(page: Page, card: 'result' | 'paired'): Promise<void> {
  const closed = page.waitForEvent('close');
  // The click closes the page under Playwright's feet: that is the expected end, not an error.
  await page.getByTestId(card).locator('button.close').click().catch((error: unknown) => {
    if (!page.isClosed()) throw error;
  });
  await closed;
}

/** The window at its opening size and at 125 % page zoom (the same window, 416 × 392 CSS px). */
const SIZES = [
  { name: 'opening', ...OPENING },
  { name: 'zoomed', width: 416, height: 392 },
] as const;

/** The footer's ceiling: two lines, the time left and what holds Approve back, then the buttons. */
const FOOTER_MAX = 90;

/**
 * The first-viewport rule, at both sizes: who asks, how much (when there is money), for whom,
 * both buttons on one line, a footer of at most 90 px, and the start of what will happen (the
 * summary, or a tool call's arguments) above the fold of the scrolling area.
 */
async function expectFirstViewport(page: Page, what: { money: boolean; company: boolean }, shotName?: string): Promise<void> {
  for (const size of SIZES) {
    await page.setViewportSize(size);
    await page.locator('#content').evaluate((el) => el.scrollTo(0, 0));
    if (shotName && size.name === 'zoomed') {
      // Not while the arm delay fills the button: the screenshot would depend on how far it ran.
      await expect(page.locator('#approve')).not.toHaveClass(/arming/, { timeout: 5000 });
      await shot(page, `${shotName}-zoomed-light`);
    }
    const main = (await page.locator('#content').boundingBox())!;
    const footer = (await page.locator('#actions').boundingBox())!;
    expect(footer.height, `${size.name}: the footer's height`).toBeLessThanOrEqual(FOOTER_MAX);
    const selectors = ['#company-heading', '[data-testid="for-whom"]', ...(what.company ? ['[data-testid="origin"] .registrable'] : []), ...(what.money ? ['[data-testid="money"]'] : [])];
    for (const selector of selectors) {
      const box = (await page.locator(selector).first().boundingBox())!;
      expect(box, `${size.name}: ${selector}`).not.toBeNull();
      expect(box.y, `${size.name}: ${selector} starts on screen`).toBeGreaterThanOrEqual(main.y);
      expect(box.y + box.height, `${size.name}: ${selector} above the fold`).toBeLessThanOrEqual(main.y + main.height);
    }
    const summary = (await page.getByTestId('summary').boundingBox())!;
    expect(summary.y + 24, `${size.name}: the summary starts above the fold`).toBeLessThanOrEqual(main.y + main.height);
    const approve = (await page.locator('#approve').boundingBox())!;
    const decline = (await page.locator('#decline').boundingBox())!;
    expect(Math.abs(approve.y - decline.y), `${size.name}: Approve and Decline on one line`).toBeLessThanOrEqual(2);
    expect(approve.x + approve.width, `${size.name}: Approve inside the window`).toBeLessThanOrEqual(size.width);
    // Approve's words are never cut: the button is as wide as its text.
    expect(await page.locator('#approve').evaluate((b) => b.scrollWidth <= b.clientWidth + 1), `${size.name}: Approve's words fit`).toBe(true);
  }
  await page.setViewportSize(OPENING);
}

test('the first viewport at 520 × 490 and at 125 % zoom (416 × 392), in every state: plain, danger, changed, queue, tool call', async () => {
  // Plain.
  const plain = operation();
  const plainAsk = ask(plain);
  let page = await windowFor(plain.operation_id);
  await expect(page.locator('#approve')).toHaveText('Approve · pay $70.00');
  await expectFirstViewport(page, { money: true, company: true }, 'pending');
  await page.locator('#decline').click();
  expect((await plainAsk).status).toBe('declined');
  await dismiss(page, 'result');

  // A danger banner, in the top finding's own words.
  const danger = operation({ summary: 'Exchange the jacket on order ord_7Hk2 for **$7.00** more.', terms: { order_id: 'ord_7Hk2', price_difference: { amount: '700.00', currency: 'USD' } } });
  const dangerAsk = ask(danger, STORMLINE, { kind: 'signed_in', account: 'anna@example.com' });
  page = await windowFor(danger.operation_id);
  await expect(page.getByTestId('risk')).toContainText('Price difference to $700.00');
  await expect(page.getByTestId('risk')).not.toContainText('price_difference');
  await expectFirstViewport(page, { money: true, company: true }, 'danger');
  await page.locator('#decline').click();
  expect((await dangerAsk).status).toBe('declined');
  await dismiss(page, 'result');

  // Changed while read.
  const first = operation();
  const firstAsk = ask(first);
  page = await windowFor(first.operation_id);
  const second = jacketOperation('rev2', 10 * 60_000, { operation_id: first.operation_id, summary: first.summary.replace('$70.00', '$75.00'), terms: { ...first.terms, price_difference: { amount: '75.00', currency: 'USD' } } });
  const secondAsk = ask(second);
  await firstAsk;
  await page.locator(`#content[data-painted-key$=" rev2"]`).waitFor();
  await expectFirstViewport(page, { money: true, company: true }, 'changed');
  await page.locator('#decline').click();
  expect((await secondAsk).status).toBe('declined');
  await dismiss(page, 'result');

  // A queue of three, with Decline all in the queue bar.
  const ops = [operation(), operation(), operation()];
  const asks = ops.map((op) => ask(op));
  page = await windowFor(null);
  await page.locator('#content[data-painted-key]').waitFor();
  await expectFirstViewport(page, { money: true, company: true }, 'queue');
  await page.locator('#decline-all').click();
  await expect(page.locator('#decline-all-confirm-box')).toBeVisible();
  expect((await page.locator('#actions').boundingBox())!.height).toBeLessThanOrEqual(FOOTER_MAX);
  await page.locator('#decline-all-confirm').click();
  for (const p of asks) expect((await p).status).toBe('declined');
  await dismiss(page, 'result');

  // A tool call: what will happen in plain words, the server once.
  const server = { name: 'secure-filesystem-server', reached_by: { transport: 'stdio' as const, command: 'npx', args: ['@modelcontextprotocol/server-filesystem', '/home/sam'] } };
  const call = agent.requestToolCallApproval({ server, tool: 'write_file', arguments: { path: '/home/sam/reports/quarterly-report.txt', content: 'Revenue: 4.2M\nCosts: 3.1M\n' }, expiresAt: new Date(Date.now() + 10 * 60_000) });
  page = await windowFor(null);
  await page.locator('#content[data-painted-key]').waitFor();
  await expect(page.locator('#company-heading')).toHaveText('Create or replace the file quarterly-report.txt');
  await expect(page.getByTestId('action-target')).toHaveText('/home/sam/reports/quarterly-report.txt');
  await expect(page.locator('#approve')).toHaveText('Approve · write file');
  expect((await page.locator('#content').textContent())!.split('npx @modelcontextprotocol/server-filesystem').length).toBe(2);
  await expectFirstViewport(page, { money: false, company: false }, 'tool-call');
  await page.locator('#decline').click();
  expect((await call).status).toBe('declined');
  await dismiss(page, 'result');
});

test('the queue emptied while the person looks elsewhere: the window closes itself a few seconds later', async () => {
  const op = operation();
  const pending = ask(op);
  const page = await windowFor(op.operation_id);
  await page.locator('#decline').click();
  expect((await pending).status).toBe('declined');
  await expect(page.getByTestId('result')).toBeVisible();
  const closed = page.waitForEvent('close', { timeout: 15_000 });
  // Headless Chromium keeps every window focused, so the person looking at another window is
  // played by the page's own focus query answering no.
  await page.evaluate(() => {
    document.hasFocus = () => false;
  });
  await closed;
});

/** The first-viewport rule: who, what, how much and for whom are on screen without scrolling. */
async function expectAnswersInFirstViewport(page: Page): Promise<void> {
  const viewport = page.viewportSize()!;
  const main = await page.locator('#content').boundingBox();
  for (const selector of ['#company-heading', '[data-testid="origin"] .registrable', '[data-testid="money"]', '[data-testid="for-whom"]', '#approve', '#decline']) {
    const box = await page.locator(selector).first().boundingBox();
    expect(box, selector).not.toBeNull();
    expect(box!.y, selector).toBeGreaterThanOrEqual(0);
    expect(box!.y + box!.height, `${selector} ends inside the window`).toBeLessThanOrEqual(viewport.height);
    if (!selector.startsWith('#approve') && !selector.startsWith('#decline')) expect(box!.y + box!.height, `${selector} above the fold of the scrolling area`).toBeLessThanOrEqual(main!.y + main!.height);
  }
}

for (const scheme of ['light', 'dark'] as const) {
  test(`${scheme}: a plain request answers who, what, how much and for whom in the first viewport`, async () => {
    const op = operation();
    const pending = ask(op);
    const page = await windowFor(op.operation_id, scheme);
    await expectAnswersInFirstViewport(page);
    // What happens, in the Company's words: the summary starts above the fold too.
    const summary = await page.getByTestId('summary').boundingBox();
    const main = await page.locator('#content').boundingBox();
    expect(summary!.y + 24).toBeLessThanOrEqual(main!.y + main!.height);
    await expect(page.getByTestId('money')).toHaveText('$70.00');
    await expect(page.getByTestId('for-whom')).toContainText('This conversation only');
    await expect(page.locator('#queue-bar')).toBeHidden();
    await expect(page.locator('#approve')).toBeEnabled({ timeout: 3000 });
    await shot(page, `pending-${scheme}`);
    await page.locator('#decline').click();
    expect((await pending).status).toBe('declined');
    await expect(page.getByTestId('result')).toContainText('You declined this');
    await shot(page, `result-declined-${scheme}`);
    await dismiss(page, 'result');
  });

  test(`${scheme}: a danger finding makes Decline the main button and Approve needs "I understand the risk"`, async () => {
    // The summary says $7.00; the terms charge 700.00 USD (amount-not-in-terms, a danger).
    const op = operation({
      summary: 'Exchange the jacket on order ord_7Hk2 for **$7.00** more.',
      terms: { order_id: 'ord_7Hk2', price_difference: { amount: '700.00', currency: 'USD' } },
    });
    const pending = ask(op, STORMLINE, { kind: 'signed_in', account: 'anna@example.com' });
    const page = await windowFor(op.operation_id, scheme);
    await expect(page.getByTestId('risk')).toBeVisible();
    await expect(page.locator('#decline')).toHaveClass(/primary/);
    await expect(page.locator('#approve')).toHaveText('Approve anyway · pay $700.00');
    await expectAnswersInFirstViewport(page);
    // Armed by time alone it stays off: the box must be ticked, and ticking starts the delay again.
    await page.waitForTimeout(1300);
    await expect(page.locator('#approve')).toBeDisabled();
    await shot(page, `danger-${scheme}`);
    await page.getByTestId('risk').getByRole('button', { name: 'Why?' }).click();
    await expect(page.locator('#risk-details')).toBeInViewport();
    await page.locator('#risk-ack-box').check();
    await expect(page.locator('#approve')).toBeDisabled();
    await expect(page.locator('#approve')).toBeEnabled({ timeout: 3000 });
    await page.locator('#decline').click();
    expect((await pending).status).toBe('declined');
    await dismiss(page, 'result');
  });
}

test('a new request: the window opens, and its notification comes, but no sooner than half a second after the request', async () => {
  type Notifications = { chrome: { notifications: { clear(id: string): Promise<boolean>; getAll(): Promise<Record<string, boolean>> } } };
  await stack.worker.evaluate(() => (globalThis as unknown as Notifications).chrome.notifications.clear('countersign-approval'));
  // Watched from the background itself, every 10 ms, from before the request.
  const seen = stack.worker.evaluate(async () => {
    const { notifications } = (globalThis as unknown as Notifications).chrome;
    for (const until = Date.now() + 10_000; Date.now() < until; await new Promise((r) => setTimeout(r, 10))) {
      if ((await notifications.getAll())['countersign-approval']) return Date.now();
    }
    return null;
  });
  const op = operation();
  const askedAt = Date.now();
  const pending = ask(op);
  const page = await windowFor(op.operation_id);
  const seenAt = await seen;
  expect(seenAt, 'a notification was shown').not.toBeNull();
  // Its icon is drawn in the background's thread, which must not compete with the window opening.
  expect(seenAt! - askedAt).toBeGreaterThanOrEqual(500);
  await page.locator('#decline').click();
  expect((await pending).status).toBe('declined');
});

test('an origin warning: the heading leads with the domain, not the claimed name', async () => {
  const op = operation();
  const pending = ask(op, { name: 'Stormline Outfitters', origin: 'https://stormline.example.checkout-secure.co' });
  const page = await windowFor(op.operation_id);
  await expect(page.locator('#company-heading')).toHaveText(/^checkout-secure\.co asks/);
  await expect(page.locator('.claims')).toContainText('Stormline Outfitters');
  await expect(page.getByTestId('risk')).toBeVisible();
  await shot(page, 'origin-warning-light');
  await page.emulateMedia({ colorScheme: 'dark' });
  await shot(page, 'origin-warning-dark');
  await page.locator('#decline').click();
  expect((await pending).status).toBe('declined');
  await dismiss(page, 'result');
});

test('a changed request says what changed: the banner and a word diff of the rendered summary', async () => {
  const first = operation();
  const firstAsk = ask(first);
  const page = await windowFor(first.operation_id);
  const second = jacketOperation('rev2', 10 * 60_000, {
    operation_id: first.operation_id,
    summary: first.summary.replace('$70.00', '$75.00'),
    terms: { ...first.terms, price_difference: { amount: '75.00', currency: 'USD' } },
  });
  const secondAsk = ask(second);
  expect((await firstAsk).status).not.toBe('approved');
  await page.locator(`#content[data-painted-key$=" rev2"]`).waitFor();
  await expect(page.getByTestId('changed')).toContainText('Price difference $70.00 → $75.00');
  await expect(page.getByTestId('diff').locator('ins')).toHaveText('$75.00');
  await expect(page.getByTestId('diff').locator('del')).toHaveText('$70.00');
  // Armed before the screenshots, so they do not depend on how far the arm delay has run.
  await expect(page.locator('#approve')).toBeEnabled({ timeout: 5000 });
  await shot(page, 'changed-light');
  await page.emulateMedia({ colorScheme: 'dark' });
  await shot(page, 'changed-dark');
  await page.locator('#decline').click();
  expect((await secondAsk).status).toBe('declined');
  await dismiss(page, 'result');
});

test('after Approve: "You approved this. Waiting for Desk agent to send it", no countdown, Withdraw', async () => {
  const op = operation();
  const pending = ask(op);
  const page = await windowFor(op.operation_id);
  await expect(page.locator('#approve')).toBeEnabled({ timeout: 3000 });
  await page.locator('#approve').click();
  const result = await pending;
  expect(result.status).toBe('approved');
  await expect(page.locator('#status')).toContainText('You approved this. Waiting for Desk agent to send it');
  await expect(page.locator('#countdown')).toBeHidden();
  await expect(page.locator('#withdraw')).toBeVisible();
  await shot(page, 'approved-waiting-light');
  await page.emulateMedia({ colorScheme: 'dark' });
  await shot(page, 'approved-waiting-dark');
  if (result.status !== 'approved') return;
  expect(await agent.markSent(result.approval)).toBe(true);
  await agent.reportOutcome({ ...result.approval, outcome: 'performed' });
  await expect(page.getByTestId('result')).toHaveAttribute('data-state', 'performed');
  await page.emulateMedia({ colorScheme: 'light' });
  await shot(page, 'result-performed-light');
  await dismiss(page, 'result');
});

test('three waiting: the queue bar, "Decline all (3)" asks first, then each leaves a trace', async () => {
  const ops = [operation(), operation(), operation()];
  const pendings = ops.map((op) => ask(op));
  const page = await windowFor(null);
  await expect(page.locator('#position')).toHaveText(/of 3/);
  await expect(page.locator('#queue-bar')).toBeVisible();
  await expect(page.locator('#decline-all')).toHaveText('Decline all (3)');
  await expect(page.locator('#queue-bar #decline-all')).toBeVisible();
  await expect(page.locator('#prev')).toHaveAttribute('aria-keyshortcuts', 'Alt+ArrowLeft');
  await page.locator('#content[data-painted-key]').waitFor();
  await shot(page, 'queue-light');
  await page.locator('#decline-all').click();
  await expect(page.locator('#decline-all-confirm-box')).toBeVisible();
  await expect(page.locator('#decline-all-question')).toHaveText('Decline all 3 waiting requests? Nothing will be approved.');
  // The question takes the buttons' place, and its confirm is no red button: declining is safe.
  await expect(page.locator('#buttons')).toBeHidden();
  await expect(page.locator('#decline-all-confirm')).toHaveText('Decline all 3');
  await expect(page.locator('#decline-all-confirm')).not.toHaveClass(/danger/);
  await shot(page, 'decline-all-confirm-light');
  await page.emulateMedia({ colorScheme: 'dark' });
  await shot(page, 'decline-all-confirm-dark');
  await page.locator('#decline-all-confirm').click();
  for (const p of pendings) expect((await p).status).toBe('declined');
  await expect(page.getByTestId('result')).toContainText('Declined 3 requests at');
  await shot(page, 'result-declined-all-dark');
  await dismiss(page, 'result');
});

test('the last 30 s: the countdown turns to a warning, announced once', async () => {
  const op = operation({}, 29_000);
  const pending = ask(op);
  const page = await windowFor(op.operation_id);
  await expect(page.locator('#countdown')).toHaveClass(/warning/);
  await expect(page.locator('#announce')).toContainText('Less than half a minute left');
  await shot(page, 'expiring-light');
  await page.locator('#decline').click();
  expect((await pending).status).toBe('declined');
  await dismiss(page, 'result');
});

test('an item that expires leaves a result card: "Expired at … nothing was approved"', async () => {
  const op = operation({}, 2500);
  const pending = ask(op);
  const page = await windowFor(op.operation_id);
  expect((await pending).status).toBe('expired');
  await expect(page.getByTestId('result')).toHaveAttribute('data-state', 'expired');
  await expect(page.getByTestId('result')).toContainText('nothing was approved. Your agent can ask again.');
  await shot(page, 'result-expired-light');
  await page.emulateMedia({ colorScheme: 'dark' });
  await shot(page, 'result-expired-dark');
  await dismiss(page, 'result');
});

test('a long summary: Approve arms only once its end has been on screen', async () => {
  const long = Array.from({ length: 40 }, (_, i) => `Line ${i + 1} of the conditions of the exchange of order ord_7Hk2.`).join('\n\n');
  const op = operation({ summary: `Exchange the jacket for **$70.00** more.\n\n${long}` });
  const pending = ask(op);
  const page = await windowFor(op.operation_id);
  await expect(page.locator('#read-hint')).toBeVisible();
  await page.waitForTimeout(1300);
  await expect(page.locator('#approve')).toBeDisabled();
  await shot(page, 'long-summary-light');
  await page.getByTestId('summary').evaluate((el) => el.scrollIntoView({ block: 'end' }));
  await expect(page.locator('#read-hint')).toBeHidden();
  await expect(page.locator('#approve')).toBeEnabled({ timeout: 3000 });
  await page.locator('#decline').click();
  expect((await pending).status).toBe('declined');
  await dismiss(page, 'result');
});

test('keyboard: the heading has focus on open; Escape puts the focus on Decline and decides nothing', async () => {
  const op = operation();
  const pending = ask(op);
  const page = await windowFor(op.operation_id);
  await expect(page.locator('#company-heading')).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(page.locator('#decline')).toBeFocused();
  await page.waitForTimeout(300);
  expect(await Promise.race([pending.then(() => 'decided'), new Promise((r) => setTimeout(() => r('waiting'), 200))])).toBe('waiting');
  await page.keyboard.press('Enter');
  expect((await pending).status).toBe('declined');
  await dismiss(page, 'result');
});

test('a pairing the person understands: name, the typed code grouped, what pairing allows; then paired', async () => {
  const second = await stack.agent('Laptop agent');
  const { code, fingerprint, confirmed } = await second.pair();
  const page = await windowFor(null);
  const card = page.getByTestId('pairing').filter({ hasText: fingerprint });
  await expect(card.locator('h1')).toHaveText('Pair “Laptop agent” with Countersign?');
  await expect(card).toContainText('it can never approve on its own');
  await card.getByTestId('pair-code-input').pressSequentially(code.slice(0, 4));
  await expect(card.getByTestId('pair-code-input')).toHaveValue(`${code.slice(0, 3)} ${code.slice(3, 4)}`);
  await card.getByTestId('pair-code-input').fill('');
  await card.getByTestId('pair-code-input').pressSequentially('123456');
  await shot(page, 'pairing-light');
  await page.emulateMedia({ colorScheme: 'dark' });
  await shot(page, 'pairing-dark');
  await card.getByTestId('pair-code-input').fill(`${code.slice(0, 3)} ${code.slice(3)}`);
  await card.locator('#pair-confirm:enabled').click();
  await confirmed;
  await expect(page.getByTestId('paired')).toContainText('“Laptop agent” is paired.');
  await page.emulateMedia({ colorScheme: 'light' });
  await shot(page, 'paired-light');
  await dismiss(page, 'paired');
  await second.close();
});

test('an agent gone offline: one notice, Decline still works', async () => {
  const other = await stack.pairedAgent('Phone agent');
  const op = operation();
  void other.requestApproval({ company: STORMLINE, operation: op, request: EXCHANGE_REQUEST, session: { kind: 'this_session' } }).catch(() => undefined);
  const page = await windowFor(op.operation_id);
  await other.close();
  await expect(page.locator('#agent-gone')).toBeVisible({ timeout: 10_000 });
  await expect(page.locator('#agent-gone')).toContainText('Phone agent is offline');
  await shot(page, 'agent-offline-light');
  await page.locator('#decline').click();
  await expect(page.getByTestId('result')).toContainText('You declined this');
});
