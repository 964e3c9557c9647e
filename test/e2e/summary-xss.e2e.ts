import { test, expect, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { Stack, jacketOperation, STORMLINE, EXCHANGE_REQUEST } from './support/stack';
import { MAX_PENDING_PER_AGENT } from '../../src/extension/approval-queue';
import type { Companion } from '../../src/agent/index.ts';

/**
 * In a real extension page: every XSS corpus input whose payload mentions `alert`
 * (DOMPurify's own "xss subset") is shown as a summary in the approval window, with alert,
 * confirm, prompt and print stubbed and securitypolicyviolation listened for. Nothing may fire,
 * and the summary DOM holds only the allow-list.
 * Corpus: test/fixtures/xss (provenance and licences in its README).
 */
const corpus = JSON.parse(readFileSync('test/fixtures/xss/xss-inputs.json', 'utf8')) as { cases: Array<{ id: string; source: string; input: string }> };
const cases = corpus.cases.filter((c) => /alert/.test(c.input));

let stack: Stack;
let agent: Companion;
test.beforeAll(async () => {
  stack = await Stack.start();
  agent = await stack.pairedAgent('XSS agent');
});
test.afterAll(async () => {
  await agent?.close().catch(() => undefined);
  await stack?.close();
});

async function arm(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as Record<string, unknown> & { __fired: string[] };
    if (w.__fired) return;
    w.__fired = [];
    for (const name of ['alert', 'confirm', 'prompt', 'print']) w[name] = () => w.__fired.push(name);
    document.addEventListener('securitypolicyviolation', (e) => w.__fired.push(`csp:${(e).violatedDirective}`));
  });
}

test(`${cases.length} XSS payloads rendered as summaries in the approval window: nothing runs, nothing loads`, async () => {
  test.setTimeout(180_000);
  const dialogs: string[] = [];
  let checked = 0;
  for (let start = 0; start < cases.length; start += MAX_PENDING_PER_AGENT) {
    const batch = cases.slice(start, start + MAX_PENDING_PER_AGENT);
    const answers = batch.map((c, i) =>
      agent.requestApproval({
        company: STORMLINE,
        operation: jacketOperation('r1', 10 * 60_000, { operation_id: `xss_${start + i}`, summary: c.input, terms: undefined }),
        request: EXCHANGE_REQUEST,
        session: { kind: 'this_session' },
      }),
    );
    const page = await stack.approvalWindow();
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await arm(page);
    await expect(page.locator('#position')).toHaveText(`1 of ${batch.length}`, { timeout: 10_000 });
    for (let i = 0; i < batch.length; i++) {
      await expect(page.locator('#position')).toHaveText(`${i + 1} of ${batch.length}`);
      await page.waitForTimeout(100);
      const report = await page.evaluate(() => {
        const summary = document.querySelector('[data-testid="summary"]')!;
        const bad: string[] = [];
        for (const el of summary.querySelectorAll('*')) {
          if (!['P', 'EM', 'STRONG', 'UL', 'OL', 'LI'].includes(el.tagName)) bad.push(el.tagName);
          for (const a of el.attributes) if (!(el.tagName === 'OL' && a.name === 'start')) bad.push(`${el.tagName}@${a.name}`);
        }
        return { bad, text: summary.textContent ?? '', fired: (window as unknown as { __fired: string[] }).__fired.slice() };
      });
      expect(report.bad, batch[i]!.id).toEqual([]);
      expect(report.fired, batch[i]!.id).toEqual([]);
      // Hiding what the Company wrote is as wrong as running it: the tag's text stays readable.
      if (batch[i]!.input.includes('<')) expect(report.text, batch[i]!.id).toContain('<');
      checked++;
      if (i < batch.length - 1) await page.locator('#next').click();
    }
    await page.locator('#decline-all').click();
  await page.locator('#decline-all-confirm').click();
    for (const a of await Promise.all(answers)) expect(a.status).toBe('declined');
  }
  expect(dialogs).toEqual([]);
  expect(checked).toBe(cases.length);
});
