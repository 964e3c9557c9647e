import { mkdtempSync, readFileSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema, type ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Gateway, type OperationsCaller } from '../../src/gateway/gateway-server';
import type { ApprovedCall, ToolCallAnswer, ToolCallApprover, ToolCallQuestion } from '../../src/gateway/tool-call-approver';
import type { ToolCallEntry, ToolCallJournal } from '../../src/gateway/tool-call-journal';
import { connectUpstream, type Upstream } from '../../src/gateway/upstream-connection';
import type { StdioUpstreamSpec, UpstreamSpec } from '../../src/gateway/upstream-spec';

// The gateway between a real MCP client and real upstream servers nobody here wrote
// (@modelcontextprotocol/server-filesystem and server-everything, over stdio). Only Countersign is
// a stand-in here (ScriptedApprover); test/e2e/mcp-gateway.e2e.ts has the real extension.

const PAGED = path.resolve('test/gateway/support/paged-server.mjs');
const FS = path.resolve('node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const EVERYTHING = path.resolve('node_modules/@modelcontextprotocol/server-everything/dist/index.js');

class ScriptedApprover implements ToolCallApprover {
  questions: ToolCallQuestion[] = [];
  reports: Array<{ callId: string; outcome: string }> = [];
  running: string[] = [];
  /** What markRunning answers: false when the person withdrew the approval first. */
  allowRun = true;
  answer: (q: ToolCallQuestion) => Promise<ToolCallAnswer> = async () => ({ status: 'approved', callId: `call_${this.questions.length}`, revision: 'r'.repeat(43), jws: 'a.b.c' });
  ask(q: ToolCallQuestion): Promise<ToolCallAnswer> {
    this.questions.push(q);
    return this.answer(q);
  }
  async markRunning(approved: ApprovedCall): Promise<boolean> {
    this.running.push(approved.callId);
    return this.allowRun;
  }
  async reportRan(approved: ApprovedCall, outcome: 'performed' | 'failed'): Promise<void> {
    this.reports.push({ callId: approved.callId, outcome });
  }
}

class MemoryJournal implements ToolCallJournal {
  entries: ToolCallEntry[] = [];
  async append(entry: ToolCallEntry): Promise<void> {
    this.entries.push(entry);
  }
}

const noOperations: OperationsCaller = {
  call: () => Promise.reject(new Error('no operations v2 upstream in this test')),
};

let dir: string;
const open: Array<{ close(): Promise<void> }> = [];

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'cs-gw-'));
  writeFileSync(path.join(dir, 'notes.txt'), 'hello from the notes');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  while (open.length > 0) await open.pop()!.close().catch(() => undefined);
});

async function gatewayFor(specs: UpstreamSpec[], options: { askAll?: boolean; graceMs?: number; holdProgressMs?: number; client?: Client; clientCapabilities?: ClientCapabilities } = {}) {
  const upstreams: Upstream[] = [];
  // The upstreams hear what the client declared (gateway-cli.ts reads it from the client's initialize).
  for (const spec of specs) upstreams.push(await connectUpstream(spec, { clientInfo: { name: 'test', version: '0' }, ...(options.clientCapabilities === undefined ? {} : { clientCapabilities: options.clientCapabilities }) }));
  const approver = new ScriptedApprover();
  const journal = new MemoryJournal();
  const gateway = new Gateway({ upstreams, approver, operations: noOperations, journal, serverInfo: { name: 'countersign-mcp', version: '0' }, askAll: options.askAll ?? false, expiryMs: 120_000, graceMs: options.graceMs ?? 300, holdProgressMs: options.holdProgressMs ?? 1000 });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = options.client ?? new Client({ name: 'test-client', version: '0' });
  await gateway.connect(a);
  await client.connect(b);
  open.push(gateway, client);
  return { gateway, client, approver, journal };
}

const fsSpec = (): StdioUpstreamSpec => ({ name: 'files', command: process.execPath, args: [FS, dir] });
const everythingSpec = (): StdioUpstreamSpec => ({ name: 'everything', command: process.execPath, args: [EVERYTHING, 'stdio'] });

async function direct(spec: StdioUpstreamSpec) {
  const client = new Client({ name: 'direct', version: '0' });
  await client.connect(new StdioClientTransport({ command: spec.command, args: spec.args ?? [], stderr: 'ignore' }));
  open.push(client);
  return client;
}

describe('tools pass through as the upstream lists them', () => {
  it('lists the same tools with the same annotations and schemas (one upstream: no prefix)', async () => {
    const { client } = await gatewayFor([fsSpec()]);
    const through = await client.request({ method: 'tools/list', params: {} }, (await import('@modelcontextprotocol/sdk/types.js')).ListToolsResultSchema);
    const plain = await (await direct(fsSpec())).listTools();
    expect(through.tools).toEqual(plain.tools);
    expect(through.tools.find((t) => t.name === 'write_file')?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
  });

  it('runs a readOnlyHint tool without asking', async () => {
    const { client, approver } = await gatewayFor([fsSpec()]);
    const result = await client.callTool({ name: 'read_text_file', arguments: { path: path.join(dir, 'notes.txt') } });
    expect(JSON.stringify(result.content)).toContain('hello from the notes');
    expect(approver.questions).toHaveLength(0);
  });
});

describe('a tool that asks (write_file)', () => {
  it('asks with the server as it introduces itself, how it is reached, the tool and the exact arguments; approved, it runs once', async () => {
    const { client, approver, journal } = await gatewayFor([fsSpec()]);
    const file = path.join(dir, 'approved.txt');
    const result = await client.callTool({ name: 'write_file', arguments: { path: file, content: 'written after approval' } });
    expect(result.isError).not.toBe(true);
    expect(readFileSync(file, 'utf8')).toBe('written after approval');
    expect(approver.questions).toHaveLength(1);
    const q = approver.questions[0]!;
    expect(q.server).toEqual({ name: 'secure-filesystem-server', reached_by: { transport: 'stdio', command: process.execPath, args: [FS, dir] } });
    expect(q.tool).toBe('write_file');
    expect(q.arguments).toEqual({ path: file, content: 'written after approval' });
    expect(q.expiresAt.getTime() - Date.now()).toBeGreaterThan(100_000);
    expect(journal.entries.map((e) => e.status)).toEqual(['approved', 'performed']);
    expect(approver.running).toEqual(['call_1']);
    expect(approver.reports).toEqual([{ callId: 'call_1', outcome: 'performed' }]);
  });

  it('approved, then withdrawn before it runs: the tool is not called', async () => {
    const { client, approver, journal } = await gatewayFor([fsSpec()]);
    approver.allowRun = false;
    const file = path.join(dir, 'withdrawn-late.txt');
    const result = await client.callTool({ name: 'write_file', arguments: { path: file, content: 'x' } });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/withdrawn in Countersign\. Nothing was done/);
    expect(existsSync(file)).toBe(false);
    expect(journal.entries.map((e) => e.status)).toEqual(['approved', 'withdrawn']);
  });

  it.each([
    ['declined', /You declined this tool call in Countersign\. Nothing was done/],
    ['expired', /before it expired\. Nothing was done/],
    ['withdrawn', /withdrawn in Countersign\. Nothing was done/],
  ] as const)('%s: an isError result that says nothing was done, and the file is not written', async (status, text) => {
    const { client, approver, journal } = await gatewayFor([fsSpec()]);
    approver.answer = async () => ({ status });
    const file = path.join(dir, `${status}.txt`);
    const result = await client.callTool({ name: 'write_file', arguments: { path: file, content: 'x' } });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(text);
    expect(existsSync(file)).toBe(false);
    expect(journal.entries.map((e) => e.status)).toEqual([status]);
  });

  it('fails closed when Countersign cannot be reached: names Countersign and the fix, and does not call the tool', async () => {
    const { client, approver } = await gatewayFor([fsSpec()]);
    approver.answer = async () => ({ status: 'unavailable', reason: 'the Countersign bridge is not running' });
    const file = path.join(dir, 'unavailable.txt');
    const result = await client.callTool({ name: 'write_file', arguments: { path: file, content: 'x' } });
    expect(result.isError).toBe(true);
    const text = JSON.stringify(result.content);
    expect(text).toContain('Countersign could not ask you');
    expect(text).toContain('countersign-mcp pair');
    expect(text).toContain('countersign-bridge doctor');
    expect(existsSync(file)).toBe(false);
  });

  it('identical calls while the person decides share one prompt and one run', async () => {
    const { client, approver } = await gatewayFor([fsSpec()]);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    approver.answer = async () => {
      await gate;
      return { status: 'approved', callId: 'call_shared', revision: 'r'.repeat(43), jws: 'a.b.c' };
    };
    const file = path.join(dir, 'shared.txt');
    const call = () => client.callTool({ name: 'write_file', arguments: { path: file, content: 'once' } });
    const both = Promise.all([call(), call()]);
    await new Promise((r) => setTimeout(r, 200));
    release();
    const [a, b] = await both;
    expect(a).toEqual(b);
    expect(approver.questions).toHaveLength(1);
    expect(approver.reports).toHaveLength(1);
  });

  it('the client cancelling withdraws the prompt (after the grace), and the tool is not called', async () => {
    const { client, approver } = await gatewayFor([fsSpec()], { graceMs: 200 });
    let seen!: AbortSignal;
    approver.answer = (q) => {
      seen = q.signal;
      return new Promise((resolve) => q.signal.addEventListener('abort', () => resolve({ status: 'cancelled' })));
    };
    const controller = new AbortController();
    const file = path.join(dir, 'cancelled.txt');
    const pending = client.callTool({ name: 'write_file', arguments: { path: file, content: 'x' } }, undefined, { signal: controller.signal });
    await new Promise((r) => setTimeout(r, 150));
    controller.abort(new Error('user pressed stop'));
    await expect(pending).rejects.toThrow();
    await new Promise((r) => setTimeout(r, 600));
    expect(seen.aborted).toBe(true);
    expect(existsSync(file)).toBe(false);
  });

  it('while held, sends progress to a client that asked for it (so its time-out restarts)', async () => {
    const { client, approver } = await gatewayFor([fsSpec()], { holdProgressMs: 100 });
    approver.answer = () => new Promise((r) => setTimeout(() => r({ status: 'declined' }), 450));
    const progress: Array<{ progress: number; message?: string }> = [];
    await client.callTool({ name: 'write_file', arguments: { path: path.join(dir, 'p.txt'), content: 'x' } }, undefined, { onprogress: (p) => progress.push(p), timeout: 300, resetTimeoutOnProgress: true });
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress[0]!.message).toBe('Waiting for your approval in Countersign');
    expect(progress.map((p) => p.progress)).toEqual([...progress.map((p) => p.progress)].sort((x, y) => x - y));
  });
});

describe('policies from the config, and --ask-all', () => {
  it('a denied tool is not listed and cannot be called', async () => {
    const { client } = await gatewayFor([{ ...fsSpec(), tools: { deny: ['write_file', 'move_*'] } }]);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain('write_file');
    expect(names).not.toContain('move_file');
    expect(names).toContain('edit_file');
    await expect(client.callTool({ name: 'write_file', arguments: { path: path.join(dir, 'd.txt'), content: 'x' } })).rejects.toThrow(/not found/);
    expect(existsSync(path.join(dir, 'd.txt'))).toBe(false);
  });

  it('--ask-all asks even for a readOnlyHint tool', async () => {
    const { client, approver } = await gatewayFor([fsSpec()], { askAll: true });
    approver.answer = async () => ({ status: 'declined' });
    const result = await client.callTool({ name: 'read_text_file', arguments: { path: path.join(dir, 'notes.txt') } });
    expect(result.isError).toBe(true);
    expect(approver.questions.map((q) => q.tool)).toEqual(['read_text_file']);
  });
});

describe('server-everything through the gateway', () => {
  it('resources, prompts and completion pass through; tools keep every annotation', async () => {
    const { client } = await gatewayFor([everythingSpec()]);
    const plain = await direct(everythingSpec());
    expect((await client.listResources()).resources).toEqual((await plain.listResources()).resources);
    expect((await client.listPrompts()).prompts).toEqual((await plain.listPrompts()).prompts);
    const uri = (await plain.listResources()).resources[0]!.uri;
    expect(await client.readResource({ uri })).toEqual(await plain.readResource({ uri }));
    expect(await client.getPrompt({ name: 'args-prompt', arguments: { city: 'Lyon' } })).toEqual(await plain.getPrompt({ name: 'args-prompt', arguments: { city: 'Lyon' } }));
    const complete = await client.complete({ ref: { type: 'ref/prompt', name: 'completable-prompt' }, argument: { name: 'department', value: 'E' } });
    expect(complete.completion.values).toContain('Engineering');
    const tools = (await client.listTools()).tools;
    expect(tools.find((t) => t.name === 'echo')?.annotations).toEqual((await plain.listTools()).tools.find((t) => t.name === 'echo')?.annotations);
  });

  it('an allowed tool relays the upstream progress', async () => {
    const { client } = await gatewayFor([everythingSpec()]);
    const progress: number[] = [];
    const result = await client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 1, steps: 4 } }, undefined, { onprogress: (p) => progress.push(p.progress) });
    expect(result.isError).not.toBe(true);
    expect(progress.length).toBeGreaterThanOrEqual(2);
  });

  it('a client cancelling an allowed long call gets its cancellation, and the gateway goes on serving', async () => {
    const { client } = await gatewayFor([everythingSpec()]);
    const controller = new AbortController();
    const long = client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 5, steps: 5 } }, undefined, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('stop')), 300);
    const started = Date.now();
    await expect(long).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(3000);
    const echoed = await client.callTool({ name: 'echo', arguments: { message: 'still here' } });
    expect(JSON.stringify(echoed.content)).toContain('still here');
  });

  it('several upstreams: names are prefixed <upstream>__<tool>, and each call reaches its own upstream', async () => {
    const { client } = await gatewayFor([fsSpec(), everythingSpec()]);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('files__read_text_file');
    expect(names).toContain('everything__echo');
    const echoed = await client.callTool({ name: 'everything__echo', arguments: { message: 'hi' } });
    expect(JSON.stringify(echoed.content)).toContain('hi');
    const read = await client.callTool({ name: 'files__read_text_file', arguments: { path: path.join(dir, 'notes.txt') } });
    expect(JSON.stringify(read.content)).toContain('hello from the notes');
    await expect(client.callTool({ name: 'echo', arguments: { message: 'x' } })).rejects.toThrow(/not found/);
  });
});

describe('what a stdio upstream gets', () => {
  it('only the environment the config names, over the SDK defaults: never the gateway\'s own', async () => {
    process.env['COUNTERSIGN_TEST_SECRET'] = 'do-not-leak';
    try {
      const { client } = await gatewayFor([{ ...everythingSpec(), env: { NAMED_ONE: 'given' } }]);
      const result = await client.callTool({ name: 'get-env', arguments: {} });
      const text = JSON.stringify(result.content);
      expect(text).toContain('NAMED_ONE');
      expect(text).not.toContain('do-not-leak');
    } finally {
      delete process.env['COUNTERSIGN_TEST_SECRET'];
    }
  });
});

/** A client that supports roots, sampling and elicitation, and answers them as its person would. */
const ANSWERING: ClientCapabilities = { roots: { listChanged: true }, sampling: {}, elicitation: { form: {} } };

function answeringClient(seen: string[]): Client {
  const client = new Client({ name: 'answering-client', version: '0' }, { capabilities: ANSWERING });
  client.setRequestHandler(ListRootsRequestSchema, async () => {
    seen.push('roots/list');
    return { roots: [{ uri: `file://${dir}`, name: 'the client root' }] };
  });
  client.setRequestHandler(CreateMessageRequestSchema, async () => {
    seen.push('sampling/createMessage');
    return { model: 'the-client-model', role: 'assistant', content: { type: 'text', text: 'sampled by the client' } };
  });
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    seen.push(`elicitation/create ${req.params.mode ?? 'form'}`);
    return { action: 'accept', content: { color: 'red', number: 7, pets: 'cats' } };
  });
  return client;
}

describe('What passes through: elicitation, sampling and roots, answered by the client', () => {
  it('server-everything lists the same tools through the gateway as to the client directly', async () => {
    const viaGateway = (await gatewayFor([everythingSpec()], { client: answeringClient([]), clientCapabilities: ANSWERING })).client;
    const plain = answeringClient([]);
    await plain.connect(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' }));
    open.push(plain);
    // server-everything registers its conditional tools once initialized: list after that.
    await new Promise((r) => setTimeout(r, 300));
    const names = async (c: Client) => (await c.listTools()).tools.filter((t) => t.execution?.taskSupport !== 'required').map((t) => t.name).sort();
    const through = await names(viaGateway);
    expect(through).toEqual(await names(plain));
    expect(through).toEqual(expect.arrayContaining(['get-roots-list', 'trigger-sampling-request', 'trigger-elicitation-request']));
  });

  it("roots and sampling reach the client and its answers reach the tool; an approved call's elicitation goes to the client too", async () => {
    const seen: string[] = [];
    const { client, approver } = await gatewayFor([everythingSpec()], { client: answeringClient(seen), clientCapabilities: ANSWERING });
    await new Promise((r) => setTimeout(r, 300));
    const roots = await client.callTool({ name: 'get-roots-list', arguments: {} });
    expect(JSON.stringify(roots.content)).toContain('the client root');
    const sampled = await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'say hi', maxTokens: 10 } });
    expect(JSON.stringify(sampled.content)).toContain('sampled by the client');
    const elicited = await client.callTool({ name: 'trigger-elicitation-request', arguments: {} });
    expect(elicited.isError).not.toBe(true);
    expect(JSON.stringify(elicited.content)).toContain('red');
    expect(seen).toEqual(expect.arrayContaining(['roots/list', 'sampling/createMessage', 'elicitation/create form']));
    // The two that do something asked first (neither says readOnlyHint).
    expect(approver.questions.map((q) => q.tool)).toEqual(['trigger-sampling-request', 'trigger-elicitation-request']);
  });

  it('a client without roots, sampling or elicitation: server-everything lists through the gateway what it lists to that client directly, without the tools that need them', async () => {
    const { client } = await gatewayFor([everythingSpec()], { clientCapabilities: {} });
    const plain = new Client({ name: 'plain', version: '0' });
    await plain.connect(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' }));
    open.push(plain);
    await new Promise((r) => setTimeout(r, 300));
    const names = async (c: Client) => (await c.listTools()).tools.filter((t) => t.execution?.taskSupport !== 'required').map((t) => t.name).sort();
    const through = await names(client);
    expect(through).toEqual(await names(plain));
    expect(through).not.toEqual(expect.arrayContaining(['trigger-sampling-request']));
    expect(through).not.toEqual(expect.arrayContaining(['trigger-elicitation-request']));
  });
});

describe('Lists and errors as the upstream gave them', () => {
  const pagedSpec = (): StdioUpstreamSpec => ({ name: 'paged', command: process.execPath, args: [PAGED] });

  it('every page of tools/list: 162 tools one per page are 162 tools', async () => {
    const { client } = await gatewayFor([pagedSpec()]);
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools).toHaveLength(162);
    expect(tools.at(-1)).toBe('tool_161');
  });

  it("an upstream's JSON-RPC error reaches the client with its code and data, its text prefixed once", async () => {
    const { client } = await gatewayFor([pagedSpec()]);
    const error = await client.callTool({ name: 'tool_0', arguments: {} }).then(
      () => undefined,
      (e: unknown) => e as { code: number; message: string; data: unknown },
    );
    expect(error).toMatchObject({ code: -32042, message: 'MCP error -32042: the server refuses this call', data: { why: 'test' } });
  });
});
