import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Companion, isCountersignError, keyFingerprint } from '../../src/agent';
import { MAX_PAIRING_CODE_ATTEMPTS } from '../../src/extension/agent-sessions';
import { MAX_PENDING_PAIRINGS, agentNameKey } from '../../src/extension/bridge-messages/pair-request';
import { toView } from '../../src/extension/snapshot';
import { FakeExtension, waitFor, rejection } from '../agent/harness';

/**
 * Finding 1: a local process that names itself like a paired agent and asks to pair. Through the
 * real bridge process, with the real extension services and the real SDK on both sides.
 */

const COMPANY = { name: 'Stormline', origin: 'https://stormline.example' };
const REQUEST = { interface: 'api' as const, method: 'POST', url: 'https://stormline.example/orders/ord_7Hk2/exchanges' };
const SESSION = { kind: 'this_session' as const };

describe('finding 1: pairing cannot be taken by a stray click or a borrowed name', () => {
  let ext: FakeExtension;
  const dirs: string[] = [];
  const open: Companion[] = [];

  beforeAll(async () => {
    ext = await FakeExtension.start();
  });
  afterAll(async () => {
    await ext.dispose();
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });
  afterEach(async () => {
    for (const c of open.splice(0)) await c.close();
    for (const p of [...ext.sessions.pairings.values()]) await ext.sessions.answerPairing(p.pairingId, { confirmed: false }).catch(() => undefined);
  });

  async function connect(agentName: string): Promise<Companion> {
    const dir = path.join(await mkdtemp(path.join(os.tmpdir(), 'csp-')), 'agent');
    dirs.push(path.dirname(dir));
    await mkdir(dir, { mode: 0o700 });
    const companion = await Companion.connect({ agentName, configDir: dir, socketPath: ext.socketPath, timeoutMs: 5000 });
    open.push(companion);
    return companion;
  }

  async function pairAs(name: string): Promise<Companion> {
    const companion = await connect(name);
    const pairing = await companion.pair();
    const shown = await waitFor(() => [...ext.sessions.pairings.values()].find((p) => p.agentThumbprint === companion.agentKeyThumbprint && p.code), 'the pairing');
    expect(await ext.sessions.answerPairing(shown.pairingId, { confirmed: true, code: pairing.code })).toEqual({ status: 'paired' });
    await pairing.confirmed;
    return companion;
  }

  it('finding 1: a click alone never pairs: confirming needs the code the agent shows, and three wrong codes refuse', async () => {
    const hostile = await connect('Helper');
    const pairing = await hostile.pair();
    const shown = await waitFor(() => [...ext.sessions.pairings.values()].find((p) => p.agentThumbprint === hostile.agentKeyThumbprint && p.code), 'the pairing');
    const wrong = pairing.code === '000000' ? '111111' : '000000';
    for (let left = MAX_PAIRING_CODE_ATTEMPTS - 1; left >= 0; left--) {
      expect(await ext.sessions.answerPairing(shown.pairingId, { confirmed: true, code: wrong })).toEqual({ status: 'code-mismatch', attemptsLeft: left });
    }
    expect(codeOf(await rejection(pairing.confirmed))).toBe('ERR_PAIRING_FAILED');
    expect(await ext.store.getAgent(hostile.agentKeyThumbprint)).toBeUndefined();
    expect(ext.sessions.pairings.size).toBe(0);
  });

  it('finding 1: a second agent under a paired agent\'s name (in any case, spacing or hidden characters) is refused before the person is asked', async () => {
    const desk = await pairAs('Desk agent');
    for (const name of ['Desk agent', 'DESK  AGENT', 'Desk\u200Bagent'.replace('k\u200Ba', 'k \u200Ba'), '\uFF24esk agent']) {
      const impostor = await connect(name);
      const error = await rejection(impostor.pair());
      expect(codeOf(error), name).toBe('ERR_PAIRING_FAILED');
      expect(String((error as Error).message)).toContain('already paired');
    }
    expect(ext.sessions.pairings.size).toBe(0);
    // The real agent re-pairing under its own name and key is fine.
    expect(desk.paired).toBe(true);
  });

  it('names compare as a person reads them', () => {
    expect(agentNameKey('Desk agent')).toBe(agentNameKey(' desk\u00A0 AGENT '));
    expect(agentNameKey('Desk agent')).toBe(agentNameKey('Desk\u2060 agent'));
    expect(agentNameKey('Desk agent')).not.toBe(agentNameKey('Desk agent 2'));
  });

  it('every prompt names the agent with the same short fingerprint the SDK exposes', async () => {
    const agent = await pairAs('Laptop agent');
    expect(agent.fingerprint).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/);
    expect(agent.fingerprint).toBe(keyFingerprint(agent.agentKeyThumbprint));
    const asked = agent.requestApproval({
      company: COMPANY,
      operation: { operation_id: 'fp_1', revision: 'rev1', summary: 'Exchange the jacket for $70.00 more.', expires_at: '2099-01-01T00:00:00Z' },
      request: REQUEST,
      session: SESSION,
    });
    const record = await waitFor(async () => (await ext.store.byRevision(agent.agentKeyThumbprint, 'fp_1', 'rev1'))[0], 'the prompt');
    expect(toView(record).agentFingerprint).toBe(agent.fingerprint);
    await ext.queue.decide(record.key, 'decline');
    expect((await asked).status).toBe('declined');
  });

  it(`a pairing flood: one pairing per connection, at most ${MAX_PENDING_PAIRINGS} waiting, while a paired agent keeps working`, async () => {
    const worker = await pairAs('Build agent');
    const flood = await Promise.all(Array.from({ length: 8 }, (_, i) => connect(`Flood ${i}`)));
    const results = await Promise.allSettled(flood.map((c) => c.pair()));
    const offered = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(offered).toHaveLength(MAX_PENDING_PAIRINGS);
    expect(refused.map((r) => codeOf(r.reason))).toEqual(Array(8 - MAX_PENDING_PAIRINGS).fill('ERR_THROTTLED'));
    // A second pairing on a connection that has one waiting is refused too.
    const first = flood[results.findIndex((r) => r.status === 'fulfilled')]!;
    expect(codeOf(await rejection(first.pair()))).toBe('ERR_PAIRING_FAILED');

    // The paired agent is not crowded out.
    const asked = worker.requestApproval({
      company: COMPANY,
      operation: { operation_id: 'flood_1', revision: 'rev1', summary: 'Exchange the jacket for $70.00 more.', expires_at: '2099-01-01T00:00:00Z' },
      request: REQUEST,
      session: SESSION,
    });
    const record = await waitFor(async () => (await ext.store.byRevision(worker.agentKeyThumbprint, 'flood_1', 'rev1'))[0], 'the prompt');
    await ext.queue.decide(record.key, 'approve');
    expect((await asked).status).toBe('approved');
  });
});

function codeOf(error: unknown): string | undefined {
  return isCountersignError(error) ? error.code : (error as { code?: string } | undefined)?.code;
}
