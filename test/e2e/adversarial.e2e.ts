import { test, expect, type Page } from '@playwright/test';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { resolve } from 'node:path';
import { Stack, jacketOperation, snapshotOf, readToEnd, STORMLINE, EXCHANGE_REQUEST } from './support/stack';
import type { Companion } from '../../src/agent/index.ts';
import { isCountersignError } from '../../src/protocol/errors.ts';
import { MAX_TOOL_ARGUMENTS } from '../../src/protocol/tool-call.ts';
import { digestToolArguments } from '../../src/protocol/tool-call-revision.ts';

/**
 * The adversarial pass, end to end: real Debian Chromium with the built extension, the real
 * bridge, the real SDK, and a second, hostile agent as its own process (support/hostile-agent.ts).
 * Each finding of the attacker's review is a test here, clicked and typed as a person (or an
 * attacker driving the mouse) would.
 */
test.describe.configure({ mode: 'serial' });

let stack: Stack;
let desk: Companion;
let counter = 0;
const hostiles: ChildProcessWithoutNullStreams[] = [];

test.beforeAll(async () => {
  stack = await Stack.start();
  desk = await stack.pairedAgent('Desk agent');
});
test.afterAll(async () => {
  for (const h of hostiles) h.kill();
  await desk?.close().catch(() => undefined);
  await stack?.close();
});

interface HostileEvent {
  event: string;
  code?: string;
  fingerprint?: string;
  offered?: number;
  refused?: string[];
}

/** Starts the hostile agent process; resolves its events one by one. */
function hostile(...args: string[]): { next(): Promise<HostileEvent>; stop(): void } {
  const child = spawn(process.execPath, ['--import', 'tsx', resolve('test/e2e/support/hostile-agent.ts'), ...args], {
    env: { ...process.env, ...stack.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  hostiles.push(child);
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  return {
    next: async () => {
      const line = await lines.next();
      if (line.done) throw new Error('the hostile agent ended');
      return JSON.parse(line.value) as HostileEvent;
    },
    stop: () => child.stdin.end(),
  };
}

function ask(a: Companion, operation: Record<string, unknown>, company: { name: string; origin: string } = STORMLINE) {
  return a.requestApproval({ company, operation: operation as ReturnType<typeof jacketOperation>, request: EXCHANGE_REQUEST, session: { kind: 'this_session' } });
}

function freshId(): string {
  return `exc_adv${++counter}`;
}

/** A real pointer click at the centre of an element, whatever its state: a trusted event, as a stray click is. */
async function mouseClick(page: Page, selector: string): Promise<void> {
  const box = await page.locator(selector).first().boundingBox();
  if (box) await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
}

async function pairedAgents(page: Page): Promise<Array<{ name: string; revokedAt?: number }>> {
  return (await snapshotOf(page)).agents;
}

/** The Companies of the items the window holds for one operation ID (read from the background's snapshot). */
async function activeOrigins(page: Page, operationId: string): Promise<string[]> {
  return (await snapshotOf(page)).active.filter((v) => v.operation.operation_id === operationId && v.state === 'pending').map((v) => v.company.origin).sort();
}

test('finding 1: a process named like a paired agent is refused before the person is asked', async () => {
  const h = hostile('pair', 'Desk agent');
  expect(await h.next()).toEqual({ event: 'refused', code: 'ERR_PAIRING_FAILED' });
  h.stop();
});

test('finding 1: stray clicks from the moment the window opens, and a held Enter, never pair; a wrong code is refused', async () => {
  const h = hostile('pair', 'Helper');
  const offered = await h.next();
  expect(offered.event).toBe('offered');
  const page = await stack.approvalWindow();
  const card = page.getByTestId('pairing').filter({ hasText: offered.fingerprint! });
  await card.waitFor();
  // Clicks every 50 ms over the first 1.5 s, where "The codes match: pair" used to be, and Enter held down.
  await page.keyboard.down('Enter');
  for (let i = 0; i < 30; i++) {
    await mouseClick(page, '#pair-confirm');
    await page.waitForTimeout(50);
  }
  await page.keyboard.up('Enter');
  await expect(card.locator('#pair-confirm')).toBeDisabled();
  expect((await pairedAgents(page)).map((a) => a.name)).toEqual(['Desk agent']);

  // A wrong code, typed and clicked once the gate is armed: refused, with the tries left.
  const wrong = offered.code === '000000' ? '111 111' : '000 000';
  await card.getByTestId('pair-code-input').fill(wrong);
  await card.locator('#pair-confirm:enabled').click();
  await expect(card).toContainText('2 tries left');
  expect((await pairedAgents(page)).map((a) => a.name)).toEqual(['Desk agent']);
  await card.locator('#pair-reject').click();
  expect(await h.next()).toEqual({ event: 'refused', code: 'ERR_PAIRING_FAILED' });
  h.stop();
});

test('finding 1: the right code typed at once still waits for the gate; the pairing card is screenshotted', async () => {
  const h = hostile('pair', 'Laptop agent');
  const offered = await h.next();
  const page = await stack.approvalWindow();
  const card = page.getByTestId('pairing').filter({ hasText: offered.fingerprint! });
  await card.waitFor();
  const shownAt = Date.now();
  await card.getByTestId('pair-code-input').fill(`${offered.code!.slice(0, 3)} ${offered.code!.slice(3)}`);
  await mouseClick(page, '#pair-confirm');
  // A click inside the 1 s arm delay does nothing (on a machine so slow that the click came later,
  // there is nothing to check here; the stray-click test above covers the gate with time-bounded clicks).
  if (Date.now() - shownAt < 900) expect((await pairedAgents(page)).some((a) => a.name === 'Laptop agent')).toBe(false);
  await expect(card.locator('#pair-confirm')).toBeEnabled({ timeout: 10_000 });
  await page.screenshot({ path: 'test-results/adversarial-pairing-typed-code.png', fullPage: true });
  await card.locator('#pair-confirm').click();
  expect(await h.next()).toEqual({ event: 'paired' });
  h.stop();
});

test('a pairing flood from a hostile process: capped, while the paired agent keeps working', async () => {
  const h = hostile('flood', '12');
  const flood = await h.next();
  expect(flood.event).toBe('flood');
  expect(flood.offered).toBe(3);
  // Refused by the bridge (at most 8 untrusted connections) or by the extension (3 pairings waiting).
  expect(flood.refused).toEqual(Array(9).fill('ERR_THROTTLED'));
  const op = jacketOperation('rev1', 10 * 60_000, { operation_id: freshId() });
  const pending = ask(desk, op);
  const page = await stack.approvalWindow();
  await page.locator(`#content[data-painted-key*=" ${op.operation_id} "]`).waitFor();
  // Three pairing cards come first; Approve arms once the person has scrolled to the summary's end.
  // A pairing card that arrives or goes above it moves that end, so the person scrolls again.
  await readToEnd(page, 15_000);
  await page.locator('#approve').click();
  expect((await pending).status).toBe('approved');
  h.stop();
  // The flood's connections closed: their pairings are gone from the window.
  await expect(page.getByTestId('pairing')).toHaveCount(0, { timeout: 10_000 });
});

test('finding 1: every prompt and the agents list tell two agents of one name apart by key', async () => {
  const page = await stack.extensionPage('options.html');
  // The person revokes the old "Desk agent" and pairs a new one under the same name: both rows stay.
  const old = (await pairedAgents(page)).find((a) => a.name === 'Laptop agent');
  expect(old).toBeDefined();
  await page.getByRole('button', { name: /Laptop agent/ }).click();
  await page.getByTestId('confirm-act').click();
  await expect.poll(async () => (await pairedAgents(page)).find((a) => a.name === 'Laptop agent')?.revokedAt).toBeDefined();
  const again = await stack.pairedAgent('Laptop agent');
  await page.reload();
  const rows = page.locator('#agents tr', { hasText: 'Laptop agent' });
  await expect(rows).toHaveCount(2);
  const keys = await rows.locator('td:nth-child(2) strong').allTextContents();
  expect(new Set(keys).size).toBe(2);
  expect(keys).toContain(again.fingerprint);
  await page.screenshot({ path: 'test-results/adversarial-two-agents-same-name.png', fullPage: true });

  const op = jacketOperation('rev1', 10 * 60_000, { operation_id: freshId() });
  const pending = ask(again, op);
  const window = await stack.approvalWindow();
  await window.locator(`#content[data-painted-key*=" ${op.operation_id} "]`).waitFor();
  await expect(window.getByTestId('agent')).toContainText(again.fingerprint);
  await window.locator('#decline').click();
  expect((await pending).status).toBe('declined');
  await again.close();
  await page.close();
});

test('finding 2: a future leap second counts down (not "Expired") and can be approved; decline all passes leap-second items', async () => {
  const op = jacketOperation('rev1', 0, { operation_id: freshId(), expires_at: '2099-12-31T23:59:60Z' });
  const pending = ask(desk, op);
  const page = await stack.approvalWindow();
  await page.locator(`#content[data-painted-key*=" ${op.operation_id} "]`).waitFor();
  await expect(page.locator('#countdown')).toContainText(/\d+ d/);
  await expect(page.locator('#approve')).toBeEnabled({ timeout: 10_000 });
  await page.locator('#approve').click();
  const result = await pending;
  expect(result.status).toBe('approved');

  const a = ask(desk, jacketOperation('rev1', 0, { operation_id: freshId(), expires_at: '2099-06-30T23:59:60Z' }));
  const b = ask(desk, jacketOperation('rev1', 0, { operation_id: freshId(), expires_at: '2099-12-31T23:59:60Z' }));
  await expect(page.locator('#decline-all')).toBeVisible();
  await page.locator('#decline-all').click();
  await page.locator('#decline-all-confirm').click();
  expect([(await a).status, (await b).status]).toEqual(['declined', 'declined']);
});

test('finding 4: another Company with the same operation ID and revision gets its own prompt; each answer reaches its own request', async () => {
  const id = freshId();
  const fromA = ask(desk, jacketOperation('rev1', 10 * 60_000, { operation_id: id }));
  const page = await stack.approvalWindow();
  await page.locator(`#content[data-painted-key*=" ${id} "]`).waitFor();
  const northwind = { name: 'Northwind Traders', origin: 'https://northwind.example' };
  const fromB = ask(desk, jacketOperation('rev1', 10 * 60_000, { operation_id: id, summary: 'Charge **$700.00** to the card on file.', terms: { charge: { amount: '700.00', currency: 'USD' } } }), northwind);
  await expect.poll(() => activeOrigins(page, id)).toEqual([STORMLINE.origin, northwind.origin].sort());
  // The window stays on A (the item being read); approve it.
  await expect(page.locator('#content')).toContainText(STORMLINE.name);
  await expect(page.locator('#approve')).toBeEnabled({ timeout: 10_000 });
  await page.locator('#approve').click();
  const a = await fromA;
  expect(a.status).toBe('approved');
  if (a.status === 'approved') expect(a.decision.company).toEqual(STORMLINE);
  await expect(page.locator('#content')).toContainText('Northwind Traders');
  await page.locator('#decline').click();
  expect((await fromB).status).toBe('declined');
});

test('finding 3: a summary that misstates the money is flagged, never "agrees", and the last line shows the terms\' amount', async () => {
  const op = jacketOperation('rev1', 10 * 60_000, {
    operation_id: freshId(),
    summary: '**Free exchange. You pay $0.00.**\n\n- Ref 700.00 USD',
    terms: { order_id: 'ord_7Hk2', price_difference: { amount: '700.00', currency: 'USD' } },
  });
  const pending = ask(desk, op);
  const page = await stack.approvalWindow();
  await page.locator(`#content[data-painted-key*=" ${op.operation_id} "]`).waitFor();
  const findings = page.getByTestId('findings');
  await expect(findings.locator('.finding.danger').first()).toBeVisible();
  await expect(findings).not.toContainText('agree');
  await expect(page.locator('#approve')).toHaveText('Approve anyway · pay $700.00');
  await page.screenshot({ path: 'test-results/adversarial-misleading-summary.png', fullPage: true });
  await page.locator('#decline').click();
  expect((await pending).status).toBe('declined');
});

test('finding 6: a look-alike Company name and an origin that spells another domain are named in words', async () => {
  const op = jacketOperation('rev1', 10 * 60_000, { operation_id: freshId() });
  const spoof = { name: 'Stormline \u041Eutfitters', origin: 'https://stormline.example.checkout-secure.co' };
  const pending = ask(desk, op, spoof);
  const page = await stack.approvalWindow();
  await page.locator(`#content[data-painted-key*=" ${op.operation_id} "]`).waitFor();
  await expect(page.getByTestId('owner')).toHaveText(/checkout-secure\.co/);
  const warnings = page.getByTestId('findings');
  await expect(warnings).toContainText('Cyrillic');
  await expect(warnings).toContainText('stormline.example');
  await page.screenshot({ path: 'test-results/adversarial-lookalike-company.png', fullPage: true });
  await page.locator('#decline').click();
  expect((await pending).status).toBe('declined');
});

test('rapid clicks and a held Enter as an approval window opens and regains focus never approve', async () => {
  const op = jacketOperation('rev1', 10 * 60_000, { operation_id: freshId() });
  const pending = ask(desk, op);
  const page = await stack.approvalWindow();
  // Clicks every 50 ms for 0.7 s from the moment the item is on screen, and again for 0.7 s after
  // focus leaves and comes back, with Enter held down: all inside the 1 s arm delay, whatever the
  // machine's speed, because the loops are bounded by time, not by count.
  const clickFor = async (ms: number) => {
    const until = Date.now() + ms;
    while (Date.now() < until) {
      await mouseClick(page, '#approve');
      await page.waitForTimeout(50);
    }
  };
  await page.keyboard.down('Enter');
  await page.locator(`#content[data-painted-key*=" ${op.operation_id} "]`).waitFor();
  await clickFor(700);
  // Focus leaves and comes back (another window in front): the delay starts over.
  await page.evaluate(() => window.dispatchEvent(new Event('blur')));
  await page.evaluate(() => window.dispatchEvent(new Event('focus')));
  await clickFor(700);
  await page.keyboard.up('Enter');
  const state = await Promise.race([pending.then((r) => r.status), new Promise((r) => setTimeout(() => r('still waiting'), 300))]);
  expect(state).toBe('still waiting');
  await page.locator('#decline').click();
  expect((await pending).status).toBe('declined');
});

test.describe('the tool-call card: what is signed is on screen in full before Approve arms', () => {
  const server = { name: 'secure-filesystem-server', reached_by: { transport: 'stdio' as const, command: 'npx', args: ['@modelcontextprotocol/server-filesystem', '/home/sam'] } };
  /** Forty long, punctuation-heavy paths, then the one that matters, last. */
  const args: Record<string, string> = {};
  for (let i = 0; i < 40; i++) args[`add_path_${String(i).padStart(2, '0')}`] = `/home/sam/projects/{client-${i}}/src/[generated]/__snapshots__/report-(final)_v${i}.tar.gz`;
  args.also_delete = '/home/sam';

  test('finding 2: a path-heavy call shows every argument; Approve waits for the last one to be seen, then signs all of them', async () => {
    const asked = desk.requestToolCallApproval({ server, tool: 'move_files', arguments: args, expiresAt: new Date(Date.now() + 10 * 60_000) });
    const page = await stack.approvalWindow();
    const rows = page.getByTestId('argument');
    await expect(rows).toHaveCount(41, { timeout: 15_000 });
    const last = rows.last();
    await expect(last.locator('.name')).toHaveText('also_delete');
    await expect(last.locator('.value')).toHaveText('/home/sam');
    await expect(rows.first().locator('.value')).toHaveText(args.add_path_00!);
    await page.screenshot({ path: 'test-results/adversarial-tool-call-card-top.png' });
    // Well past the arm delay, with the end not yet on screen: Approve is not armed, and the window says why.
    await page.waitForTimeout(1500);
    await expect(last).not.toBeInViewport();
    await expect(page.locator('#approve')).toBeDisabled();
    await expect(page.locator('#read-hint')).toBeVisible();
    // The person scrolls to the end, as with the keyboard.
    await page.locator('#content').focus();
    await page.keyboard.press('End');
    await expect(last).toBeInViewport();
    await expect(page.locator('.tool-arguments .end')).toBeInViewport();
    await expect(page.locator('#approve')).toBeEnabled({ timeout: 10_000 });
    await page.screenshot({ path: 'test-results/adversarial-tool-call-card-end.png' });
    await page.locator('#approve').click();
    const result = await asked;
    expect(result.status).toBe('approved');
    // The SDK verified the decision against exactly these arguments: also_delete included.
    if (result.status !== 'approved') return;
    expect(result.decision.arguments_sha256).toBe(await digestToolArguments(args));
    // As the gateway does: marked sent, then its outcome, so the item leaves the window.
    expect(await desk.markToolCallSent(result)).toBe(true);
    await desk.reportToolCallOutcome({ callId: result.callId, revision: result.revision, outcome: 'performed' });
  });

  test('a call too large to show whole is refused with ERR_TOOL_CALL_TOO_LARGE, and no window item appears', async () => {
    const many = Object.fromEntries(Array.from({ length: MAX_TOOL_ARGUMENTS + 1 }, (_, i) => [`k${i}`, i]));
    const error = await desk.requestToolCallApproval({ server, tool: 'move_files', arguments: many, expiresAt: new Date(Date.now() + 60_000) }).catch((e: unknown) => e);
    expect(isCountersignError(error, 'ERR_TOOL_CALL_TOO_LARGE')).toBe(true);
    const page = await stack.extensionPage('popup.html');
    expect((await snapshotOf(page)).active.filter((v) => v.company.name === server.name && v.state === 'pending')).toHaveLength(0);
    await page.close();
  });
});

test.describe('the changed banner and the key facts: every change and every amount on screen whole', () => {
  /** Two payout accounts of 70 characters that share their first 60. */
  const shared = `DE89 3704 0044 0532 0130 00 ${'X'.repeat(32)}`;
  const oldAccount = `${shared}OLD-ACCOUNT`;
  const newAccount = `${shared}ATTACKER-01`;

  test('finding 7: a new revision names every change whole; "and 2 more changes" opens the rest in the window', async () => {
    const first = jacketOperation('rev1', 10 * 60_000, { operation_id: freshId() });
    const terms = { ...first.terms, payout_account: oldAccount, fee_rate: 0.0003, refs: { a: 'r_1', b: 'r_2', c: 'r_3' } };
    const firstAsk = ask(desk, { ...first, terms });
    const page = await stack.approvalWindow();
    await page.locator(`#content[data-painted-key*=" ${first.operation_id} "]`).waitFor();
    const changed = { ...terms, payout_account: newAccount, fee_rate: 0.0004, price_difference: { amount: '700.00', currency: 'USD' }, refs: { a: 'r_9', b: 'r_8', c: 'r_3' } };
    const secondAsk = ask(desk, { ...first, revision: 'rev2', terms: changed });
    expect((await firstAsk).status).not.toBe('approved');
    await page.locator(`#content[data-painted-key$=" rev2"]`).waitFor();
    const banner = page.getByTestId('changed');
    await expect(banner.locator('.changes').first().locator('li')).toHaveText([
      'Price difference $70.00 → $700.00',
      `Payout account ${oldAccount} → ${newAccount}`,
      'Fee rate 0.0003 → 0.0004',
    ]);
    const more = banner.getByTestId('more-changes');
    await expect(more.locator('li').first()).toBeHidden();
    // The summary read to its end and the risk acknowledged, well past the arm delay: Approve still
    // waits for the changes the banner does not list, and says so.
    await page.getByTestId('summary').evaluate((el) => el.scrollIntoView({ block: 'end' }));
    await page.locator('#risk-ack-box').check();
    await page.waitForTimeout(1500);
    await expect(page.locator('#approve')).toBeDisabled();
    await expect(page.locator('#read-hint')).toHaveText('Open the other changes at the top to approve');
    await more.locator('summary').click();
    await expect(more.locator('li')).toHaveText(['Refs A r_1 → r_9', 'Refs B r_2 → r_8']);
    await expect(more.locator('li').last()).toBeVisible();
    await page.screenshot({ path: 'test-results/adversarial-changed-banner.png' });
    await expect(page.locator('#approve')).toBeEnabled({ timeout: 10_000 });
    await expect(page.locator('#read-hint')).toBeHidden();
    await page.locator('#decline').click();
    expect((await secondAsk).status).toBe('declined');
  });

  test('finding 5: an amount with 101 decimals is shown as written, with a danger, and the other facts stay', async () => {
    const huge = `700.${'0'.repeat(100)}1`;
    const op = jacketOperation('rev1', 10 * 60_000, {
      operation_id: freshId(),
      summary: `Exchange the Stormline Jacket (M) on order ord_7Hk2 for $${huge} more.`,
      terms: { order_id: 'ord_7Hk2', item_id: 'itm_4Qa', price_difference: { amount: huge, currency: 'USD' } },
    });
    const pending = ask(desk, op);
    const page = await stack.approvalWindow();
    await page.locator(`#content[data-painted-key*=" ${op.operation_id} "]`).waitFor();
    await expect(page.getByTestId('money')).toHaveText(`${huge} USD`);
    await expect(page.getByTestId('terms')).toContainText('ord_7Hk2');
    await expect(page.getByTestId('risk')).toBeVisible();
    await expect(page.getByTestId('findings').locator('.finding.danger')).toContainText([`${huge} USD`]);
    // An amount shown as written is never put on the button: the facts say it, digit by digit.
    await expect(page.locator('#approve')).toHaveText('Approve anyway');
    await page.screenshot({ path: 'test-results/adversarial-unformatted-amount.png', fullPage: true });
    await page.locator('#decline').click();
    expect((await pending).status).toBe('declined');
  });
});

test.describe('the terms review: held-out misleading summaries', () => {
  test('finding 9 and finding 8: "seven dollars" and a minus sign beside terms in "usd" are dangers in the window, and Approve names $700.00', async () => {
    const op = jacketOperation('rev1', 10 * 60_000, {
      operation_id: freshId(),
      summary: 'Upgrade to the Stormline Insulated Jacket (M) on order ord_7Hk2 for seven dollars.\n\nReference: -$700.00',
      terms: { order_id: 'ord_7Hk2', price_difference: { amount: '700.00', currency: 'usd' } },
    });
    const pending = ask(desk, op);
    const page = await stack.approvalWindow();
    await page.locator(`#content[data-painted-key*=" ${op.operation_id} "]`).waitFor();
    const dangers = page.getByTestId('findings').locator('.finding.danger');
    await expect(dangers.filter({ hasText: '"seven dollars"' })).toBeVisible();
    await expect(dangers.filter({ hasText: '"-$700.00" as money you get or do not pay' })).toBeVisible();
    await expect(page.getByTestId('findings')).not.toContainText('agree');
    await expect(page.locator('#approve')).toHaveText('Approve anyway · pay $700.00');
    await page.screenshot({ path: 'test-results/adversarial-heldout-summary.png', fullPage: true });
    await page.locator('#decline').click();
    expect((await pending).status).toBe('declined');
  });
});

test.describe('the bridge under a flood: a process that never authenticates', () => {
  const MB = 1024 * 1024;
  const bridgeRssOfStack = async () => (await import('./support/socket-flood')).bridgeRss(stack.root);

  /** `n` prompts of the paired agent, each from requestApproval until its summary is painted (ms), each declined. */
  async function prompts(n: number): Promise<number[]> {
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      const op = jacketOperation('rev1', 10 * 60_000, { operation_id: freshId() });
      const t0 = Date.now();
      const pending = ask(desk, op);
      const page = await stack.approvalWindow(30_000);
      await page.locator(`#content[data-painted-key*=" ${op.operation_id} "]`).waitFor({ timeout: 30_000 });
      times.push(Date.now() - t0);
      await page.locator('#decline').click();
      expect((await pending).status).toBe('declined');
    }
    return times.sort((a, b) => a - b);
  }

  test('finding 1 (flood): 1 MB frames before authentication on four connections; every prompt of the paired agent arrives, nothing reaches the person, the bridge stays small', async () => {
    test.setTimeout(180_000);
    const calm = await prompts(7);
    const before = await bridgeRssOfStack();
    const h = hostile('frames', '4');
    expect((await h.next()).event).toBe('flooding');
    await new Promise((r) => setTimeout(r, 1000));
    const flooded = await prompts(7);
    const during = await bridgeRssOfStack();
    h.stop();
    const report = (await h.next()) as HostileEvent & { bytesSent?: number; connections?: number; codes?: Record<string, number> };
    expect(report.event).toBe('frames');
    // The flood ran the whole time, and the bridge refused its large frames unread.
    expect(report.bytesSent).toBeGreaterThan(16 * MB);
    expect(report.codes?.['ERR_FRAME_TOO_LARGE']).toBeGreaterThan(0);
    // A bridge that relays the flood grows by hundreds of MB in seconds (53 MB to 948 MB in the review):
    // it holds what the extension has not read yet, most of what was sent. This one holds none of it,
    // only read buffers awaiting the collector, about 4 % of what this machine managed to send
    // (test/adversarial/bridge-flood.test.ts says more).
    expect(during - before).toBeLessThan(Math.max(192 * MB, (report.bytesSent ?? 0) / 16));
    // Nothing of it is in front of the person: only hellos were relayed, and no pairing was asked.
    const page = await stack.approvalWindow();
    await expect(page.getByTestId('pairing')).toHaveCount(0);
    const p = (xs: number[], q: number) => xs[Math.min(xs.length - 1, Math.floor(q * xs.length))];
    const line = `time to window p50 ${p(flooded, 0.5)} ms, p99 ${p(flooded, 0.99)} ms under the flood vs p50 ${p(calm, 0.5)} ms, p99 ${p(calm, 0.99)} ms without; bridge RSS ${(before / MB).toFixed(1)} MB before, ${(during / MB).toFixed(1)} MB during; the flood sent ${((report.bytesSent ?? 0) / MB).toFixed(0)} MB on ${report.connections} connections`;
    test.info().annotations.push({ type: 'flood', description: line });
    console.log(line);
  });
});
