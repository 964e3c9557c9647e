import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { doctorHook } from '../../src/hook/hook-doctor';
import type { HookAgent } from '../../src/hook/hook-input';
import { installHook, settingsFile, uninstallHook } from '../../src/hook/hook-settings';
import { bundleHook, ROOT } from '../coding-agents/support/clients';

const CODEX = path.join(ROOT, 'node_modules', '.bin', 'codex');
let home: string;
let env: Record<string, string>;
let hook: string;

beforeAll(async () => {
  hook = await bundleHook();
}, 30_000);
beforeEach(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), 'cs-settings-'));
  env = { HOME: home, PATH: process.env['PATH'] ?? '/usr/bin:/bin', CODEX_HOME: path.join(home, '.codex') };
});

const command = (agent: HookAgent, extra: { project?: string; codex?: string } = {}) => ({ agent, configDir: path.join(home, 'cfg'), project: extra.project, hookCommand: `${process.execPath} ${hook}`, codex: extra.codex ?? CODEX });
async function seed(agent: HookAgent, text: string, project?: string): Promise<string> {
  const file = settingsFile(agent, project, env);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, text);
  return file;
}

const CLAUDE_SETTINGS = `{
  "model": "opus",
  "permissions": { "allow": ["Bash(npm test)"] },
  "hooks": {
    "PreToolUse": [{ "matcher": "Bash", "hooks": [{ "type": "command", "command": "my-linter" }] }],
    "Stop": [{ "hooks": [{ "type": "command", "command": "notify-send done" }] }]
  }
}
`;

describe('install and uninstall: Claude Code (JSON)', () => {
  it('adds the hook and keeps every other setting and hook', async () => {
    const file = await seed('claude-code', CLAUDE_SETTINGS);
    expect(await installHook(command('claude-code'), env)).toMatchObject({ ok: true });
    const after = JSON.parse(await readFile(file, 'utf8'));
    const before = JSON.parse(CLAUDE_SETTINGS);
    expect(after.model).toBe('opus');
    expect(after.permissions).toEqual(before.permissions);
    expect(after.hooks.Stop).toEqual(before.hooks.Stop);
    expect(after.hooks.PreToolUse[0]).toEqual(before.hooks.PreToolUse[0]);
    expect(after.hooks.PreToolUse[1]).toEqual({ matcher: '.*', hooks: [{ type: 'command', command: `${process.execPath} ${hook} --agent claude-code --config-dir ${path.join(home, 'cfg')}`, timeout: 600 }] });
  });
  it('is idempotent: a second install changes nothing', async () => {
    const file = await seed('claude-code', CLAUDE_SETTINGS);
    await installHook(command('claude-code'), env);
    const once = await readFile(file, 'utf8');
    expect((await installHook(command('claude-code'), env)).lines[0]).toMatch(/already/);
    expect(await readFile(file, 'utf8')).toBe(once);
  });
  it('uninstall removes exactly its entry: the settings are as they were', async () => {
    const file = await seed('claude-code', CLAUDE_SETTINGS);
    await installHook(command('claude-code'), env);
    expect(await uninstallHook(command('claude-code'), env)).toMatchObject({ ok: true });
    // The same settings; the one list the hook was added to may be laid out on more lines.
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(JSON.parse(CLAUDE_SETTINGS));
  });
  it('uninstall of a hook in a group shared with another hook removes only the hook', async () => {
    const ours = `${process.execPath} ${hook} --agent claude-code --config-dir ${path.join(home, 'cfg')}`;
    const file = await seed('claude-code', JSON.stringify({ hooks: { PreToolUse: [{ matcher: '.*', hooks: [{ type: 'command', command: 'mine' }, { type: 'command', command: ours }] }] } }));
    await uninstallHook(command('claude-code'), env);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ hooks: { PreToolUse: [{ matcher: '.*', hooks: [{ type: 'command', command: 'mine' }] }] } });
  });
  it('creates the file when there is none', async () => {
    expect(await installHook(command('claude-code'), env)).toMatchObject({ ok: true });
    expect(JSON.parse(await readFile(path.join(home, '.claude', 'settings.json'), 'utf8')).hooks.PreToolUse).toHaveLength(1);
  });
  it('--project writes the project settings', async () => {
    const project = path.join(home, 'p');
    await installHook(command('claude-code', { project }), env);
    expect(JSON.parse(await readFile(path.join(project, '.claude', 'settings.json'), 'utf8')).hooks.PreToolUse).toHaveLength(1);
  });
  for (const [what, text] of [
    ['not JSON', '{ "model": '],
    ['a comment (Claude Code reads plain JSON)', '// mine\n{}'],
    ['hooks that are not an object', '{"hooks": []}'],
  ] as const) {
    it(`refuses a file with ${what}, unchanged`, async () => {
      const file = await seed('claude-code', text);
      const result = await installHook(command('claude-code'), env);
      expect(result.ok).toBe(false);
      expect(result.lines.join('\n')).toMatch(/nothing was changed/);
      expect(await readFile(file, 'utf8')).toBe(text);
    });
  }
});

describe('install and uninstall: Gemini CLI (JSON with comments)', () => {
  const GEMINI = '{\n  // my model\n  "model": { "name": "gemini-2.5-pro" },\n  "hooksConfig": { "enabled": false }\n}\n';
  it('adds the hook, turns hooks on, keeps the comment', async () => {
    const file = await seed('gemini', GEMINI);
    expect(await installHook(command('gemini'), env)).toMatchObject({ ok: true });
    const text = await readFile(file, 'utf8');
    expect(text).toContain('// my model');
    expect(text).toContain('"enabled": true');
    expect(text).toMatch(/"BeforeTool": \[/);
    expect(text).toContain('"timeout": 600000');
  });
  it('uninstall removes the hook and keeps the rest', async () => {
    const file = await seed('gemini', GEMINI);
    await installHook(command('gemini'), env);
    await uninstallHook(command('gemini'), env);
    const text = await readFile(file, 'utf8');
    expect(text).not.toContain('countersign');
    expect(text).toContain('// my model');
  });
});

const CODEX_CONFIG = `# my Codex
model = "gpt-5.5"

[mcp_servers.docs]
command = "docs-server"
args = ["--port", "0"]

[[hooks.PostToolUse]]
matcher = ".*"
[[hooks.PostToolUse.hooks]]
type = "command"
command = "my-logger"
`;

describe('install and uninstall: Codex CLI (TOML) and its hook trust', { timeout: 60_000 }, () => {
  it('appends the hook, records the trust Codex reports, and Codex then lists it as trusted', async () => {
    const file = await seed('codex', CODEX_CONFIG);
    const result = await installHook(command('codex'), env);
    expect(result, result.lines.join('\n')).toMatchObject({ ok: true });
    const text = await readFile(file, 'utf8');
    expect(text.startsWith(CODEX_CONFIG)).toBe(true);
    const config = parseToml(text) as any;
    expect(config.mcp_servers.docs).toEqual({ command: 'docs-server', args: ['--port', '0'] });
    expect(config.hooks.PostToolUse).toHaveLength(1);
    expect(config.hooks.PreToolUse[0].hooks[0]).toMatchObject({ type: 'command', timeout: 600 });
    expect(Object.values(config.hooks.state)).toEqual([{ trusted_hash: expect.stringMatching(/^sha256:/) }]);
    expect(result.lines.join('\n')).toContain('codex lists the hook as trusted');
  });
  it('is idempotent, and uninstall leaves the file as it was', async () => {
    const file = await seed('codex', CODEX_CONFIG);
    await installHook(command('codex'), env);
    const once = await readFile(file, 'utf8');
    await installHook(command('codex'), env);
    expect(await readFile(file, 'utf8')).toBe(once);
    await uninstallHook(command('codex'), env);
    expect(await readFile(file, 'utf8')).toBe(CODEX_CONFIG);
  });
  it('refuses a file that is not valid TOML, unchanged', async () => {
    const file = await seed('codex', 'model = "gpt-5.5\n');
    const result = await installHook(command('codex'), env);
    expect(result.ok).toBe(false);
    expect(result.lines[0]).toMatch(/not valid TOML/);
    expect(await readFile(file, 'utf8')).toBe('model = "gpt-5.5\n');
  });
  it('refuses, unchanged, a file whose hooks are written in a form our block cannot join', async () => {
    const text = 'hooks = { PreToolUse = [] }\n';
    const file = await seed('codex', text);
    expect((await installHook(command('codex'), env)).ok).toBe(false);
    expect(await readFile(file, 'utf8')).toBe(text);
  });
  it('without codex to ask, install says the hook is not trusted (Codex would skip it), and fails', async () => {
    await seed('codex', CODEX_CONFIG);
    const result = await installHook(command('codex', { codex: path.join(home, 'no-codex') }), env);
    expect(result.ok).toBe(false);
    expect(result.lines.join('\n')).toMatch(/NOT trusted/);
  });
});

describe('doctor', { timeout: 60_000 }, () => {
  it('finds the hook installed, runnable, and not paired', async () => {
    await installHook(command('claude-code'), env);
    const result = await doctorHook(command('claude-code'), env);
    expect(result.lines[0]).toMatch(/^✓ Claude Code runs the hook/);
    expect(result.lines[1]).toMatch(/^✓ the hook runs \(countersign-hook /);
    expect(result.lines[2]).toMatch(/^✗ not paired/);
    expect(result.ok).toBe(false);
  });
  it('finds a hook that is not installed', async () => {
    expect((await doctorHook(command('gemini'), env)).lines[0]).toMatch(/^✗ .*does not exist: run countersign-hook install --agent gemini/);
  });
  it('finds a command that does not run', async () => {
    await installHook({ ...command('claude-code'), hookCommand: path.join(home, 'gone', 'countersign-hook') }, env);
    expect((await doctorHook({ ...command('claude-code'), hookCommand: path.join(home, 'gone', 'countersign-hook') }, env)).lines[1]).toMatch(/^✗ the hook's command does not run/);
  });
  it('Codex: finds a hook Codex does not trust (it would skip it and run every call)', async () => {
    await seed('codex', CODEX_CONFIG);
    await installHook(command('codex', { codex: path.join(home, 'no-codex') }), env);
    expect((await doctorHook(command('codex'), env)).lines.join('\n')).toMatch(/✗ Codex does NOT trust the hook \(untrusted\)/);
  });
  it('Codex: a trusted hook', async () => {
    await installHook(command('codex'), env);
    expect((await doctorHook(command('codex'), env)).lines.join('\n')).toMatch(/✓ Codex trusts the hook \(trusted\)/);
  });
});
