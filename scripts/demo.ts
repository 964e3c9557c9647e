/**
 * `npm run demo`: the whole loop on this machine (README, first lines). The reference Company on
 * localhost, the bridge installed into a dedicated Chromium profile, Chromium with the extension,
 * an agent that pairs, then the seed's jacket exchange through the API, MCP and a conversation,
 * each approved by the person in Countersign's own window.
 *
 * With no display, Chromium runs headless and the demo clicks in the window itself (a real
 * click in the extension's page, logged as such) and saves screenshots; on a desktop the person
 * clicks (`--auto` clicks there too, `--fresh` forgets the earlier pairing).
 */
import { chromium, type BrowserContext, type Page } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { randomUUID } from 'node:crypto';
import { createCompany } from '../src/company/index';
import { Companion, formatPairingCode, performApi, performTool, performConversation, type FindOutcome, type PerformProgress } from '../src/agent/index';

const headed = !!process.env.DISPLAY || process.argv.includes('--headed');
const auto = !headed || process.argv.includes('--auto');
const root = process.env.COUNTERSIGN_DEMO_DIR ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'countersign-demo');
const profile = join(root, 'chromium-profile');
const shots = resolve('demo-output');
const say = (text: string) => console.log(`\x1b[1m›\x1b[0m ${text}`);
const step = (text: string) => console.log(`  ${text}`);

async function main(): Promise<void> {
  say('Starting the reference Company (Stormline Outfitters) on localhost');
  const company = await createCompany({ port: 0 });
  step(`${company.url}  (poppy.json: ${company.url}/.well-known/poppy.json)`);

  say('Installing countersign-bridge into a dedicated Chromium profile');
  await mkdir(join(profile, 'Default'), { recursive: true });
  await writeFile(join(profile, 'Default', 'Preferences'), JSON.stringify({ extensions: { ui: { developer_mode: true } } }));
  const runtime = process.env.XDG_RUNTIME_DIR ?? join(tmpdir(), `countersign-demo-run-${process.getuid?.() ?? 'user'}`);
  await mkdir(runtime, { recursive: true, mode: 0o700 });
  // This runtime folder is the demo's own: a socket left in it by an earlier run that was killed
  // answers nobody, and would make a second "running" extension for the agent to choose from.
  await rm(join(runtime, 'countersign'), { recursive: true, force: true });
  const env = { ...process.env, XDG_RUNTIME_DIR: runtime };
  step(execFileSync(process.execPath, [resolve('dist/countersign-bridge.mjs'), 'install', '--browser', 'chromium', '--user-data-dir', profile], { env, encoding: 'utf8' }).trim().split('\n').join('\n  '));

  say(`Launching Debian Chromium with Countersign (${headed ? 'headed' : 'headless: no display'})`);
  if (!headed) step('No display here, so nobody can click: the demo clicks in the Countersign window for you and saves screenshots in demo-output/. Run it on a desktop to approve yourself.');
  const ext = resolve('.output/chrome-mv3');
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.COUNTERSIGN_CHROMIUM ?? '/usr/bin/chromium',
    headless: !headed,
    env,
    viewport: null,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', `--disable-extensions-except=${ext}`, `--load-extension=${ext}`],
  });
  await mkdir(shots, { recursive: true });

  try {
    say('Connecting the agent to Countersign');
    const companion = await connectWithRetry(join(root, 'agent'), env);
    if (!companion.paired) {
      const { code, fingerprint, confirmed } = await companion.pair();
      say(`Pairing: type this code in the Countersign window: ${formatPairingCode(code)}`);
      step(`Countersign names this agent “Countersign demo agent” with key ${fingerprint}; the window shows the same key.`);
      if (auto) {
        await (await approvalWindow(context)).getByTestId('pair-code-input').fill(formatPairingCode(code));
        await click(context, '#pair-confirm', 'Pair', 'pairing');
      } else step('Type the code into the Countersign window and click “Pair”.');
      await confirmed;
      step('Paired: each side has pinned the other’s key.');
    } else {
      step('Already paired (from an earlier run): the keys are pinned.');
    }

    const progress = (label: string) => (e: PerformProgress) =>
      step(`[${label}] ${e.step}${e.operation_id ? ` ${e.operation_id}` : ''}${e.revision ? ` rev ${e.revision.slice(0, 18)}…` : ''}${e.state ? ` → ${e.state}` : ''}${e.detail ? `: ${e.detail}` : ''}`);
    const waitForPerson = (label: string) => {
      if (auto) void click(context, '#approve', 'Approve', label);
      else step('Approve it in the Countersign window (or Decline).');
    };
    const findOutcome = (orderId: string, headers: Record<string, string>): FindOutcome => async ({ operation }) => {
      const res = await fetch(`${company.url}/orders/${orderId}`, { headers });
      if (!res.ok) return undefined;
      const text = await res.text();
      return { performed: text.includes(String((operation.terms as { replacement_sku?: string } | undefined)?.replacement_sku ?? '\u0000')), evidence: text.slice(0, 200) };
    };

    // 1. API: Alex, signed in, exchanges the jacket on ord_7Hk2 (the seed's example).
    say('1/3 API: POST /orders/ord_7Hk2/exchanges (Alex, signed in)');
    const alex = { 'Poppy-Session': `sess_${randomUUID().replace(/-/g, '')}`, 'Poppy-Version': '0.4', Authorization: 'Bearer tok_alex' };
    const api = performApi({
      companion,
      company: { origin: company.url },
      session: { kind: 'signed_in', account: 'alex@example.com' },
      headers: alex,
      request: { method: 'POST', url: `${company.url}/orders/ord_7Hk2/exchanges`, body: { item_id: 'itm_4Qa', replacement_sku: 'stormline-insulated-m' } },
      findOutcome: findOutcome('ord_7Hk2', alex),
      onProgress: (e) => {
        progress('api')(e);
        if (e.step === 'operation') waitForPerson('api');
      },
    });
    report('API', await api);

    // 2. MCP: Sam, signed in, exchanges the jacket on ord_Sm41 through the exchange_item tool.
    say('2/3 MCP: tools/call exchange_item (Sam, signed in)');
    const sam = { 'Poppy-Session': `sess_${randomUUID().replace(/-/g, '')}`, 'Poppy-Version': '0.4', Authorization: 'Bearer tok_sam' };
    const mcp = performTool({
      companion,
      company: { origin: company.url },
      session: { kind: 'signed_in', account: 'sam@example.com' },
      headers: sam,
      tool: 'exchange_item',
      arguments: { order_id: 'ord_Sm41', item_id: 'itm_7Pq', replacement_sku: 'stormline-insulated-l' },
      findOutcome: findOutcome('ord_Sm41', sam),
      onProgress: (e) => {
        progress('mcp')(e);
        if (e.step === 'operation') waitForPerson('mcp');
      },
    });
    report('MCP', await mcp);

    // 3. Conversation: a guest order, asked in words; the Company Agent offers the operation.
    say('3/3 Conversation: “Please exchange the jacket on order ord_G5xa for the insulated one” (signed out)');
    const guest = { 'Poppy-Session': `sess_${randomUUID().replace(/-/g, '')}`, 'Poppy-Version': '0.4' };
    const created = (await (await fetch(`${company.url}/conversations`, { method: 'POST', headers: { ...guest, 'Content-Type': 'application/json' }, body: '{}' })).json()) as { id: string };
    const conv = performConversation({
      companion,
      company: { origin: company.url },
      session: { kind: 'this_session' },
      headers: guest,
      conversationId: created.id,
      message: { id: `msg_${randomUUID().replace(/-/g, '')}`, text: 'Please exchange the jacket on order ord_G5xa for the insulated one.' },
      findOutcome: findOutcome('ord_G5xa', guest),
      onProgress: (e) => {
        progress('conversation')(e);
        if (e.step === 'operation') waitForPerson('conversation');
      },
    });
    report('Conversation', await conv);

    const performed = [...company.state.performed.values()];
    say(`Done. The Company performed ${performed.length} operations, each ${performed.every((n) => n === 1) ? 'exactly once' : 'MORE THAN ONCE (bug!)'}.`);
    await companion.close();
  } finally {
    await context.close();
    await company.close();
  }
}

function report(label: string, result: { status: string }): void {
  step(`${label}: ${result.status}${result.status === 'performed' ? ' ✓' : ''}`);
  if (result.status !== 'performed') process.exitCode = 1;
}

async function connectWithRetry(configDir: string, env: NodeJS.ProcessEnv): Promise<Companion> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      return await Companion.connect({ agentName: 'Countersign demo agent', configDir, env });
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 300));
    }
  }
}

/** Clicks a button in the approval window as the person would (headless runs only). */
async function click(context: BrowserContext, selector: string, label: string, shot: string): Promise<void> {
  const page = await approvalWindow(context);
  const button = page.locator(selector);
  await button.waitFor({ state: 'visible' });
  // As a person would: read down to the end of the summary (Approve arms only once it was on screen).
  const summary = page.getByTestId('summary');
  if (selector === '#approve' && (await summary.count()) > 0) await summary.evaluate((el) => el.scrollIntoView({ block: 'end' }));
  await page.waitForFunction((s) => !document.querySelector<HTMLButtonElement>(s)?.disabled, selector, { timeout: 10_000 });
  await page.screenshot({ path: join(shots, `${shot}.png`), fullPage: true });
  step(`(no display: clicking “${label}” in the Countersign window; screenshot demo-output/${shot}.png)`);
  await button.click();
}

async function approvalWindow(context: BrowserContext): Promise<Page> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const page = context.pages().find((p) => p.url().includes('/approve.html'));
    if (page) return page;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the approval window did not open');
}

if (process.argv.includes('--fresh')) await rm(root, { recursive: true, force: true });
await main();
