import { test, expect, type Page } from '@playwright/test';
import { Stack, jacketOperation, STORMLINE, EXCHANGE_REQUEST } from './support/stack';

/**
 * The pages around the approval window, in the states a person meets them (docs/ui.md, "First
 * run" and "History"): the welcome page and the popup before the helper is installed, before any
 * agent is paired, with an agent offline, with an approval in progress; the options page with its
 * history and the confirmation before revoking. Screenshots in light and dark, axe on each.
 */
test.describe.configure({ mode: 'serial' });

const POPUP = { width: 400, height: 600 };
const PAGE = { width: 900, height: 700 };

async function open(stack: Stack, path: string, size: { width: number; height: number }, scheme: 'light' | 'dark' = 'light'): Promise<Page> {
  const page = await stack.extensionPage(path);
  await page.setViewportSize(size);
  await page.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' });
  await page.evaluate(() => document.body.style.setProperty('font-family', '"DejaVu Sans", sans-serif'));
  return page;
}

async function shot(page: Page, name: string): Promise<void> {
  // Times, versions and keys change from run to run; nothing else is masked. Their text is also
  // made the same in every run: its width (a fingerprint's letters too) moves the table columns.
  await page.evaluate(() => {
    for (const time of document.querySelectorAll('time')) time.textContent = 'Jan 1, 2026, 12:00 PM';
    for (const key of document.querySelectorAll('.fingerprint, .thumbprint, table.agents strong')) key.textContent = key.textContent.replace(/[A-Za-z0-9_-]/g, 'M');
  });
  const mask = [page.locator('time'), page.locator('.version'), page.locator('.fingerprint'), page.locator('table.agents strong'), page.locator('.thumbprint'), page.locator('.asker')];
  await expect(page).toHaveScreenshot(`${name}.png`, { mask, animations: 'disabled', caret: 'hide', maxDiffPixelRatio: 0.01, fullPage: true });
  const { default: AxeBuilder } = await import('@axe-core/playwright');
  const result = await new AxeBuilder({ page }).analyze();
  expect(result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), name).toEqual([]);
}

test('first run without the helper: the welcome page and the popup lead to the install command for this browser', async () => {
  const stack = await Stack.start({ installBridge: false });
  try {
    for (const scheme of ['light', 'dark'] as const) {
      const popup = await open(stack, '/popup.html', POPUP, scheme);
      const checklist = popup.getByTestId('checklist');
      await expect(checklist).toHaveAttribute('data-step', 'install');
      await expect(popup.getByTestId('install-command')).toHaveText('npx countersign-bridge install --browser chromium');
      await expect(popup.getByTestId('copy-command')).toHaveClass(/primary/);
      await shot(popup, `popup-install-${scheme}`);
      await popup.close();
    }
    const welcome = await open(stack, '/welcome.html', PAGE);
    await expect(welcome.getByTestId('checklist')).toHaveAttribute('data-step', 'install');
    await shot(welcome, 'welcome-install-light');
    await welcome.close();
  } finally {
    await stack.close();
  }
});

test('the helper installed, never paired, then paired but offline: two states, two sentences', async () => {
  const stack = await Stack.start();
  try {
    let popup = await open(stack, '/popup.html', POPUP);
    await expect(popup.getByTestId('checklist')).toHaveAttribute('data-step', 'pair');
    await shot(popup, 'popup-never-paired-light');
    const never = await popup.getByTestId('checklist').innerText();
    await popup.close();

    const agent = await stack.pairedAgent('Desk agent');
    await agent.close();
    await expect.poll(async () => {
      const p = await open(stack, '/popup.html', POPUP);
      const shown = await p.getByTestId('offline').count();
      await p.close();
      return shown;
    }, { timeout: 10_000 }).toBe(1);
    popup = await open(stack, '/popup.html', POPUP);
    await expect(popup.getByTestId('checklist')).toHaveCount(0);
    const offline = await popup.getByTestId('offline').innerText();
    expect(offline).not.toBe(never);
    expect(offline).not.toContain('6-digit');
    await shot(popup, 'popup-offline-light');
    await popup.close();
  } finally {
    await stack.close();
  }
});

test('an approval in progress: the popup lists it with Withdraw; history rows; revoking asks first', async () => {
  const stack = await Stack.start();
  const agent = await stack.pairedAgent('Desk agent');
  try {
    const op = jacketOperation('rev1', 10 * 60_000, { operation_id: 'exc_pages1' });
    const pending = agent.requestApproval({ company: STORMLINE, operation: op, request: EXCHANGE_REQUEST, session: { kind: 'this_session' } });
    const window = await stack.approvalWindow();
    await window.locator('#content[data-painted-key*=" exc_pages1 "]').waitFor();
    await expect(window.locator('#approve')).toBeEnabled({ timeout: 3000 });
    await window.locator('#approve').click();
    expect((await pending).status).toBe('approved');

    for (const scheme of ['light', 'dark'] as const) {
      const popup = await open(stack, '/popup.html', POPUP, scheme);
      await expect(popup.getByTestId('in-progress')).toContainText('Stormline Outfitters');
      await expect(popup.getByTestId('withdraw')).toBeVisible();
      await shot(popup, `popup-in-progress-${scheme}`);
      await popup.close();
    }
    const popup = await open(stack, '/popup.html', POPUP);
    await popup.getByTestId('withdraw').click();
    await expect.poll(() => agent.isWithdrawn('exc_pages1', 'rev1')).toBe(true);
    await popup.close();

    const declined = jacketOperation('rev1', 10 * 60_000, { operation_id: 'exc_pages2' });
    const second = agent.requestApproval({ company: STORMLINE, operation: declined, request: EXCHANGE_REQUEST, session: { kind: 'this_session' } });
    const again = await stack.approvalWindow();
    await again.locator('#content[data-painted-key*=" exc_pages2 "]').waitFor();
    await again.locator('#decline').click();
    expect((await second).status).toBe('declined');

    for (const scheme of ['light', 'dark'] as const) {
      const options = await open(stack, '/options.html', PAGE, scheme);
      const rows = options.locator('#history li.row');
      await expect(rows).toHaveCount(2);
      await expect(rows.first()).toContainText('stormline.example');
      await expect(rows.first()).toContainText('$70.00');
      await shot(options, `options-history-${scheme}`);
      await options.close();
    }
    const options = await open(stack, '/options.html', PAGE);
    await options.getByRole('button', { name: /Revoke Desk agent/ }).click();
    await expect(options.getByTestId('confirm')).toBeVisible();
    await shot(options, 'options-revoke-confirm-light');
    await options.getByTestId('confirm-cancel').click();
    await expect(options.getByTestId('confirm')).toHaveCount(0);
    await options.close();
  } finally {
    await agent.close().catch(() => undefined);
    await stack.close();
  }
});
