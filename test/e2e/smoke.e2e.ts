import { test, expect } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { launchWithExtension } from './support/chromium';
import { CHROMIUM_EXTENSION_ID } from '../../src/protocol/extension-identity';
import { versionAnswer } from '../../src/extension/runtime-messages';

const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };

test('the background worker starts in Debian Chromium and answers a version query', async () => {
  const ext = await launchWithExtension();
  try {
    // The manifest `key` pins the ID that native-host manifests list in allowed_origins.
    expect(ext.extensionId).toBe(CHROMIUM_EXTENSION_ID);
    const page = await ext.context.newPage();
    await page.goto(`chrome-extension://${ext.extensionId}/popup.html`);
    const raw = await page.evaluate(() =>
      (globalThis as unknown as { chrome: { runtime: { sendMessage(m: unknown): Promise<unknown> } } }).chrome.runtime.sendMessage({
        type: 'countersign/version',
      }),
    );
    const answer = versionAnswer.parse(raw);
    expect(answer.product).toBe('Countersign');
    expect(answer.version).toBe(version);
    await expect(page.locator('#app h1')).toHaveText('Countersign');
    await expect(page.locator('#app .version')).toHaveText(version);
  } finally {
    await ext.close();
  }
});
