import { test, expect } from '@playwright/test';
import { Stack } from './support/stack';

test('popup without the bridge installed: it says so and shows the install command', async () => {
  const stack = await Stack.start({ installBridge: false });
  try {
    const popup = await stack.extensionPage('/popup.html');
    await expect(popup.getByTestId('diagnosis')).toContainText('not installed');
    await expect(popup.getByTestId('diagnosis').locator('code')).toHaveText('countersign-bridge install --browser chromium');
  } finally {
    await stack.close();
  }
});
