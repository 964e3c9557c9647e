import { BRIDGE_PROTOCOL_VERSION, agentToExtensionMessage, parseBridgeMessage, requestIdOf, type ExtensionToAgentMessage } from '../protocol/bridge';
import { CountersignError } from '../protocol/errors';
import { signPasskeyAnnouncement } from '../protocol/passkey-announcement';
import type { AgentReply, ApprovalQueue } from './approval-queue';
import { handleBridgeMessage } from './bridge-messages/index';
import type { BridgeSession, Connection, PendingPairing } from './bridge-messages/types';
import type { AgentProblem } from './snapshot';
import type { Store, StoredKeyPair } from './store';

/**
 * Who is on the other end of each agent connection, and what it may do (docs/bridge-protocol.md
 * "Handshake" and "Pairing"). An agent proves its key before any request is accepted; an
 * unpaired or revoked agent gets a typed error and never a window: only an agent the person
 * paired can put a prompt in front of them. Here: each connection's state, its queue of
 * messages, the pairings waiting for the person and their answer; each message's own rule is
 * its module in bridge-messages/, the approvals themselves are approval-queue.ts's.
 */

/** Wrong codes typed before a pairing is refused: a guess has at most 3 in 1,000,000 chances. */
export const MAX_PAIRING_CODE_ATTEMPTS = 3;

/** What the person's answer to a pairing did. */
export type PairingAnswer = { status: 'paired' | 'rejected' } | { status: 'code-mismatch'; attemptsLeft: number };

export interface SessionDeps {
  store: Store;
  queue: ApprovalQueue;
  key: StoredKeyPair;
  extensionVersion: string;
  /** Sends one message to one agent connection (through the bridge's relay). */
  sendToAgent(conn: string, message: ExtensionToAgentMessage): void;
  /** A pairing needs the person (open the window), or ended. */
  pairingsChanged(): void;
}

export class AgentSessions {
  private readonly connections = new Map<string, Connection>();
  /**
   * One queue per connection: an agent's messages are handled strictly in the order they arrived
   * (docs/bridge-protocol.md, "Answers and order"), so an `outcome` is recorded before the next
   * `approval_request` is looked at. Different connections stay independent.
   */
  private readonly queues = new Map<string, Promise<void>>();
  /**
   * The answer of each connection's last ask still being taken in (ApprovalQueue.receive batches
   * asks while the store writes): the connection's next ask goes on to the same batch, but any
   * other message, or error, waits for it, so answers keep the order of the messages.
   */
  private readonly unanswered = new Map<string, Promise<void>>();
  readonly pairings = new Map<string, PendingPairing>();
  /** The latest reasons agents were turned away, newest last (memory only: a diagnosis, not state). */
  readonly problems: AgentProblem[] = [];

  /** What the handlers of `bridge-messages/` use of these sessions. */
  private readonly session: BridgeSession;

  constructor(private readonly deps: SessionDeps) {
    this.session = {
      store: deps.store,
      queue: deps.queue,
      key: deps.key,
      extensionVersion: deps.extensionVersion,
      pairings: this.pairings,
      send: (conn, message) => this.send(conn, message),
      sendReply: (conn, reply) => this.sendReply(conn, reply),
      problem: (kind, agentName) => this.problem(kind, agentName),
      pairingsChanged: () => deps.pairingsChanged(),
      passkeyAnnouncement: (agent) => this.passkeyAnnouncement(agent),
    };
  }

  authenticatedCount(): number {
    let n = 0;
    for (const c of this.connections.values()) if (c.stage === 'authenticated') n++;
    return n;
  }

  private problem(kind: AgentProblem['kind'], agentName: string | undefined): void {
    this.problems.push({ kind, agentName: agentName ?? 'unknown agent', at: Date.now() });
    if (this.problems.length > 10) this.problems.shift();
    this.deps.pairingsChanged();
  }

  connected(conn: string): void {
    this.connections.set(conn, { conn, stage: 'new' });
  }

  /** The agent's connection closed: after its messages already queued (they were sent before it left). */
  disconnected(conn: string): Promise<void> {
    return this.enqueue(conn, () => this.forget(conn));
  }

  private async forget(conn: string): Promise<void> {
    await this.unanswered.get(conn);
    this.connections.delete(conn);
    let changed = false;
    for (const [id, p] of this.pairings) {
      if (p.conn === conn) {
        this.pairings.delete(id);
        changed = true;
      }
    }
    if (changed) this.deps.pairingsChanged();
    await this.deps.queue.disconnected(conn);
  }

  /** The bridge went away: every connection is gone. */
  async reset(): Promise<void> {
    this.connections.clear();
    if (this.pairings.size) {
      this.pairings.clear();
      this.deps.pairingsChanged();
    }
    await this.deps.queue.allDisconnected();
  }

  /**
   * The person revoked a paired agent (the options page). Only the stored mark changes: every
   * request, `approval_sent` and `outcome` reads the agent from the store, so its connections
   * still open get ERR_AGENT_REVOKED from their next message on, and a reconnect is told it is
   * not paired. Its approvals already waiting stay where they are, for the person to decide.
   * Resolves true when this call revoked it; false for an unknown or already revoked agent
   * (the first revocation's time stands).
   */
  async revoke(thumbprint: string): Promise<boolean> {
    const agent = await this.deps.store.getAgent(thumbprint);
    if (!agent || agent.revokedAt) return false;
    await this.deps.store.putAgent({ ...agent, revokedAt: Date.now() });
    return true;
  }

  /**
   * One message from an agent, not yet validated: queued behind that connection's earlier
   * messages. Resolves when it has been handled. Bad input gets a typed error and changes nothing.
   */
  receive(conn: string, raw: unknown): Promise<void> {
    let answered: Promise<void> | undefined;
    const handled = this.enqueue(conn, async () => {
      answered = (await this.handleRaw(conn, raw))?.answered;
    });
    return handled.then(() => answered);
  }

  /**
   * The bridge refused a message of this connection (`bridge_error` naming it): it never reaches
   * us, and the agent has its error already. A summary too long to show is worth telling the
   * person about; the rest is the agent's business. Queued behind the connection's earlier
   * messages, so the authentication the agent sent before it counts.
   */
  refusedByBridge(conn: string, code: string): Promise<void> {
    if (code !== 'ERR_SUMMARY_TOO_LONG') return Promise.resolve();
    return this.enqueue(conn, () => this.tooLarge(conn));
  }

  /**
   * A request refused because its summary is longer than Countersign shows (MAX_SUMMARY_LENGTH):
   * nothing is stored and no window opens, so without a problem the person would never learn
   * that their agent asked. Only for an agent that proved a key the person paired, under the name
   * they paired it with: any local process can connect and claim a name, and must not be able to
   * put a paired agent's name on this line.
   */
  private async tooLarge(conn: string): Promise<void> {
    const c = this.connections.get(conn);
    if (c?.stage !== 'authenticated' || !c.agentThumbprint) return;
    // A diagnosis: if the store cannot say who it is, the agent's error reply still stands.
    const agent = await this.deps.store.getAgent(c.agentThumbprint).catch(() => undefined);
    if (agent && !agent.revokedAt) this.problem('too-large', agent.name);
  }

  /** Runs `work` after everything already queued for `conn`; the queue is dropped once it drains. */
  private enqueue(conn: string, work: () => Promise<void>): Promise<void> {
    const run = (this.queues.get(conn) ?? Promise.resolve()).then(work);
    const tail = run.catch(() => undefined);
    this.queues.set(conn, tail);
    void tail.then(() => {
      if (this.queues.get(conn) === tail) this.queues.delete(conn);
    });
    return run;
  }

  /**
   * Resolves once the message is taken in, with (for an ask) the moment its answer is sent, in an
   * object: a promise resolved with a promise would wait for the answer too.
   */
  private async handleRaw(conn: string, raw: unknown): Promise<{ answered: Promise<void> } | undefined> {
    const parsed = parseBridgeMessage(agentToExtensionMessage, raw);
    if (!parsed.ok) {
      await this.unanswered.get(conn);
      this.error(conn, parsed.error.code, parsed.error.message, requestIdOf(raw));
      if (parsed.error.code === 'ERR_SUMMARY_TOO_LONG') await this.tooLarge(conn);
      return undefined;
    }
    const { message } = parsed;
    if (message.type !== 'approval_request' && message.type !== 'tool_call_request') await this.unanswered.get(conn);
    let connection = this.connections.get(conn);
    if (!connection) {
      // The bridge announces every connection; a relay for an unknown one is accepted as new.
      connection = { conn, stage: 'new' };
      this.connections.set(conn, connection);
    }
    try {
      // One module per message of docs/bridge-protocol.md, sections 7 to 9: each answers exactly once.
      const later = await handleBridgeMessage(connection, message, this.session);
      return later ? { answered: this.answerLater(conn, later.answer, requestIdOf(raw)) } : undefined;
    } catch (error) {
      await this.unanswered.get(conn);
      this.failed(conn, error, requestIdOf(raw));
      return undefined;
    }
  }

  /** Sends an ask's answer once the queue has it, after the answers of the connection's asks before it. */
  private answerLater(conn: string, answer: Promise<AgentReply | null>, id: string | undefined): Promise<void> {
    const sent = answer.then(
      (reply) => {
        if (reply) this.sendReply(conn, reply);
      },
      (error: unknown) => this.failed(conn, error, id),
    );
    const settled = sent.catch(() => undefined);
    this.unanswered.set(conn, settled);
    void settled.then(() => {
      if (this.unanswered.get(conn) === settled) this.unanswered.delete(conn);
    });
    return sent;
  }

  /** Not the agent's fault and not one of our refusals (IndexedDB, WebCrypto, a bug): to the agent, the other side failed. */
  private failed(conn: string, error: unknown, id: string | undefined): void {
    const e = error instanceof CountersignError ? error : new CountersignError('ERR_REMOTE', 'request could not be handled', { cause: error });
    this.error(conn, e.code, e.message, id);
  }

  /**
   * The person's answer to a pairing, from a trusted, gated click in the approval window. To
   * pair, they type the code their agent shows: a click alone never pairs, and neither does a
   * code the window could have shown them. A wrong code counts against the pairing; the third
   * ends it, as a refusal.
   */
  async answerPairing(pairingId: string, answer: { confirmed: false } | { confirmed: true; code: string }): Promise<PairingAnswer> {
    const pairing = this.pairings.get(pairingId);
    if (!pairing || !pairing.code) throw new CountersignError('ERR_ARGUMENT_INVALID', `pairingId: expected the id of a waiting pairing, got ${pairingId}, which names none`);
    if (answer.confirmed) {
      const typed = answer.code.replace(/[\s-]/g, '');
      if (typed !== pairing.code) {
        pairing.attempts += 1;
        await this.deps.store.audit('pairing-code-mismatch', { agent: pairing.agentThumbprint, detail: `${pairing.agentName} (attempt ${pairing.attempts})` });
        const attemptsLeft = MAX_PAIRING_CODE_ATTEMPTS - pairing.attempts;
        if (attemptsLeft > 0) {
          this.deps.pairingsChanged();
          return { status: 'code-mismatch', attemptsLeft };
        }
        await this.endPairing(pairing, false);
        return { status: 'code-mismatch', attemptsLeft: 0 };
      }
    }
    await this.endPairing(pairing, answer.confirmed);
    return { status: answer.confirmed ? 'paired' : 'rejected' };
  }

  private async endPairing(pairing: PendingPairing, confirmed: boolean): Promise<void> {
    this.pairings.delete(pairing.pairingId);
    let passkey: string | undefined;
    if (confirmed) {
      await this.deps.store.putAgent({ thumbprint: pairing.agentThumbprint, name: pairing.agentName, publicJwk: pairing.agentKey, pairedAt: Date.now() });
      passkey = await this.passkeyAnnouncement(pairing.agentThumbprint);
    } else {
      await this.deps.store.audit('pairing-refused', { agent: pairing.agentThumbprint, detail: pairing.agentName });
    }
    this.send(pairing.conn, { type: 'pair_result', v: BRIDGE_PROTOCOL_VERSION, id: pairing.revealId ?? pairing.requestId, status: confirmed ? 'confirmed' : 'rejected' });
    // An agent paired after the passkey was registered learns it at once, as those paired before did.
    if (passkey !== undefined) this.send(pairing.conn, { type: 'passkey_changed', v: BRIDGE_PROTOCOL_VERSION, jws: passkey });
    this.deps.pairingsChanged();
  }

  /**
   * The current passkey announcement for one agent, signed with the extension key, with whether
   * the person requires the passkey for every approval of it; undefined when none was ever
   * registered. Its `iat` is the later of the two changes, so each change is a newer announcement.
   */
  private async passkeyAnnouncement(agent: string): Promise<string | undefined> {
    const stored = await this.deps.store.getPasskey();
    if (stored === undefined) return undefined;
    const paired = await this.deps.store.getAgent(agent);
    const { key } = this.deps;
    return signPasskeyAnnouncement(
      {
        agent,
        passkey: stored.credential,
        now: Math.max(stored.changedAt, paired?.userVerificationChangedAt ?? 0),
        userVerification: paired?.requireUserVerification === true ? 'required' : undefined,
      },
      { privateKey: key.privateKey, alg: key.alg, kid: key.thumbprint },
    );
  }

  /**
   * The person registered, replaced or removed their passkey (every agent), or changed whether
   * one agent's approvals require it (`only`, that agent's thumbprint): every connected paired
   * agent concerned gets the new announcement now; the others at their next welcome. Resolves
   * with how many connections were told.
   */
  async announcePasskey(only?: string): Promise<number> {
    let told = 0;
    for (const c of this.connections.values()) {
      if (c.stage !== 'authenticated' || !c.agentThumbprint) continue;
      if (only !== undefined && c.agentThumbprint !== only) continue;
      const agent = await this.deps.store.getAgent(c.agentThumbprint);
      if (!agent || agent.revokedAt) continue;
      const jws = await this.passkeyAnnouncement(c.agentThumbprint);
      if (jws !== undefined && this.send(c.conn, { type: 'passkey_changed', v: BRIDGE_PROTOCOL_VERSION, jws })) told++;
    }
    return told;
  }

  sendReply(conn: string, reply: AgentReply): boolean {
    return this.send(conn, { ...reply, v: BRIDGE_PROTOCOL_VERSION, ...(reply.type === 'error' ? { source: 'extension' as const } : {}) });
  }

  /** `code` is a string: an agent must accept codes it does not know (docs/bridge-protocol.md, section 12). */
  private error(conn: string, code: string, message: string, id?: string): void {
    this.send(conn, {
      type: 'error',
      v: BRIDGE_PROTOCOL_VERSION,
      code,
      message: message.slice(0, 1000),
      source: 'extension',
      ...(id === undefined ? {} : { id }),
    });
  }

  private send(conn: string, message: ExtensionToAgentMessage): boolean {
    if (!this.connections.has(conn)) return false;
    this.deps.sendToAgent(conn, message);
    return true;
  }
}
