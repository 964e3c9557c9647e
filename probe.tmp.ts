import { Stack } from './test/e2e/support/stack';
const stack = await Stack.start();
const agent = await stack.agent('Probe');
const { code } = await agent.pair();
console.log('code', code);
const page = await stack.approvalWindow();
stack.worker.on('console', (m) => console.log('worker:', m.type(), m.text()));
const r = await page.evaluate(() => new Promise((resolve) => {
  const c = (globalThis as any).chrome;
  const port = c.runtime.connect({ name: 'approve-window' });
  port.onMessage.addListener((m: any) => resolve(JSON.stringify(m).slice(0, 600)));
  port.onDisconnect.addListener(() => resolve('disconnected ' + c.runtime.lastError?.message));
  setTimeout(() => resolve('timeout'), 3000);
}));
console.log(r);
const s = await page.evaluate(() => (globalThis as any).chrome.runtime.sendMessage({ type: 'countersign/snapshot' }));
console.log(JSON.stringify(s).slice(0, 400));
await agent.close(); await stack.close();
