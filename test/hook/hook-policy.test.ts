import { describe, expect, it } from 'vitest';
import { hookPolicy, parseHookPolicy } from '../../src/hook/hook-policy';

const call = (tool: string) => ({ tool });

describe('Hook policy: defaults by kind', () => {
  it('a read-only tool inside the project is allowed', () => expect(hookPolicy(call('Read'), 'read', {}, {}).policy).toBe('allow'));
  it('a read-only tool reading outside the project or a home dotfile asks', () => expect(hookPolicy(call('Read'), 'read', {}, { sensitiveRead: true }).policy).toBe('ask'));
  for (const kind of ['shell', 'write', 'edit', 'patch', 'fetch', 'mcp', 'other'] as const) {
    it(`${kind} asks`, () => expect(hookPolicy(call('X'), kind, {}, {}).policy).toBe('ask'));
  }
});

describe('Hook policy: the policy file, in the order deny, deny_commands, ask, allow', () => {
  it('deny refuses a read-only tool', () => expect(hookPolicy(call('Read'), 'read', { deny: ['Re*'] }, {}).policy).toBe('deny'));
  it('deny wins over allow', () => expect(hookPolicy(call('Bash'), 'shell', { deny: ['Bash'], allow: ['*'] }, {}).policy).toBe('deny'));
  it('deny_commands refuses a matching command', () => expect(hookPolicy(call('Bash'), 'shell', { deny_commands: ['git push*'], allow: ['Bash'] }, { command: 'git push origin main' }).policy).toBe('deny'));
  it('deny_commands matches one simple command of a list', () => expect(hookPolicy(call('Bash'), 'shell', { deny_commands: ['git push*'] }, { command: 'make &&  git push' }).policy).toBe('deny'));
  it('deny_commands matches a later line', () => expect(hookPolicy(call('Bash'), 'shell', { deny_commands: ['rm *'] }, { command: 'ls\nrm x' }).policy).toBe('deny'));
  it('deny_commands leaves other commands alone', () => expect(hookPolicy(call('Bash'), 'shell', { deny_commands: ['git push*'] }, { command: 'git status' }).policy).toBe('ask'));
  it('ask makes a read-only tool ask', () => expect(hookPolicy(call('Grep'), 'read', { ask: ['Grep'] }, {}).policy).toBe('ask'));
  it('ask wins over allow', () => expect(hookPolicy(call('Bash'), 'shell', { ask: ['Bash'], allow: ['Bash'] }, {}).policy).toBe('ask'));
  it('allow lets a tool run', () => expect(hookPolicy(call('mcp__github__list_issues'), 'mcp', { allow: ['mcp__github__list_*'] }, {}).policy).toBe('allow'));
  it('every verdict has a reason', () => expect(hookPolicy(call('Bash'), 'shell', {}, {}).reason).toMatch(/Bash/));
});

describe('Hook policy: the file is checked', () => {
  it('reads the gateway rule shape', () => expect(parseHookPolicy('{"deny":["Bash"],"allow":["mcp__*"],"deny_commands":["sudo *"]}', 'policy.json')).toEqual({ deny: ['Bash'], allow: ['mcp__*'], deny_commands: ['sudo *'] }));
  it('refuses a member it does not know (an "always allow" is not a thing)', () => expect(() => parseHookPolicy('{"always_allow":["*"]}', 'policy.json')).toThrow(expect.objectContaining({ code: 'ERR_ARGUMENT_INVALID' })));
  it('refuses text that is not JSON', () => expect(() => parseHookPolicy('deny = ["Bash"]', 'policy.json')).toThrow(/policy\.json: expected JSON/));
  it('refuses a glob with characters of a regular expression', () => expect(() => parseHookPolicy('{"allow":["(.*)"]}', 'policy.json')).toThrow(/policy\.json/));
});
