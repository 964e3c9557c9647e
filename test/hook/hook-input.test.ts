import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { hookAnswer } from '../../src/hook/hook-answer';
import { parseHookInput, type HookAgent } from '../../src/hook/hook-input';
import { toolKind } from '../../src/hook/tool-kinds';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');
const AGENT: Record<string, HookAgent> = { claude: 'claude-code', codex: 'codex', gemini: 'gemini' };
/** What each captured file is: its CLI, and the kind of tool the prefix of its name says. */
const KIND: Record<string, string> = { bash: 'shell', write: 'write', edit: 'edit', mcp: 'mcp' };
const files = readdirSync(FIXTURES).filter((f) => f.endsWith('.json'));
/** A captured file, with the capturing machine's paths (`<H>`) made absolute again. */
const fixture = (file: string) => readFileSync(path.join(FIXTURES, file), 'utf8').replaceAll('<H>', '/h');

describe('Hook input: every captured input of the three CLIs parses', () => {
  it('has the 24 captured inputs', () => expect(files).toHaveLength(24));
  for (const file of files) {
    it(file, () => {
      const [cli, kind] = file.split('-') as [string, string];
      const agent = AGENT[cli] as HookAgent;
      const call = parseHookInput(agent, fixture(file));
      expect(call.agent).toBe(agent);
      expect(call.cwd).toMatch(/^\/h\/work-/);
      // Codex writes and edits both through apply_patch.
      const expected = cli === 'codex' && (kind === 'write' || kind === 'edit') ? 'patch' : KIND[kind];
      expect(toolKind(call)).toBe(expected);
      if (kind === 'mcp') expect(call.mcp).toEqual({ server: 'marker', tool: 'touch_marker' });
    });
  }
});

describe('Hook input: what is not a CLI hook input is refused with ERR_ARGUMENT_INVALID', () => {
  const claude = fixture('claude-bash-allow-1.json');
  const cases: Array<[string, HookAgent, string]> = [
    ['not JSON', 'claude-code', '{"tool_name": '],
    ['an array', 'claude-code', '[]'],
    ['another CLI event (Gemini input read as Claude Code)', 'claude-code', fixture('gemini-bash-allow-1.json')],
    ['a Claude Code input read as Gemini', 'gemini', claude],
    ['tool_input a string', 'claude-code', JSON.stringify({ ...JSON.parse(claude), tool_input: 'rm -rf /' })],
    ['no cwd', 'claude-code', JSON.stringify({ ...JSON.parse(claude), cwd: undefined })],
    ['a relative cwd', 'codex', JSON.stringify({ ...JSON.parse(claude), cwd: 'work' })],
  ];
  for (const [what, agent, text] of cases) {
    it(what, () => expect(() => parseHookInput(agent, text)).toThrow(expect.objectContaining({ code: 'ERR_ARGUMENT_INVALID' })));
  }
  it('an input above the size limit, without parsing it', () => expect(() => parseHookInput('codex', ' '.repeat(4 * 1024 * 1024 + 1))).toThrow(/at most/));
});

describe("Hook answer: each CLI's own format", () => {
  it('Claude Code allow', () => expect(JSON.parse(hookAnswer('claude-code', { decision: 'allow', reason: 'ok' }))).toEqual({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', permissionDecisionReason: 'ok' } }));
  it('Claude Code deny', () => expect(JSON.parse(hookAnswer('claude-code', { decision: 'deny', reason: 'no' }))).toEqual({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'no' } }));
  it('Codex allow is an empty answer ("not blocked"): Codex refuses permissionDecision "allow"', () => expect(JSON.parse(hookAnswer('codex', { decision: 'allow', reason: 'ok' }))).toEqual({}));
  it('Codex deny', () => expect(JSON.parse(hookAnswer('codex', { decision: 'deny', reason: 'no' }))).toEqual({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'no' } }));
  it('Gemini CLI allow', () => expect(JSON.parse(hookAnswer('gemini', { decision: 'allow', reason: 'ok' }))).toEqual({ decision: 'allow', reason: 'ok' }));
  it('Gemini CLI deny', () => expect(JSON.parse(hookAnswer('gemini', { decision: 'deny', reason: 'no' }))).toEqual({ decision: 'deny', reason: 'no' }));
  it('a deny always has a reason (Codex refuses a deny without one)', () => expect(JSON.parse(hookAnswer('codex', { decision: 'deny', reason: '' })).hookSpecificOutput.permissionDecisionReason).not.toBe(''));
  it('a reason is at most 2000 characters', () => expect(JSON.parse(hookAnswer('gemini', { decision: 'deny', reason: 'x'.repeat(5000) })).reason).toHaveLength(2000));
  it('is one line of JSON', () => expect(hookAnswer('claude-code', { decision: 'deny', reason: 'a\nb' })).not.toContain('\n'));
});
