import { JSDOM } from 'jsdom';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Companion } from '../../src/agent';
import { DirectExtension } from '../agent/harness';
import { renderApprovalCard } from '../../src/extension/ui/approval-card';
import { approvalWindowInJsdom } from '../extension/ui/approval-window-jsdom';
import { showsSignedCall } from '../../src/extension/ui/tool-call-arguments';
import { translator } from '../../src/extension/ui/i18n';
import { toolCallAsRequest } from '../../src/extension/tool-call-request';
import type { ReviewedView } from '../../src/extension/snapshot';
import { agentToExtensionMessage, parseBridgeMessage, relayToExtensionMessage, toolCallRequestMessage } from '../../src/protocol/bridge-messages';
import { generateSigningKeyPair, type SigningKeyPair } from '../../src/protocol/decision';
import { isCountersignError } from '../../src/protocol/errors';
import {
  MAX_TOOL_ARGUMENTS,
  MAX_TOOL_ARGUMENTS_LENGTH,
  MAX_TOOL_ARGUMENT_DEPTH,
  MAX_TOOL_ARGUMENT_NAME_LENGTH,
  MAX_TOOL_ARGUMENT_VALUES,
  type ToolCall,
} from '../../src/protocol/tool-call';
import { signToolCallDecision, toolCallDecisionClaims, verifyToolCallDecision } from '../../src/protocol/tool-call-decision';
import { chromeGetMessage, englishMessages } from '../extension/ui/locale-table';
import { baseSnapshot } from '../extension/ui/fake-browser';
import { jacketView } from '../extension/ui/jacket-view';

/**
 * The tool-call card (docs/ui.md, "A tool call"; docs/bridge-protocol.md section 9.7): what the
 * decision signs is on the card in full, one row per argument, or the call is refused at intake
 * with ERR_TOOL_CALL_TOO_LARGE. Never a cut text that the scroll gate counts as read.
 */

// A window of its own, with Node's globals left as they are: the decision is signed here too, and
// WebCrypto (through jose) takes Node's Uint8Array, not the one of a jsdom test environment.
const { document } = new JSDOM('<!doctype html><body></body>').window;
const t = translator(chromeGetMessage(englishMessages()), 'en');
const server = { name: 'secure-filesystem-server', reached_by: { transport: 'stdio' as const, command: 'npx', args: ['@modelcontextprotocol/server-filesystem', '/home/sam'] } };

function call(args: Record<string, unknown>): ToolCall {
  return { call_id: 'call_1', server, tool: 'move_files', arguments: args as ToolCall['arguments'], expires_at: '2099-10-08T19:20:00Z' };
}

async function viewOf(c: ToolCall): Promise<ReviewedView> {
  const req = await toolCallAsRequest({ id: 'req_1', nonce: `${'N'.repeat(42)}A`, tool_call: c });
  return jacketView({ url: 'https://unused.example', company: req.company, origin: null, operation: req.operation, request: req.request, session: req.session, toolCall: { server: c.server, tool: c.tool, arguments: c.arguments } });
}

async function card(c: ToolCall) {
  const rendered = renderApprovalCard(document, await viewOf(c), t);
  document.body.replaceChildren(rendered.card);
  const rows = [...rendered.summary.querySelectorAll<HTMLElement>(':scope [data-testid="arguments"] > [data-testid="argument"]')];
  const shown = rows.map((row) => [row.querySelector(':scope > .name')?.textContent, row.querySelector(':scope > .value')?.textContent]);
  return { ...rendered, rows, shown };
}

/** A path-heavy call: every character of these is ASCII punctuation the old summary escaped. */
function pathHeavy(count: number): Record<string, string> {
  const args: Record<string, string> = {};
  for (let i = 0; i < count; i++) args[`add_path_${String(i).padStart(2, '0')}`] = `/home/sam/projects/{client-${i}}/src/[generated]/__snapshots__/report-(final)_v${i}.tar.gz`.repeat(3);
  args.also_delete = '/home/sam';
  return args;
}

function refusal(c: unknown) {
  const parsed = parseBridgeMessage(toolCallRequestMessage, { type: 'tool_call_request', v: 2, id: 't_1', nonce: `${'N'.repeat(42)}A`, tool_call: c }, 'requestToolCallApproval');
  return parsed.ok ? undefined : parsed.error;
}

describe('finding 2: every argument of a path-heavy call is on the card, whole', () => {
  it('30 long paths and `also_delete: "/home/sam"` last: each is a row with its exact value, inside what the scroll gate measures', async () => {
    const args = pathHeavy(30);
    const { shown, rows, summary } = await card(call(args));
    expect(shown).toEqual(Object.entries(args).sort(([a], [b]) => (a < b ? -1 : 1)));
    const last = rows.at(-1)!;
    expect([last.querySelector('.name')?.textContent, last.querySelector('.value')?.textContent]).toEqual(['also_delete', '/home/sam']);
    // The gate waits for the end of `summary`: the argument list ends inside it, nothing after is cut off.
    expect(summary.contains(last)).toBe(true);
    expect(summary.querySelector('[data-action="show-all"], .truncated')).toBeNull();
  });

  it('no escaping noise: punctuation, Markdown and HTML as typed, line breaks as real line breaks', async () => {
    const content = '# Title\n\n**not bold** \\ <b>x</b> [a](https://evil.example)\r\nlast line';
    const { shown, summary } = await card(call({ content }));
    expect(shown).toEqual([['content', content]]);
    expect(summary.querySelector('b, strong em, a, h1')).toBeNull();
    expect(summary.textContent).not.toContain('⏎');
  });

  it('a hidden character in a name or a value is shown as a marked token, and the card warns', async () => {
    const { shown, summary, card: element } = await card(call({ 'pa\u202Eth': 'a\u200Bb' }));
    expect(shown).toEqual([['pa⟨U+202E⟩th', 'a⟨U+200B⟩b']]);
    expect([...summary.querySelectorAll('mark.hidden-char')].map((m) => m.textContent)).toEqual(['⟨U+202E⟩', '⟨U+200B⟩']);
    expect(element.querySelector('[data-testid="findings"] .finding.warning')?.textContent).toBe(t('hygieneWarning'));
  });

  it('nested values are rows too: members by name, list elements by position', async () => {
    const { rows } = await card(call({ options: { recursive: true, exclude: ['.git', 'node_modules'], depth: null } }));
    const nested = rows[0]!.querySelector('.value')!;
    const names = [...nested.querySelectorAll('.name')].map((n) => n.textContent);
    expect(names).toEqual(['depth', 'exclude', '0', '1', 'recursive']);
    const leaf = (name: string) => [...nested.querySelectorAll('.member')].find((m) => m.querySelector(':scope > .name')?.textContent === name)?.querySelector(':scope > .value')?.textContent;
    expect([leaf('0'), leaf('1'), leaf('recursive'), leaf('depth')]).toEqual(['.git', 'node_modules', 'true', 'null']);
    expect(leaf('exclude')).toMatch(/^A list of 2 items:/);
  });
});

describe('finding 8: argument count, long names and their order', () => {
  it('more than 40 arguments: all of them are listed (up to MAX_TOOL_ARGUMENTS)', async () => {
    const args = Object.fromEntries(Array.from({ length: MAX_TOOL_ARGUMENTS }, (_, i) => [`k${String(i).padStart(3, '0')}`, i]));
    const { shown } = await card(call(args));
    expect(shown).toHaveLength(MAX_TOOL_ARGUMENTS);
    expect(shown.at(-1)).toEqual([`k${MAX_TOOL_ARGUMENTS - 1}`, String(MAX_TOOL_ARGUMENTS - 1)]);
  });

  it('a name over 200 characters is shown whole, so two names that differ only at the end stay two names', async () => {
    const base = 'n'.repeat(300);
    const { shown } = await card(call({ [`${base}_keep`]: 'a', [`${base}_wipe`]: 'b' }));
    expect(shown).toEqual([[`${base}_keep`, 'a'], [`${base}_wipe`, 'b']]);
  });

  it('names in one documented order (RFC 8785, by UTF-16 code units), not numeric names first', async () => {
    const order = ['-v', '10', '2', 'a', 'path'];
    for (const written of [{ path: 1, a: 2, 2: 3, '-v': 4, 10: 5 }, { '-v': 4, 10: 5, 2: 3, a: 2, path: 1 }]) {
      const { shown } = await card(call(written));
      expect(shown.map(([name]) => name)).toEqual(order);
    }
  });
});

describe('a call the card cannot show whole is refused at intake with ERR_TOOL_CALL_TOO_LARGE', () => {
  const deep = (levels: number): unknown => (levels === 0 ? 'x' : { d: deep(levels - 1) });
  it.each([
    ['more arguments than MAX_TOOL_ARGUMENTS', Object.fromEntries(Array.from({ length: MAX_TOOL_ARGUMENTS + 1 }, (_, i) => [`k${i}`, i])), /at most 256 arguments, got 257/],
    ['more values than MAX_TOOL_ARGUMENT_VALUES', { list: Array.from({ length: MAX_TOOL_ARGUMENT_VALUES }, (_, i) => i) }, /at most 4096 values/],
    ['a name longer than MAX_TOOL_ARGUMENT_NAME_LENGTH', { ['n'.repeat(MAX_TOOL_ARGUMENT_NAME_LENGTH + 1)]: 1 }, /names of at most 1024 characters, got one of 1025/],
    ['a nested member name longer than the limit', { o: { ['n'.repeat(MAX_TOOL_ARGUMENT_NAME_LENGTH + 1)]: 1 } }, /names of at most 1024 characters/],
    ['values nested deeper than MAX_TOOL_ARGUMENT_DEPTH', { a: deep(MAX_TOOL_ARGUMENT_DEPTH + 1) }, /at most 8 levels of nesting/],
    ['more than MAX_TOOL_ARGUMENTS_LENGTH characters', { c: 'x'.repeat(MAX_TOOL_ARGUMENTS_LENGTH) }, /at most 262144 characters/],
  ])('%s', (_name, args, message) => {
    const error = refusal(call(args));
    expect(error?.code).toBe('ERR_TOOL_CALL_TOO_LARGE');
    expect(error?.message).toMatch(/^requestToolCallApproval\.tool_call\.arguments/);
    expect(error?.message).toMatch(message);
  });

  it('the bridge and the extension, which parse every agent message with one schema, answer the same code', () => {
    const args = Object.fromEntries(Array.from({ length: MAX_TOOL_ARGUMENTS + 1 }, (_, i) => [`k${i}`, i]));
    const sent = { type: 'tool_call_request', v: 2, id: 't_1', nonce: `${'N'.repeat(42)}A`, tool_call: call(args) };
    const atBridge = parseBridgeMessage(agentToExtensionMessage, sent);
    const atExtension = parseBridgeMessage(relayToExtensionMessage, { type: 'relay', v: 2, conn: 'c_AAAAAAAAAAAAAAAA', message: sent });
    expect([atBridge.ok ? undefined : atBridge.error.code, atExtension.ok ? undefined : atExtension.error.code]).toEqual(['ERR_TOOL_CALL_TOO_LARGE', 'ERR_TOOL_CALL_TOO_LARGE']);
  });

  it('a call exactly at the limits is accepted and shown whole', async () => {
    const args = { a: deep(MAX_TOOL_ARGUMENT_DEPTH), ['n'.repeat(MAX_TOOL_ARGUMENT_NAME_LENGTH)]: 'last' };
    expect(refusal(call(args))).toBeUndefined();
    const { shown } = await card(call(args));
    expect(shown.at(-1)).toEqual(['n'.repeat(MAX_TOOL_ARGUMENT_NAME_LENGTH), 'last']);
  });
});

describe('what the decision signs is what the card shows', () => {
  let extension: SigningKeyPair;
  beforeAll(async () => {
    extension = await generateSigningKeyPair({ extractable: false });
  });

  it('a decision over the call shown verifies; one argument changed after rendering does not, and the card no longer arms', async () => {
    const shownCall = call(pathHeavy(3));
    const view = await viewOf(shownCall);
    renderApprovalCard(document, view, t);
    expect(await showsSignedCall(view)).toBe(true);
    const nonce = `${'N'.repeat(42)}A`;
    const jws = await signToolCallDecision(await toolCallDecisionClaims({ call: shownCall, agent: extension.thumbprint, nonce }, 'approved'), extension.privateKey, extension.alg, extension.thumbprint);
    const expected = (c: ToolCall) => ({ pinnedKey: extension.publicJwk, expected: { call: c, audience: extension.thumbprint, nonce } });
    await expect(verifyToolCallDecision(jws, expected(shownCall))).resolves.toMatchObject({ status: 'approved' });

    const changed = structuredClone(view);
    changed.toolCall!.arguments.also_delete = '/';
    const { summary } = renderApprovalCard(document, changed, t);
    expect(summary.textContent).toContain('/home/sam/projects');
    expect(await showsSignedCall(changed)).toBe(false);
    const error = await verifyToolCallDecision(jws, expected({ ...shownCall, arguments: changed.toolCall!.arguments })).catch((e: unknown) => e);
    expect(isCountersignError(error, 'ERR_DECISION_MISMATCH')).toBe(true);
  });
});

describe('the approval window arms Approve only for the call the decision signs', () => {
  /**
   * The real window (entrypoints/approve) in a jsdom of its own, fed one snapshot as the
   * background would. jsdom has no layout: every box is reported in view, so the end of the list
   * counts as seen and only the check of the call shown can hold Approve back.
   */
  async function approveAfterDelay(view: ReviewedView): Promise<boolean> {
    const page = approvalWindowInJsdom();
    page.doc.hasFocus = () => true;
    page.window.HTMLElement.prototype.getBoundingClientRect = () => ({ top: 0, bottom: 100, height: 100, left: 0, right: 100, width: 100, x: 0, y: 0, toJSON: () => ({}) });
    try {
      page.mount();
      page.ports[0]!.deliver({ snapshot: { ...baseSnapshot(), active: [view] } });
      // Past the arm delay, counted from when the end of the list was first on screen.
      await new Promise((r) => setTimeout(r, 1600));
      return !page.doc.querySelector<HTMLButtonElement>('#approve')!.disabled;
    } finally {
      page.close();
    }
  }

  it('the call as asked: armed once the delay has run', async () => {
    expect(await approveAfterDelay(await viewOf(call(pathHeavy(3))))).toBe(true);
  });

  it('one argument changed from what the revision names: never armed', async () => {
    const view = await viewOf(call(pathHeavy(3)));
    view.toolCall!.arguments.also_delete = '/';
    expect(await approveAfterDelay(view)).toBe(false);
  });
});

describe('the agent SDK refuses a call too large to show before a byte is sent', () => {
  let ext: DirectExtension;
  let dir: string;
  beforeAll(async () => {
    ext = await DirectExtension.start();
    dir = await mkdtemp(path.join(os.tmpdir(), 'cs-card-'));
  });
  afterAll(async () => {
    await ext.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  it('requestToolCallApproval: ERR_TOOL_CALL_TOO_LARGE naming the limit, nothing on the socket, the connection kept', async () => {
    await mkdir(path.join(dir, 'agent'), { mode: 0o700 });
    const companion = await ext.pairConfirmed(await Companion.connect({ agentName: 'Desk gateway', configDir: path.join(dir, 'agent'), socketPath: ext.socketPath, timeoutMs: 3000 }));
    try {
      const before = ext.sentBy(undefined, 'tool_call_request').length;
      const writes = vi.spyOn(net.Socket.prototype, 'write');
      const args = Object.fromEntries(Array.from({ length: MAX_TOOL_ARGUMENTS + 1 }, (_, i) => [`k${i}`, i]));
      const error = await companion.requestToolCallApproval({ server, tool: 'move_files', arguments: args, expiresAt: new Date(Date.now() + 60_000) }).catch((e: unknown) => e);
      expect(writes).not.toHaveBeenCalled();
      writes.mockRestore();
      expect(isCountersignError(error, 'ERR_TOOL_CALL_TOO_LARGE')).toBe(true);
      expect((error as Error).message).toBe(`requestToolCallApproval.tool_call.arguments: expected at most ${MAX_TOOL_ARGUMENTS} arguments, got ${MAX_TOOL_ARGUMENTS + 1}, more than the approval window shows in full`);
      expect(ext.sentBy(undefined, 'tool_call_request')).toHaveLength(before);
      expect(companion.connected).toBe(true);
    } finally {
      await companion.close();
    }
  });
});
