import 'fake-indexeddb/auto';
import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { ApprovalQueue, MAX_PENDING_PER_AGENT, type AgentReply, type IncomingApprovalRequest } from '../../src/extension/approval-queue';
import { extensionKey, signRecord } from '../../src/extension/keys';
import { Store, approvalKey, type PairedAgent, type StoredKeyPair } from '../../src/extension/store';
import { digestSummary, digestTerms, verifyDecision, type DecisionClaims } from '../../src/protocol/decision';
import { toolCallRevision, toolCallSummary } from '../../src/protocol/tool-call';
import { verifyToolCallDecision } from '../../src/protocol/tool-call-decision';
import { toolCallAsRequest } from '../../src/extension/tool-call-request';

/** An RFC 7638 thumbprint's shape: the signer puts it in `aud`. */
const AGENT = `agentA${'_'.repeat(36)}A`;
const agent: PairedAgent = { thumbprint: AGENT, name: 'Desk agent', publicJwk: {}, pairedAt: 0 };
const NOW = Date.parse('2026-10-08T19:00:00Z');
let n = 0;

function request(revision = 'rev1', overrides: Partial<IncomingApprovalRequest> = {}): IncomingApprovalRequest {
  return {
    id: `req-${++n}`,
    nonce: `${'n'.repeat(38)}${String(n).padStart(4, '0')}A`,
    company: { name: 'Stormline', origin: 'https://stormline.example' },
    operation: {
      operation_id: 'exc_5Rt2',
      revision,
      summary: 'Exchange the jacket for **$70.00** more.',
      expires_at: '2026-10-08T12:20:00-07:00',
    },
    request: { interface: 'api', method: 'POST', url: 'https://api.example.com/orders/ord_7Hk2/exchanges' },
    session: { kind: 'this_session' },
    ...overrides,
  };
}

describe('approval queue (spec sections 3, 5, 7)', () => {
  let store: Store;
  let sent: Array<[string, AgentReply]>;
  let changes: string[];
  let signed: string[];
  let queue: ApprovalQueue;
  let key: StoredKeyPair;
  let now = NOW;

  /**
   * The decision verified as the agent SDK verifies it, against what the agent asked about: the
   * queue signs with the extension's real signer, so signing anything but what the person saw
   * (another summary, the terms of a later request) fails here.
   */
  async function verified(jws: string | undefined, asked: IncomingApprovalRequest): Promise<DecisionClaims> {
    return verifyDecision(jws ?? '', {
      pinnedKey: key.publicJwk,
      expected: { operation: asked.operation, company: asked.company, audience: AGENT, nonce: asked.nonce },
      now: new Date(now),
    });
  }

  beforeEach(async () => {
    store = await Store.open(`queue-${++n}`);
    key = await extensionKey(store);
    sent = [];
    changes = [];
    signed = [];
    now = NOW;
    queue = new ApprovalQueue({
      store,
      async sign(record, status, at) {
        const jws = await signRecord(key, record, status, at);
        signed.push(jws);
        return jws;
      },
      send(conn, reply) {
        sent.push([conn, reply]);
        return true;
      },
      changed(reason) {
        changes.push(reason);
      },
      now: () => now,
    });
  });
  afterEach(() => store.close());

  it('section 5: a request becomes one pending prompt and no reply until the User decides', async () => {
    expect(await queue.receive(agent, 'c1', request())).toBeNull();
    expect((await store.byState('pending')).map((r) => r.revision)).toEqual(['rev1']);
    expect(changes).toEqual(['new']);
  });

  it('the same revision asked again never makes a second prompt', async () => {
    await queue.receive(agent, 'c1', request());
    expect(await queue.receive(agent, 'c2', request())).toBeNull();
    expect(await store.all()).toHaveLength(1);
    expect((await store.all())[0]?.conn).toBe('c2');
  });

  it('approving signs the decision and sends it to the asking connection', async () => {
    const r = request();
    await queue.receive(agent, 'c1', r);
    await queue.decide(approvalKey(AGENT, 'https://stormline.example', 'exc_5Rt2', 'rev1'), 'approve');
    expect(sent).toEqual([['c1', { type: 'decision', id: r.id, status: 'approved', jws: expect.any(String) }]]);
    const claims = await verified((sent[0]![1] as { jws?: string }).jws, r);
    expect(claims).toMatchObject({ status: 'approved', summary_sha256: await digestSummary(r.operation.summary), terms_sha256: await digestTerms(undefined) });
    expect(claims.iat).toBe(Math.floor(NOW / 1000));
  });

  it('a tool call (countersign-mcp) is signed as a tool-call decision over exactly its call, which no Company approval check accepts', async () => {
    const call = {
      call_id: 'call_1',
      server: { name: 'secure-filesystem-server', reached_by: { transport: 'stdio' as const, command: 'npx', args: ['@modelcontextprotocol/server-filesystem', '/home/me'] } },
      tool: 'write_file',
      arguments: { path: '/home/me/a.txt', content: 'hi' },
      expires_at: '2026-10-08T12:20:00-07:00',
    };
    const r = await toolCallAsRequest({ id: 'req_tool', nonce: `${'t'.repeat(42)}A`, tool_call: call });
    await queue.receive(agent, 'c1', r);
    const [stored] = await store.byState('pending');
    expect(stored?.toolCall).toEqual(call);
    expect(stored?.operation.summary).toBe(toolCallSummary(call));
    await queue.decide(stored!.key, 'approve');
    const jws = (sent[0]![1] as { jws?: string }).jws!;
    const claims = await verifyToolCallDecision(jws, { pinnedKey: key.publicJwk, expected: { call, audience: AGENT, nonce: r.nonce }, now: new Date(now) });
    expect(claims).toMatchObject({ kind: 'tool_call', status: 'approved', call_id: 'call_1', tool: 'write_file', revision: await toolCallRevision(call) });
    await expect(verified(jws, r)).rejects.toMatchObject({ code: 'ERR_DECISION_INVALID' });
  });

  it('a decided revision asked again gets the stored decision, re-signed for the new nonce, without a prompt', async () => {
    await queue.receive(agent, 'c1', request());
    await queue.decide(approvalKey(AGENT, 'https://stormline.example', 'exc_5Rt2', 'rev1'), 'approve');
    const again = request();
    const reply = await queue.receive(agent, 'c9', again);
    expect(reply).toEqual({ type: 'decision', id: again.id, status: 'approved', jws: expect.any(String) });
    expect(await verified((reply as { jws?: string }).jws, again)).toMatchObject({ status: 'approved', nonce: again.nonce });
    expect(changes.filter((c) => c === 'new')).toHaveLength(1);
  });

  it('spec section 5: the decision is signed over the summary and terms the person saw, not over a later request', async () => {
    const shown = request('rev1', { operation: { ...request().operation, terms: { price_difference: { amount: '70.00', currency: 'USD' } } } });
    await queue.receive(agent, 'c1', shown);
    await queue.decide(approvalKey(AGENT, 'https://stormline.example', 'exc_5Rt2', 'rev1'), 'approve');
    const claims = await verified((sent[0]![1] as { jws?: string }).jws, shown);
    expect(claims.summary_sha256).toBe(await digestSummary(shown.operation.summary));
    expect(claims.terms_sha256).toBe(await digestTerms(shown.operation.terms));
    // Another text under the same revision must not verify with this decision.
    const other = { ...shown, operation: { ...shown.operation, summary: 'Exchange the jacket for **$7.00** more.' } };
    await expect(verified((sent[0]![1] as { jws?: string }).jws, other)).rejects.toMatchObject({ code: 'ERR_DECISION_MISMATCH' });
  });

  it('a declined revision asked again stays declined', async () => {
    await queue.receive(agent, 'c1', request());
    await queue.decide(approvalKey(AGENT, 'https://stormline.example', 'exc_5Rt2', 'rev1'), 'decline');
    const again = request();
    expect(await queue.receive(agent, 'c1', again)).toEqual({ type: 'decision', id: again.id, status: 'declined' });
  });

  it('section 3 "New terms": a new revision supersedes the pending one and its asker is told', async () => {
    const first = request('rev1');
    await queue.receive(agent, 'c1', first);
    expect(await queue.receive(agent, 'c1', request('rev2'))).toBeNull();
    expect(sent).toEqual([['c1', { type: 'decision', id: first.id, status: 'superseded' }]]);
    const pending = await store.byState('pending');
    expect(pending.map((r) => [r.revision, r.previousKey])).toEqual([['rev2', approvalKey(AGENT, 'https://stormline.example', 'exc_5Rt2', 'rev1')]]);
  });

  it('section 7: a new revision while the approved one has no known outcome is refused, and the refusal is its only answer', async () => {
    await queue.receive(agent, 'c1', request('rev1'));
    await queue.decide(approvalKey(AGENT, 'https://stormline.example', 'exc_5Rt2', 'rev1'), 'approve');
    expect(await queue.sent(AGENT, 's1', 'exc_5Rt2', 'rev1')).toEqual({ type: 'ack', id: 's1', sent: true });
    expect(await queue.outcome(AGENT, 'o1', 'exc_5Rt2', 'rev1', 'unknown')).toEqual({ type: 'ack', id: 'o1' });
    const reply = await queue.receive(agent, 'c1', request('rev2'));
    expect(reply).toMatchObject({ type: 'error', code: 'ERR_OUTCOME_PENDING' });
    // Nothing is kept: no prompt now, none later when the outcome becomes known.
    expect(await store.all()).toHaveLength(1);
    await queue.outcome(AGENT, 'o2', 'exc_5Rt2', 'rev1', 'failed');
    expect(await store.byState('pending')).toHaveLength(0);
  });

  it('section 7: once the first outcome is "failed", asking about the next revision prompts', async () => {
    await queue.receive(agent, 'c1', request('rev1'));
    await queue.decide(approvalKey(AGENT, 'https://stormline.example', 'exc_5Rt2', 'rev1'), 'approve');
    expect(await queue.receive(agent, 'c1', request('rev2'))).toMatchObject({ code: 'ERR_OUTCOME_PENDING' });
    await queue.outcome(AGENT, 'o1', 'exc_5Rt2', 'rev1', 'failed');
    expect(await queue.receive(agent, 'c1', request('rev2'))).toBeNull();
    expect((await store.byState('pending')).map((r) => r.revision)).toEqual(['rev2']);
  });

  it('section 3 "Expiry": an expired revision cannot be approved', async () => {
    await queue.receive(agent, 'c1', request());
    now = Date.parse('2026-10-08T19:20:01Z');
    await expect(queue.decide(approvalKey(AGENT, 'https://stormline.example', 'exc_5Rt2', 'rev1'), 'approve')).rejects.toMatchObject({ code: 'ERR_DECISION_EXPIRED' });
    expect((await store.all())[0]?.state).toBe('expired');
    expect(signed).toEqual([]);
  });

  it('an already expired request is answered "expired" and never prompted', async () => {
    now = Date.parse('2026-10-09T00:00:00Z');
    const r = request();
    expect(await queue.receive(agent, 'c1', r)).toEqual({ type: 'decision', id: r.id, status: 'expired' });
    expect(changes).toEqual([]);
  });

  it('expireDue tells the agent its pending revision expired', async () => {
    const r = request();
    await queue.receive(agent, 'c1', r);
    now = Date.parse('2026-10-08T19:21:00Z');
    expect(await queue.expireDue()).toBe(1);
    expect(sent).toEqual([['c1', { type: 'decision', id: r.id, status: 'expired' }]]);
  });

  it('section 5: a withdrawn approval is refused when the agent then tries to send it', async () => {
    await queue.receive(agent, 'c1', request());
    const key = approvalKey(AGENT, 'https://stormline.example', 'exc_5Rt2', 'rev1');
    await queue.decide(key, 'approve');
    expect((await queue.withdraw(key)).tooLate).toBe(false);
    expect(sent.at(-1)).toEqual(['c1', { type: 'withdrawn', operation_id: 'exc_5Rt2', revision: 'rev1' }]);
    expect(await queue.sent(AGENT, 's1', 'exc_5Rt2', 'rev1')).toMatchObject({ type: 'error', id: 's1', code: 'ERR_TOO_LATE' });
  });

  it('once the agent has sent it, the approval can no longer be withdrawn', async () => {
    await queue.receive(agent, 'c1', request());
    const key = approvalKey(AGENT, 'https://stormline.example', 'exc_5Rt2', 'rev1');
    await queue.decide(key, 'approve');
    expect(await queue.sent(AGENT, 's1', 'exc_5Rt2', 'rev1')).toEqual({ type: 'ack', id: 's1', sent: true });
    // Too late: recorded, the item keeps its state, and its outcome is still recorded.
    expect(await queue.withdraw(key)).toMatchObject({ tooLate: true, record: { state: 'sent' } });
    expect((await store.auditLog()).some((e) => e.kind === 'withdraw-too-late')).toBe(true);
    expect(await queue.outcome(AGENT, 'o1', 'exc_5Rt2', 'rev1', 'performed')).toEqual({ type: 'ack', id: 'o1' });
    expect((await store.get(key))?.state).toBe('performed');
  });

  it('a flood from one agent is throttled and reported, not shown as a hundred prompts', async () => {
    for (let i = 0; i < MAX_PENDING_PER_AGENT + 30; i++) {
      await queue.receive(agent, 'c1', request('r', { operation: { ...request().operation, operation_id: `op_${i}`, revision: 'r' } }));
    }
    expect(await store.byState('pending')).toHaveLength(MAX_PENDING_PER_AGENT);
    expect(queue.throttled.get(AGENT)).toBe(30);
    expect((await store.auditLog()).filter((e) => e.kind === 'throttled')).toHaveLength(1);
  });

  it('an agent disconnect keeps its prompts, marked, and a decision waits for it', async () => {
    await queue.receive(agent, 'c1', request());
    await queue.disconnected('c1');
    const [record] = await store.all();
    expect(record).toMatchObject({ conn: null, agentConnected: false, state: 'pending' });
    await queue.decide(record!.key, 'approve');
    expect(sent).toEqual([]);
  });

  it('decline all declines every waiting prompt', async () => {
    await queue.receive(agent, 'c1', request('rev1'));
    await queue.receive(agent, 'c1', request('rev1', { operation: { ...request().operation, operation_id: 'other' } }));
    expect(await queue.declineAll()).toEqual({ declined: 2, failed: [] });
    expect((await store.byState('declined')).length).toBe(2);
  });
});
