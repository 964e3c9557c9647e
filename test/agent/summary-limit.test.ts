import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Companion, MAX_SUMMARY_LENGTH, isCountersignError, type OperationInput } from '../../src/agent';
import { DirectExtension } from './harness';

/**
 * requestApproval refuses a summary longer than MAX_SUMMARY_LENGTH with ERR_SUMMARY_TOO_LONG,
 * before a byte reaches the socket; one of exactly that length is sent. The extension services
 * sit behind a socket with no bridge (harness.ts DirectExtension), so anything sent would reach
 * them.
 */

const COMPANY = { name: 'Stormline', origin: 'https://stormline.example' };
const REQUEST = { interface: 'conversation' as const, conversation_id: 'conv_1' };
const SESSION = { kind: 'this_session' as const };

function operation(revision: string, summary: string): OperationInput {
  return { operation_id: 'exc_5Rt2', revision, summary, terms: { price_difference: { amount: '70.00', currency: 'USD' } }, expires_at: '2099-10-08T12:20:00-07:00' };
}

describe('requestApproval and the summary length limit', () => {
  let ext: DirectExtension;
  const dirs: string[] = [];
  const open: Companion[] = [];
  let seq = 0;

  beforeAll(async () => {
    ext = await DirectExtension.start();
  });
  afterAll(async () => {
    await ext.dispose();
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    for (const c of open.splice(0)) await c.close();
  });

  async function paired(): Promise<Companion> {
    const dir = path.join(await mkdtemp(path.join(os.tmpdir(), 'csa-')), 'agent');
    dirs.push(path.dirname(dir));
    await mkdir(dir, { mode: 0o700 });
    const companion = await Companion.connect({ agentName: `Desk agent ${++seq}`, configDir: dir, socketPath: ext.socketPath, timeoutMs: 3000 });
    open.push(companion);
    return ext.pairConfirmed(companion);
  }

  it('one code unit over the limit: ERR_SUMMARY_TOO_LONG with the length, and nothing is written to the socket', async () => {
    const companion = await paired();
    const requestsBefore = ext.sentBy(undefined, 'approval_request').length;
    const writes = vi.spyOn(net.Socket.prototype, 'write');
    const error = await companion
      .requestApproval({ company: COMPANY, operation: operation('rev_long', 'x'.repeat(MAX_SUMMARY_LENGTH + 1)), request: REQUEST, session: SESSION })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(writes).not.toHaveBeenCalled();
    writes.mockRestore();
    expect(isCountersignError(error, 'ERR_SUMMARY_TOO_LONG')).toBe(true);
    expect((error as Error).message).toBe(`requestApproval.operation.summary: expected at most ${MAX_SUMMARY_LENGTH} characters, got ${MAX_SUMMARY_LENGTH + 1} characters`);
    // The connection is as it was: the next request goes through, and it is the only one that arrived.
    const aborting = new AbortController();
    const next = companion.requestApproval({ company: COMPANY, operation: operation('rev_short', 'Pay $70.00.'), request: REQUEST, session: SESSION, signal: aborting.signal });
    await ext.prompt(companion.agentKeyThumbprint, 'exc_5Rt2', 'rev_short');
    aborting.abort();
    await expect(next).rejects.toBeDefined();
    const arrived = ext.sentBy(undefined, 'approval_request').slice(requestsBefore);
    expect(arrived.map((m) => (m as { operation: { revision: string } }).operation.revision)).toEqual(['rev_short']);
  });

  it('exactly the limit is sent, and the extension shows it', async () => {
    const companion = await paired();
    const aborting = new AbortController();
    const asked = companion.requestApproval({ company: COMPANY, operation: operation('rev_max', 'x'.repeat(MAX_SUMMARY_LENGTH)), request: REQUEST, session: SESSION, signal: aborting.signal });
    const key = await ext.prompt(companion.agentKeyThumbprint, 'exc_5Rt2', 'rev_max');
    expect((await ext.store.get(key))?.operation.summary).toHaveLength(MAX_SUMMARY_LENGTH);
    aborting.abort();
    await expect(asked).rejects.toBeDefined();
  });

  it('the limit comes first: an unpaired agent is told about the summary, without a round trip', async () => {
    const dir = path.join(await mkdtemp(path.join(os.tmpdir(), 'csa-')), 'agent');
    dirs.push(path.dirname(dir));
    await mkdir(dir, { mode: 0o700 });
    const companion = await Companion.connect({ agentName: 'Unpaired agent', configDir: dir, socketPath: ext.socketPath, timeoutMs: 3000 });
    open.push(companion);
    await expect(companion.requestApproval({ company: COMPANY, operation: operation('rev_x', '\u{1F600}'.repeat(MAX_SUMMARY_LENGTH / 2 + 1)), request: REQUEST, session: SESSION })).rejects.toMatchObject({
      code: 'ERR_SUMMARY_TOO_LONG',
    });
  });
});
