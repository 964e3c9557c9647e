import type { Page } from '@playwright/test';
import type { Stack } from '../test/e2e/support/stack';

/**
 * The pause before each sample "at rest". Back to back, a request arrives while the browser is
 * still closing the last sample's window and the worker is still settling its decline: traced,
 * the agent's message then reached the worker 11 to 17 ms after the agent wrote it, against 2 to 4
 * ms after a pause. Both sides of a ratio at rest pause alike.
 */
export const REST_MS = 400;

/**
 * A window of the approval window's size opened on `url` by the extension's worker, as the
 * approval window is: the page, and the wall clock just before `windows.create` was called.
 */
export async function openFromWorker(stack: Stack, url: string): Promise<{ page: Page; t0: number }> {
  const opened = stack.context.waitForEvent('page');
  const t0 = Date.now();
  await stack.worker.evaluate((u) => (globalThis as unknown as { chrome: { windows: { create(o: object): Promise<unknown> } } }).chrome.windows.create({ url: u, type: 'popup', width: 520, height: 720 }), url);
  return { page: await opened, t0 };
}
