// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { toolCallSchema, toolCallSummary, MAX_TOOL_ARGUMENTS_LENGTH } from '../../src/protocol/tool-call';
import { digestToolArguments, toolCallRevision } from '../../src/protocol/tool-call-revision';
import { summaryToSafeHtml } from '../../src/summary/index.ts';
import { parseHtml } from '../summary/helpers.ts';

const server = { name: 'secure-filesystem-server', reached_by: { transport: 'stdio' as const, command: 'npx', args: ['@modelcontextprotocol/server-filesystem', '/home/me'] } };

function rendered(markdown: string): { html: string; text: string } {
  const html = summaryToSafeHtml(markdown);
  return { html, text: parseHtml(document, html).textContent ?? '' };
}

describe('toolCallSummary: the line the lists and the history show, written by Countersign', () => {
  it('names the tool, the server and how many arguments, never their values', () => {
    const { html, text } = rendered(toolCallSummary({ server, tool: 'write_file', arguments: { path: '/home/me/a.txt', content: 'hi' } }));
    expect(text).toBe('Call the tool write_file of the MCP server secure-filesystem-server, with 2 arguments.');
    expect(html).toContain('<strong>write_file</strong>');
    expect(text).not.toContain('/home/me/a.txt');
  });

  it('shows Markdown in the tool and server names as typed', () => {
    const { html, text } = rendered(toolCallSummary({ server: { ...server, name: '_srv_ [x](https://evil.example)' }, tool: '**tool**', arguments: { a: 1 } }));
    expect(text).toBe('Call the tool **tool** of the MCP server _srv_ [x](https://evil.example), with 1 argument.');
    expect(html).not.toContain('<em>');
    expect(html).not.toContain('<a');
  });

  it('stays short whatever the arguments: nothing of them to cut', () => {
    const args = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`k${i}`.repeat(100), 'x'.repeat(1000)]));
    expect(toolCallSummary({ server, tool: 't', arguments: args })).toBe('Call the tool **t** of the MCP server **secure\\-filesystem\\-server**, with 200 arguments.');
  });

  it('says so when there are no arguments', () => expect(toolCallSummary({ server, tool: 'ping', arguments: {} })).toMatch(/with no arguments\.$/));
});

describe('toolCallRevision and digestToolArguments', () => {
  it('is the same for the same call whatever the member order (RFC 8785), and differs for any change', async () => {
    const a = await toolCallRevision({ server, tool: 'write_file', arguments: { path: '/a', content: 'x' } });
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await toolCallRevision({ server, tool: 'write_file', arguments: { content: 'x', path: '/a' } })).toBe(a);
    expect(await toolCallRevision({ server, tool: 'write_file', arguments: { path: '/a', content: 'y' } })).not.toBe(a);
    expect(await toolCallRevision({ server, tool: 'edit_file', arguments: { path: '/a', content: 'x' } })).not.toBe(a);
    expect(await toolCallRevision({ server: { ...server, name: 'other' }, tool: 'write_file', arguments: { path: '/a', content: 'x' } })).not.toBe(a);
  });
  it('digests the arguments alone', async () => {
    expect(await digestToolArguments({ b: 1, a: 2 })).toBe(await digestToolArguments({ a: 2, b: 1 }));
    expect(await digestToolArguments({ a: 1 })).not.toBe(await digestToolArguments({ a: 2 }));
  });
});

describe('toolCallSchema', () => {
  const call = { call_id: 'call_1', server, tool: 'write_file', arguments: { path: '/a' }, expires_at: '2026-12-01T12:00:00Z' };
  it('accepts a call', () => expect(toolCallSchema.safeParse(call).success).toBe(true));
  it.each([
    ['an unknown member', { ...call, extra: 1 }],
    ['a server name with a bidi control', { ...call, server: { ...server, name: 'a\u202Eb' } }],
    ['an http URL off this machine', { ...call, server: { ...server, reached_by: { transport: 'http', url: 'http://mcp.example/mcp' } } }],
    ['arguments that are not an object', { ...call, arguments: [1] }],
    ['arguments longer than the limit', { ...call, arguments: { c: 'x'.repeat(MAX_TOOL_ARGUMENTS_LENGTH) } }],
    ['an expiry without an offset', { ...call, expires_at: '2026-12-01T12:00:00' }],
  ])('refuses %s', (_name, value) => expect(toolCallSchema.safeParse(value).success).toBe(false));
});
