import 'fake-indexeddb/auto';
import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { ApprovalQueue, MAX_PENDING_PER_AGENT, type AgentReply, type IncomingApprovalRequest } from '../../src/extension/approval-queue';
import { extensionKey, signRecord } from '../../src/extension/keys';
import { Store, approvalKey, type PairedAgent, type StoredKeyPair } from '../../src/extension/store';
import { digestSummary, digestTerms, verifyDecision, type DecisionClaims } from '../../src/protocol/decision';
import { toolCallSummary } from '../../src/protocol/tool-call';
import { toolCallRevision } from '../../src/protocol/tool-call-revision';
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

  it('a connection that asked nothing leaves without a repaint of the pages (a flood opens them by the dozen, docs/bridge-protocol.md section 5)', async () => {
    await queue.receive(agent, 'c1', request());
    changes.length = 0;
    await queue.disconnected('c_stranger');
    expect(changes).toEqual([]);
    await queue.disconnected('c1');
    expect(changes).toEqual(['update']);
  });

  it('decline all repaints the pages once for every prompt it declines, and tells each agent with a signed decline', async () => {
    for (const id of ['a', 'b', 'c']) await queue.receive(agent, 'c1', request('rev1', { operation: { ...request().operation, operation_id: id } }));
    changes.length = 0;
    sent = [];
    expect(await queue.declineAll()).toEqual({ declined: 3, failed: [] });
    expect(changes).toEqual(['update']);
    expect(sent.map(([conn, reply]) => [conn, reply.type, 'status' in reply ? reply.status : undefined, 'jws' in reply && typeof reply.jws === 'string'])).toEqual([
      ['c1', 'decision', 'declined', true],
      ['c1', 'decision', 'declined', true],
      ['c1', 'decision', 'declined', true],
    ]);
  });

  it('the bridge restarting repaints the pages once, with every waiting prompt marked disconnected', async () => {
    for (const id of ['a', 'b']) await queue.receive(agent, 'c1', request('rev1', { operation: { ...request().operation, operation_id: id } }));
    changes.length = 0;
    await queue.allDisconnected();
    expect(changes).toEqual(['update']);
    expect((await store.all()).map((r) => [r.conn, r.agentConnected])).toEqual([
      [null, false],
      [null, false],
    ]);
  });

  it('decline all declines every waiting prompt', async () => {
    await queue.receive(agent, 'c1', request('rev1'));
    await queue.receive(agent, 'c1', request('rev1', { operation: { ...request().operation, operation_id: 'other' } }));
    expect(await queue.declineAll()).toEqual({ declined: 2, failed: [] });
    expect((await store.byState('declined')).length).toBe(2);
  });
  describe('each promise, state by state', () => {
    const ORIGIN = 'https://stormline.example';
    /** The instant `request()`'s expires_at names (12:20 at UTC-7). */
    const DEADLINE = Date.parse('2026-10-08T19:20:00Z');
    const keyOf = (revision = 'rev1', operationId = 'exc_5Rt2', origin = ORIGIN) => approvalKey(AGENT, origin, operationId, revision);
    const ASSERTION = { credential_id: 'Y3JlZA', authenticator_data: 'YXV0aA', client_data_json: 'Y2xpZW50', signature: 'c2ln' };

    /** Stores a revision in a given state next to what the queue wrote, as a store from an older version would hold it. */
    async function storeAs(state: 'held' | 'pending', revision: string, conn: string | null = null): Promise<string> {
      const template = (await store.all())[0]!;
      const operation = { ...template.operation, operation_id: 'exc_5Rt2', revision };
      const record = { ...template, key: keyOf(revision), operationId: 'exc_5Rt2', revision, operation, requestId: `held-${revision}`, conn, state };
      await store.insert(record, { kind: 'test-setup', key: record.key });
      return record.key;
    }
    const auditKinds = async () => (await store.auditLog()).map((e) => e.kind);

    // receive

    it('section 5: the prompt records who asked, on which connection, with which nonce, and no passkey rule unless asked for', async () => {
      const r = request();
      await queue.receive(agent, 'c1', r);
      const record = await store.get(keyOf());
      expect(record).toMatchObject({
        key: keyOf(),
        agent: AGENT,
        agentName: 'Desk agent',
        operationId: 'exc_5Rt2',
        revision: 'rev1',
        requestId: r.id,
        conn: 'c1',
        nonce: r.nonce,
        company: r.company,
        operation: r.operation,
        request: r.request,
        session: r.session,
        state: 'pending',
        createdAt: NOW,
        updatedAt: NOW,
        agentConnected: true,
      });
      expect(record).not.toHaveProperty('toolCall');
      expect(record).not.toHaveProperty('userVerification');
      expect(record).not.toHaveProperty('previousKey');
      expect(await store.auditLog()).toMatchObject([{ kind: 'received', key: keyOf(), agent: AGENT, detail: ORIGIN }]);
    });

    it('the passkey rule is recorded when the agent asks for it, or when the person requires it of this agent', async () => {
      await queue.receive(agent, 'c1', request('rev1', { userVerification: 'required' }));
      expect((await store.get(keyOf()))?.userVerification).toBe('required');
      await queue.receive({ ...agent, requireUserVerification: true }, 'c1', request('r', { operation: { ...request().operation, operation_id: 'op_b', revision: 'r' } }));
      expect((await store.get(keyOf('r', 'op_b')))?.userVerification).toBe('required');
      await queue.receive({ ...agent, requireUserVerification: false }, 'c1', request('r', { operation: { ...request().operation, operation_id: 'op_c', revision: 'r' } }));
      expect(await store.get(keyOf('r', 'op_c'))).not.toHaveProperty('userVerification');
    });

    it('section 3 "Expiry": a request whose expires_at is now is already expired, recorded with its own audit line', async () => {
      now = DEADLINE;
      const r = request();
      expect(await queue.receive(agent, 'c1', r)).toEqual({ type: 'decision', id: r.id, status: 'expired' });
      expect(await store.get(keyOf())).toMatchObject({ state: 'expired', requestId: r.id });
      expect(await store.auditLog()).toMatchObject([{ kind: 'received-expired', key: keyOf(), agent: AGENT }]);
      expect(sent).toEqual([]);
    });

    it('section 3 "Expiry": one millisecond before expires_at the request is asked', async () => {
      now = DEADLINE - 1;
      expect(await queue.receive(agent, 'c1', request())).toBeNull();
      expect((await store.get(keyOf()))?.state).toBe('pending');
    });

    it('section 7: the ERR_OUTCOME_PENDING refusal names the operation and the revision whose outcome is awaited', async () => {
      await queue.receive(agent, 'c1', request('rev1'));
      await queue.decide(keyOf(), 'approve');
      const r = request('rev2');
      const reply = await queue.receive(agent, 'c1', r);
      expect(reply).toEqual({ type: 'error', id: r.id, code: 'ERR_OUTCOME_PENDING', message: expect.stringContaining('operation exc_5Rt2: revision rev1 was approved') });
      expect(await auditKinds()).not.toContain('throttled');
    });

    it('section 3 "New terms": the superseded pending prompt gets an audit line naming what replaced it', async () => {
      await queue.receive(agent, 'c1', request('rev1'));
      await queue.receive(agent, 'c1', request('rev2'));
      expect((await store.get(keyOf('rev1')))?.state).toBe('superseded');
      expect(await store.auditLog()).toContainEqual(expect.objectContaining({ kind: 'supersede', key: keyOf('rev1'), from: 'pending', to: 'superseded', detail: 'replaced by rev2' }));
      expect(changes).toEqual(['new', 'new']);
    });

    it('section 3 "New terms": a superseded prompt whose agent is disconnected is replaced without a message to a dead connection', async () => {
      await queue.receive(agent, 'c1', request('rev1'));
      await queue.disconnected('c1');
      expect(await queue.receive(agent, 'c2', request('rev2'))).toBeNull();
      expect(sent).toEqual([]);
      expect((await store.get(keyOf('rev1')))?.state).toBe('superseded');
    });

    it('section 3 "New terms": a cancelled request is replaced by the next revision, and its asker, already answered, is not told again', async () => {
      const first = request('rev1');
      await queue.receive(agent, 'c1', first);
      await queue.cancel('c1', first.id);
      sent = [];
      expect(await queue.receive(agent, 'c1', request('rev2'))).toBeNull();
      expect(sent).toEqual([]);
      expect((await store.get(keyOf('rev1')))?.state).toBe('superseded');
      expect((await store.get(keyOf('rev2')))?.previousKey).toBe(keyOf('rev1'));
    });

    it('a held revision (older stores) is replaced by the next revision without a message: its request was answered long ago', async () => {
      await queue.receive(agent, 'c1', request('rev0', { operation: { ...request().operation, operation_id: 'other' } }));
      const held = await storeAs('held', 'rev1', 'c1');
      expect(await queue.receive(agent, 'c1', request('rev2'))).toBeNull();
      expect(sent).toEqual([]);
      expect((await store.get(held))?.state).toBe('superseded');
      expect((await store.get(keyOf('rev2')))?.previousKey).toBe(held);
    });

    it('section 3: a new revision after a declined one replaces nothing: it is asked on its own', async () => {
      await queue.receive(agent, 'c1', request('rev1'));
      await queue.decide(keyOf('rev1'), 'decline');
      expect(await queue.receive(agent, 'c1', request('rev2'))).toBeNull();
      expect(await store.get(keyOf('rev2'))).not.toHaveProperty('previousKey');
      expect((await store.get(keyOf('rev1')))?.state).toBe('declined');
    });

    it('a pending revision approved while the next one arrives: whichever is first, an approved revision is never superseded, nor its asker told so', async () => {
      for (const approveFirst of [true, false]) {
        sent = [];
        const operation = { ...request().operation, operation_id: `race_${String(approveFirst)}` };
        await queue.receive(agent, 'c1', request('rev1', { operation: { ...operation, revision: 'rev1' } }));
        const first = keyOf('rev1', operation.operation_id);
        const next = request('rev2', { operation: { ...operation, revision: 'rev2' } });
        const approving = () => queue.decide(first, 'approve').catch(() => null);
        const [a, b] = approveFirst ? [approving(), queue.receive(agent, 'c1', next)] : [queue.receive(agent, 'c1', next), approving()];
        await Promise.all([a, b]);
        const state = (await store.get(first))?.state;
        const told = sent.filter(([, r]) => r.type === 'decision' && r.status === 'superseded');
        if (state === 'approved') expect(told).toEqual([]);
        else expect([state, told.length]).toEqual(['superseded', 1]);
      }
    });

    it('a new revision replacing a pending one is never throttled: it does not add a prompt', async () => {
      for (let i = 0; i < MAX_PENDING_PER_AGENT; i++) {
        await queue.receive(agent, 'c1', request('r', { operation: { ...request().operation, operation_id: `op_${i}`, revision: 'r' } }));
      }
      expect(await queue.receive(agent, 'c1', request('r2', { operation: { ...request().operation, operation_id: 'op_0', revision: 'r2' } }))).toBeNull();
      expect(queue.throttled.size).toBe(0);
      expect(await store.byState('pending')).toHaveLength(MAX_PENDING_PER_AGENT);
    });

    it('a throttled request gets ERR_THROTTLED with the limit, an "update" for the snapshot, and one audit line naming the limit', async () => {
      for (let i = 0; i < MAX_PENDING_PER_AGENT; i++) {
        await queue.receive(agent, 'c1', request('r', { operation: { ...request().operation, operation_id: `op_${i}`, revision: 'r' } }));
      }
      changes = [];
      const r = request('r', { operation: { ...request().operation, operation_id: 'op_x', revision: 'r' } });
      expect(await queue.receive(agent, 'c1', r)).toEqual({ type: 'error', id: r.id, code: 'ERR_THROTTLED', message: `agent has ${MAX_PENDING_PER_AGENT} approvals waiting; decide those first` });
      expect(changes).toEqual(['update']);
      expect((await store.auditLog()).filter((e) => e.kind === 'throttled')).toEqual([expect.objectContaining({ agent: AGENT, detail: `more than ${MAX_PENDING_PER_AGENT} open approvals` })]);
      expect(await store.get(keyOf('r', 'op_x'))).toBeUndefined();
    });

    it('the same revision arriving on two connections at once is one prompt, answered on the later request', async () => {
      const a = request();
      const b = request();
      expect(await Promise.all([queue.receive(agent, 'c1', a), queue.receive(agent, 'c2', b)])).toEqual([null, null]);
      expect(await store.all()).toHaveLength(1);
      expect(await store.get(keyOf())).toMatchObject({ conn: 'c2', requestId: b.id, nonce: b.nonce });
      expect(sent).toEqual([['c1', { type: 'decision', id: a.id, status: 'superseded' }]]);
    });

    // re-asks

    it.each([
      ['Company name', { company: { name: 'Stormline Ltd', origin: 'https://stormline.example' } }],
      ['summary', { operation: { ...request().operation, summary: 'Exchange the jacket for **$7.00** more.' } }],
      ['terms', { operation: { ...request().operation, terms: {} } }],
      ['expires_at', { operation: { ...request().operation, expires_at: '2026-10-08T12:21:00-07:00' } }],
    ] as const)('section 3: the same revision asked again with another %s is refused with ERR_REVISION_CONFLICT and audited', async (what, change) => {
      await queue.receive(agent, 'c1', request());
      const r = request('rev1', change);
      const reply = await queue.receive(agent, 'c2', r);
      expect(reply).toEqual({
        type: 'error',
        id: r.id,
        code: 'ERR_REVISION_CONFLICT',
        message: `operation exc_5Rt2 revision rev1: asked before with another ${what}; a revision's terms can't change (spec section 3), so this is refused`,
      });
      expect(await store.auditLog()).toContainEqual(expect.objectContaining({ kind: 'revision-conflict', key: keyOf(), agent: AGENT, detail: what }));
      expect(await store.get(keyOf())).toMatchObject({ conn: 'c1', state: 'pending' });
      expect(sent).toEqual([]);
    });

    it('section 3: every difference is named, and the same terms written in another member order are the same terms', async () => {
      const terms = { a: 1, b: { c: 'x', d: 'y' } };
      await queue.receive(agent, 'c1', request('rev1', { operation: { ...request().operation, terms } }));
      expect(await queue.receive(agent, 'c1', request('rev1', { operation: { ...request().operation, terms: { b: { d: 'y', c: 'x' }, a: 1 } } }))).toBeNull();
      const all = request('rev1', { company: { name: 'X', origin: ORIGIN }, operation: { ...request().operation, summary: 'other', terms: { a: 2 }, expires_at: '2026-10-08T19:20:00Z' } });
      expect(await queue.receive(agent, 'c1', all)).toMatchObject({ code: 'ERR_REVISION_CONFLICT', message: expect.stringContaining('another Company name, summary, terms, expires_at;') });
      expect((await store.auditLog()).find((e) => e.kind === 'revision-conflict')?.detail).toBe('Company name, summary, terms, expires_at');
    });

    it('a re-ask on the same connection with the same request id tells nobody "superseded"', async () => {
      const r = request();
      await queue.receive(agent, 'c1', r);
      expect(await queue.receive(agent, 'c1', r)).toBeNull();
      expect(sent).toEqual([]);
      expect(changes).toEqual(['new', 'reask']);
    });

    it('a re-ask on the same connection with a new request id answers the earlier request "superseded"', async () => {
      const first = request();
      await queue.receive(agent, 'c1', first);
      const again = request();
      expect(await queue.receive(agent, 'c1', again)).toBeNull();
      expect(sent).toEqual([['c1', { type: 'decision', id: first.id, status: 'superseded' }]]);
      expect(await store.get(keyOf())).toMatchObject({ requestId: again.id, nonce: again.nonce, conn: 'c1' });
    });

    it('a re-ask on another connection with the same request id still answers the earlier connection', async () => {
      const r = request();
      await queue.receive(agent, 'c1', r);
      await queue.receive(agent, 'c2', r);
      expect(sent).toEqual([['c1', { type: 'decision', id: r.id, status: 'superseded' }]]);
    });

    it('a re-ask after a disconnect reattaches the prompt without sending to the gone connection', async () => {
      const r = request();
      await queue.receive(agent, 'c1', r);
      await queue.disconnected('c1');
      const again = request();
      expect(await queue.receive(agent, 'c2', again)).toBeNull();
      expect(sent).toEqual([]);
      expect(await store.get(keyOf())).toMatchObject({ conn: 'c2', requestId: again.id, agentConnected: true });
      await queue.decide(keyOf(), 'approve');
      expect(sent).toEqual([['c2', { type: 'decision', id: again.id, status: 'approved', jws: expect.any(String) }]]);
      expect(await verified((sent[0]![1] as { jws?: string }).jws, again)).toMatchObject({ nonce: again.nonce });
    });

    it('a cancelled request asked again asks the person again, on the new request', async () => {
      const first = request();
      await queue.receive(agent, 'c1', first);
      expect(await queue.cancel('c1', first.id)).toBe(true);
      changes = [];
      const again = request();
      expect(await queue.receive(agent, 'c2', again)).toBeNull();
      expect(await store.get(keyOf())).toMatchObject({ state: 'pending', conn: 'c2', requestId: again.id, nonce: again.nonce, agentConnected: true });
      expect(changes).toEqual(['new']);
      expect(await store.auditLog()).toContainEqual(expect.objectContaining({ kind: 'reopen', from: 'cancelled', to: 'pending', detail: 'asked again after a cancel' }));
    });

    it('section 3 "Expiry": a cancelled request asked again once expired is answered "expired"', async () => {
      const first = request();
      await queue.receive(agent, 'c1', first);
      await queue.cancel('c1', first.id);
      now = DEADLINE;
      changes = [];
      const again = request();
      expect(await queue.receive(agent, 'c1', again)).toEqual({ type: 'decision', id: again.id, status: 'expired' });
      expect((await store.get(keyOf()))?.state).toBe('expired');
      expect(changes).toEqual([]);
    });

    it('section 7: a held revision asked again is refused with ERR_OUTCOME_PENDING and rerouted, never prompted', async () => {
      await queue.receive(agent, 'c1', request('rev0', { operation: { ...request().operation, operation_id: 'other' } }));
      await storeAs('held', 'rev1', 'c1');
      changes = [];
      const r = request('rev1');
      expect(await queue.receive(agent, 'c2', r)).toEqual({ type: 'error', id: r.id, code: 'ERR_OUTCOME_PENDING', message: 'operation exc_5Rt2: an earlier approval has no known outcome yet' });
      expect(sent).toEqual([]);
      expect(changes).toEqual(['update']);
      expect(await store.get(keyOf('rev1'))).toMatchObject({ state: 'held', conn: 'c2', requestId: r.id });
    });

    it.each(['expired', 'superseded', 'withdrawn'] as const)('a %s revision asked again is answered with that status', async (status) => {
      await queue.receive(agent, 'c1', request('rev1'));
      if (status === 'expired') {
        now = DEADLINE;
        await queue.expireDue();
      } else if (status === 'superseded') await queue.receive(agent, 'c1', request('rev2'));
      else await queue.withdraw(keyOf());
      sent = [];
      const again = request('rev1');
      expect(await queue.receive(agent, 'c1', again)).toEqual({ type: 'decision', id: again.id, status });
      expect(sent).toEqual([]);
    });

    it('an approved revision asked again is reissued: audited, rerouted, signed at the present instant', async () => {
      await queue.receive(agent, 'c1', request());
      await queue.decide(keyOf(), 'approve');
      now = NOW + 60_000;
      const again = request();
      const reply = await queue.receive(agent, 'c2', again);
      expect(await verified((reply as { jws?: string }).jws, again)).toMatchObject({ iat: Math.floor((NOW + 60_000) / 1000) });
      expect(await store.auditLog()).toContainEqual(expect.objectContaining({ kind: 'reissued', key: keyOf(), agent: AGENT }));
      expect(await store.get(keyOf())).toMatchObject({ state: 'approved', conn: 'c2', requestId: again.id });
    });

    // decide

    it('deciding a key that names no approval is refused with ERR_ARGUMENT_INVALID', async () => {
      await expect(queue.decide('nothing', 'approve')).rejects.toMatchObject({ code: 'ERR_ARGUMENT_INVALID', message: expect.stringContaining('got nothing') });
      await expect(queue.decide('nothing', 'decline')).rejects.toMatchObject({ code: 'ERR_ARGUMENT_INVALID' });
    });

    it('passkey rule: approving a prompt that requires the passkey without one is refused with ERR_NOT_ALLOWED, nothing signed or sent', async () => {
      await queue.receive(agent, 'c1', request('rev1', { userVerification: 'required' }));
      await expect(queue.decide(keyOf(), 'approve')).rejects.toMatchObject({ code: 'ERR_NOT_ALLOWED', message: expect.stringContaining('passkey') });
      expect(signed).toEqual([]);
      expect(sent).toEqual([]);
      expect((await store.get(keyOf()))?.state).toBe('pending');
    });

    it('passkey rule: even past expiry, a missing passkey is the refusal, and the prompt stays', async () => {
      await queue.receive(agent, 'c1', request('rev1', { userVerification: 'required' }));
      now = DEADLINE + 1;
      await expect(queue.decide(keyOf(), 'approve')).rejects.toMatchObject({ code: 'ERR_NOT_ALLOWED' });
      expect((await store.get(keyOf()))?.state).toBe('pending');
    });

    it('passkey rule: a decline never needs the passkey', async () => {
      const r = request('rev1', { userVerification: 'required' });
      await queue.receive(agent, 'c1', r);
      expect(await queue.decide(keyOf(), 'decline')).toMatchObject({ state: 'declined' });
    });

    it('passkey rule: with { now, assertion } the decision carries passkey_assertion and is signed at that instant', async () => {
      const r = request('rev1', { userVerification: 'required' });
      await queue.receive(agent, 'c1', r);
      const at = NOW + 7_000;
      now = NOW + 9_000;
      const record = await queue.decide(keyOf(), 'approve', { now: at, assertion: ASSERTION });
      expect(sent).toEqual([['c1', { type: 'decision', id: r.id, status: 'approved', jws: expect.any(String), passkey_assertion: ASSERTION }]]);
      const jws = (sent[0]![1] as { jws?: string }).jws;
      expect(record).toMatchObject({ state: 'approved', decision: jws });
      expect((await verified(jws, r)).iat).toBe(Math.floor(at / 1000));
      expect(changes.at(-1)).toBe('update');
    });

    it('passkey rule: the refusal is only for a waiting prompt; an approved one answers as the state machine does', async () => {
      await queue.receive(agent, 'c1', request('rev1', { userVerification: 'required' }));
      await queue.decide(keyOf(), 'approve', { now: NOW, assertion: ASSERTION });
      await expect(queue.decide(keyOf(), 'approve')).rejects.toMatchObject({ code: 'ERR_NOT_ALLOWED', message: 'approval: cannot approve an approval that is approved' });
    });

    it('an approval without the passkey rule carries no passkey_assertion', async () => {
      const r = request();
      await queue.receive(agent, 'c1', r);
      await queue.decide(keyOf(), 'approve');
      expect(sent[0]![1]).not.toHaveProperty('passkey_assertion');
      expect(await store.get(keyOf())).toMatchObject({ state: 'approved', decision: signed[0] });
      expect(changes).toEqual(['new', 'update']);
    });

    it('section 3 "Expiry": approving at exactly expires_at is refused, the prompt expires, its agent is told', async () => {
      const r = request();
      await queue.receive(agent, 'c1', r);
      now = DEADLINE;
      await expect(queue.decide(keyOf(), 'approve')).rejects.toMatchObject({ code: 'ERR_DECISION_EXPIRED', message: 'operation exc_5Rt2 revision rev1: expired at 2026-10-08T12:20:00-07:00' });
      expect(sent).toEqual([['c1', { type: 'decision', id: r.id, status: 'expired' }]]);
      expect(changes).toEqual(['new', 'update']);
    });

    it('section 3 "Expiry": approving one millisecond before expires_at is signed', async () => {
      await queue.receive(agent, 'c1', request());
      now = DEADLINE - 1;
      expect(await queue.decide(keyOf(), 'approve')).toMatchObject({ state: 'approved' });
    });

    it('section 3 "Expiry": approving an approved revision again after expiry is refused and leaves it approved', async () => {
      await queue.receive(agent, 'c1', request());
      await queue.decide(keyOf(), 'approve');
      sent = [];
      now = DEADLINE + 1;
      await expect(queue.decide(keyOf(), 'approve')).rejects.toMatchObject({ code: 'ERR_DECISION_EXPIRED' });
      expect((await store.get(keyOf()))?.state).toBe('approved');
      expect(sent).toEqual([]);
    });

    it('a failed signature leaves the approval pending and sends nothing', async () => {
      const failing = new ApprovalQueue({ store, sign: () => Promise.reject(new Error('no key')), send: (c, r) => (sent.push([c, r]), true), changed: (c) => changes.push(c), now: () => now });
      await failing.receive(agent, 'c1', request());
      await expect(failing.decide(keyOf(), 'approve')).rejects.toThrow('no key');
      expect((await store.get(keyOf()))?.state).toBe('pending');
      expect(sent).toEqual([]);
    });

    // decline

    it('a decline is signed "declined", stored with the record and sent to the asker', async () => {
      const r = request();
      await queue.receive(agent, 'c1', r);
      const record = await queue.decide(keyOf(), 'decline');
      expect(sent).toEqual([['c1', { type: 'decision', id: r.id, status: 'declined', jws: signed[0] }]]);
      expect(record).toMatchObject({ state: 'declined', decision: signed[0] });
      expect(await verified(signed[0], r)).toMatchObject({ status: 'declined', iat: Math.floor(NOW / 1000) });
      expect(changes).toEqual(['new', 'update']);
    });

    it('a decline whose signature fails is recorded and sent unsigned (an agent never acts on a "no")', async () => {
      const failing = new ApprovalQueue({ store, sign: () => Promise.reject(new Error(`signer gone ${'x'.repeat(400)}`)), send: (c, r) => (sent.push([c, r]), true), changed: (c) => changes.push(c), now: () => now });
      const r = request();
      await failing.receive(agent, 'c1', r);
      const record = await failing.decide(keyOf(), 'decline');
      expect(record.state).toBe('declined');
      expect(record).not.toHaveProperty('decision');
      expect(sent).toStrictEqual([['c1', { type: 'decision', id: r.id, status: 'declined' }]]);
      const entry = (await store.auditLog()).find((e) => e.kind === 'decline-unsigned');
      expect(entry).toMatchObject({ key: keyOf(), agent: AGENT });
      expect(entry?.detail).toBe(`signer gone ${'x'.repeat(400)}`.slice(0, 300));
    });

    it('a decline whose signer throws a non-Error records what was thrown', async () => {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- a signer that rejects with a bare string is the case under test
      const failing = new ApprovalQueue({ store, sign: () => Promise.reject('plain failure'), send: (c, r) => (sent.push([c, r]), true), changed: (c) => changes.push(c), now: () => now });
      await failing.receive(agent, 'c1', request());
      await failing.decide(keyOf(), 'decline');
      expect((await store.auditLog()).find((e) => e.kind === 'decline-unsigned')?.detail).toBe('plain failure');
    });

    it('declining at expires_at expires the prompt instead, tells the agent "expired", and signs nothing', async () => {
      const r = request();
      await queue.receive(agent, 'c1', r);
      now = DEADLINE;
      expect(await queue.decide(keyOf(), 'decline')).toMatchObject({ state: 'expired' });
      expect(sent).toEqual([['c1', { type: 'decision', id: r.id, status: 'expired' }]]);
      expect(signed).toEqual([]);
      expect(changes).toEqual(['new', 'update']);
    });

    it('declining an item that no longer waits returns it as it is', async () => {
      await queue.receive(agent, 'c1', request());
      await queue.decide(keyOf(), 'approve');
      sent = [];
      changes = [];
      expect(await queue.decide(keyOf(), 'decline')).toMatchObject({ state: 'approved' });
      expect(sent).toEqual([]);
      expect(changes).toEqual([]);
      expect(signed).toHaveLength(1);
    });

    it('a held revision (older stores) can be declined', async () => {
      await queue.receive(agent, 'c1', request('rev0', { operation: { ...request().operation, operation_id: 'other' } }));
      await storeAs('held', 'rev1');
      expect(await queue.decide(keyOf('rev1'), 'decline')).toMatchObject({ state: 'declined' });
      expect(sent).toEqual([]);
    });

    it('decline all reports the item that could not be declined, with why, and declines the rest', async () => {
      let interfere = true;
      const racing = new ApprovalQueue({
        store,
        async sign(record, status, at) {
          // The agent cancels this one while it is being declined.
          if (interfere && record.operationId === 'first') {
            interfere = false;
            await store.transition(record.key, 'cancel');
          }
          return signRecord(key, record, status, at);
        },
        send: (c, r) => (sent.push([c, r]), true),
        changed: (c) => changes.push(c),
        now: () => now,
      });
      await racing.receive(agent, 'c1', request('r', { operation: { ...request().operation, operation_id: 'first', revision: 'r' } }));
      await racing.receive(agent, 'c1', request('r', { operation: { ...request().operation, operation_id: 'second', revision: 'r' } }));
      expect(await racing.declineAll()).toEqual({ declined: 1, failed: [{ key: keyOf('r', 'first'), message: 'approval: cannot decline an approval that is cancelled' }] });
      expect((await store.get(keyOf('r', 'second')))?.state).toBe('declined');
    });

    it('decline all declines a held revision (older stores) too', async () => {
      await queue.receive(agent, 'c1', request('rev0', { operation: { ...request().operation, operation_id: 'other' } }));
      const held = await storeAs('held', 'rev1');
      expect(await queue.declineAll()).toEqual({ declined: 2, failed: [] });
      expect((await store.get(held))?.state).toBe('declined');
    });

    it('a decline while the agent is disconnected is recorded, signed, and sent to nobody', async () => {
      await queue.receive(agent, 'c1', request());
      await queue.disconnected('c1');
      expect(await queue.decide(keyOf(), 'decline')).toMatchObject({ state: 'declined', decision: signed[0] });
      expect(sent).toEqual([]);
    });

    it('decline all with nothing waiting declines nothing', async () => {
      expect(await queue.declineAll()).toEqual({ declined: 0, failed: [] });
    });

    // withdraw, sent, outcome

    it('section 5: withdrawing a key that names no approval is refused with ERR_ARGUMENT_INVALID', async () => {
      await expect(queue.withdraw('nothing')).rejects.toMatchObject({ code: 'ERR_ARGUMENT_INVALID', message: expect.stringContaining('got nothing') });
    });

    it('section 5: a withdrawal is audited, tells the agent and updates the window', async () => {
      await queue.receive(agent, 'c1', request());
      await queue.decide(keyOf(), 'approve');
      changes = [];
      expect(await queue.withdraw(keyOf())).toMatchObject({ tooLate: false, record: { state: 'withdrawn' } });
      expect(changes).toEqual(['update']);
      expect(await store.auditLog()).toContainEqual(expect.objectContaining({ kind: 'withdraw', from: 'approved', to: 'withdrawn' }));
    });

    it('section 5: a withdrawal while the agent is disconnected is kept without a message, and its later approval_sent is refused', async () => {
      await queue.receive(agent, 'c1', request());
      await queue.decide(keyOf(), 'approve');
      await queue.allDisconnected();
      sent = [];
      expect((await queue.withdraw(keyOf())).tooLate).toBe(false);
      expect(sent).toEqual([]);
      expect(await queue.sent(AGENT, 's1', 'exc_5Rt2', 'rev1')).toEqual({ type: 'error', id: 's1', code: 'ERR_TOO_LATE', message: 'approval of exc_5Rt2 revision rev1 was withdrawn by the User: do not send it' });
      expect(await store.auditLog()).toContainEqual(expect.objectContaining({ kind: 'sent-after-withdraw', key: keyOf(), agent: AGENT, detail: 'the User withdrew first; the agent was told not to send' }));
      expect((await store.get(keyOf()))?.state).toBe('withdrawn');
    });

    it.each(['sent', 'unknown', 'performed', 'failed'] as const)('section 5: once %s, a withdrawal is too late, audited, and changes nothing', async (state) => {
      await queue.receive(agent, 'c1', request());
      await queue.decide(keyOf(), 'approve');
      await queue.sent(AGENT, 's1', 'exc_5Rt2', 'rev1');
      if (state !== 'sent') await queue.outcome(AGENT, 'o1', 'exc_5Rt2', 'rev1', state);
      sent = [];
      changes = [];
      expect(await queue.withdraw(keyOf())).toMatchObject({ tooLate: true, record: { state } });
      expect((await store.get(keyOf()))?.state).toBe(state);
      expect(sent).toEqual([]);
      expect(changes).toEqual(['update']);
      expect(await store.auditLog()).toContainEqual(expect.objectContaining({ kind: 'withdraw-too-late', key: keyOf(), agent: AGENT, detail: `the agent had already sent it (${state})` }));
    });

    it('withdrawing a declined revision is refused by the state machine', async () => {
      await queue.receive(agent, 'c1', request());
      await queue.decide(keyOf(), 'decline');
      await expect(queue.withdraw(keyOf())).rejects.toMatchObject({ code: 'ERR_NOT_ALLOWED' });
    });

    it('a pending prompt can be withdrawn (the person changes their mind before deciding)', async () => {
      const r = request();
      await queue.receive(agent, 'c1', r);
      expect(await queue.withdraw(keyOf())).toMatchObject({ tooLate: false, record: { state: 'withdrawn' } });
      expect(sent).toEqual([['c1', { type: 'withdrawn', operation_id: 'exc_5Rt2', revision: 'rev1' }]]);
    });

    it('approval_sent is acknowledged and moves the approval to sent', async () => {
      await queue.receive(agent, 'c1', request());
      await queue.decide(keyOf(), 'approve');
      changes = [];
      expect(await queue.sent(AGENT, 's1', 'exc_5Rt2', 'rev1', ORIGIN)).toEqual({ type: 'ack', id: 's1', sent: true });
      expect((await store.get(keyOf()))?.state).toBe('sent');
      expect(changes).toEqual(['update']);
    });

    it.each(['sent', 'unknown', 'performed', 'failed'] as const)('approval_sent repeated once %s is acknowledged again and changes nothing', async (state) => {
      await queue.receive(agent, 'c1', request());
      await queue.decide(keyOf(), 'approve');
      await queue.sent(AGENT, 's1', 'exc_5Rt2', 'rev1');
      if (state !== 'sent') await queue.outcome(AGENT, 'o1', 'exc_5Rt2', 'rev1', state);
      const before = (await store.auditLog()).length;
      changes = [];
      expect(await queue.sent(AGENT, 's2', 'exc_5Rt2', 'rev1')).toEqual({ type: 'ack', id: 's2', sent: true });
      expect((await store.get(keyOf()))?.state).toBe(state);
      expect(await store.auditLog()).toHaveLength(before);
      expect(changes).toEqual([]);
    });

    it.each(['pending', 'declined'] as const)('approval_sent for a %s revision is refused with ERR_NOT_ALLOWED', async (state) => {
      await queue.receive(agent, 'c1', request());
      if (state === 'declined') await queue.decide(keyOf(), 'decline');
      expect(await queue.sent(AGENT, 's1', 'exc_5Rt2', 'rev1')).toEqual({ type: 'error', id: 's1', code: 'ERR_NOT_ALLOWED', message: `approval of exc_5Rt2 revision rev1 is ${state}: do not send it` });
      expect((await store.get(keyOf()))?.state).toBe(state);
    });

    it('approval_sent or an outcome naming no approval is refused with ERR_ARGUMENT_INVALID', async () => {
      await queue.receive(agent, 'c1', request());
      expect(await queue.sent(AGENT, 's1', 'exc_5Rt2', 'rev9')).toEqual({ type: 'error', id: 's1', code: 'ERR_ARGUMENT_INVALID', message: 'operation_id, revision: expected an approval this agent asked for, got exc_5Rt2 revision rev9, which names none' });
      expect(await queue.outcome(AGENT, 'o1', 'exc_5Rt2', 'rev1', 'performed', undefined, 'https://other.example')).toEqual({
        type: 'error',
        id: 'o1',
        code: 'ERR_ARGUMENT_INVALID',
        message: 'operation_id, revision: expected an approval this agent asked for, got exc_5Rt2 revision rev1 from https://other.example, which names none',
      });
      expect(await queue.sent('another-agent', 's2', 'exc_5Rt2', 'rev1')).toMatchObject({ code: 'ERR_ARGUMENT_INVALID' });
    });

    it('section 3: the same operation ID at two Companies is ambiguous without company_origin, exact with it', async () => {
      await queue.receive(agent, 'c1', request());
      await queue.receive(agent, 'c1', request('rev1', { company: { name: 'Other', origin: 'https://other.example' } }));
      await queue.decide(keyOf(), 'approve');
      expect(await queue.sent(AGENT, 's1', 'exc_5Rt2', 'rev1')).toEqual({ type: 'error', id: 's1', code: 'ERR_APPROVAL_AMBIGUOUS', message: 'operation exc_5Rt2 revision rev1: asked of 2 Companies; name company_origin' });
      expect(await queue.sent(AGENT, 's2', 'exc_5Rt2', 'rev1', ORIGIN)).toEqual({ type: 'ack', id: 's2', sent: true });
      expect((await store.get(keyOf('rev1', 'exc_5Rt2', 'https://other.example')))?.state).toBe('pending');
    });

    it('an outcome is recorded with its detail, in the record and the audit line', async () => {
      await queue.receive(agent, 'c1', request());
      await queue.decide(keyOf(), 'approve');
      await queue.sent(AGENT, 's1', 'exc_5Rt2', 'rev1');
      changes = [];
      expect(await queue.outcome(AGENT, 'o1', 'exc_5Rt2', 'rev1', 'failed', 'card declined', ORIGIN)).toEqual({ type: 'ack', id: 'o1' });
      expect(await store.get(keyOf())).toMatchObject({ state: 'failed', outcomeDetail: 'card declined' });
      expect(await store.auditLog()).toContainEqual(expect.objectContaining({ kind: 'failed', from: 'sent', to: 'failed', detail: 'card declined' }));
      expect(changes).toEqual(['update']);
    });

    it('an outcome without detail stores none', async () => {
      await queue.receive(agent, 'c1', request());
      await queue.decide(keyOf(), 'approve');
      await queue.outcome(AGENT, 'o1', 'exc_5Rt2', 'rev1', 'performed');
      expect(await store.get(keyOf())).not.toHaveProperty('outcomeDetail');
      expect((await store.auditLog()).find((e) => e.kind === 'performed')).not.toHaveProperty('detail');
    });

    it('section 7: a "new_revision" outcome counts as not performed', async () => {
      await queue.receive(agent, 'c1', request());
      await queue.decide(keyOf(), 'approve');
      expect(await queue.outcome(AGENT, 'o1', 'exc_5Rt2', 'rev1', 'new_revision')).toEqual({ type: 'ack', id: 'o1' });
      expect((await store.get(keyOf()))?.state).toBe('failed');
      expect(await queue.receive(agent, 'c1', request('rev2'))).toBeNull();
    });

    it('a repeated outcome is acknowledged without a second audit line', async () => {
      await queue.receive(agent, 'c1', request());
      await queue.decide(keyOf(), 'approve');
      await queue.outcome(AGENT, 'o1', 'exc_5Rt2', 'rev1', 'performed');
      const before = (await store.auditLog()).length;
      changes = [];
      expect(await queue.outcome(AGENT, 'o2', 'exc_5Rt2', 'rev1', 'performed')).toEqual({ type: 'ack', id: 'o2' });
      expect(await store.auditLog()).toHaveLength(before);
      expect(changes).toEqual([]);
    });

    it('an outcome the state does not allow is refused with ERR_NOT_ALLOWED and the state machine\'s reason', async () => {
      await queue.receive(agent, 'c1', request());
      changes = [];
      expect(await queue.outcome(AGENT, 'o1', 'exc_5Rt2', 'rev1', 'performed')).toEqual({ type: 'error', id: 'o1', code: 'ERR_NOT_ALLOWED', message: 'approval: cannot performed an approval that is pending' });
      expect((await store.get(keyOf()))?.state).toBe('pending');
      expect(changes).toEqual([]);
    });

    it.each(['performed', 'failed'] as const)('section 7: once the outcome is %s, a held revision of the same action (older stores) is superseded', async (outcome) => {
      await queue.receive(agent, 'c1', request());
      await queue.decide(keyOf(), 'approve');
      const held = await storeAs('held', 'rev2');
      await queue.outcome(AGENT, 'o1', 'exc_5Rt2', 'rev1', outcome);
      expect((await store.get(held))?.state).toBe('superseded');
      expect(await store.auditLog()).toContainEqual(expect.objectContaining({ kind: 'supersede', key: held, detail: `earlier revision ${outcome}` }));
    });

    it('section 7: an "unknown" outcome keeps a held revision held, and touches no other state', async () => {
      await queue.receive(agent, 'c1', request());
      await queue.decide(keyOf(), 'approve');
      const held = await storeAs('held', 'rev2');
      await queue.receive(agent, 'c1', request('r', { operation: { ...request().operation, operation_id: 'unrelated', revision: 'r' } }));
      await queue.outcome(AGENT, 'o1', 'exc_5Rt2', 'rev1', 'unknown');
      expect((await store.get(held))?.state).toBe('held');
      await queue.outcome(AGENT, 'o2', 'exc_5Rt2', 'rev1', 'performed');
      expect((await store.get(held))?.state).toBe('superseded');
      expect((await store.get(keyOf('r', 'unrelated')))?.state).toBe('pending');
    });

    // cancel, expiry, connections

    it('an agent\'s cancel closes its waiting prompt, answers "cancelled" once, and is audited', async () => {
      const r = request();
      await queue.receive(agent, 'c1', r);
      changes = [];
      expect(await queue.cancel('c1', r.id)).toBe(true);
      expect(sent).toEqual([['c1', { type: 'decision', id: r.id, status: 'cancelled' }]]);
      expect(changes).toEqual(['update']);
      expect((await store.get(keyOf()))?.state).toBe('cancelled');
      expect(await store.auditLog()).toContainEqual(expect.objectContaining({ kind: 'cancel', detail: 'cancelled by the agent' }));
      expect(await queue.cancel('c1', r.id)).toBe(false);
    });

    it('a cancel must name both the connection and the request it waits on', async () => {
      const r = request();
      const other = request('r', { operation: { ...request().operation, operation_id: 'other', revision: 'r' } });
      await queue.receive(agent, 'c1', r);
      await queue.receive(agent, 'c2', other);
      expect(await queue.cancel('c2', r.id)).toBe(false);
      expect(await queue.cancel('c1', other.id)).toBe(false);
      expect(await queue.cancel('c1', 'req-none')).toBe(false);
      expect(sent).toEqual([]);
      expect(await queue.cancel('c2', other.id)).toBe(true);
      expect((await store.get(keyOf()))?.state).toBe('pending');
      expect(sent).toEqual([['c2', { type: 'decision', id: other.id, status: 'cancelled' }]]);
    });

    it('a cancel of an approved request closes nothing', async () => {
      const r = request();
      await queue.receive(agent, 'c1', r);
      await queue.decide(keyOf(), 'approve');
      expect(await queue.cancel('c1', r.id)).toBe(false);
      expect((await store.get(keyOf()))?.state).toBe('approved');
    });

    it('expireDue expires pending and held revisions at their expires_at, and only those', async () => {
      await queue.receive(agent, 'c1', request());
      await queue.receive(agent, 'c1', request('r', { operation: { ...request().operation, operation_id: 'later', revision: 'r', expires_at: '2026-10-08T12:30:00-07:00' } }));
      const held = await storeAs('held', 'rev2');
      changes = [];
      now = DEADLINE - 1;
      expect(await queue.expireDue()).toBe(0);
      expect(changes).toEqual([]);
      now = DEADLINE;
      expect(await queue.expireDue()).toBe(2);
      expect(changes).toEqual(['update']);
      expect((await store.get(held))?.state).toBe('expired');
      expect((await store.get(keyOf()))?.state).toBe('expired');
      expect((await store.get(keyOf('r', 'later')))?.state).toBe('pending');
    });

    it('expireDue leaves approved revisions to their outcome', async () => {
      await queue.receive(agent, 'c1', request());
      await queue.decide(keyOf(), 'approve');
      now = DEADLINE + 60_000;
      expect(await queue.expireDue()).toBe(0);
      expect((await store.get(keyOf()))?.state).toBe('approved');
    });

    it('expiring a prompt whose agent is gone sends nothing', async () => {
      await queue.receive(agent, 'c1', request());
      await queue.disconnected('c1');
      now = DEADLINE;
      expect(await queue.expireDue()).toBe(1);
      expect(sent).toEqual([]);
    });

    it('a disconnect marks only that connection\'s prompts; a bridge restart marks them all', async () => {
      await queue.receive(agent, 'c1', request());
      await queue.receive(agent, 'c2', request('r', { operation: { ...request().operation, operation_id: 'other', revision: 'r' } }));
      changes = [];
      await queue.disconnected('c1');
      expect(await store.get(keyOf())).toMatchObject({ conn: null, agentConnected: false });
      expect(await store.get(keyOf('r', 'other'))).toMatchObject({ conn: 'c2', agentConnected: true });
      expect(changes).toEqual(['update']);
      await queue.allDisconnected();
      expect(await store.get(keyOf('r', 'other'))).toMatchObject({ conn: null, agentConnected: false });
      expect(changes).toEqual(['update', 'update']);
    });

    it('a bridge restart voids the connection of an approved revision too: a withdrawal then sends nothing', async () => {
      await queue.receive(agent, 'c1', request());
      await queue.decide(keyOf(), 'approve');
      await queue.allDisconnected();
      expect(await store.get(keyOf())).toMatchObject({ conn: null, agentConnected: false, state: 'approved' });
    });
  });
});
