// @vitest-environment jsdom
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toolCallRevision, digestToolArguments, toolCallSchema, toolCallSummary, MAX_TOOL_ARGUMENTS_LENGTH } from '../../src/protocol/tool-call';
import { MAX_SUMMARY_LENGTH } from '../../src/protocol/limits';
import { summaryToSafeHtml } from '../../src/summary/index.ts';
import { parseHtml } from '../summary/helpers.ts';

const server = { name: 'secure-filesystem-server', reached_by: { transport: 'stdio' as const, command: 'npx', args: ['@modelcontextprotocol/server-filesystem', '/home/me'] } };

function rendered(markdown: string): { html: string; text: string } {
  const html = summaryToSafeHtml(markdown);
  return { html, text: parseHtml(document, html).textContent ?? '' };
}

describe('toolCallSummary: written by Countersign, arguments as literal data', () => {
  it('names the tool and the server, and lists each argument with its JSON value', () => {
    const { html, text } = rendered(toolCallSummary({ server, tool: 'write_file', arguments: { path: '/home/me/a.txt', content: 'hi' } }));
    expect(text).toContain('Call the tool write_file of the MCP server secure-filesystem-server, with these arguments:');
    expect(text).toContain('path: "/home/me/a.txt"');
    expect(text).toContain('content: "hi"');
    expect(html).toContain('<li>');
    expect(html).toContain('<strong>write_file</strong>');
  });

  it('shows Markdown in names and values as typed: no emphasis, list or escape of theirs takes effect', () => {
    const args = { '**bold**': '*not em* _nor this_ \\* - [link](https://evil.example) `code` <b>x</b>', '- item': 1 };
    const { html, text } = rendered(toolCallSummary({ server: { ...server, name: '_srv_' }, tool: '**tool**', arguments: args }));
    expect(text).toContain('Call the tool **tool** of the MCP server _srv_');
    expect(text).toContain('**bold**: ');
    expect(text).toContain(JSON.stringify(args['**bold**']));
    expect(text).toContain('- item: 1');
    expect(html).not.toContain('<em>');
    expect(html.match(/<strong>/g)).toHaveLength(4);
    expect(html).not.toContain('<a');
    expect(html).not.toContain('<b>');
  });

  it('any string value renders back to exactly its JSON (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (value) => {
        // Hidden characters become visible tokens in the window (tested where they are), not themselves.
        // eslint-disable-next-line no-control-regex
        fc.pre(!/[\r\n]/.test(value) && !/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/.test(value));
        const { text } = rendered(toolCallSummary({ server, tool: 't', arguments: { v: value } }));
        return text.includes(`v: ${JSON.stringify(value)}`);
      }),
      { numRuns: 300 },
    );
  });

  it('writes line breaks in names as ⏎ instead of letting them start new blocks', () => {
    const { text } = rendered(toolCallSummary({ server, tool: 't', arguments: { 'a\n- b': 1 } }));
    expect(text).toContain('a⏎- b: 1');
  });

  it('cuts a long value, says how much is missing, and stays under the summary limit', () => {
    const summary = toolCallSummary({ server, tool: 'write_file', arguments: { content: 'x'.repeat(50_000) } });
    expect(summary.length).toBeLessThanOrEqual(MAX_SUMMARY_LENGTH);
    expect(summary).toMatch(/\((\d+) more characters not shown\)/);
    const missing = Number(/\((\d+) more characters/.exec(summary)![1]);
    expect(missing).toBeGreaterThan(40_000);
  });

  it('lists at most 40 arguments and counts the rest', () => {
    const args = Object.fromEntries(Array.from({ length: 55 }, (_, i) => [`k${i}`, i]));
    const summary = toolCallSummary({ server, tool: 't', arguments: args });
    expect(summary).toContain('and 15 more arguments not shown.');
    expect(summary.length).toBeLessThanOrEqual(MAX_SUMMARY_LENGTH);
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
