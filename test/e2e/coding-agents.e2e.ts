import { test, expect, type Locator, type Page } from '@playwright/test';
import { mkdtempSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Stack, pairCommand } from './support/stack';
import { hookCli, install, runAgent, timesRan, workspace, type Workspace } from '../coding-agents/support/clients';
import { ModelServer } from '../coding-agents/support/model-server';
import { EDITED, SHELL_MARKER } from '../coding-agents/support/scripted-calls';
import type { HookAgent } from '../../src/hook/hook-input';

/**
 * Coding agents end to end (docs/coding-agents.md): the real Claude Code and Codex CLIs (the
 * versions package.json pins) run headless against a scripted model, with the built
 * `countersign-hook` installed by `countersign-hook install` into their scratch HOME; the hook
 * is paired with the extension in Chromium as a person pairs it (`countersign-hook pair` prints a
 * code, the code is typed into the window), and every call is answered by a click in the window.
 */
test.describe.configure({ mode: 'serial' });

const HOOK = resolve('dist/countersign-hook.mjs');

let stack: Stack;
let model: ModelServer;
let configDir: string;

test.beforeAll(async () => {
  [stack, model] = await Promise.all([Stack.start(), ModelServer.start()]);
  configDir = mkdtempSync(join(stack.root, 'hook-'));
  await pairCommand(stack, [HOOK, 'pair', '--config-dir', configDir]);
});

test.afterAll(async () => {
  await Promise.all([stack?.close(), model?.close()]);
});

/** A scratch HOME and project for the CLI, the hook installed there by `countersign-hook install`. */
async function installed(agent: HookAgent): Promise<Workspace> {
  const ws = await workspace(agent, model, configDir);
  const run = await install(HOOK, ws);
  expect(run.code, run.stderr).toBe(0);
  const doctor = await hookCli(HOOK, ws, ['doctor', '--agent', agent, '--config-dir', configDir], { XDG_RUNTIME_DIR: stack.env.XDG_RUNTIME_DIR });
  expect(doctor.code, doctor.stderr).toBe(0);
  return ws;
}

/** The CLI's run, its hook reaching the browser's bridge (the CLI passes XDG_RUNTIME_DIR on). */
function runWithCountersign(ws: Workspace, calls: Parameters<ModelServer['play']>[0]) {
  return runAgent(ws, model, calls, { XDG_RUNTIME_DIR: stack.env.XDG_RUNTIME_DIR });
}

/**
 * The window's tool-call card naming `tool`, read to its end as a person must before Approve
 * arms. Screenshots (test-results/coding-agents-<shot>-*.png): the window as it opens, and the
 * whole list of arguments.
 */
async function openCard(tool: string, shot: string): Promise<Page> {
  const page = await stack.approvalWindow(20_000);
  await expect(page.getByTestId('summary')).toContainText(tool, { timeout: 20_000 });
  await expect(page.getByTestId('item-kind')).toHaveText(/a tool call, not a request from a Company/);
  await page.screenshot({ path: `test-results/coding-agents-${shot}-window.png` });
  // The whole card at once: the window made tall enough for every row, then as it was.
  const size = page.viewportSize() ?? { width: 1280, height: 720 };
  await page.setViewportSize({ width: size.width, height: 1800 });
  await page.screenshot({ path: `test-results/coding-agents-${shot}-card.png`, fullPage: true });
  await page.setViewportSize(size);
  await page.getByTestId('summary').evaluate((e) => e.scrollIntoView({ block: 'end' }));
  return page;
}

/**
 * The card's row named `name`: an argument of the call (`within` the page), or a member of the
 * value of the row `within` (tool-call-arguments.ts draws each object or list as rows of its own).
 */
function row(page: Page, name: string, within?: Locator): Locator {
  const rows = within === undefined ? page.getByTestId('arguments').locator(':scope > .member') : within.locator(':scope > .value > .nested > .members > .member');
  return rows.filter({ has: page.locator(':scope > .name', { hasText: new RegExp(`^${name}$`) }) });
}

/** The value shown in a row. */
const shown = (r: Locator): Locator => r.locator(':scope > .value');

test('Claude Code Bash: the card shows the command and its folder; Approve runs it exactly once', async () => {
  const ws = await installed('claude-code');
  const command = `echo ran >> ${SHELL_MARKER}`;
  const run = runWithCountersign(ws, [{ name: 'Bash', input: { command, description: 'leave a marker' } }]);
  const page = await openCard('Bash', 'claude-bash');
  await expect(page.locator('#company-heading')).toHaveText('Run a command on this computer');
  await expect(page.getByTestId('server')).toContainText('Claude Code');
  await expect(shown(row(page, 'command'))).toHaveText(command);
  await expect(shown(row(page, 'working_directory'))).toHaveText(ws.project);
  expect(await timesRan(join(ws.project, SHELL_MARKER))).toBe(0);
  await page.locator('#approve:enabled').click();
  const done = await run;
  expect(await timesRan(join(ws.project, SHELL_MARKER)), done.stdout + done.stderr).toBe(1);
});

test('Claude Code Edit: the card shows the diff; Decline leaves the file as it was, and the model is told', async () => {
  const ws = await installed('claude-code');
  const file = join(ws.project, EDITED);
  const before = readFileSync(file, 'utf8');
  const run = runWithCountersign(ws, [
    // Claude Code edits only a file read in the session; reading inside the project is allowed by default.
    { name: 'Read', input: { file_path: file } },
    { name: 'Edit', input: { file_path: file, old_string: 'old line', new_string: 'new line', replace_all: false } },
  ]);
  const page = await openCard('Edit', 'claude-edit');
  await expect(shown(row(page, 'action'))).toHaveText('edit');
  await expect(shown(row(page, 'path'))).toHaveText(file);
  await expect(shown(row(page, 'diff'))).toContainText('-old line\n+new line');
  await page.locator('#decline').click();
  const done = await run;
  expect(readFileSync(file, 'utf8'), done.stdout + done.stderr).toBe(before);
  expect(JSON.stringify(model.requests.map((r) => r.body))).toContain('declined this');
});

test('Codex apply_patch: the card shows each file of the patch with its diff; Approve applies it once', async () => {
  const ws = await installed('codex');
  const file = join(ws.project, EDITED);
  const run = runWithCountersign(ws, [{ name: 'apply_patch', input: `*** Begin Patch\n*** Update File: ${EDITED}\n@@\n-old line\n+new line\n*** End Patch\n` }]);
  const page = await openCard('apply_patch', 'codex-patch');
  await expect(page.getByTestId('server')).toContainText('Codex CLI');
  const patched = row(page, '0', row(page, 'files'));
  await expect(shown(row(page, 'action', patched))).toHaveText('update');
  await expect(shown(row(page, 'path', patched))).toHaveText(file);
  await expect(shown(row(page, 'diff', patched))).toContainText('-old line\n+new line');
  expect(readFileSync(file, 'utf8')).toBe('first line\nold line\nlast line\n');
  await page.locator('#approve:enabled').click();
  const done = await run;
  expect(readFileSync(file, 'utf8'), done.stdout + done.stderr).toBe('first line\nnew line\nlast line\n');
});
