import { describe, expect, it } from 'vitest';
import { toolCallAction } from '../../../src/extension/ui/tool-call-action';

const call = (tool: string, args: Record<string, unknown>, annotations?: { destructiveHint?: boolean; readOnlyHint?: boolean }) => toolCallAction({ tool, arguments: args as never, ...(annotations ? { annotations } : {}) });

describe('toolCallAction: what a tool call will do, in plain words (docs/ui.md, "A tool call")', () => {
  it("reads a coding agent's hook: create, replace, change and delete a file, with its last segment for the heading", () => {
    expect(call('Write', { action: 'create', path: '/home/sam/q/report.txt', content: 'x' })).toEqual({ verb: 'create', target: '/home/sam/q/report.txt', short: 'report.txt', destructive: false });
    expect(call('Write', { action: 'replace', path: '/a/b.txt', diff: '' })).toMatchObject({ verb: 'replace', short: 'b.txt', destructive: false });
    expect(call('Edit', { action: 'edit', path: '/a/b.txt' })).toMatchObject({ verb: 'change' });
    expect(call('apply_patch', { files: [{ action: 'delete', path: '/a/old.txt' }] })).toMatchObject({ verb: 'delete', short: 'old.txt', destructive: true });
    expect(call('apply_patch', { files: [{ action: 'update', path: '/a', move_to: '/b' }] })).toMatchObject({ verb: 'move', to: '/b' });
    expect(call('apply_patch', { files: [{ action: 'update', path: '/a' }, { action: 'delete', path: '/b' }] })).toEqual({ verb: 'changeFiles', target: '2', destructive: true });
  });

  it('reads a command, as text or as an argument vector', () => {
    expect(call('Bash', { command: 'git push --force', working_directory: '/p' })).toEqual({ verb: 'run', target: 'git push --force', destructive: false });
    expect(call('shell', { command: ['ls', '-la'] })).toMatchObject({ verb: 'run', target: 'ls -la' });
  });

  it("reads an MCP tool's name and the path it names", () => {
    expect(call('write_file', { path: '/x/q.txt', content: '' })).toMatchObject({ verb: 'createOrReplace', short: 'q.txt' });
    expect(call('delete_file', { path: '/x/q.txt' })).toMatchObject({ verb: 'delete', destructive: true });
    expect(call('move_file', { source: '/a', destination: '/b' })).toMatchObject({ verb: 'move', target: '/a', to: '/b' });
    expect(call('editFile', { path: '/x' })).toMatchObject({ verb: 'change' });
    expect(call('read_text_file', { path: '/x' })).toMatchObject({ verb: 'read' });
    expect(call('fetch', { url: 'https://example.com/' })).toMatchObject({ verb: 'fetch', target: 'https://example.com/' });
  });

  it('says "use the tool" when nothing says more', () => {
    expect(call('echo', { message: 'hi' })).toEqual({ verb: 'use', target: 'echo', destructive: false });
    expect(call('write_file', {})).toMatchObject({ verb: 'use' });
  });

  it("takes a server's destructive hint as caution, and never a read-only hint as its absence", () => {
    expect(call('echo', { message: 'hi' }, { destructiveHint: true }).destructive).toBe(true);
    expect(call('delete_file', { path: '/x' }, { readOnlyHint: true }).destructive).toBe(true);
  });

  it('shows hidden characters of a path as tokens, never raw', () => {
    const action = call('write_file', { path: '/x/re\u202Eport.txt' });
    expect(action.target).not.toMatch(/\u202E/);
    expect(action.short).toContain('U+202E');
  });
});
