import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApprovalQueue, type AgentReply, type IncomingApprovalRequest } from '../../src/extension/approval-queue';
import { extensionKey, signRecord } from '../../src/extension/keys';
import { Store, approvalKey, type PairedAgent, type StoredKeyPair } from '../../src/extension/store';
import { verifyDecision } from '../../src/protocol/decision';

/**
 * Approval items are keyed by agent, Company origin, operation ID and revision. Operation IDs are
 * each Company's own (spec section 3), so two Companies may send the same pair; and a revision's
 * terms can't change, so the same key with other text is refused, never answered from the store.
 */

const AGENT = `agentA${'_'.repeat(36)}A`;
const agent: PairedAgent = { thumbprint: AGENT, name: 'Desk agent', publicJwk: {}, pairedAt: 0 };
const A = { name: 'Stormline', origin: 'https://stormline.example' };
const B = { name: 'Northwind', origin: 'https://northwind.example' };
const NOW = Date.parse('2026-10-08T19:00:00Z');
let n = 0;

function request(company: { name: string; origin: string }, operation: Partial<IncomingApprovalRequest['operation']> = {}): IncomingApprovalRequest {
  n++;
  return {
    id: `req-${n}`,
    nonce: `${'n'.repeat(38)}${String(n).padStart(4, '0')}A`,
    company,
    operation: {
      operation_id: 'exc_5Rt2',
      revision: 'rev1',
      summary: 'Exchange the jacket for **$70.00** more.',
      terms: { price_difference: { amount: '70.00', currency: 'USD' } },
      expires_at: '2026-10-08T12:20:00-07:00',
      ...operation,
    },
    request: { interface: 'api', method: 'POST', url: `${company.origin}/orders/ord_7Hk2/exchanges` },
    session: { kind: 'this_session' },
  };
}

describe('finding 4 and 5: keys that cannot collide', () => {
  let store: Store;
  let key: StoredKeyPair;
  let sent: Array<[string, AgentReply]>;
  let signed: number;
  let queue: ApprovalQueue;

  beforeEach(async () => {
    store = await Store.open(`keys-${++n}`);
    key = await extensionKey(store);
    sent = [];
    signed = 0;
    queue = new ApprovalQueue({
      store,
      sign: (record, status, at) => {
        signed++;
        return signRecord(key, record, status, at);
      },
      send: (conn, reply) => {
        sent.push([conn, reply]);
        return true;
      },
      changed: () => {},
      now: () => NOW,
    });
  });
  afterEach(() => store.close());

  const verify = (jws: string, asked: IncomingApprovalRequest) =>
    verifyDecision(jws, { pinnedKey: key.publicJwk, expected: { operation: asked.operation, company: asked.company, audience: AGENT, nonce: asked.nonce }, now: new Date(NOW) });

  it('finding 4: Company B with the same operation ID and revision as A gets its own prompt, and each decision reaches its own request', async () => {
    const fromA = request(A);
    const fromB = request(B, { summary: 'Charge **$700.00** to the card on file.', terms: { charge: { amount: '700.00', currency: 'USD' } } });
    expect(await queue.receive(agent, 'cA', fromA)).toBeNull();
    expect(await queue.receive(agent, 'cB', fromB)).toBeNull();
    const pending = await store.byState('pending');
    expect(pending.map((r) => r.company.origin).sort()).toEqual([A.origin, B.origin].sort());
    // Neither superseded the other: they are different actions of different Companies.
    expect(sent).toEqual([]);

    await queue.decide(approvalKey(AGENT, A.origin, 'exc_5Rt2', 'rev1'), 'approve');
    expect(sent).toHaveLength(1);
    const [conn, reply] = sent[0]!;
    expect(conn).toBe('cA');
    expect(reply).toMatchObject({ type: 'decision', id: fromA.id, status: 'approved' });
    expect((await verify((reply as { jws: string }).jws, fromA)).company).toEqual(A);
    // B's prompt is still waiting, with B's text.
    expect((await store.get(approvalKey(AGENT, B.origin, 'exc_5Rt2', 'rev1')))).toMatchObject({ state: 'pending', company: B, conn: 'cB' });
  });

  it('finding 4: approval_sent and outcome name the Company; without it, two matches are refused as ambiguous', async () => {
    await queue.receive(agent, 'cA', request(A));
    await queue.receive(agent, 'cB', request(B));
    await queue.decide(approvalKey(AGENT, A.origin, 'exc_5Rt2', 'rev1'), 'approve');
    await queue.decide(approvalKey(AGENT, B.origin, 'exc_5Rt2', 'rev1'), 'approve');
    expect(await queue.sent(AGENT, 's1', 'exc_5Rt2', 'rev1')).toMatchObject({ type: 'error', id: 's1', code: 'ERR_APPROVAL_AMBIGUOUS' });
    expect(await queue.sent(AGENT, 's2', 'exc_5Rt2', 'rev1', B.origin)).toEqual({ type: 'ack', id: 's2', sent: true });
    expect((await store.get(approvalKey(AGENT, B.origin, 'exc_5Rt2', 'rev1')))?.state).toBe('sent');
    expect((await store.get(approvalKey(AGENT, A.origin, 'exc_5Rt2', 'rev1')))?.state).toBe('approved');
    expect(await queue.outcome(AGENT, 'o1', 'exc_5Rt2', 'rev1', 'performed', undefined, B.origin)).toEqual({ type: 'ack', id: 'o1' });
    expect((await store.get(approvalKey(AGENT, B.origin, 'exc_5Rt2', 'rev1')))?.state).toBe('performed');
  });

  for (const [what, change] of [
    ['summary', { summary: 'Exchange the jacket for **$7.00** more.' }],
    ['terms', { terms: { price_difference: { amount: '700.00', currency: 'USD' } } }],
    ['expires_at', { expires_at: '2026-10-09T12:20:00-07:00' }],
  ] as const) {
    it(`finding 5: a decided revision asked again with another ${what} is refused (ERR_REVISION_CONFLICT), never answered from the store`, async () => {
      await queue.receive(agent, 'c1', request(A));
      await queue.decide(approvalKey(AGENT, A.origin, 'exc_5Rt2', 'rev1'), 'approve');
      const signedBefore = signed;
      const changed = request(A, change);
      const reply = await queue.receive(agent, 'c2', changed);
      expect(reply).toMatchObject({ type: 'error', id: changed.id, code: 'ERR_REVISION_CONFLICT' });
      expect(signed).toBe(signedBefore);
      expect((await store.auditLog()).some((e) => e.kind === 'revision-conflict')).toBe(true);
    });
  }

  it('finding 5: a pending revision asked again with another Company name is refused, and the prompt keeps its asker', async () => {
    await queue.receive(agent, 'c1', request(A));
    const renamed = request({ name: 'Stormline Refunds', origin: A.origin });
    expect(await queue.receive(agent, 'c2', renamed)).toMatchObject({ type: 'error', code: 'ERR_REVISION_CONFLICT' });
    expect(await store.get(approvalKey(AGENT, A.origin, 'exc_5Rt2', 'rev1'))).toMatchObject({ state: 'pending', conn: 'c1', company: A });
  });

  it('an identical re-ask keeps the idempotent behaviour: the stored decision, re-signed for the new nonce', async () => {
    await queue.receive(agent, 'c1', request(A));
    await queue.decide(approvalKey(AGENT, A.origin, 'exc_5Rt2', 'rev1'), 'approve');
    // Terms with the same members in another order are the same terms (RFC 8785).
    const again = request(A, { terms: { price_difference: { currency: 'USD', amount: '70.00' } } });
    const reply = await queue.receive(agent, 'c2', again);
    expect(reply).toMatchObject({ type: 'decision', id: again.id, status: 'approved' });
    expect((await verify((reply as { jws: string }).jws, again)).nonce).toBe(again.nonce);
  });
});
