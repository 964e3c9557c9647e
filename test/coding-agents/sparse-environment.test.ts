import { spawn } from 'node:child_process';
import { mkdir, mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Companion } from '../../src/agent/companion';
import { FakeExtension, waitFor } from '../agent/harness';
import { bundleHook } from './support/clients';

/**
 * Coding agents start hooks with a reduced environment, often HOME, PATH, SHELL and TERM alone
 * (docs/coding-agents.md, "Finding Countersign"): no XDG_RUNTIME_DIR, no TMPDIR. The bridge here
 * runs without them too, as a browser started outside a login session would, and the hook must
 * still find it and be asked.
 */

let ext: FakeExtension;
let hook: string;
let root: string;

beforeAll(async () => {
  [ext, hook] = await Promise.all([FakeExtension.start({ sparse: true }), bundleHook()]);
  root = await mkdtemp(path.join(os.tmpdir(), 'cs-sparse-'));
  await mkdir(path.join(root, 'home'), { recursive: true });
  const companion = await Companion.connect({ agentName: 'countersign-hook', configDir: path.join(root, 'config'), socketPath: ext.socketPath });
  await ext.pairConfirmed(companion);
  await companion.close();
}, 60_000);
afterAll(async () => ext?.dispose());

describe('Finding Countersign with the environment reduced to HOME, PATH, SHELL and TERM', () => {
  it('the bridge listens where such an agent looks', () => expect(ext.socketPath).toMatch(new RegExp(`^/tmp/countersign-${process.getuid?.() ?? 0}/`)));

  it('the hook finds the bridge, asks, and the approval allows the call', async () => {
    const input = JSON.stringify({ session_id: 's', cwd: root, hook_event_name: 'BeforeTool', tool_name: 'run_shell_command', tool_input: { command: 'make test' } });
    const env = { HOME: path.join(root, 'home'), PATH: '/usr/bin:/bin', SHELL: '/bin/sh', TERM: 'dumb' };
    const child = spawn(process.execPath, [hook, '--agent', 'gemini', '--config-dir', path.join(root, 'config')], { cwd: root, env });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    const closed = new Promise((resolve) => child.on('close', resolve));
    child.stdin.end(input);
    const prompt = await waitFor(async () => (await ext.store.byState('pending'))[0], 'the prompt');
    expect(prompt.toolCall?.arguments).toMatchObject({ command: 'make test', working_directory: root });
    await ext.queue.decide(prompt.key, 'approve');
    await closed;
    expect(JSON.parse(stdout)).toEqual({ decision: 'allow', reason: expect.stringMatching(/^Approved in Countersign/) });
  });
});
