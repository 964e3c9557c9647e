import { defineConfig } from '@playwright/test';

// Real Debian Chromium with the built extension (see test/e2e/support/chromium.ts).
// One worker: the machine has two cores and every test starts its own browser.
export default defineConfig({
  testDir: 'test/e2e',
  testMatch: /.*\.e2e\.ts$/,
  workers: 1,
  fullyParallel: false,
  retries: 0,
  timeout: 60_000,
  reporter: [['list']],
});
