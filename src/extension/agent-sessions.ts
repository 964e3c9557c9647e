// Longer than 500 lines on purpose: one connection's life (handshake, pairing, then requests) is
// one state machine, and each message's rule depends on what the connection has proved so far.
// The approvals themselves live in approval-queue.ts, the page's side in page-messages/.
import {
  BRIDGE_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  agentToExtensionMessage,
  jwkThumbprint,
  pairingCode,
  pairingCommitment,
  parseBridgeMessage,
  randomNonce,
  requestIdOf,
  verifyAgentAuth,
  type AgentToExtensionMessage,
  type BridgePublicJwk,
  type ExtensionToAgentMessage,
} from '../protocol/bridge';
import { CountersignError } from '../protocol/errors';
import { signPasskeyAnnouncement } from '../protocol/passkey-announcement';
import type { AgentReply, ApprovalQueue } from './approval-queue';
import { toolCallAsRequest } from './tool-call-request';
import type { AgentProblem } from './snapshot';
import type { Store, StoredKeyPair } from './store';

/**
 * Who is on the other end of each agent connection, and what it may do (docs/bridge-protocol.md
 * "Handshake" and "Pairing"). An agent proves its key before any request is accepted; an
 * unpaired or revoked agent gets a typed error and never a window: only an agent the person
 * paired can put a prompt in front of them.
 */

interface Connection {
  conn: string;
  stage: 'new' | 'challenged' | 'authenticated';
  agentName?: string;
  agentKey?: BridgePublicJwk;
  agentThumbprint?: string;
  challenge?: string;
}

/**
 * Pairings waiting for the person at once, over all connections. A pairing needs no paired key,
 * so any local process can ask: the cap keeps a flood of them from burying the window, and one
 * per connection keeps one process from stacking them. Paired agents' approvals are not counted.
 */
export const MAX_PENDING_PAIRINGS = 3;
/** Wrong codes typed before a pairing is refused: a guess has at most 3 in 1,000,000 chances. */
export const MAX_PAIRING_CODE_ATTEMPTS = 3;

/** What the person's answer to a pairing did. */
export type PairingAnswer = { status: 'paired' | 'rejected' } | { status: 'code-mismatch'; attemptsLeft: number };

/**
 * Names compared as a person reads them: compatibility forms folded (NFKC), case and hidden
 * characters ignored, runs of spaces as one. "Desk agent", "DESK  AGENT" and "Desk\u200Bagent"
 * are one name to a person, so they are one name here.
 */
export function agentNameKey(name: string): string {
  return name
    .normalize('NFKC')
    .replace(/[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu, '')
    .replace(/\s+/gu, ' ')
    .trim()
    .toLowerCase();
}

export interface PendingPairing {
  pairingId: string;
  conn: string;
  requestId: string;
  agentName: string;
  agentKey: BridgePublicJwk;
  agentThumbprint: string;
  commitment: string;
  extensionNonce: string;
  code?: string;
  /** The `pair_reveal`'s id: `pair_result` answers it. */
  revealId?: string;
  /** Wrong codes typed so far (MAX_PAIRING_CODE_ATTEMPTS ends the pairing). */
  attempts: number;
  requestedAt: number;
}

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

/** The extension's public key as the protocol carries it: exactly the RFC 7638 members. */
export function wireJwk(jwk: JsonWebKey): BridgePublicJwk {
  return jwk.kty === 'EC'
    ? { kty: 'EC', crv: 'P-256', x: String(jwk.x), y: String(jwk.y) }
    : { kty: 'OKP', crv: 'Ed25519', x: String(jwk.x) };
}

export class AgentSessions {
  private readonly connections = new Map<string, Connection>();
  /**
   * One queue per connection: an agent's messages are handled strictly in the order they arrived
   * (docs/bridge-protocol.md, "Answers and order"), so an `outcome` is recorded before the next
   * `approval_request` is looked at. Different connections stay independent.
   */
  private readonly queues = new Map<string, Promise<void>>();
  readonly pairings = new Map<string, PendingPairing>();
  /** The latest reasons agents were turned away, newest last (memory only: a diagnosis, not state). */
  readonly problems: AgentProblem[] = [];

  constructor(private readonly deps: SessionDeps) {}

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
    return this.enqueue(conn, () => this.handleRaw(conn, raw));
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

  private async handleRaw(conn: string, raw: unknown): Promise<void> {
    const parsed = parseBridgeMessage(agentToExtensionMessage, raw);
    if (!parsed.ok) {
      this.error(conn, parsed.error.code, parsed.error.message, requestIdOf(raw));
      if (parsed.error.code === 'ERR_SUMMARY_TOO_LONG') await this.tooLarge(conn);
      return;
    }
    let connection = this.connections.get(conn);
    if (!connection) {
      // The bridge announces every connection; a relay for an unknown one is accepted as new.
      connection = { conn, stage: 'new' };
      this.connections.set(conn, connection);
    }
    try {
      await this.handle(connection, parsed.message);
    } catch (error) {
      // Not the agent's fault and not one of our refusals (IndexedDB, WebCrypto, a bug): to the agent, the other side failed.
      const e = error instanceof CountersignError ? error : new CountersignError('ERR_REMOTE', 'request could not be handled', { cause: error });
      this.error(conn, e.code, e.message, requestIdOf(raw));
    }
  }

  /** One method per message of docs/bridge-protocol.md, section 9: each answers exactly once. */
  private async handle(c: Connection, m: AgentToExtensionMessage): Promise<void> {
    switch (m.type) {
      case 'version_query':
        return this.onVersionQuery(c, m);
      case 'hello':
        return this.onHello(c, m);
      case 'auth':
        return this.onAuth(c, m);
      case 'pair_request':
        return this.onPairRequest(c, m);
      case 'pair_reveal':
        return this.onPairReveal(c, m);
      case 'approval_request':
        return this.onApprovalRequest(c, m);
      case 'tool_call_request':
        return this.onApprovalRequest(c, m);
      case 'approval_cancel': {
        this.authenticated(c);
        const cancelled = await this.deps.queue.cancel(c.conn, m.request_id);
        this.sendReply(c.conn, { type: 'ack', id: m.id, cancelled });
        return;
      }
      case 'approval_sent': {
        const who = await this.paired(c);
        this.sendReply(c.conn, await this.deps.queue.sent(who, m.id, m.operation_id, m.revision, m.company_origin));
        return;
      }
      case 'outcome': {
        const who = await this.paired(c);
        this.sendReply(c.conn, await this.deps.queue.outcome(who, m.id, m.operation_id, m.revision, m.outcome, m.detail, m.company_origin));
        return;
      }
      case 'error':
        // An agent's report about something we sent: recorded, never acted on.
        await this.deps.store.audit('agent-error', { detail: `${m.code}: ${m.message}`.slice(0, 500) });
        return;
    }
  }

  private onVersionQuery(c: Connection, m: Extract<AgentToExtensionMessage, { type: 'version_query' }>): void {
    this.send(c.conn, {
      type: 'version',
      v: BRIDGE_PROTOCOL_VERSION,
      id: m.id,
      product: 'Countersign',
      extension_version: this.deps.extensionVersion,
      protocol_versions: [...SUPPORTED_PROTOCOL_VERSIONS],
    });
  }

  private async onHello(c: Connection, m: Extract<AgentToExtensionMessage, { type: 'hello' }>): Promise<void> {
    if (!m.versions.includes(BRIDGE_PROTOCOL_VERSION)) {
      this.problem('version', m.agent_name);
      this.send(c.conn, {
        type: 'error',
        v: BRIDGE_PROTOCOL_VERSION,
        id: m.id,
        code: 'ERR_PROTOCOL_VERSION',
        message: 'no common protocol version',
        source: 'extension',
        supported_versions: [...SUPPORTED_PROTOCOL_VERSIONS],
      });
      return;
    }
    c.stage = 'challenged';
    c.agentName = m.agent_name;
    c.agentKey = m.agent_key;
    c.agentThumbprint = await jwkThumbprint(m.agent_key);
    c.challenge = randomNonce();
    this.send(c.conn, { type: 'challenge', v: BRIDGE_PROTOCOL_VERSION, id: m.id, nonce: c.challenge, version: BRIDGE_PROTOCOL_VERSION });
  }

  private async onAuth(c: Connection, m: Extract<AgentToExtensionMessage, { type: 'auth' }>): Promise<void> {
    const { store, key } = this.deps;
    if (c.stage !== 'challenged' || !c.agentKey || !c.agentThumbprint || !c.challenge) {
      throw new CountersignError('ERR_AUTH_FAILED', 'auth: send hello first');
    }
    const fields = { extensionKeyThumbprint: key.thumbprint, agentKeyThumbprint: c.agentThumbprint, conn: c.conn, nonce: c.challenge };
    // One challenge, one try: a failed proof needs a new hello.
    c.challenge = undefined;
    if (!(await verifyAgentAuth(c.agentKey, fields, m.signature))) {
      c.stage = 'new';
      this.problem('auth', c.agentName);
      throw new CountersignError('ERR_AUTH_FAILED', 'auth: the signature does not prove the agent key');
    }
    c.stage = 'authenticated';
    const agent = await store.getAgent(c.agentThumbprint);
    const paired = !!agent && !agent.revokedAt;
    // A paired agent learns the passkey at every welcome: it may have been offline when it changed.
    const passkey = paired ? await this.passkeyAnnouncement(c.agentThumbprint) : undefined;
    this.send(c.conn, { type: 'welcome', v: BRIDGE_PROTOCOL_VERSION, id: m.id, paired, extension_key: wireJwk(key.publicJwk), ...(passkey === undefined ? {} : { passkey }) });
  }

  private async onPairRequest(c: Connection, m: Extract<AgentToExtensionMessage, { type: 'pair_request' }>): Promise<void> {
    const { store, key } = this.deps;
    const who = this.authenticated(c);
    const keyThumbprint = await jwkThumbprint(m.agent_key);
    if (keyThumbprint !== who.agentThumbprint) throw new CountersignError('ERR_PAIRING_FAILED', 'pair_request.agent_key: not the key this connection proved');
    // A second agent under a paired agent's name would be told apart only by its key: refuse it,
    // so "your agent “Desk agent”" always means the one the person paired under that name.
    const nameKey = agentNameKey(m.agent_name);
    const namesake = (await store.agents()).find((a) => !a.revokedAt && a.thumbprint !== keyThumbprint && agentNameKey(a.name) === nameKey);
    if (namesake) {
      await store.audit('pairing-name-taken', { agent: keyThumbprint, detail: m.agent_name });
      throw new CountersignError(
        'ERR_PAIRING_FAILED',
        `pair_request.agent_name: an agent named ${JSON.stringify(namesake.name)} is already paired with another key; choose another name, or have the person remove that agent in Countersign's options first`,
      );
    }
    // From here to `pairings.set` nothing awaits: messages from many connections are handled
    // concurrently, and the cap must hold however they interleave.
    const waiting = [...this.pairings.values()];
    if (waiting.some((p) => p.conn === c.conn)) {
      throw new CountersignError('ERR_PAIRING_FAILED', 'pair_request: a pairing is already waiting on this connection; one at a time');
    }
    if (waiting.length >= MAX_PENDING_PAIRINGS) {
      void store.audit('pairing-throttled', { agent: keyThumbprint, detail: m.agent_name }).catch(() => undefined);
      throw new CountersignError('ERR_THROTTLED', `pair_request: ${waiting.length} pairings are already waiting for the person; try again later`);
    }
    const extensionNonce = randomNonce();
    const pairing: PendingPairing = {
      pairingId: `${c.conn}:${m.id}`,
      conn: c.conn,
      requestId: m.id,
      agentName: m.agent_name,
      agentKey: m.agent_key,
      agentThumbprint: keyThumbprint,
      commitment: m.agent_nonce_sha256,
      extensionNonce,
      attempts: 0,
      requestedAt: Date.now(),
    };
    this.pairings.set(pairing.pairingId, pairing);
    this.send(c.conn, { type: 'pair_offer', v: BRIDGE_PROTOCOL_VERSION, id: m.id, extension_key: wireJwk(key.publicJwk), extension_nonce: extensionNonce });
  }

  private async onPairReveal(c: Connection, m: Extract<AgentToExtensionMessage, { type: 'pair_reveal' }>): Promise<void> {
    const pairing = this.pairings.get(`${c.conn}:${m.pairing_id}`);
    if (!pairing || pairing.code !== undefined) throw new CountersignError('ERR_PAIRING_FAILED', 'pair_reveal.pairing_id: no pairing waiting for its reveal with this id on this connection');
    if ((await pairingCommitment(m.agent_nonce)) !== pairing.commitment) {
      this.pairings.delete(pairing.pairingId);
      throw new CountersignError('ERR_PAIRING_FAILED', 'pair_reveal.agent_nonce: does not match the commitment in pair_request');
    }
    // The reveal's own id gets the pairing's one final answer, `pair_result`.
    pairing.revealId = m.id;
    pairing.code = await pairingCode({
      extensionKeyThumbprint: this.deps.key.thumbprint,
      agentKeyThumbprint: pairing.agentThumbprint,
      extensionNonce: pairing.extensionNonce,
      agentNonce: m.agent_nonce,
    });
    this.deps.pairingsChanged();
  }

  private async onApprovalRequest(c: Connection, m: Extract<AgentToExtensionMessage, { type: 'approval_request' | 'tool_call_request' }>): Promise<void> {
    const who = this.authenticated(c);
    const agent = await this.deps.store.getAgent(who.agentThumbprint);
    if (!agent || agent.revokedAt) this.problem(agent ? 'revoked' : 'unpaired', who.agentName);
    if (!agent) throw new CountersignError('ERR_AGENT_NOT_PAIRED', 'this agent is not paired with Countersign: pair it first');
    if (agent.revokedAt) throw new CountersignError('ERR_AGENT_REVOKED', 'this agent was revoked in Countersign');
    const request = m.type === 'tool_call_request' ? await toolCallAsRequest(m) : { ...m, ...(m.user_verification === undefined ? {} : { userVerification: m.user_verification }) };
    const reply = await this.deps.queue.receive(agent, c.conn, request);
    if (reply) this.sendReply(c.conn, reply);
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

  private authenticated(c: Connection): Required<Pick<Connection, 'agentThumbprint' | 'agentName'>> {
    if (c.stage !== 'authenticated' || !c.agentThumbprint || !c.agentName) {
      throw new CountersignError('ERR_AUTH_FAILED', 'prove the agent key first (hello, challenge, auth)');
    }
    return { agentThumbprint: c.agentThumbprint, agentName: c.agentName };
  }


  private async paired(c: Connection): Promise<string> {
    const who = this.authenticated(c);
    const agent = await this.deps.store.getAgent(who.agentThumbprint);
    if (!agent) throw new CountersignError('ERR_AGENT_NOT_PAIRED', 'this agent is not paired with Countersign');
    if (agent.revokedAt) throw new CountersignError('ERR_AGENT_REVOKED', 'this agent was revoked in Countersign');
    return who.agentThumbprint;
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
