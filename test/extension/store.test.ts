import 'fake-indexeddb/auto';
import { describe, it, expect, beforeEach, vi } from 'vitest';
import { Store, approvalKey, type ApprovalRecord } from '../../src/extension/store';
import { approvalRecord as record } from './store-records';
import { isCountersignError } from '../../src/protocol/errors';

let dbCount = 0;
describe('extension store (state survives a worker stop)', () => {
  let name: string;
  beforeEach(() => {
    name = `countersign-test-${++dbCount}`;
  });

  it('keeps a pending approval across a close and reopen', async () => {
    const a = await Store.open(name);
    await a.insert(record(), { kind: 'received' });
    a.close();
    const b = await Store.open(name);
    const pending = await b.byState('pending');
    expect(pending.map((r) => r.key)).toEqual([record().key]);
    b.close();
  });

  it('refuses to insert the same revision twice (no duplicates)', async () => {
    const s = await Store.open(name);
    await s.insert(record(), { kind: 'received' });
    await expect(s.insert(record(), { kind: 'received' })).rejects.toThrow();
    expect(await s.all()).toHaveLength(1);
    s.close();
  });

  it('applies a transition and its audit line together', async () => {
    const s = await Store.open(name);
    await s.insert(record(), { kind: 'received' });
    const approved = await s.transition(record().key, 'approve', { decision: 'jws' });
    expect(approved.state).toBe('approved');
    expect(approved.decision).toBe('jws');
    const log = await s.auditLog();
    expect(log.map((e) => e.kind)).toEqual(['received', 'approve']);
    expect(log[1]).toMatchObject({ from: 'pending', to: 'approved' });
    s.close();
  });

  it('a forbidden transition changes nothing and writes no audit line', async () => {
    const s = await Store.open(name);
    await s.insert(record({ state: 'declined' }), { kind: 'received' });
    const error = await s.transition(record().key, 'approve').catch((e: unknown) => e);
    expect(isCountersignError(error, 'ERR_NOT_ALLOWED')).toBe(true);
    expect((await s.get(record().key))?.state).toBe('declined');
    expect(await s.auditLog()).toHaveLength(1);
    s.close();
  });

  it('applies many events in one transaction: each with its audit line, one not allowed fails alone and changes nothing of its own', async () => {
    const s = await Store.open(name);
    const keys = ['a', 'b', 'c'].map((id) => approvalKey('agentA', 'https://stormline.example', id, 'r1'));
    await s.insert(record({ key: keys[0]!, operationId: 'a' }), { kind: 'received' });
    await s.insert(record({ key: keys[1]!, operationId: 'b', state: 'approved' }), { kind: 'received' });
    await s.insert(record({ key: keys[2]!, operationId: 'c' }), { kind: 'received' });
    const results = await s.transitionAll([
      { key: keys[0]!, event: 'decline', patch: { decision: 'jws-a' } },
      { key: keys[1]!, event: 'decline', patch: { decision: 'jws-b' } },
      { key: keys[2]!, event: 'expire', detail: 'past its expiry' },
      { key: 'missing', event: 'decline' },
    ]);
    expect(results.map((r) => ('record' in r ? r.record.state : r.error.message))).toEqual([
      'declined',
      'approval: cannot decline an approval that is approved',
      'expired',
      'key: expected the key of an approval, got missing, which names none',
    ]);
    expect(await s.get(keys[0]!)).toMatchObject({ state: 'declined', decision: 'jws-a' });
    expect(await s.get(keys[1]!)).toMatchObject({ state: 'approved' });
    expect((await s.get(keys[1]!))?.decision).toBeUndefined();
    const log = await s.auditLog();
    expect(log.slice(3)).toEqual([
      expect.objectContaining({ kind: 'decline', key: keys[0], from: 'pending', to: 'declined' }),
      expect.objectContaining({ kind: 'expire', key: keys[2], from: 'pending', to: 'expired', detail: 'past its expiry' }),
    ]);
    s.close();
  });

  it('an intake reads what its asks look at first together: the revisions asked for, their operations\' revisions, and how many their agents have waiting', async () => {
    const s = await Store.open(name);
    const r2 = record({ key: approvalKey('agentA', 'https://stormline.example', 'exc_5Rt2', 'r2'), revision: 'r2' });
    await s.insert(record(), { kind: 'received' });
    await s.insert(r2, { kind: 'received' });
    await s.insert(record({ key: approvalKey('agentA', 'https://other.example', 'exc_5Rt2', 'r3'), revision: 'r3', company: { name: 'Other', origin: 'https://other.example' }, state: 'declined' }), { kind: 'received' });
    await s.insert(record({ key: approvalKey('agentB', 'https://stormline.example', 'exc_5Rt2', 'r1'), agent: 'agentB' }), { kind: 'received' });
    const look = (key: string, agent: string, operationId: string) => ({ key, agent, origin: 'https://stormline.example', operationId });
    const seen = await s.intake([look(r2.key, 'agentA', 'exc_5Rt2'), look('missing', 'agentC', 'none')], (view) => ({
      existing: view.get(r2.key)?.key,
      siblings: view.byOperation('agentA', 'https://stormline.example', 'exc_5Rt2').map((r) => r.revision).sort(),
      waiting: view.waiting('agentA'),
      none: [view.get('missing'), view.byOperation('agentC', 'https://stormline.example', 'none'), view.waiting('agentC')],
    }));
    expect(seen).toEqual({ existing: r2.key, siblings: [record().revision, 'r2'].sort(), waiting: 2, none: [undefined, [], 0] });
    s.close();
  });

  it('counts the approvals in one state (the badge) without reading them', async () => {
    const s = await Store.open(name);
    await s.insert(record(), { kind: 'received' });
    await s.insert(record({ key: approvalKey('agentA', 'https://stormline.example', 'b', 'r1'), operationId: 'b' }), { kind: 'received' });
    await s.insert(record({ key: approvalKey('agentA', 'https://stormline.example', 'c', 'r1'), operationId: 'c', state: 'declined' }), { kind: 'received' });
    expect([await s.countInState('pending'), await s.countInState('declined'), await s.countInState('approved')]).toEqual([2, 1, 0]);
    s.close();
  });

  it('changes the connection of many approvals in one transaction, skipping a key that names none', async () => {
    const s = await Store.open(name);
    const other = approvalKey('agentA', 'https://stormline.example', 'other', 'r1');
    await s.insert(record(), { kind: 'received' });
    await s.insert(record({ key: other, operationId: 'other', conn: 'c2' }), { kind: 'received' });
    await s.patchAll([record().key, 'missing', other], { conn: null, agentConnected: false });
    expect((await s.all()).map((r) => [r.conn, r.agentConnected, r.state])).toEqual([
      [null, false, 'pending'],
      [null, false, 'pending'],
    ]);
    expect(await s.all()).toHaveLength(2);
    s.close();
  });

  it('finds every revision of one operation of one agent', async () => {
    const s = await Store.open(name);
    await s.insert(record(), { kind: 'received' });
    const r2 = record({ revision: 'rev2', key: approvalKey('agentA', 'https://stormline.example', 'exc_5Rt2', 'rev2') });
    await s.insert(r2, { kind: 'received' });
    await s.insert(record({ agent: 'agentB', key: approvalKey('agentB', 'https://stormline.example', 'exc_5Rt2', 'rev2') }), { kind: 'received' });
    expect((await s.byOperation('agentA', 'https://stormline.example', 'exc_5Rt2')).map((r) => r.revision).sort()).toEqual(
      ['1791487200-k3Jd9Qx2mW8v', 'rev2'].sort(),
    );
    s.close();
  });

  it('stores one extension key pair even when two starts race', async () => {
    const s = await Store.open(name);
    const pair = await crypto.subtle.generateKey({ name: 'Ed25519' }, false, ['sign', 'verify']);
    const base = { name: 'extension' as const, alg: 'EdDSA' as const, ...pair, publicJwk: {}, createdAt: 1 };
    const [x, y] = await Promise.all([
      s.putKeyPairOnce({ ...base, thumbprint: 'first' }),
      s.putKeyPairOnce({ ...base, thumbprint: 'second' }),
    ]);
    expect(x.thumbprint).toBe(y.thumbprint);
    expect((await s.getKeyPair())?.thumbprint).toBe(x.thumbprint);
    s.close();
  });
});

describe('extension store, version 1 to version 2 (approval keys gain the Company origin)', () => {
  it('re-keys every version 1 record, keeps the links between revisions, and the new indexes find them', async () => {
    const { openDB } = await import('idb');
    const name = `countersign-v1-${++dbCount}`;
    // The version 1 layout, as 0.1 created it: keys without the origin, a two-part operation index.
    const v1 = await openDB(name, 1, {
      upgrade(db) {
        const approvals = db.createObjectStore('approvals', { keyPath: 'key' });
        approvals.createIndex('by-state', 'state');
        approvals.createIndex('by-operation', ['agent', 'operationId']);
        approvals.createIndex('by-updated', 'updatedAt');
        db.createObjectStore('agents', { keyPath: 'thumbprint' });
        db.createObjectStore('keys', { keyPath: 'name' });
        db.createObjectStore('audit', { keyPath: 'id', autoIncrement: true });
      },
    });
    const first = record({ key: 'agentA exc_5Rt2 rev1', revision: 'rev1', state: 'superseded' });
    const second = record({ key: 'agentA exc_5Rt2 rev2', revision: 'rev2', previousKey: 'agentA exc_5Rt2 rev1' });
    await v1.put('approvals', first);
    await v1.put('approvals', second);
    v1.close();

    const s = await Store.open(name);
    const newFirst = approvalKey('agentA', 'https://stormline.example', 'exc_5Rt2', 'rev1');
    const newSecond = approvalKey('agentA', 'https://stormline.example', 'exc_5Rt2', 'rev2');
    expect((await s.all()).map((r) => r.key).sort()).toEqual([newFirst, newSecond].sort());
    expect((await s.get(newSecond))?.previousKey).toBe(newFirst);
    expect((await s.byState('pending')).map((r) => r.key)).toEqual([newSecond]);
    expect((await s.byOperation('agentA', 'https://stormline.example', 'exc_5Rt2')).map((r) => r.revision).sort()).toEqual(['rev1', 'rev2']);
    expect((await s.byRevision('agentA', 'exc_5Rt2', 'rev2')).map((r) => r.key)).toEqual([newSecond]);
    s.close();
  });
});

describe('extension store, version 2 to version 3 (an [agent, state] index for the throttle count)', () => {
  it('adds the index to a version 2 store, and the throttle counts one agent\'s waiting approvals with it', async () => {
    const { openDB } = await import('idb');
    const name = `countersign-v2-${++dbCount}`;
    const v2 = await openDB(name, 2, {
      upgrade(db) {
        const approvals = db.createObjectStore('approvals', { keyPath: 'key' });
        approvals.createIndex('by-state', 'state');
        approvals.createIndex('by-updated', 'updatedAt');
        approvals.createIndex('by-operation', ['agent', 'company.origin', 'operationId']);
        approvals.createIndex('by-revision', ['agent', 'operationId', 'revision']);
        db.createObjectStore('agents', { keyPath: 'thumbprint' });
        db.createObjectStore('keys', { keyPath: 'name' });
        db.createObjectStore('audit', { keyPath: 'id', autoIncrement: true });
      },
    });
    const waiting = (agent: string, revision: string, state: ApprovalRecord['state'] = 'pending') =>
      record({ key: approvalKey(agent, 'https://stormline.example', 'exc_5Rt2', revision), agent, revision, state });
    await v2.put('approvals', waiting('agentA', 'r1'));
    await v2.put('approvals', waiting('agentA', 'r2', 'declined'));
    await v2.put('approvals', waiting('agentB', 'r3'));
    await v2.put('approvals', waiting('agentB', 'r4'));
    v2.close();

    const s = await Store.open(name);
    // agentA has one pending (the declined one does not count), agentB two: a limit of 2 lets A in, not B.
    const looks = ['r5', 'r6', 'r7'].map((r, i) => ({ key: waiting(i < 2 ? 'agentA' : 'agentB', r).key, agent: i < 2 ? 'agentA' : 'agentB', origin: 'https://stormline.example', operationId: 'exc_5Rt2' }));
    const counted = await s.intake(looks, (view) => {
      const before = [view.waiting('agentA'), view.waiting('agentB')];
      view.insert(waiting('agentA', 'r5'), { kind: 'request' });
      return [...before, view.waiting('agentA')];
    });
    expect(counted).toEqual([1, 2, 2]);
    expect((await s.get(waiting('agentA', 'r5').key))?.state).toBe('pending');
    s.close();
  });
});

describe('extension store, an intake of a batch of asks (one transaction)', () => {
  const origin = 'https://stormline.example';
  const revision = (agent: string, r: string, state: ApprovalRecord['state'] = 'pending') => record({ key: approvalKey(agent, origin, 'exc_5Rt2', r), agent, revision: r, state });
  const look = (r: ApprovalRecord) => ({ key: r.key, agent: r.agent, origin, operationId: r.operationId });

  it('each ask of a batch sees the writes of those before it: its key, its operation, its agent\'s count', async () => {
    const s = await Store.open(`countersign-intake-${++dbCount}`);
    const [r1, r2] = [revision('agentA', 'r1'), revision('agentA', 'r2')];
    const seen = await s.intake([look(r1), look(r2)], (view) => {
      view.insert(r1, { kind: 'received' });
      const afterInsert = [view.get(r1.key)?.state, view.byOperation('agentA', origin, 'exc_5Rt2').length, view.waiting('agentA')];
      view.insert({ ...r2, previousKey: r1.key }, { kind: 'received' });
      view.transition(r1.key, 'supersede');
      return [...afterInsert, view.get(r1.key)?.state, view.waiting('agentA')];
    });
    expect(seen).toEqual(['pending', 1, 1, 'superseded', 1]);
    expect((await s.all()).map((r) => [r.revision, r.state])).toEqual([['r1', 'superseded'], ['r2', 'pending']]);
    expect((await s.auditLog()).map((e) => e.kind)).toEqual(['received', 'received', 'supersede']);
    s.close();
  });

  it('a write of the batch that fails stores nothing of the batch, and the intake rejects', async () => {
    const s = await Store.open(`countersign-intake-${++dbCount}`);
    const [r1, r2] = [revision('agentA', 'r1'), revision('agentA', 'r2')];
    // A function cannot be stored (structured clone): the second insert's write fails.
    const unstorable = { ...r2, operation: { ...r2.operation, terms: { note: () => 'x' } } } as unknown as ApprovalRecord;
    await expect(s.intake([look(r1), look(r2)], (view) => {
      view.insert(r1, { kind: 'received' });
      view.insert(unstorable, { kind: 'received' });
    })).rejects.toThrow();
    expect(await s.all()).toEqual([]);
    expect(await s.auditLog()).toEqual([]);
    s.close();
  });

  it('refuses to read or write what its looks did not name, and to insert a key stored already', async () => {
    const s = await Store.open(`countersign-intake-${++dbCount}`);
    const r1 = revision('agentA', 'r1');
    await s.insert(r1, { kind: 'received' });
    const errors = await s.intake([look(r1)], (view) =>
      [() => view.get('other'), () => view.waiting('agentB'), () => view.byOperation('agentA', origin, 'other'), () => view.insert(r1, { kind: 'received' })].map((f) => {
        try {
          f();
          return 'none';
        } catch (error) {
          return isCountersignError(error) ? error.code : 'other';
        }
      }),
    );
    expect(errors).toEqual(['ERR_STORAGE_FAILED', 'ERR_STORAGE_FAILED', 'ERR_STORAGE_FAILED', 'ERR_ARGUMENT_INVALID']);
    expect(await s.all()).toHaveLength(1);
    s.close();
  });
});

describe('extension store, paired agents in memory', () => {
  it('reads an agent from IndexedDB once; a change through putAgent (a revocation) is seen at once; a copy each time', async () => {
    const s = await Store.open(`countersign-agents-${++dbCount}`);
    const agent = { thumbprint: 'agentA', name: 'Desk agent', publicJwk: { kty: 'OKP' }, pairedAt: 1 };
    await s.putAgent(agent);
    const reopened = await Store.open(`countersign-agents-${dbCount}`);
    const reads = vi.spyOn(IDBDatabase.prototype, 'transaction');
    try {
      const first = await reopened.getAgent('agentA');
      first!.name = 'changed by a caller';
      expect((await reopened.getAgent('agentA'))?.name).toBe('Desk agent');
      expect(await reopened.getAgent('agentA')).toEqual(agent);
      expect(reads.mock.calls.filter(([stores]) => [stores].flat().includes('agents'))).toHaveLength(1);
      await reopened.putAgent({ ...agent, revokedAt: 5 });
      expect((await reopened.getAgent('agentA'))?.revokedAt).toBe(5);
    } finally {
      reads.mockRestore();
    }
    s.close();
    reopened.close();
  });
});
