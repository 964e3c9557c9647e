import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { Gateway } from '../../src/gateway/gateway-server';
import type { ToolCallApprover, ToolCallQuestion } from '../../src/gateway/tool-call-approver';
import { connectUpstream, type Upstream } from '../../src/gateway/upstream-connection';
import type { StdioUpstreamSpec, UpstreamSpec } from '../../src/gateway/upstream-spec';

// docs/mcp-gateway.md "Policies": an allow call passes through as the JSON-RPC message it is
// (src/gateway/pass-through.ts), with its answer, progress and cancellation, and every other call
// goes through the gateway's MCP server. The upstreams are real stdio MCP servers
// (server-everything, the paged server, and one written by hand that answers wrongly).

const EVERYTHING = path.resolve('node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const PAGED = path.resolve('test/gateway/support/paged-server.mjs');
const RAW = path.resolve('test/gateway/support/raw-answer-server.mjs');

class CountingApprover implements ToolCallApprover {
  questions: ToolCallQuestion[] = [];
  async ask(q: ToolCallQuestion) {
    this.questions.push(q);
    return { status: 'declined' as const, callId: 'call_1' };
  }
  async markRunning() {
    return false;
  }
  async reportRan() {}
}

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  while (open.length > 0) await open.pop()!.close().catch(() => undefined);
});

/** A stateless MCP server over Streamable HTTP (the MCP SDK's, JSON answers) with one read-only tool. */
async function httpUpstream(): Promise<{ url: string; close(): Promise<void> }> {
  const http = createServer((req, res) => {
    const server = new McpServer({ name: 'notes', version: '1.0.0' });
    server.registerTool('read_note', { inputSchema: { note: z.string() }, annotations: { readOnlyHint: true } }, async ({ note }) => ({ content: [{ type: 'text', text: `read ${note}` }] }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => void Promise.all([transport.close(), server.close()]));
    void server.connect(transport).then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`, close: () => new Promise<void>((resolve) => http.close(() => resolve())) };
}

/** The gateway in front of `spec`, a client on it, and every message the gateway sends the upstream. */
async function through(spec: UpstreamSpec, askAll = false) {
  const upstream: Upstream = await connectUpstream(spec, { clientInfo: { name: 'test', version: '0' } });
  const toUpstream: JSONRPCMessage[] = [];
  const send = upstream.transport.send.bind(upstream.transport);
  upstream.transport.send = (message, options) => {
    toUpstream.push(message);
    return send(message, options);
  };
  const approver = new CountingApprover();
  const gateway = new Gateway({ upstreams: [upstream], approver, operations: { call: () => Promise.reject(new Error('none')) }, journal: { append: async () => undefined }, serverInfo: { name: 'countersign-mcp', version: '0' }, askAll, expiryMs: 60_000 });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'test-client', version: '0' });
  await gateway.connect(a);
  await client.connect(b);
  open.push(gateway, client);
  const calls = () => toUpstream.filter((m) => 'method' in m && m.method === 'tools/call') as Array<{ id: string | number; params: Record<string, unknown> }>;
  return { client, approver, calls, toUpstream };
}

const everything = (): StdioUpstreamSpec => ({ name: 'everything', command: process.execPath, args: [EVERYTHING, 'stdio'] });

describe('an allow call passes through as a message', { timeout: 30_000 }, () => {
  it('the answer is the upstream\'s own, under the call\'s own id', async () => {
    const { client, calls } = await through(everything());
    await client.listTools();
    const result = await client.callTool({ name: 'echo', arguments: { message: 'hello' } });
    expect(result.content).toEqual([{ type: 'text', text: 'Echo: hello' }]);
    expect(calls()).toEqual([expect.objectContaining({ id: expect.stringMatching(/^countersign-pass-\d+$/), params: { name: 'echo', arguments: { message: 'hello' } } })]);
  });

  it('before the tools are listed, the call goes through the gateway\'s MCP server (which lists them), and the next one passes through', async () => {
    const { client, calls } = await through(everything());
    expect((await client.callTool({ name: 'echo', arguments: { message: 'one' } })).content).toEqual([{ type: 'text', text: 'Echo: one' }]);
    expect((await client.callTool({ name: 'echo', arguments: { message: 'two' } })).content).toEqual([{ type: 'text', text: 'Echo: two' }]);
    expect(calls().map((c) => typeof c.id)).toEqual(['number', 'string']);
  });

  it('progress reaches the client under its own token (the upstream sees the gateway\'s)', async () => {
    const { client, calls } = await through(everything());
    await client.listTools();
    const seen: Array<{ progress: number; total?: number }> = [];
    const result = await client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } }, undefined, { onprogress: (p) => seen.push({ progress: p.progress, ...(p.total === undefined ? {} : { total: p.total }) }) });
    expect(JSON.stringify(result.content)).toContain('Long running operation completed');
    // server-everything may answer before its last step's notification reaches the client (directly too).
    expect(seen.slice(0, 2)).toEqual([{ progress: 1, total: 3 }, { progress: 2, total: 3 }]);
    const sent = calls()[0]!;
    expect((sent.params['_meta'] as { progressToken: unknown }).progressToken).toBe(sent.id);
  });

  it('a cancelled call: the upstream is told under the id it knows, and the gateway goes on', async () => {
    const { client, calls, toUpstream } = await through(everything());
    await client.listTools();
    const stop = new AbortController();
    const pending = client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 5, steps: 5 } }, undefined, { signal: stop.signal });
    await new Promise((r) => setTimeout(r, 200));
    stop.abort('the person pressed stop');
    await expect(pending).rejects.toThrow();
    await new Promise((r) => setTimeout(r, 100));
    const cancelled = toUpstream.find((m) => 'method' in m && m.method === 'notifications/cancelled') as { params: { requestId: unknown } } | undefined;
    expect(cancelled?.params.requestId).toBe(calls()[0]!.id);
    expect((await client.callTool({ name: 'echo', arguments: { message: 'after' } })).content).toEqual([{ type: 'text', text: 'Echo: after' }]);
  });

  it('an upstream\'s JSON-RPC error reaches the client with its code, data and text, the text prefixed once', async () => {
    const { client, calls } = await through({ name: 'paged', command: process.execPath, args: [PAGED] });
    await client.listTools();
    const error = await client.callTool({ name: 'tool_0', arguments: {} }).then(
      () => undefined,
      (e: unknown) => e as { code: number; message: string; data: unknown },
    );
    expect(error).toMatchObject({ code: -32042, message: 'MCP error -32042: the server refuses this call', data: { why: 'test' } });
    expect(typeof calls()[0]!.id).toBe('string');
  });

  it('over Streamable HTTP too: the call is posted as the message it is, and its answer comes back under the client\'s id', async () => {
    const upstream = await httpUpstream();
    open.push(upstream);
    const { client, calls } = await through({ name: 'notes', url: upstream.url });
    await client.listTools();
    expect((await client.callTool({ name: 'read_note', arguments: { note: 'a' } })).content).toEqual([{ type: 'text', text: 'read a' }]);
    expect(calls().map((c) => typeof c.id)).toEqual(['string']);
  });

  it('an answer that is not a JSON-RPC response (a result that is not an object): the client gets an error, not a wait', async () => {
    const { client } = await through({ name: 'raw', command: process.execPath, args: [RAW] });
    await client.listTools();
    await expect(client.callTool({ name: 'broken', arguments: {} })).rejects.toThrow(/not a JSON-RPC response/);
  });
});

describe('every other call goes through the gateway\'s MCP server', { timeout: 30_000 }, () => {
  it('a tool that asks never passes through: the person is asked, and nothing reaches the upstream', async () => {
    const { client, approver, calls } = await through(everything(), true);
    await client.listTools();
    const result = await client.callTool({ name: 'echo', arguments: { message: 'asked' } });
    expect(result.isError).toBe(true);
    expect(approver.questions.map((q) => q.tool)).toEqual(['echo']);
    expect(calls()).toEqual([]);
  });
});
