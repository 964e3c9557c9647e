import { test, expect } from '@playwright/test';
import { Stack } from './support/stack';

test('popup without the bridge installed: the checklist says so once and shows the install command', async () => {
  const stack = await Stack.start({ installBridge: false });
  try {
    const popup = await stack.extensionPage('/popup.html');
    const checklist = popup.getByTestId('checklist');
    await expect(checklist).toHaveAttribute('data-step', 'install');
    await expect(checklist).toContainText('Install the helper');
    await expect(popup.getByTestId('install-command')).toHaveText('npx countersign-bridge install --browser chromium');
    // The diagnosis does not repeat what the checklist already says.
    await expect(popup.getByTestId('diagnosis')).not.toContainText('not installed');
  } finally {
    await stack.close();
  }
});
