import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_PENDING_PER_AGENT } from '../../src/extension/approval-queue';
import { BRIDGE_PROTOCOL_VERSION as V } from '../../src/protocol/bridge';
import { approvalRequest } from '../bridge/helpers';
import { sessionsHarness, type SessionsHarness } from './sessions-harness';

/**
 * The queue's intake under a burst (src/extension/approval-queue.ts `receive`, the sessions'
 * order in src/extension/agent-sessions.ts): asks arriving while the store writes are taken in
 * together, and every rule of one ask at a time still holds (docs/bridge-protocol.md 2.1
 * "Answers and order", the limit of 20 waiting approvals per agent).
 */

/** `n` distinct operations' requests, with ids `${prefix}_0`… */
function asks(prefix: string, n: number): Array<Record<string, unknown>> {
  return Array.from({ length: n }, (_, i) => {
    const m = approvalRequest(`${prefix}_${i}`) as { operation: Record<string, unknown> };
    return { ...m, operation: { ...m.operation, operation_id: `${prefix}_op_${i}`, expires_at: '2099-01-01T00:00:00Z' } };
  });
}

/** Store transactions that may write, opened while `work` runs. */
async function writes(work: () => Promise<unknown>): Promise<number> {
  const spy = vi.spyOn(IDBDatabase.prototype, 'transaction');
  try {
    await work();
    return spy.mock.calls.filter(([, mode]) => mode === 'readwrite').length;
  } finally {
    spy.mockRestore();
  }
}

const answerOf = (h: SessionsHarness, id: string) => {
  const list = h.answerTo(id);
  expect(list.length, `answers to ${id}`).toBeLessThanOrEqual(1);
  const m = list[0] as { type: string; code?: string } | undefined;
  return m === undefined ? 'waiting' : m.type === 'error' ? m.code : m.type;
};

describe('intake under load (docs/bridge-protocol.md 2.1, the limit of waiting approvals)', () => {
  let h: SessionsHarness;
  afterEach(() => h.store.close());

  it(`one connection's burst of 50 asks: the first ${MAX_PENDING_PER_AGENT} wait, the rest hear ERR_THROTTLED in the order sent, in a few writes rather than 50`, async () => {
    h = await sessionsHarness('intake-one');
    await h.pair();
    await h.authenticate('c1');
    const burst = asks('b', 50);
    const written = await writes(async () => {
      const handled = burst.map((m) => h.sessions.receive('c1', m));
      handled.push(h.sessions.receive('c1', { type: 'version_query', v: V, id: 'q_after' }));
      await Promise.all(handled);
    });
    expect(burst.map((m) => answerOf(h, m['id'] as string))).toEqual([...Array<string>(MAX_PENDING_PER_AGENT).fill('waiting'), ...Array<string>(50 - MAX_PENDING_PER_AGENT).fill('ERR_THROTTLED')]);
    // In order: each refusal after the one before it, and the query behind them after all of them.
    const ids = h.answers.filter((a) => a.conn === 'c1').map((a) => (a.message as { id?: string }).id).slice(-31);
    expect(ids).toEqual([...burst.slice(MAX_PENDING_PER_AGENT).map((m) => m['id']), 'q_after']);
    expect(await h.store.countInState('pending')).toBe(MAX_PENDING_PER_AGENT);
    expect(written).toBeLessThanOrEqual(4);
  });

  it(`the limit holds exactly when three connections of one agent ask ${MAX_PENDING_PER_AGENT} each at once`, async () => {
    h = await sessionsHarness('intake-three');
    await h.pair();
    for (const conn of ['c1', 'c2', 'c3']) await h.authenticate(conn);
    const bursts = ['c1', 'c2', 'c3'].map((conn) => ({ conn, asks: asks(conn, MAX_PENDING_PER_AGENT) }));
    await Promise.all(bursts.flatMap(({ conn, asks: list }) => list.map((m) => h.sessions.receive(conn, m))));
    const answered = bursts.flatMap(({ asks: list }) => list.map((m) => answerOf(h, m['id'] as string)));
    expect(answered.filter((a) => a === 'waiting')).toHaveLength(MAX_PENDING_PER_AGENT);
    expect(answered.filter((a) => a === 'ERR_THROTTLED')).toHaveLength(2 * MAX_PENDING_PER_AGENT);
    expect(await h.store.countInState('pending')).toBe(MAX_PENDING_PER_AGENT);
    // Per connection, the refusals come after every ask kept: the count only grows within a connection's order.
    for (const { asks: list } of bursts) {
      const states = list.map((m) => answerOf(h, m['id'] as string));
      expect(states.indexOf('waiting') === -1 || states.lastIndexOf('waiting') < (states.indexOf('ERR_THROTTLED') + 1 || Infinity)).toBe(true);
    }
  });

  it('a burst whose write fails answers each of its asks with an error and stores none of them; the next ask is taken in', async () => {
    h = await sessionsHarness('intake-fails');
    await h.pair();
    await h.authenticate('c1');
    const burst = asks('f', 5);
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the object store as `this`
    const add = IDBObjectStore.prototype.add;
    const failing = vi.spyOn(IDBObjectStore.prototype, 'add').mockImplementation(function (this: IDBObjectStore, value: unknown, key?: IDBValidKey) {
      if ((value as { requestId?: string }).requestId === 'f_3') throw new DOMException('the disk is full', 'QuotaExceededError');
      return add.call(this, value, key);
    });
    try {
      await Promise.all(burst.map((m) => h.sessions.receive('c1', m)));
    } finally {
      failing.mockRestore();
    }
    // The first ask may have been a batch of its own, already stored; every ask of the failed batch is refused.
    const answered = burst.map((m) => answerOf(h, m['id'] as string));
    const failedFrom = answered.indexOf('ERR_REMOTE');
    expect(failedFrom).toBeGreaterThanOrEqual(0);
    expect(answered.slice(failedFrom)).toEqual(Array<string>(burst.length - failedFrom).fill('ERR_REMOTE'));
    expect((await h.store.all()).map((r) => r.requestId)).toEqual(burst.slice(0, failedFrom).map((m) => m['id']));
    expect((await h.store.auditLog()).filter((e) => e.kind === 'received')).toHaveLength(failedFrom);
    const [again] = asks('g', 1);
    await h.sessions.receive('c1', again!);
    expect(answerOf(h, 'g_0')).toBe('waiting');
  });

  it('an approval_cancel right behind an ask still being taken in cancels it (the cancel waits for the ask)', async () => {
    h = await sessionsHarness('intake-cancel');
    await h.pair();
    await h.authenticate('c1');
    const [ask] = asks('k', 1);
    await Promise.all([h.sessions.receive('c1', ask!), h.sessions.receive('c1', { type: 'approval_cancel', v: V, id: 'cancel_1', request_id: 'k_0' })]);
    expect(h.answerTo('k_0')).toEqual([expect.objectContaining({ type: 'decision', status: 'cancelled' })]);
    expect(h.answerTo('cancel_1')).toEqual([expect.objectContaining({ type: 'ack', cancelled: true })]);
  });

  it("an agent's asks read its record from the store once, not once per ask; its revocation refuses the next ask", async () => {
    h = await sessionsHarness('intake-agent');
    await h.pair();
    await h.authenticate('c1');
    const spy = vi.spyOn(IDBDatabase.prototype, 'transaction');
    try {
      await Promise.all(asks('a', 10).map((m) => h.sessions.receive('c1', m)));
      expect(spy.mock.calls.filter(([stores]) => [stores].flat().includes('agents'))).toHaveLength(0);
    } finally {
      spy.mockRestore();
    }
    await h.sessions.revoke(h.agent.thumbprint);
    const [late] = asks('late', 1);
    await h.sessions.receive('c1', late!);
    expect(answerOf(h, 'late_0')).toBe('ERR_AGENT_REVOKED');
  });
});
