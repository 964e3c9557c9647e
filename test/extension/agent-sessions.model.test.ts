import 'fake-indexeddb/auto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AgentSessions } from '../../src/extension/agent-sessions';
import { ApprovalQueue } from '../../src/extension/approval-queue';
import { extensionKey, signRecord } from '../../src/extension/keys';
import { Store, type ApprovalRecord, type StoredKeyPair } from '../../src/extension/store';
import { BRIDGE_PROTOCOL_VERSION as V, randomNonce, type ExtensionToAgentMessage } from '../../src/protocol/bridge';
import { verifyDecision } from '../../src/protocol/decision';
import { newAgentKey, signAuth, type AgentKey } from '../bridge/helpers';

/**
 * A model-based test of the extension's agent-session layer (docs/bridge-protocol.md, "Answers
 * and order" and "The life of an approval"), with the real AgentSessions, ApprovalQueue, signer
 * and IndexedDB (fake-indexeddb). fast-check interleaves, over several agents and connections:
 * requests and re-asks, cancels, approval_sent, outcomes (some sent back to back with the next
 * request, not awaited in between), the person's approve, decline and withdraw, dropped
 * connections and worker restarts. After every step:
 * - every message with an id got at most one answer, and every one that is answered at once
 *   (handshake, cancel, approval_sent, outcome) got exactly one;
 * - every prompt waits on a live, unanswered request, or on no connection at all;
 * - every decision verifies against exactly what its request asked (the hashes shown);
 * - each item's audit trail ends in its current state (the history is what happened);
 * - a restart loses no waiting item.
 */

const AGENTS = 3;
const COMPANIES = [
  { name: 'Stormline Outfitters', origin: 'https://stormline.example' },
  { name: 'Northwind Traders', origin: 'https://northwind.example' },
];
const RUNS = Number(process.env.COUNTERSIGN_MODEL_RUNS ?? 1000);

interface Sent {
  conn: string;
  type: string;
  /** What an approval_request asked, to verify its decision against. */
  asked?: { operation: Record<string, unknown>; company: { name: string; origin: string }; nonce: string; agent: string };
  /** Answered at once (not a prompt for the person). */
  immediate: boolean;
  /** When it was sent, and when its answer arrived (one clock for all connections). */
  sentAt?: number;
  answeredAt?: number;
}

class World {
  store!: Store;
  key!: StoredKeyPair;
  queue!: ApprovalQueue;
  sessions!: AgentSessions;
  agents: AgentKey[] = [];
  /** Live connections: conn → agent index. */
  conns = new Map<string, number>();
  dead = new Set<string>();
  sent = new Map<string, Sent>();
  answers = new Map<string, ExtensionToAgentMessage[]>();
  inFlight: Promise<unknown>[] = [];
  private seq = 0;
  private tick = 0;

  static async create(run: number, agents: AgentKey[]): Promise<World> {
    const w = new World();
    w.store = await Store.open(`model-${process.pid}-${run}`);
    w.key = await extensionKey(w.store);
    w.agents = agents;
    for (const a of agents) await w.store.putAgent({ thumbprint: a.thumbprint, name: `Agent ${a.thumbprint.slice(0, 4)}`, publicJwk: a.jwk, pairedAt: 0 });
    w.start();
    return w;
  }

  /** The background's services, as a (re)started worker wires them. */
  start(): void {
    this.queue = new ApprovalQueue({
      store: this.store,
      sign: (record, status, at) => signRecord(this.key, record, status, at),
      send: (conn, reply) => this.sessions.sendReply(conn, reply),
      changed: () => {},
    });
    this.sessions = new AgentSessions({
      store: this.store,
      queue: this.queue,
      key: this.key,
      extensionVersion: '0.0.0',
      sendToAgent: (conn, message) => this.deliver(conn, message),
      pairingsChanged: () => {},
    });
  }

  private deliver(conn: string, message: ExtensionToAgentMessage): void {
    if (this.dead.has(conn)) throw new Error(`a message to the closed connection ${conn}: ${message.type}`);
    const id = (message as { id?: string }).id;
    if (id === undefined) return;
    const list = this.answers.get(id) ?? [];
    list.push(message);
    const sent = this.sent.get(id);
    if (sent && sent.answeredAt === undefined) sent.answeredAt = ++this.tick;
    this.answers.set(id, list);
  }

  id(prefix: string): string {
    this.seq += 1;
    return `${prefix}_${this.seq}`;
  }

  /** Sends one agent message without waiting for it to be handled. */
  post(conn: string, message: Record<string, unknown>, sent: Omit<Sent, 'conn' | 'type'>): void {
    if (typeof message['id'] === 'string') this.sent.set(message['id'], { conn, type: String(message['type']), ...sent, sentAt: ++this.tick });
    this.inFlight.push(this.sessions.receive(conn, { v: V, ...message }));
  }

  async settle(): Promise<void> {
    while (this.inFlight.length > 0) await Promise.all(this.inFlight.splice(0));
  }

  async connect(agent: number): Promise<void> {
    const conn = this.id('c');
    this.sessions.connected(conn);
    this.conns.set(conn, agent);
    const a = this.agents[agent]!;
    const hello = this.id('hello');
    this.post(conn, { type: 'hello', id: hello, versions: [V], agent_name: `Agent ${agent}`, agent_key: a.jwk }, { immediate: true });
    await this.settle();
    const challenge = this.answers.get(hello)?.[0] as { nonce: string } | undefined;
    if (!challenge) throw new Error('no challenge');
    const signature = signAuth(a, { extensionKeyThumbprint: this.key.thumbprint, conn, nonce: challenge.nonce });
    this.post(conn, { type: 'auth', id: this.id('auth'), signature }, { immediate: true });
    await this.settle();
  }

  async drop(conn: string): Promise<void> {
    this.conns.delete(conn);
    this.dead.add(conn);
    await this.sessions.disconnected(conn);
  }

  async restart(): Promise<void> {
    await this.settle();
    const before = (await this.store.byState('pending')).map((r) => r.key).sort();
    for (const conn of [...this.conns.keys()]) {
      this.conns.delete(conn);
      this.dead.add(conn);
    }
    this.start();
    await this.queue.allDisconnected();
    const after = (await this.store.byState('pending')).map((r) => r.key).sort();
    expect(after).toEqual(before);
  }

  liveConn(pick: number): string | undefined {
    const list = [...this.conns.keys()];
    return list.length === 0 ? undefined : list[pick % list.length];
  }

  async item(pick: number, states: ApprovalRecord['state'][]): Promise<ApprovalRecord | undefined> {
    const list = (await this.store.inStates(states)).sort((a, b) => a.key.localeCompare(b.key));
    return list.length === 0 ? undefined : list[pick % list.length];
  }

  /** The invariants, after every step. */
  async check(): Promise<void> {
    await this.settle();
    for (const [id, list] of this.answers) {
      expect(list.length, `answers to ${id}: ${JSON.stringify(list)}`).toBe(1);
      const sent = this.sent.get(id);
      expect(sent, `an answer to ${id}, which no agent sent`).toBeDefined();
      const answer = list[0]!;
      if (answer.type === 'decision' && answer.jws !== undefined) {
        const asked = sent!.asked!;
        const claims = await verifyDecision(answer.jws, {
          pinnedKey: this.key.publicJwk,
          expected: { operation: asked.operation as never, company: asked.company, audience: asked.agent, nonce: asked.nonce },
        });
        expect(claims.status).toBe(answer.status);
      }
    }
    for (const [id, sent] of this.sent) {
      if (sent.immediate && !this.dead.has(sent.conn)) expect(this.answers.get(id)?.length ?? 0, `${sent.type} ${id} unanswered`).toBe(1);
    }
    // In order: on one connection, messages answered at once are answered in the order they were sent.
    const byConn = new Map<string, Sent[]>();
    for (const sent of this.sent.values()) if (sent.immediate && sent.answeredAt !== undefined) byConn.set(sent.conn, [...(byConn.get(sent.conn) ?? []), sent]);
    for (const [conn, list] of byConn) {
      const answered = list.sort((a, b) => a.sentAt! - b.sentAt!).map((x) => `${x.type}@${x.answeredAt}`);
      const sorted = [...list].sort((a, b) => a.answeredAt! - b.answeredAt!).map((x) => `${x.type}@${x.answeredAt}`);
      expect(answered, `answers on ${conn} out of order`).toEqual(sorted);
    }
    // Every request on a live connection is answered, or is the one a waiting prompt answers.
    const waitingOn = new Set((await this.store.byState('pending')).map((r) => r.requestId));
    for (const [id, sent] of this.sent) {
      if (sent.type !== 'approval_request' || this.dead.has(sent.conn) || this.answers.has(id)) continue;
      expect(waitingOn.has(id), `approval_request ${id} has no answer and no prompt`).toBe(true);
    }
    for (const record of await this.store.byState('pending')) {
      if (record.conn === null) continue;
      expect(this.conns.has(record.conn), `prompt ${record.key} waits on a closed connection ${record.conn}`).toBe(true);
      expect(this.answers.has(record.requestId), `prompt ${record.key} waits on an answered request`).toBe(false);
      expect(this.sent.get(record.requestId)?.type).toBe('approval_request');
    }
    const audit = await this.store.auditLog();
    for (const record of await this.store.all()) {
      const last = audit.filter((e) => e.key === record.key && e.to !== undefined).at(-1);
      if (last) expect(last.to, `history of ${record.key}`).toBe(record.state);
    }
  }

  close(): void {
    this.store.close();
  }
}

type Cmd = fc.AsyncCommand<object, World>;

const command = (name: string, run: (w: World) => Promise<void>): Cmd => ({
  check: () => true,
  run: async (_m, w) => {
    await run(w);
    await w.check();
  },
  toString: () => name,
});

function operation(op: number, rev: number) {
  return {
    operation_id: `exc_${op}`,
    revision: `rev${rev}`,
    summary: `Exchange item ${op} for **$${70 + rev}.00** more (revision ${rev}).`,
    terms: { price_difference: { amount: `${70 + rev}.00`, currency: 'USD' } },
    expires_at: '2099-01-01T00:00:00Z',
  };
}

const base = [
  fc.integer({ min: 0, max: AGENTS - 1 }).map((agent) => command(`connect(${agent})`, (w) => w.connect(agent))),
  fc.tuple(fc.nat(), fc.nat(1), fc.nat(2), fc.nat(1)).map(([c, op, rev, company]) =>
    command(`ask(${c}, exc_${op}, rev${rev}, ${company})`, async (w) => {
      const conn = w.liveConn(c);
      if (conn === undefined) return;
      const agent = w.agents[w.conns.get(conn)!]!;
      const nonce = randomNonce();
      const o = operation(op, rev);
      const id = w.id('a');
      w.post(conn, { type: 'approval_request', id, nonce, company: COMPANIES[company], operation: o, request: { interface: 'api', method: 'POST', url: `${COMPANIES[company]!.origin}/x` }, session: { kind: 'this_session' } }, {
        immediate: false,
        asked: { operation: o, company: COMPANIES[company]!, nonce, agent: agent.thumbprint },
      });
    }),
  ),
  fc.tuple(fc.nat(), fc.nat()).map(([c, r]) =>
    command(`cancel(${c}, ${r})`, async (w) => {
      const conn = w.liveConn(c);
      if (conn === undefined) return;
      const open = [...w.sent].filter(([id, s]) => s.conn === conn && s.type === 'approval_request' && !w.answers.has(id));
      const target = open.length === 0 ? 'never_asked' : open[r % open.length]![0];
      w.post(conn, { type: 'approval_cancel', id: w.id('cancel'), request_id: target }, { immediate: true });
    }),
  ),
  fc.tuple(fc.nat(), fc.nat(), fc.constantFrom('sent', 'performed', 'failed', 'unknown', 'new_revision')).map(([c, i, what]) =>
    command(`${what}(${c}, ${i})`, async (w) => {
      const conn = w.liveConn(c);
      if (conn === undefined) return;
      await w.settle();
      const agent = w.agents[w.conns.get(conn)!]!;
      const mine = (await w.store.all()).filter((r) => r.agent === agent.thumbprint).sort((a, b) => a.key.localeCompare(b.key));
      const r = mine[i % Math.max(mine.length, 1)];
      const target = r ? { operation_id: r.operationId, revision: r.revision, company_origin: r.company.origin } : { operation_id: 'exc_9', revision: 'rev9' };
      if (what === 'sent') w.post(conn, { type: 'approval_sent', id: w.id('sent'), ...target }, { immediate: true });
      else w.post(conn, { type: 'outcome', id: w.id('outcome'), ...target, outcome: what }, { immediate: true });
    }),
  ),
  // The section 7 flow sent back to back: an outcome, then at once a request for the next revision.
  fc.tuple(fc.nat(), fc.constantFrom('failed', 'new_revision', 'performed')).map(([i, outcome]) =>
    command(`${outcome}-then-ask(${i})`, async (w) => {
      await w.settle();
      const approved = await w.item(i, ['approved', 'sent', 'unknown']);
      const conn = approved && [...w.conns].find(([, a]) => w.agents[a]!.thumbprint === approved.agent)?.[0];
      if (!approved || conn === undefined) return;
      const company = COMPANIES.find((x) => x.origin === approved.company.origin)!;
      w.post(conn, { type: 'outcome', id: w.id('outcome'), operation_id: approved.operationId, revision: approved.revision, company_origin: company.origin, outcome }, { immediate: true });
      w.post(conn, { type: 'version_query', id: w.id('q') }, { immediate: true });
      const nonce = randomNonce();
      const o = operation(Number(approved.operationId.slice(4)), Number(approved.revision.slice(3)) + 1);
      const id = w.id('a');
      w.post(conn, { type: 'approval_request', id, nonce, company, operation: o, request: { interface: 'api', method: 'POST', url: `${company.origin}/x` }, session: { kind: 'this_session' } }, {
        immediate: false,
        asked: { operation: o, company, nonce, agent: approved.agent },
      });
      await w.settle();
      // In order: the outcome was recorded before the request was looked at, so it is not refused as pending.
      expect((w.answers.get(id) ?? []).filter((m) => m.type === 'error' && (m as { code: string }).code === 'ERR_OUTCOME_PENDING')).toEqual([]);
    }),
  ),
  fc.tuple(fc.nat(), fc.constantFrom('approve', 'decline')).map(([i, decision]) =>
    command(`person ${decision}(${i})`, async (w) => {
      await w.settle();
      const item = await w.item(i, ['pending']);
      if (item) await w.queue.decide(item.key, decision);
    }),
  ),
  fc.nat().map((i) =>
    command(`person withdraw(${i})`, async (w) => {
      await w.settle();
      const item = await w.item(i, ['approved', 'sent']);
      if (item) await w.queue.withdraw(item.key);
    }),
  ),
  fc.nat().map((c) =>
    command(`drop(${c})`, async (w) => {
      const conn = w.liveConn(c);
      if (conn !== undefined) await w.drop(conn);
    }),
  ),
  fc.constant(command('restart', (w) => w.restart())),
  // A version query right behind the last messages: its answer must not overtake theirs.
  fc.nat().map((c) =>
    command(`version_query(${c})`, async (w) => {
      const conn = w.liveConn(c);
      if (conn !== undefined) w.post(conn, { type: 'version_query', id: w.id('q') }, { immediate: true });
    }),
  ),
  // The next revision of an approved item, asked by its agent (section 7: refused while the outcome is open).
  fc.nat().map((i) =>
    command(`ask-next(${i})`, async (w) => {
      await w.settle();
      const item = await w.item(i, ['approved', 'sent', 'unknown']);
      const conn = item && [...w.conns].find(([, a]) => w.agents[a]!.thumbprint === item.agent)?.[0];
      if (!item || conn === undefined) return;
      const company = COMPANIES.find((x) => x.origin === item.company.origin)!;
      const nonce = randomNonce();
      const o = operation(Number(item.operationId.slice(4)), Number(item.revision.slice(3)) + 1);
      w.post(conn, { type: 'approval_request', id: w.id('a'), nonce, company, operation: o, request: { interface: 'api', method: 'POST', url: `${company.origin}/x` }, session: { kind: 'this_session' } }, {
        immediate: false,
        asked: { operation: o, company, nonce, agent: item.agent },
      });
    }),
  ),
  // The person withdraws as the agent says it is sending: whichever arrives first decides.
  fc.tuple(fc.nat(), fc.boolean()).map(([i, withdrawFirst]) =>
    command(`withdraw-vs-sent(${i}, ${withdrawFirst ? 'withdraw first' : 'sent first'})`, async (w) => {
      await w.settle();
      const item = await w.item(i, ['approved']);
      const conn = item && [...w.conns].find(([, a]) => w.agents[a]!.thumbprint === item.agent)?.[0];
      if (!item || conn === undefined) return;
      const id = w.id('sent');
      const sent = () => w.post(conn, { type: 'approval_sent', id, operation_id: item.operationId, revision: item.revision, company_origin: item.company.origin }, { immediate: true });
      if (withdrawFirst) {
        const { tooLate } = await w.queue.withdraw(item.key);
        expect(tooLate).toBe(false);
        sent();
        await w.settle();
        expect(w.answers.get(id)?.[0]).toMatchObject({ type: 'error', code: 'ERR_TOO_LATE' });
      } else {
        sent();
        await w.settle();
        expect(w.answers.get(id)?.[0]).toMatchObject({ type: 'ack', sent: true });
        const { tooLate } = await w.queue.withdraw(item.key);
        expect(tooLate).toBe(true);
        expect((await w.store.get(item.key))?.state).toBe('sent');
      }
    }),
  ),
];
// Asks, the person's answers and the section 7 flow are what the invariants are about: weight them up.
const commands = [...base, base[1]!, base[1]!, base[1]!, base[4]!, base[5]!, base[5]!, base[5]!, base[3]!, base[9]!, base[10]!];

describe('agent sessions, model-based (docs/bridge-protocol.md "Answers and order")', () => {
  it(`${RUNS} random interleavings keep every invariant`, async () => {
    const agents = await Promise.all(Array.from({ length: AGENTS }, () => newAgentKey()));
    let run = 0;
    // What the runs exercised: a model test whose commands all do nothing proves nothing.
    const seen = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 30, size: 'large' }), async (cmds) => {
        const world = await World.create(++run, agents);
        try {
          await world.connect(0);
          await fc.asyncModelRun(() => ({ model: {}, real: world }), cmds);
          await world.settle();
          await world.check();
          for (const list of world.answers.values()) {
            const m = list[0] as { type: string; status?: string; code?: string };
            const what = m.type === 'decision' ? `decision ${m.status}` : m.type === 'error' ? `error ${m.code}` : m.type;
            seen.set(what, (seen.get(what) ?? 0) + 1);
          }
        } finally {
          world.close();
        }
      }),
      { numRuns: RUNS },
    );
    for (const what of ['decision approved', 'decision declined', 'decision cancelled', 'decision superseded', 'ack', 'error ERR_OUTCOME_PENDING', 'error ERR_TOO_LATE']) {
      expect(seen.get(what) ?? 0, `no run produced ${what}: ${JSON.stringify([...seen])}`).toBeGreaterThan(0);
    }
  }, 600_000);
});
