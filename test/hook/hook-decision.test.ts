import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { digestToolArguments } from '../../src/protocol/tool-call-revision';
import { decideHookCall, type ToolCallAsker } from '../../src/hook/hook-decision';

/**
 * decideHookCall with a scripted Countersign (the real one is exercised through the bridge in
 * test/adversarial/hook-input.test.ts and test/coding-agents): what the hook does with each
 * answer, and that an approval must cover exactly the call it answers for.
 */

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cs-decide-'));
});

const input = (tool: string, toolInput: Record<string, unknown>) => JSON.stringify({ cwd: dir, hook_event_name: 'PreToolUse', tool_name: tool, tool_input: toolInput });

/** A Countersign that answers `status`, signing what it was asked unless `sign` says otherwise. */
function countersign(status: 'approved' | 'declined' | 'expired' | 'withdrawn', options: { sign?: (args: Record<string, unknown>) => Record<string, unknown>; tool?: string; running?: boolean } = {}): ToolCallAsker & { asked: number; marked: number } {
  const asker = {
    asked: 0,
    marked: 0,
    async ask(q: Parameters<ToolCallAsker['ask']>[0]) {
      asker.asked++;
      const signed = options.sign ? options.sign(q.arguments) : q.arguments;
      const decision = { tool: options.tool ?? q.tool, arguments_sha256: await digestToolArguments(signed) } as never;
      if (status === 'approved' || status === 'declined') return { status, callId: 'call_1', revision: 'r', decision, jws: 'x.y.z' };
      return { status, callId: 'call_1', revision: 'r' };
    },
    async markRunning() {
      asker.marked++;
      return options.running ?? true;
    },
  };
  return asker;
}

const decide = (asker: ToolCallAsker, text: string) => decideHookCall({ agent: 'claude-code', input: text, configDir: dir, asker, expiryMs: 60_000, home: dir });

describe('How a call is decided', () => {
  it('a read-only tool inside the project is allowed without asking', async () => {
    const asker = countersign('approved');
    expect(await decide(asker, input('Read', { file_path: path.join(dir, 'a') }))).toMatchObject({ decision: 'allow' });
    expect(asker.asked).toBe(0);
  });
  it('an approval of exactly this call allows it, after telling Countersign it runs', async () => {
    const asker = countersign('approved');
    expect(await decide(asker, input('Bash', { command: 'ls' }))).toEqual({ decision: 'allow', reason: 'Approved in Countersign (call_1).' });
    expect(asker.marked).toBe(1);
  });
  it('an approval whose arguments digest is of other arguments is a deny', async () => {
    const asker = countersign('approved', { sign: (a) => ({ ...a, command: 'rm -rf ~' }) });
    expect(await decide(asker, input('Bash', { command: 'ls' }))).toMatchObject({ decision: 'deny', reason: expect.stringMatching(/does not cover this exact Bash call/) });
    expect(asker.marked).toBe(0);
  });
  it('an approval of another tool is a deny', async () => expect((await decide(countersign('approved', { tool: 'Read' }), input('Bash', { command: 'ls' }))).decision).toBe('deny'));
  it('an approval withdrawn before it ran is a deny', async () => expect(await decide(countersign('approved', { running: false }), input('Bash', { command: 'ls' }))).toMatchObject({ decision: 'deny', reason: expect.stringMatching(/withdrawn/) }));
  for (const status of ['declined', 'expired', 'withdrawn'] as const) {
    it(`${status} is a deny that says so`, async () => expect(await decide(countersign(status), input('Bash', { command: 'ls' }))).toMatchObject({ decision: 'deny', reason: expect.stringMatching(status === 'declined' ? /declined/ : status === 'expired' ? /in time/ : /withdrawn/) }));
  }
  it('a Countersign that throws is a deny', async () => {
    const asker: ToolCallAsker = { ask: () => Promise.reject(new Error('boom')), markRunning: () => Promise.resolve(true) };
    expect(await decide(asker, input('Bash', { command: 'ls' }))).toMatchObject({ decision: 'deny', reason: expect.stringMatching(/could not be asked.*boom/) });
  });
  it('a policy deny never asks', async () => {
    await writeFile(path.join(dir, 'policy.json'), JSON.stringify({ deny: ['Bash'] }));
    const asker = countersign('approved');
    expect((await decide(asker, input('Bash', { command: 'ls' }))).decision).toBe('deny');
    expect(asker.asked).toBe(0);
  });
  it('nothing in the project changes the policy: a policy.json in the project folder (the cwd) is not read', async () => {
    await writeFile(path.join(dir, 'policy.json'), JSON.stringify({ allow: ['*'] }));
    const asker = countersign('declined');
    expect((await decideHookCall({ agent: 'claude-code', input: input('Bash', { command: 'ls' }), configDir: path.join(dir, 'elsewhere'), asker, expiryMs: 60_000, home: dir })).decision).toBe('deny');
    expect(asker.asked).toBe(1);
  });
});
