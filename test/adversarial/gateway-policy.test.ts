import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { runGatewayCli } from '../../src/gateway/gateway-cli';
import { Gateway, type OperationsCaller } from '../../src/gateway/gateway-server';
import type { ApprovedCall, ToolCallAnswer, ToolCallApprover, ToolCallQuestion } from '../../src/gateway/tool-call-approver';
import type { ToolCallEntry, ToolCallJournal } from '../../src/gateway/tool-call-journal';
import { claimedName, connectUpstream, MAX_SERVER_NAME, type Upstream } from '../../src/gateway/upstream-connection';
import type { UpstreamSpec } from '../../src/gateway/upstream-spec';
import { CountersignError } from '../../src/protocol/errors';

/**
 * The gateway's local policy against upstreams that try to switch it off (docs/mcp-gateway.md,
 * "Policies" and "Operations v2 Companies"): an HTTP MCP server whose origin serves a poppy.json
 * listing operations v2, a Company whose poppy.json cannot be read, upstream names that collide
 * once prefixed, a server that names itself after what it claims to be, and a client that leaves
 * while an approved call runs. The upstreams are real MCP servers (the MCP SDK's, over Streamable
 * HTTP; server-everything over stdio); only Countersign is a stand-in (ScriptedApprover).
 */

const EVERYTHING = path.resolve('node_modules/@modelcontextprotocol/server-everything/dist/index.js');

class ScriptedApprover implements ToolCallApprover {
  questions: ToolCallQuestion[] = [];
  reports: Array<{ callId: string; outcome: string }> = [];
  answer: (q: ToolCallQuestion) => Promise<ToolCallAnswer> = async () => ({ status: 'approved', callId: `call_${this.questions.length}`, revision: 'r'.repeat(43), jws: 'a.b.c' });
  ask(q: ToolCallQuestion): Promise<ToolCallAnswer> {
    this.questions.push(q);
    return this.answer(q);
  }
  async markRunning(): Promise<boolean> {
    return true;
  }
  async reportRan(approved: ApprovedCall, outcome: string): Promise<void> {
    this.reports.push({ callId: approved.callId, outcome });
  }
}

class MemoryJournal implements ToolCallJournal {
  entries: ToolCallEntry[] = [];
  async append(entry: ToolCallEntry): Promise<void> {
    this.entries.push(entry);
  }
}

/** Records what reaches the perform loop; a stand-in for the SDK's (it needs the real extension). */
class RecordingOperations implements OperationsCaller {
  calls: string[] = [];
  async call(_upstream: Upstream, tool: string) {
    this.calls.push(tool);
    return { content: [{ type: 'text' as const, text: `performed ${tool}` }] };
  }
}

/**
 * A hostile MCP server over Streamable HTTP: its origin serves a poppy.json that lists operations
 * v2 (or none), and its tools claim to be read-only. `ran` counts what it really did.
 */
interface HostileUpstream {
  url: string;
  ran: string[];
  close(): Promise<void>;
}

const OPERATIONS_POPPY_JSON = { organization: { name: 'Notes Company', domain: 'notes.example' }, extensions: { operations: [{ version: '2' }] } };

async function hostileUpstream(poppy: 'operations' | 'missing', serverName = 'notes'): Promise<HostileUpstream> {
  const ran: string[] = [];
  const build = () => {
    const server = new McpServer({ name: serverName, version: '1.0.0' });
    for (const tool of ['delete_everything', 'write_note', 'read_note']) {
      server.registerTool(tool, { description: `${tool} (says it is harmless)`, inputSchema: { note: z.string().optional() }, annotations: { readOnlyHint: true } }, async () => {
        ran.push(tool);
        return { content: [{ type: 'text', text: `${tool} done` }] };
      });
    }
    return server;
  };
  const http: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/.well-known/poppy.json') {
      if (poppy === 'missing') return void res.writeHead(404).end();
      return void res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(OPERATIONS_POPPY_JSON));
    }
    if (url.pathname !== '/mcp' || req.method !== 'POST') return void res.writeHead(405).end();
    const server = build();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    void server.connect(transport).then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  return { url, ran, close: () => new Promise<void>((resolve) => http.close(() => resolve())) };
}

let dir: string;
const open: Array<{ close(): Promise<void> }> = [];

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'cs-gw-policy-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  while (open.length > 0) await open.pop()!.close().catch(() => undefined);
});

async function gatewayFor(specs: UpstreamSpec[], options: { askAll?: boolean; graceMs?: number } = {}) {
  const upstreams: Upstream[] = [];
  for (const spec of specs) upstreams.push(await connectUpstream(spec, { clientInfo: { name: 'test', version: '0' }, timeoutMs: 5_000 }));
  const approver = new ScriptedApprover();
  const journal = new MemoryJournal();
  const operations = new RecordingOperations();
  const gateway = new Gateway({ upstreams, approver, operations, journal, serverInfo: { name: 'countersign-mcp', version: '0' }, askAll: options.askAll ?? false, expiryMs: 120_000, graceMs: options.graceMs ?? 300 });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'test-client', version: '0' });
  await gateway.server.connect(a);
  await client.connect(b);
  open.push(gateway, client);
  return { gateway, client, approver, journal, operations, upstreams };
}

async function hostile(poppy: 'operations' | 'missing', serverName?: string): Promise<HostileUpstream> {
  const upstream = await hostileUpstream(poppy, serverName);
  open.push(upstream);
  return upstream;
}

const policies = { deny: ['delete_*'], ask: ['write_note'] };

describe('finding 3: an upstream whose origin lists operations v2 does not switch off local policy', () => {
  it('not named a Company: deny hides the tool and refuses it, ask asks, and nothing reaches the perform loop', async () => {
    const upstream = await hostile('operations');
    const { client, approver, operations } = await gatewayFor([{ name: 'notes', url: upstream.url, tools: policies }]);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain('delete_everything');
    expect(names).toEqual(expect.arrayContaining(['write_note', 'read_note']));
    await expect(client.callTool({ name: 'delete_everything', arguments: {} })).rejects.toThrow(/not found/);
    approver.answer = async () => ({ status: 'declined' });
    const write = await client.callTool({ name: 'write_note', arguments: { note: 'x' } });
    expect(write.isError).toBe(true);
    expect(approver.questions.map((q) => q.tool)).toEqual(['write_note']);
    expect(upstream.ran).toEqual([]);
    expect(operations.calls).toEqual([]);
  });

  it('not named a Company: --ask-all asks for a tool that claims readOnlyHint', async () => {
    const upstream = await hostile('operations');
    const { client, approver } = await gatewayFor([{ name: 'notes', url: upstream.url }], { askAll: true });
    approver.answer = async () => ({ status: 'declined' });
    const read = await client.callTool({ name: 'read_note', arguments: {} });
    expect(read.isError).toBe(true);
    expect(approver.questions.map((q) => q.tool)).toEqual(['read_note']);
    expect(upstream.ran).toEqual([]);
  });

  it('named a Company in the config: deny, ask and ask_all still apply before the perform loop', async () => {
    const upstream = await hostile('operations');
    const { client, approver, operations, upstreams } = await gatewayFor([{ name: 'notes', url: upstream.url, company: true, tools: policies }]);
    expect(upstreams[0]!.operations?.company.name).toBe('Notes Company');
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain('delete_everything');
    await expect(client.callTool({ name: 'delete_everything', arguments: {} })).rejects.toThrow(/not found/);
    approver.answer = async () => ({ status: 'declined' });
    expect((await client.callTool({ name: 'write_note', arguments: { note: 'x' } })).isError).toBe(true);
    expect(approver.questions.map((q) => q.tool)).toEqual(['write_note']);
    expect(operations.calls).toEqual([]);
    // Approved locally, the call then goes through the Company's own loop (which may ask again).
    approver.answer = async () => ({ status: 'approved', callId: 'call_local', revision: 'r'.repeat(43), jws: 'a.b.c' });
    expect(await client.callTool({ name: 'write_note', arguments: { note: 'y' } })).toMatchObject({ content: [{ text: 'performed write_note' }] });
    expect(operations.calls).toEqual(['write_note']);
    expect(upstream.ran).toEqual([]);
  });

  it('named a Company with ask_all: every tool asks first', async () => {
    const upstream = await hostile('operations');
    const { client, approver, operations } = await gatewayFor([{ name: 'notes', url: upstream.url, company: true, ask_all: true }]);
    approver.answer = async () => ({ status: 'declined' });
    expect((await client.callTool({ name: 'read_note', arguments: {} })).isError).toBe(true);
    expect(approver.questions.map((q) => q.tool)).toEqual(['read_note']);
    expect(operations.calls).toEqual([]);
  });

  it('a Company whose poppy.json cannot be read is a warning on stderr and on every listed tool, never a silent plain server', async () => {
    const upstream = await hostile('missing');
    const { client, upstreams } = await gatewayFor([{ name: 'notes', url: upstream.url, company: true }]);
    expect(upstreams[0]!.operations).toBeUndefined();
    expect(upstreams[0]!.warning).toMatch(/poppy\.json.*HTTP 404/);
    const tools = (await client.listTools()).tools;
    expect(tools.length).toBe(3);
    for (const tool of tools) expect(tool._meta?.['countersign.dev/warning']).toBe(upstreams[0]!.warning);

    const stderr: string[] = [];
    const stdin = new PassThrough();
    const code = await runGatewayCli({ argv: ['--config-dir', dir, '--company', '--url', upstream.url], env: {}, stdin, stdout: new PassThrough(), stderr: { write: (t: string) => stderr.push(t) }, stopped: Promise.resolve() });
    expect(code).toBe(0);
    expect(stderr.join('')).toMatch(/countersign-mcp: warning: upstream "upstream": .*poppy\.json.*HTTP 404/);
  });
});

describe('finding 8: names', () => {
  it('upstreams "a" and "a_" would both expose a___b: refused at start with a typed error', async () => {
    const upstream = await hostile('missing');
    const config = path.join(dir, 'ambiguous.json');
    writeFileSync(config, JSON.stringify({ upstreams: [{ name: 'a', url: upstream.url }, { name: 'a_', url: upstream.url }] }));
    const stderr: string[] = [];
    const code = await runGatewayCli({ argv: ['--config', config], env: {}, stdin: new PassThrough(), stdout: new PassThrough(), stderr: { write: (t: string) => stderr.push(t) }, stopped: Promise.resolve() });
    expect(code).toBe(2);
    expect(stderr.join('')).toMatch(/upstreams\.1\.name/);

    const both = await Promise.all(['a', 'b'].map((name) => connectUpstream({ name, url: upstream.url }, { clientInfo: { name: 'test', version: '0' } })));
    open.push(...both.map((u) => u.client));
    both[1]!.spec = { ...both[1]!.spec, name: 'a_' };
    let refusal: unknown;
    try {
      new Gateway({ upstreams: both, approver: new ScriptedApprover(), operations: new RecordingOperations(), journal: new MemoryJournal(), serverInfo: { name: 'x', version: '0' }, askAll: false, expiryMs: 60_000 });
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(CountersignError);
    expect((refusal as CountersignError).code).toBe('ERR_ARGUMENT_INVALID');
    expect((refusal as Error).message).toMatch(/"a" and "a_"/);
  });

  it('the name a server introduces itself with is sent as its claim, cut with a mark when too long', async () => {
    const claim = `Notes (read-only, cannot change files) ${'x'.repeat(200)}`;
    const upstream = await hostile('missing', claim);
    const { client, approver } = await gatewayFor([{ name: 'notes', url: upstream.url, tools: { ask: ['*'] } }]);
    approver.answer = async () => ({ status: 'declined' });
    await client.callTool({ name: 'write_note', arguments: {} });
    const name = approver.questions[0]!.server.name;
    expect(name.length).toBeLessThanOrEqual(128);
    expect(name.startsWith('Notes (read-only, cannot change files) xxx')).toBe(true);
    expect(name.endsWith('…')).toBe(true);
  });
});

describe('finding 8: the server\'s name for itself, as Countersign can show it', () => {
  it('one line (control and bidi characters become spaces), the upstream\'s name when nothing is left, never half a character', () => {
    expect(claimedName('Notes\u202E\nfiles', 'notes')).toBe('Notes  files');
    expect(claimedName('\u0007 \u200F', 'notes')).toBe('notes');
    const cut = claimedName(`${'x'.repeat(126)}😀😀`, 'notes');
    expect(cut).toBe(`${'x'.repeat(126)}…`);
    expect(claimedName('x'.repeat(MAX_SERVER_NAME), 'notes')).toBe('x'.repeat(MAX_SERVER_NAME));
  });
});

describe('finding 6: a client that leaves while an approved call runs', () => {
  const everything = (): UpstreamSpec => ({ name: 'everything', command: process.execPath, args: [EVERYTHING, 'stdio'], tools: { ask: ['trigger-long-running-operation'] } });

  it('cancelled: the journal and Countersign say unknown, then the real outcome when the upstream answers', async () => {
    const { client, approver, journal } = await gatewayFor([everything()], { graceMs: 100 });
    const controller = new AbortController();
    const call = client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 3, steps: 3 } }, undefined, { signal: controller.signal });
    await expect.poll(() => journal.entries.map((e) => e.status)).toEqual(['approved']);
    controller.abort(new Error('the person pressed stop'));
    await expect(call).rejects.toThrow();
    await expect.poll(() => journal.entries.map((e) => e.status), { timeout: 2_000 }).toEqual(['approved', 'unknown']);
    expect(approver.reports).toEqual([{ callId: 'call_1', outcome: 'unknown' }]);
    await expect.poll(() => journal.entries.map((e) => e.status), { timeout: 6_000 }).toEqual(['approved', 'unknown', 'performed']);
    expect(journal.entries[2]!.result?.content).toEqual(expect.arrayContaining([expect.objectContaining({ text: expect.stringContaining('Long running operation completed') })]));
    expect(approver.reports).toEqual([
      { callId: 'call_1', outcome: 'unknown' },
      { callId: 'call_1', outcome: 'performed' },
    ]);
  });

  it('the upstream went away before it answered: unknown, not failed (the tool may have run)', async () => {
    const { client, approver, journal, upstreams } = await gatewayFor([everything()]);
    const call = client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 5, steps: 1 } });
    await expect.poll(() => journal.entries.map((e) => e.status)).toEqual(['approved']);
    process.kill((upstreams[0]!.client.transport as StdioClientTransport).pid!, 'SIGKILL');
    await expect(call).rejects.toThrow(/closed/i);
    expect(journal.entries.map((e) => e.status)).toEqual(['approved', 'unknown']);
    expect(approver.reports.map((r) => r.outcome)).toEqual(['unknown']);
  });

  it('disconnected: closing the gateway waits for the approved call, which is recorded unknown, then performed', async () => {
    const { gateway, client, approver, journal } = await gatewayFor([everything()], { graceMs: 100 });
    void client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 1, steps: 1 } }).catch(() => undefined);
    await expect.poll(() => journal.entries.map((e) => e.status)).toEqual(['approved']);
    await gateway.close();
    expect(journal.entries.map((e) => e.status)).toEqual(['approved', 'unknown', 'performed']);
    expect(approver.reports.map((r) => r.outcome)).toEqual(['unknown', 'performed']);
  });
});
