import { test, expect, type Page } from '@playwright/test';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Stack, pairCommand } from './support/stack';
import { createCompany } from '../../src/company/index';
import { gatewayConfigDir } from '../../src/gateway/countersign-link';

/**
 * countersign-mcp end to end, as a desktop MCP client runs it: an MCP SDK Client launches the
 * built `countersign-mcp` over stdio (as Claude Desktop would), which launches the upstream
 * (`@modelcontextprotocol/server-filesystem`, from npm) or reaches the reference Company's MCP
 * server over HTTP; the person answers in the real Countersign window in Chromium, by clicking.
 * Pairing goes through `countersign-mcp pair` and the code typed into the window.
 */
test.describe.configure({ mode: 'serial' });

const GATEWAY = resolve('dist/countersign-mcp.mjs');
const FILESYSTEM = resolve('node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');

let stack: Stack;
let company: Awaited<ReturnType<typeof createCompany>>;
let configDir: string;
let files: string;
const clients: Client[] = [];

function env(): Record<string, string> {
  return { ...(process.env as Record<string, string>), ...stack.env };
}

test.beforeAll(async () => {
  company = await createCompany({ port: 0 });
  stack = await Stack.start();
  configDir = join(stack.root, 'gateway');
  files = mkdtempSync(join(stack.root, 'files-'));
  writeFileSync(join(files, 'notes.txt'), 'notes of the day');
  // `countersign-mcp pair`, as a person runs it once: it prints the code; they type it in the window.
  const printed = await pairCommand(stack, [GATEWAY, 'pair', '--agent-name', 'Desk gateway', '--config-dir', configDir]);
  expect(printed).toContain('Paired as "Desk gateway".');
});

test.afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await stack?.close();
  await company?.close();
});

/** An MCP client launching the gateway over stdio. */
/** The tool-call journal of the paired agent name: each name has its own folder (docs/mcp-gateway.md). */
function journalFile(): string {
  return join(gatewayConfigDir(configDir, {}, 'Desk gateway'), 'gateway-calls.jsonl');
}

async function gateway(args: string[], dir = configDir): Promise<Client> {
  const client = new Client({ name: 'e2e-client', version: '0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [GATEWAY, '--agent-name', 'Desk gateway', '--config-dir', dir, ...args], env: env(), stderr: 'ignore' }));
  clients.push(client);
  return client;
}

const filesystem = () => gateway(['--', process.execPath, FILESYSTEM, files]);

/** The window's item, read to the end as a person must before Approve arms. */
async function openItem(text: string): Promise<Page> {
  const page = await stack.approvalWindow();
  await expect(page.getByTestId('summary')).toContainText(text, { timeout: 15_000 });
  await page.getByTestId('summary').evaluate((e) => e.scrollIntoView({ block: 'end' }));
  return page;
}

function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

test('write_file asks in Countersign as a tool call; Approve writes the file once', async () => {
  const client = await filesystem();
  const file = join(files, 'approved.txt');
  const call = client.callTool({ name: 'write_file', arguments: { path: file, content: 'approved by a person' } });
  const page = await openItem('write_file');
  await expect(page.getByTestId('item-kind')).toHaveText(/a tool call, not a request from a Company/);
  await expect(page.locator('#company-heading')).toHaveText('Create or replace the file approved.txt');
  await expect(page.getByTestId('server')).toContainText('secure-filesystem-server');
  await expect(page.getByTestId('server')).toContainText(FILESYSTEM);
  await expect(page.locator('h2', { hasText: 'Every argument of the call' })).toBeVisible();
  const content = page.getByTestId('argument').filter({ has: page.locator('.name', { hasText: /^content$/ }) });
  await expect(content.locator('.value')).toHaveText('approved by a person');
  await page.screenshot({ path: 'test-results/mcp-gateway-tool-call.png' });
  expect(existsSync(file)).toBe(false);
  // The filesystem server marks write_file destructive (MCP destructiveHint): a danger on the card,
  // so Decline leads and Approve waits for "I understand the risk".
  await expect(page.getByTestId('risk')).toContainText('The server marks this tool as destructive');
  await expect(page.locator('#approve')).toHaveText('Approve anyway · write file');
  await page.locator('#risk-ack-box').check();
  await page.locator('#approve:enabled').click();
  const result = (await call) as CallToolResult;
  expect(result.isError).not.toBe(true);
  expect(readFileSync(file, 'utf8')).toBe('approved by a person');
  const journal = readFileSync(journalFile(), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { status: string; tool: string });
  expect(journal.filter((e) => e.tool === 'write_file').map((e) => e.status)).toEqual(['approved', 'performed']);
});

test('write_file declined in the window: nothing is written, and the client is told plainly', async () => {
  const client = await filesystem();
  const file = join(files, 'declined.txt');
  const call = client.callTool({ name: 'write_file', arguments: { path: file, content: 'never' } });
  const page = await openItem('declined.txt');
  await page.locator('#decline').click();
  const result = (await call) as CallToolResult;
  expect(result.isError).toBe(true);
  expect(textOf(result)).toMatch(/You declined this tool call in Countersign\. Nothing was done/);
  expect(existsSync(file)).toBe(false);
});

test('a readOnlyHint tool runs without a prompt', async () => {
  const client = await filesystem();
  const result = (await client.callTool({ name: 'read_text_file', arguments: { path: join(files, 'notes.txt') } })) as CallToolResult;
  expect(textOf(result)).toContain('notes of the day');
});

test('the client cancelling the call withdraws the prompt from the window', async () => {
  const client = await filesystem();
  const controller = new AbortController();
  const file = join(files, 'cancelled.txt');
  const call = client.callTool({ name: 'write_file', arguments: { path: file, content: 'x' } }, undefined, { signal: controller.signal });
  const page = await openItem('cancelled.txt');
  controller.abort(new Error('the person pressed stop in the client'));
  await expect(call).rejects.toThrow();
  // After the gateway's grace for a retry (5 s), the prompt goes: nothing is left to approve.
  await expect(page.getByTestId('summary')).toHaveCount(0, { timeout: 15_000 });
  // The gateway journals the cancel once the withdrawn prompt has answered it.
  await expect.poll(() => readFileSync(journalFile(), 'utf8'), { timeout: 10_000 }).toContain('"status":"cancelled"');
  expect(existsSync(file)).toBe(false);
});

test('fails closed without Countersign: a gateway that is not paired calls nothing and names the fix', async () => {
  const unpaired = mkdtempSync(join(stack.root, 'unpaired-'));
  const client = await gateway(['--', process.execPath, FILESYSTEM, files], unpaired);
  const file = join(files, 'unpaired.txt');
  const result = (await client.callTool({ name: 'write_file', arguments: { path: file, content: 'x' } })) as CallToolResult;
  expect(result.isError).toBe(true);
  expect(textOf(result)).toContain('countersign-mcp pair');
  expect(textOf(result)).toContain('countersign-bridge doctor');
  expect(existsSync(file)).toBe(false);
  rmSync(unpaired, { recursive: true, force: true });
});

test('a call too large for the window to show whole is refused with ERR_TOOL_CALL_TOO_LARGE: nothing is asked, nothing written', async () => {
  const client = await filesystem();
  const file = join(files, 'too-large.txt');
  const args = { path: file, content: 'x', ...Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`extra_${i}`, i])) };
  const result = (await client.callTool({ name: 'write_file', arguments: args })) as CallToolResult;
  expect(result.isError).toBe(true);
  expect(textOf(result)).toContain('ERR_TOOL_CALL_TOO_LARGE');
  expect(textOf(result)).toContain('expected at most 256 arguments, got 302');
  expect(existsSync(file)).toBe(false);
});

const companyArgs = () => ['--url', `${company.url}/mcp`, '--company', '--header', `Poppy-Session: sess_${randomUUID().replace(/-/g, '')}`, '--header', 'Poppy-Version: 0.4', '--header', 'Authorization: Bearer tok_sam', '--session', 'signed-in:sam@example.com'];
const EXCHANGE = { order_id: 'ord_Sm41', item_id: 'itm_7Pq', replacement_sku: 'stormline-insulated-l' };
// Another action on the same item: a revision once declined stays declined (the agent's journal
// answers it without asking again), so the approve test asks about different terms.
const EXCHANGE_XL = { ...EXCHANGE, replacement_sku: 'stormline-insulated-xl' };

test('an operations v2 Company behind the gateway: declined, nothing is performed', async () => {
  const client = await gateway(companyArgs());
  const before = [...company.state.performed.values()].reduce((a, b) => a + b, 0);
  const call = client.callTool({ name: 'exchange_item', arguments: EXCHANGE });
  const page = await openItem('Stormline Insulated Jacket (L)');
  await expect(page.getByTestId('item-kind')).toHaveCount(0);
  await page.locator('#decline').click();
  const result = (await call) as CallToolResult;
  expect(result.isError).toBe(true);
  expect(textOf(result)).toMatch(/You declined this in Countersign\. Nothing was done/);
  expect([...company.state.performed.values()].reduce((a, b) => a + b, 0)).toBe(before);
});

test('an operations v2 Company behind the gateway: approved, its response dropped once, performed exactly once', async () => {
  const client = await gateway(companyArgs());
  company.faults.dropAfterPerform = 1;
  const call = client.callTool({ name: 'exchange_item', arguments: EXCHANGE_XL });
  const page = await openItem('Stormline Insulated Jacket (XL)');
  await expect(page.locator('#company-heading')).toHaveText(/Stormline Outfitters/);
  await page.screenshot({ path: 'test-results/mcp-gateway-company.png' });
  await page.locator('#approve:enabled').click();
  const result = (await call) as CallToolResult;
  expect(result.isError).not.toBe(true);
  expect(textOf(result)).toContain('for the Stormline Insulated Jacket (XL)');
  const performed = [...company.state.performed.entries()].filter(([, n]) => n > 0);
  expect(performed).toHaveLength(1);
  expect(performed[0]![1]).toBe(1);
  company.faults.reset();
});
