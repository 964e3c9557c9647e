import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApprovalQueue, MAX_PENDING_PER_AGENT, type AgentReply, type IncomingApprovalRequest } from '../../src/extension/approval-queue';
import { extensionKey, signRecord } from '../../src/extension/keys';
import { Store, approvalKey, type PairedAgent, type StoredKeyPair } from '../../src/extension/store';
import { verifyDecision } from '../../src/protocol/decision';
import { expiresAtMs } from '../../src/protocol/operation';
import { deadlineOf, instantOf } from '../../src/protocol/rfc3339';
import { formatRemaining } from '../../src/extension/ui/countdown';
import { englishTranslate } from '../extension/ui/locale-table';

/**
 * A hostile Company's clock: `expires_at` values that are valid RFC 3339 but that `Date.parse`
 * does not read (a leap second), far past, far future, odd offsets. Spec section 3 "Expiry":
 * an expired revision cannot be approved; every module reads the time with one function.
 */

const AGENT = `agentA${'_'.repeat(36)}A`;
const agent: PairedAgent = { thumbprint: AGENT, name: 'Desk agent', publicJwk: {}, pairedAt: 0 };
const COMPANY = { name: 'Stormline', origin: 'https://stormline.example' };
let n = 0;

function request(operationId: string, expiresAt: string): IncomingApprovalRequest {
  n++;
  return {
    id: `req-${n}`,
    nonce: `${'n'.repeat(38)}${String(n).padStart(4, '0')}A`,
    company: COMPANY,
    operation: { operation_id: operationId, revision: 'rev1', summary: 'Cancel the booking, free of charge.', expires_at: expiresAt },
    request: { interface: 'api', method: 'DELETE', url: 'https://stormline.example/bookings/b1' },
    session: { kind: 'this_session' },
  };
}

describe('finding 2: one clock for RFC 3339 times (leap seconds included)', () => {
  it('a leap second is the last millisecond of :59, UTC (the stated rule), at both ends of a year', () => {
    expect(instantOf('2025-12-31T23:59:60Z')).toBe(Date.parse('2025-12-31T23:59:59.999Z'));
    expect(instantOf('2016-12-31T23:59:60.5Z')).toBe(Date.parse('2016-12-31T23:59:59.999Z'));
    // The same leap second written in another offset names the same instant.
    expect(instantOf('2016-12-31T15:59:60-08:00')).toBe(instantOf('2016-12-31T23:59:60Z'));
    // Ordered: after every earlier instant, before the next day.
    expect(instantOf('2025-12-31T23:59:60Z')).toBeGreaterThan(instantOf('2025-12-31T23:59:59.998Z'));
    expect(instantOf('2025-12-31T23:59:60Z')).toBeLessThan(instantOf('2026-01-01T00:00:00Z'));
    expect(Number.isNaN(Date.parse('2025-12-31T23:59:60Z'))).toBe(true); // why the one clock exists
  });

  it('a leap second where none can occur is not a time; deadlineOf fails closed (already past)', () => {
    expect(() => instantOf('2025-06-15T12:00:60Z')).toThrow(expect.objectContaining({ code: 'ERR_OPERATION_INVALID' }));
    expect(deadlineOf('2025-06-15T12:00:60Z')).toBe(Number.NEGATIVE_INFINITY);
    expect(deadlineOf('not a time')).toBe(Number.NEGATIVE_INFINITY);
    expect(expiresAtMs({ expires_at: '2026-06-30T23:59:60Z' })).toBe(instantOf('2026-06-30T23:59:60Z'));
  });

  it('the window counts down to the same instant (a future leap second is not shown as "Expired")', () => {
    const now = Date.parse('2026-12-31T23:00:00Z');
    const left = deadlineOf('2026-12-31T23:59:60Z') - now;
    expect(left).toBeGreaterThan(0);
    expect(formatRemaining(left, englishTranslate())).toBe('59 min 59 s');
  });
});

describe('finding 2: a leap-second expiry through the queue and the real signer', () => {
  let store: Store;
  let key: StoredKeyPair;
  let sent: Array<[string, AgentReply]>;
  let queue: ApprovalQueue;
  let now = Date.parse('2026-12-31T23:00:00Z');

  beforeEach(async () => {
    store = await Store.open(`clock-${++n}`);
    key = await extensionKey(store);
    sent = [];
    now = Date.parse('2026-12-31T23:00:00Z');
    queue = new ApprovalQueue({
      store,
      sign: (record, status, at) => signRecord(key, record, status, at),
      send: (conn, reply) => {
        sent.push([conn, reply]);
        return true;
      },
      changed: () => {},
      now: () => now,
    });
  });
  afterEach(() => store.close());

  it('a past leap second is "expired" at once, never a prompt', async () => {
    const r = request('op_past', '2025-12-31T23:59:60Z');
    expect(await queue.receive(agent, 'c1', r)).toEqual({ type: 'decision', id: r.id, status: 'expired' });
    expect(await store.byState('pending')).toHaveLength(0);
  });

  it('a future leap second can be approved before it and the decision verifies; after it, it expires', async () => {
    const r = request('op_future', '2026-12-31T23:59:60Z');
    expect(await queue.receive(agent, 'c1', r)).toBeNull();
    const k = approvalKey(AGENT, COMPANY.origin, 'op_future', 'rev1');
    now = Date.parse('2026-12-31T23:59:59.500Z');
    await queue.decide(k, 'approve');
    const jws = (sent[0]![1] as { jws?: string }).jws!;
    const claims = await verifyDecision(jws, {
      pinnedKey: key.publicJwk,
      expected: { operation: r.operation, company: COMPANY, audience: AGENT, nonce: r.nonce },
      now: new Date(now),
    });
    expect(claims.status).toBe('approved');

    const late = request('op_late', '2026-12-31T23:59:60Z');
    await queue.receive(agent, 'c1', late);
    now = Date.parse('2027-01-01T00:00:00Z');
    await expect(queue.decide(approvalKey(AGENT, COMPANY.origin, 'op_late', 'rev1'), 'approve')).rejects.toMatchObject({ code: 'ERR_DECISION_EXPIRED' });
    expect((await store.get(approvalKey(AGENT, COMPANY.origin, 'op_late', 'rev1')))?.state).toBe('expired');
  });

  it('Decline always ends a waiting item: before expiry it is declined (signed), after it expired', async () => {
    await queue.receive(agent, 'c1', request('op_a', '2026-12-31T23:59:60Z'));
    await queue.receive(agent, 'c1', request('op_b', '2026-12-31T23:59:60Z'));
    expect((await queue.decide(approvalKey(AGENT, COMPANY.origin, 'op_a', 'rev1'), 'decline')).state).toBe('declined');
    now = Date.parse('2027-01-01T00:00:01Z');
    expect((await queue.decide(approvalKey(AGENT, COMPANY.origin, 'op_b', 'rev1'), 'decline')).state).toBe('expired');
    // Declining what is no longer waiting changes nothing and does not throw.
    expect((await queue.decide(approvalKey(AGENT, COMPANY.origin, 'op_b', 'rev1'), 'decline')).state).toBe('expired');
  });

  it('Decline all goes on past an item that fails and says which one', async () => {
    for (const id of ['op_1', 'op_2', 'op_3']) await queue.receive(agent, 'c1', request(id, '2026-12-31T23:59:60Z'));
    const broken = approvalKey(AGENT, COMPANY.origin, 'op_2', 'rev1');
    // Decline all is one write of every change; one item's change failing comes back as its own
    // result (as one no longer waiting does), and the others are declined all the same.
    const transitionAll = store.transitionAll.bind(store);
    store.transitionAll = async (changes) => [...(await transitionAll(changes.filter((c) => c.key !== broken))), { key: broken, error: new Error('disk full') }];
    const result = await queue.declineAll();
    expect(result.declined).toBe(2);
    expect(result.failed).toEqual([{ key: broken, message: 'disk full' }]);
    expect((await store.byState('declined')).map((r) => r.operationId).sort()).toEqual(['op_1', 'op_3']);
  });

  it(`${MAX_PENDING_PER_AGENT} leap-second prompts do not throttle the agent for good: they expire and it can ask again`, async () => {
    for (let i = 0; i < MAX_PENDING_PER_AGENT; i++) await queue.receive(agent, 'c1', request(`op_${i}`, '2026-12-31T23:59:60Z'));
    expect(await queue.receive(agent, 'c1', request('op_more', '2027-06-30T00:00:00Z'))).toMatchObject({ code: 'ERR_THROTTLED' });
    now = Date.parse('2027-01-01T00:00:00Z');
    expect(await queue.expireDue()).toBe(MAX_PENDING_PER_AGENT);
    expect(await queue.receive(agent, 'c1', request('op_more', '2027-06-30T00:00:00Z'))).toBeNull();
  });
});
