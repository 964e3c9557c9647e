import { EventEmitter } from 'node:events';
import os from 'node:os';
import type { z } from 'zod';
import {
  BRIDGE_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  approvalRequestMessage,
  approvalSentMessage,
  helloMessage,
  jwkThumbprint,
  outcomeMessage,
  pairRequestMessage,
  pairingCode,
  pairingCommitment,
  parseBridgeMessage,
  randomNonce,
  type AgentInboundMessage,
  type AgentToExtensionMessage,
  type BridgePublicJwk,
  type requestContextSchema,
  type sessionSchema,
} from '../protocol/bridge';
import type { Approval } from '../protocol/approval';
import { verifyDecision, type DecisionClaims } from '../protocol/decision';
import { CountersignError, ERROR_CODES, isCountersignError, type ErrorCode } from '../protocol/errors';
import { keyFingerprint } from '../protocol/fingerprint';
import { deadlineOf } from '../protocol/rfc3339';
import { checkSocketPath, findAgentSocket } from './discovery';
import { defaultConfigDir, lockConfigDir, preparePrivateDir, type ConfigLock, type PrivacyContext } from './files';
import { Journal, type JournalEntry, type Outcome } from './journal';
import { loadOrCreateAgentKey, loadPinnedKey, savePinnedKey, type AgentKey, type PinnedKey } from './keys';
import { Link } from './link';

/**
 * The agent SDK: what a desktop Personal Agent uses to pair with the
 * Countersign extension, to ask the User for approval of an operation (spec section 5), and to
 * trust only decisions the extension signed. docs/agent-sdk.md is the guide; the wire is
 * docs/bridge-protocol.md and src/protocol/bridge.ts.
 *
 * What the SDK guarantees its caller (it trusts nothing from the Company or the language model,
 * whose text a Company can steer):
 * - `approved` is returned only for a decision whose JWS verifies against the extension key
 *   pinned at pairing, for this agent's key (aud), this request's fresh nonce, the exact
 *   operation (id, revision, summary and terms hashes, expires_at) and Company asked about, and
 *   whose nonce was never accepted before. Anything else is a CountersignError.
 * - A withdrawal (section 5) is remembered and surfaced ('withdrawn' event, isWithdrawn,
 *   markSent → false), so the caller does not send a withdrawn approval.
 * - A revision already decided is answered from the journal, never asked twice.
 * - While an approved revision's outcome is unknown, no new revision of the same operation is
 *   asked for (section 7): ERR_OUTCOME_PENDING.
 */

// ---------------------------------------------------------------------------------------------
// Public types

export type RequestContext = z.input<typeof requestContextSchema>;
export type SessionContext = z.input<typeof sessionSchema>;

/** An operation as the Company returned it (spec section 3). */
export interface OperationInput {
  operation_id: string;
  revision: string;
  summary: string;
  terms?: Record<string, unknown> | undefined;
  expires_at: string;
}

export interface CompanionOptions {
  /** The name the person sees in Countersign (one line, at most 64 characters). */
  agentName: string;
  /** Where the key, the pinned extension key and the decision journal live. Default: defaultConfigDir(). */
  configDir?: string;
  /** The bridge socket (or Windows pipe). Default: discovered (see discovery.ts). */
  socketPath?: string;
  /** Environment for the default configDir and socket folders. Default: process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  /** How long to wait for the bridge and the extension where no person is involved (handshake, pairing offer). Default 10 s. */
  timeoutMs?: number;
  /**
   * Accepted for compatibility and ignored: protocol v2 answers every `approval_sent` and
   * `outcome` with an `ack` or an `error`, so no silence is ever taken as acceptance.
   */
  ackWindowMs?: number;
  /** Reported to the extension in `hello` (printable ASCII). */
  agentVersion?: string;
}

export interface RequestApprovalInput {
  /** The Company as the agent resolved it: `organization.name` of its poppy.json and its origin (spec section 5). */
  company: { name: string; origin: string };
  operation: OperationInput;
  /** The request that returned the operation (spec section 6 sends the approval back through it). */
  request: RequestContext;
  /** The Session the operation was returned in (spec section 3, "Who can approve it"). */
  session: SessionContext;
  /** Aborting withdraws the request from the extension (approval_cancel) and rejects with the signal's reason. */
  signal?: AbortSignal;
}

export type ApprovalResult =
  | {
      status: 'approved';
      /** What to send: Poppy-Approval, MCP `_meta`, or the conversation message (spec section 6). */
      approval: Approval;
      /** The verified claims of the extension's signed decision. */
      decision: DecisionClaims;
      jws: string;
      /** True when answered from the journal without asking the extension. */
      stored: boolean;
    }
  | { status: 'declined'; decision: DecisionClaims; jws: string; stored: boolean }
  | { status: 'expired' | 'superseded' | 'withdrawn' | 'unavailable' };

export interface OutcomeReport {
  operation_id: string;
  revision: string;
  outcome: Outcome;
  detail?: string;
}

export interface Pairing {
  /**
   * The 6-digit code to show the person, who types it into Countersign's window (the window does
   * not show it: a click alone can never pair). Show it as `formatPairingCode` does, "304 236".
   */
  code: string;
  /** This agent's key fingerprint, as Countersign shows it beside the agent's name. */
  fingerprint: string;
  /** Resolves when the person confirms in the extension (the key is pinned by then); rejects with ERR_PAIRING_FAILED when they refuse. */
  confirmed: Promise<void>;
}

export interface CompanionEvents {
  /** The User withdrew an approval before it was sent (spec section 5): do not send it. */
  withdrawn: [approval: Approval];
  /** The extension or the bridge went away; pending requests resolved `unavailable`. Connect again later. */
  unavailable: [reason: CountersignError];
  /** Input from the socket that failed validation or answered nothing we asked; it changed nothing. */
  protocolError: [error: CountersignError];
}

/**
 * An `error` message from the extension or the bridge, as a typed error. `code` is the remote code
 * when this version knows it (otherwise ERR_INPUT_INVALID, with the remote one in `remoteCode`:
 * codes are open-ended on the wire, docs/bridge-protocol.md "Errors").
 */
export class CompanionError extends CountersignError {
  readonly remoteCode: string;
  readonly source: 'bridge' | 'extension' | 'agent' | undefined;

  constructor(remote: { code: string; message: string; source?: 'bridge' | 'extension' | 'agent' | undefined }) {
    const known = (ERROR_CODES as readonly string[]).includes(remote.code);
    super(known ? (remote.code as ErrorCode) : 'ERR_INPUT_INVALID', `${remote.source ?? 'companion'}: ${known ? '' : `${remote.code}: `}${remote.message}`);
    this.remoteCode = remote.code;
    this.source = remote.source;
  }
}

// ---------------------------------------------------------------------------------------------
// Internals

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_ACK_WINDOW_MS = 250;
/**
 * The extension expires a pending prompt itself and says so (approval-queue.ts expireDue, every
 * few seconds); this local deadline is the backstop for an extension that stopped answering, so a
 * caller is never left waiting past the revision's `expires_at` (spec section 3, "Expiry").
 */
const EXPIRY_GRACE_MS = 30_000;
/** setTimeout's largest delay; longer waits are re-armed. */
const MAX_TIMER_MS = 2_147_483_647;

type ParsedApprovalRequest = z.output<typeof approvalRequestMessage>;
type InFlightOperation = ParsedApprovalRequest['operation'];
type Company = ParsedApprovalRequest['company'];
type PairOffer = Extract<AgentInboundMessage, { type: 'pair_offer' }>;
type Decision = Extract<AgentInboundMessage, { type: 'decision' }>;
type ErrorMessage = Extract<AgentInboundMessage, { type: 'error' }>;

interface ApprovalFlight {
  id: string;
  nonce: string;
  operation: InFlightOperation;
  company: Company;
  settled: boolean;
  finish(result: ApprovalResult | Error): void;
}

type Waiter =
  | { kind: 'approval'; flight: ApprovalFlight }
  | { kind: 'pair_offer'; resolve(offer: PairOffer): void; reject(error: Error): void }
  | { kind: 'pair_result'; resolve(status: 'confirmed' | 'rejected'): void; reject(error: Error): void }
  | { kind: 'ack'; sent?: { operationId: string; revision: string }; done(result: AckResult): void };

/** What became of an `approval_sent` or `outcome`: its one answer (protocol v2), or none because the link went away. */
type AckResult = { kind: 'ok' } | { kind: 'refused'; error: CompanionError } | { kind: 'withdrawn' } | { kind: 'unavailable' };

interface Handshake {
  stage: 'info' | 'challenge' | 'welcome';
  hello: AgentToExtensionMessage;
  /** The extension key thumbprint the socket was chosen for, when known. */
  expected: string | undefined;
  resolve(): void;
  reject(error: Error): void;
}

function unavailable(message: string): CountersignError {
  return new CountersignError('ERR_COMPANION_UNAVAILABLE', message);
}

/** Our own input that failed a bridge.ts schema: the caller's mistake, named as theirs. */
function inputError(error: CountersignError): CountersignError {
  return error.code === 'ERR_BRIDGE_MESSAGE_INVALID' ? new CountersignError('ERR_INPUT_INVALID', error.message, { cause: error }) : error;
}

/** The one clock (protocol/rfc3339.ts), failing closed: a deadline that names no instant has passed. */
const epochMs = deadlineOf;

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

function username(): string {
  try {
    return os.userInfo().username;
  } catch {
    return process.env['USERNAME'] ?? process.env['USER'] ?? 'user';
  }
}

/**
 * A connection to the Countersign extension through its bridge. Create with `Companion.connect`;
 * one per config folder at a time; `close()` when done. After the `unavailable` event, close it
 * and connect again.
 */
export class Companion extends EventEmitter<CompanionEvents> {
  private link: Link | undefined;
  private handshake: Handshake | undefined;
  private readonly waiters = new Map<string, Waiter>();
  /** Ids of requests this agent cancelled: their `cancelled` decision and the cancel's ack are expected, not strays. */
  private readonly cancelledIds = new Set<string>();
  private inbound: Promise<void> = Promise.resolve();
  private gone = false;
  private closing = false;
  private conn: string | undefined;
  private extensionKey: BridgePublicJwk | undefined;
  private extensionKeyThumbprintValue: string | undefined;
  private welcomePaired = false;
  private bridge: { version: string; browser: 'chromium' | 'firefox' } | undefined;
  private idCounter = 0;

  private constructor(
    private readonly options: Required<Pick<CompanionOptions, 'agentName' | 'timeoutMs' | 'ackWindowMs'>> & Pick<CompanionOptions, 'agentVersion'>,
    readonly configDir: string,
    private readonly ctx: PrivacyContext,
    private readonly lock: ConfigLock,
    private readonly key: AgentKey,
    private pin: PinnedKey | undefined,
    private readonly journal: Journal,
  ) {
    super();
  }

  /**
   * Load (or create) the agent's key in `configDir`, connect to the bridge, and prove the key to
   * the extension (docs/bridge-protocol.md "Handshake": hello → challenge → auth → welcome).
   *
   * Throws ERR_KEY_INVALID, and never connects further, when the extension's key differs from the
   * one pinned at pairing: another browser profile, or something posing as the extension.
   * ERR_COMPANION_UNAVAILABLE when no bridge answers; ERR_AUTH_FAILED when the proof is refused.
   */
  static async connect(options: CompanionOptions): Promise<Companion> {
    const env = options.env ?? process.env;
    const platform = process.platform;
    const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
    const configDir = options.configDir ?? defaultConfigDir({ platform, env, homedir: os.homedir() });
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const ackWindowMs = options.ackWindowMs ?? DEFAULT_ACK_WINDOW_MS;
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new CountersignError('ERR_INPUT_INVALID', 'timeoutMs: expected a positive number');
    if (!Number.isFinite(ackWindowMs) || ackWindowMs < 0) throw new CountersignError('ERR_INPUT_INVALID', 'ackWindowMs: expected a number ≥ 0');
    const ctx: PrivacyContext = { platform, uid };

    await preparePrivateDir(configDir, ctx);
    const lock = await lockConfigDir(configDir);
    let companion: Companion | undefined;
    try {
      const key = await loadOrCreateAgentKey(configDir, ctx);
      const pin = await loadPinnedKey(configDir, ctx);
      const journal = await Journal.open(configDir, ctx);

      // The hello is built and checked first: a bad agentName is the caller's error, not the extension's.
      const hello = parseBridgeMessage(
        helloMessage,
        {
          type: 'hello',
          v: BRIDGE_PROTOCOL_VERSION,
          id: `hello_${randomNonce().slice(0, 12)}`,
          versions: [...SUPPORTED_PROTOCOL_VERSIONS],
          agent_name: options.agentName,
          agent_key: key.publicJwk,
          ...(options.agentVersion === undefined ? {} : { agent_version: options.agentVersion }),
        },
        'options',
      );
      if (!hello.ok) throw inputError(hello.error);

      let paths: string[];
      let expected: string | undefined;
      if (options.socketPath !== undefined) {
        paths = [options.socketPath];
        expected = await checkSocketPath(options.socketPath, platform, uid ?? 0);
        // A paired agent never even connects to another extension's socket.
        if (pin !== undefined && pin.thumbprint !== expected) {
          throw new CountersignError('ERR_KEY_INVALID', 'socketPath: this socket serves another Countersign extension than the one this agent paired with');
        }
      } else {
        const found = await findAgentSocket({ platform, env, uid: uid ?? 0, username: username(), pinnedThumbprint: pin?.thumbprint });
        paths = found.paths;
        expected = found.thumbprint;
      }

      companion = new Companion(
        { agentName: options.agentName, timeoutMs, ackWindowMs, ...(options.agentVersion === undefined ? {} : { agentVersion: options.agentVersion }) },
        configDir,
        ctx,
        lock,
        key,
        pin,
        journal,
      );
      await companion.open(paths, hello.message, expected);
      return companion;
    } catch (error) {
      if (companion !== undefined) await companion.close();
      else await lock.release();
      throw error;
    }
  }

  // -------------------------------------------------------------------------------------------
  // State

  /** RFC 7638 thumbprint of this agent's key: its identity in the extension, the `aud` of its decisions. */
  get agentKeyThumbprint(): string {
    return this.key.thumbprint;
  }

  /**
   * This agent's short key fingerprint ("7Q2M-X9KD"): Countersign shows it beside the agent's name
   * on every prompt and in its list of agents. Print it when pairing, so the person can match it.
   */
  get fingerprint(): string {
    return keyFingerprint(this.key.thumbprint);
  }

  /** The agent's public key (what the extension pins). */
  get agentPublicKey(): BridgePublicJwk {
    return this.key.publicJwk;
  }

  /** Thumbprint of the extension's key, as this connection's welcome carried it. */
  get extensionKeyThumbprint(): string | undefined {
    return this.extensionKeyThumbprintValue;
  }

  /** True when the extension knows this agent and this agent has pinned that extension's key: approvals can be asked for and verified. */
  get paired(): boolean {
    return this.welcomePaired && this.pin !== undefined && this.pin.thumbprint === this.extensionKeyThumbprintValue;
  }

  /** False once the bridge or the extension went away, or after close(). */
  get connected(): boolean {
    return !this.gone && this.link?.isOpen === true;
  }

  /** The bridge this connection goes through (bridge_info). */
  get bridgeInfo(): { conn: string; version: string; browser: 'chromium' | 'firefox' } | undefined {
    return this.bridge === undefined || this.conn === undefined ? undefined : { conn: this.conn, ...this.bridge };
  }

  /** Spec section 5: true when the User withdrew this approval; the caller must not send it. */
  isWithdrawn(operationId: string, revision: string): boolean {
    return this.journal.isWithdrawn(operationId, revision);
  }

  // -------------------------------------------------------------------------------------------
  // Connection and handshake

  private async open(paths: string[], hello: AgentToExtensionMessage, expected: string | undefined): Promise<void> {
    const done = new Promise<void>((resolve, reject) => {
      this.handshake = { stage: 'info', hello, expected, resolve, reject };
    });
    // A rejection before we await it (the link closing at once) must not be reported as unhandled.
    done.catch(() => undefined);
    let lastError: unknown = unavailable('no socket to connect to');
    for (const socketPath of paths) {
      try {
        this.link = await Link.open(
          socketPath,
          {
            message: (m) => this.enqueue(m),
            // Through the same chain as messages: reports come in the order the frames arrived.
            invalid: (e) => {
              this.inbound = this.inbound.then(() => void this.emit('protocolError', e));
            },
            closed: (e) => this.enqueueGone(e),
          },
          this.options.timeoutMs,
        );
        break;
      } catch (error) {
        lastError = error;
      }
    }
    if (this.link === undefined) throw lastError;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(unavailable(`the Countersign extension did not complete the handshake within ${this.options.timeoutMs} ms`)), this.options.timeoutMs);
    });
    try {
      await Promise.race([done, timeout]);
    } finally {
      clearTimeout(timer);
      this.handshake = undefined;
    }
    // Outcomes recorded while the extension could not be told (section 7 history), delivered now.
    if (this.paired) void this.deliverOutcomes();
  }

  /** Inbound messages are handled one at a time, in order: a decision is verified and journaled before a later `withdrawn` for it is applied. */
  private enqueue(message: AgentInboundMessage): void {
    this.inbound = this.inbound
      .then(() => this.dispatch(message))
      .catch((error: unknown) => {
        this.emit('protocolError', isCountersignError(error) ? error : new CountersignError('ERR_INPUT_INVALID', 'an inbound message could not be handled', { cause: error }));
      });
  }

  private enqueueGone(error: CountersignError): void {
    this.inbound = this.inbound.then(() => this.goneAway(error));
  }

  private send(message: AgentToExtensionMessage): boolean {
    return this.link !== undefined && !this.gone && this.link.send(message);
  }

  private async dispatch(m: AgentInboundMessage): Promise<void> {
    if (this.handshake !== undefined) return this.onHandshake(this.handshake, m);
    switch (m.type) {
      case 'decision':
        return this.onDecision(m);
      case 'withdrawn':
        return this.onWithdrawn(m.operation_id, m.revision);
      case 'ack': {
        const waiter = this.waiters.get(m.id);
        if (waiter?.kind === 'ack') return waiter.done({ kind: 'ok' });
        if (this.cancelledIds.delete(m.id)) return; // the answer to an approval_cancel
        return this.unexpected('ack');
      }
      case 'pair_offer': {
        const waiter = this.waiters.get(m.id);
        if (waiter?.kind !== 'pair_offer') return this.unexpected(m.type);
        this.waiters.delete(m.id);
        waiter.resolve(m);
        return;
      }
      case 'pair_result': {
        const waiter = this.waiters.get(m.id);
        if (waiter?.kind !== 'pair_result') return this.unexpected(m.type);
        this.waiters.delete(m.id);
        waiter.resolve(m.status);
        return;
      }
      case 'error':
        return this.onError(m);
      case 'companion_unavailable':
        return this.goneAway(unavailable('the Countersign extension went away (its browser closed or restarted it)'));
      default:
        // bridge_info, challenge and welcome belong to the handshake; version answers a query we never send.
        return this.unexpected(m.type);
    }
  }

  private unexpected(type: string): void {
    this.emit('protocolError', new CountersignError('ERR_BRIDGE_MESSAGE_INVALID', `unexpected ${type} message: it answers nothing this agent asked; ignored`));
  }

  private async onHandshake(h: Handshake, m: AgentInboundMessage): Promise<void> {
    if (m.type === 'error') return h.reject(new CompanionError(m));
    if (m.type === 'companion_unavailable') return h.reject(unavailable('the Countersign extension is not available'));
    if (h.stage === 'info' && m.type === 'bridge_info') {
      // The bridge names the extension key it serves. A socket chosen for a pinned key that serves
      // another one is refused before anything is signed for it.
      if (h.expected !== undefined && m.extension_key_thumbprint !== h.expected) {
        return h.reject(new CountersignError('ERR_KEY_INVALID', 'the bridge serves a different Countersign extension than the one this agent paired with'));
      }
      this.conn = m.conn;
      this.extensionKeyThumbprintValue = m.extension_key_thumbprint;
      this.bridge = { version: m.bridge_version, browser: m.browser };
      h.stage = 'challenge';
      if (!this.send(h.hello)) h.reject(unavailable('the connection to the Countersign bridge closed'));
      return;
    }
    if (h.stage === 'challenge' && m.type === 'challenge') {
      if (m.version !== BRIDGE_PROTOCOL_VERSION) return h.reject(new CountersignError('ERR_PROTOCOL_VERSION', `the extension chose protocol version ${m.version}; this SDK speaks ${BRIDGE_PROTOCOL_VERSION}`));
      // The proof is bound to this extension key, this agent key, this connection and this nonce
      // (bridge.ts agentAuthInput): worth nothing anywhere else.
      const signature = await this.key.signAuth({
        extensionKeyThumbprint: this.extensionKeyThumbprintValue as string,
        agentKeyThumbprint: this.key.thumbprint,
        conn: this.conn as string,
        nonce: m.nonce,
      });
      h.stage = 'welcome';
      if (!this.send({ type: 'auth', v: BRIDGE_PROTOCOL_VERSION, id: this.newId('auth'), signature })) h.reject(unavailable('the connection to the Countersign bridge closed'));
      return;
    }
    if (h.stage === 'welcome' && m.type === 'welcome') {
      const thumbprint = await jwkThumbprint(m.extension_key);
      // The extension accepted a proof made for the bridge's thumbprint, so its key is that one;
      // a welcome naming another key is not from the extension that checked the proof.
      if (thumbprint !== this.extensionKeyThumbprintValue) {
        return h.reject(new CountersignError('ERR_KEY_INVALID', 'welcome.extension_key: not the key the bridge named'));
      }
      if (this.pin !== undefined && this.pin.thumbprint !== thumbprint) {
        return h.reject(new CountersignError('ERR_KEY_INVALID', 'the Countersign extension\'s key differs from the key pinned at pairing; refusing to continue (if you reinstalled Countersign, remove extension-key.json from the config folder and pair again)'));
      }
      this.extensionKey = m.extension_key;
      this.welcomePaired = m.paired;
      h.resolve();
      return;
    }
    this.emit('protocolError', new CountersignError('ERR_BRIDGE_MESSAGE_INVALID', `unexpected ${m.type} message during the handshake (waiting for ${h.stage === 'info' ? 'bridge_info' : h.stage}); ignored`));
  }

  private async goneAway(reason: CountersignError): Promise<void> {
    if (this.gone) return;
    this.gone = true;
    this.handshake?.reject(reason);
    for (const [id, waiter] of this.waiters) {
      this.waiters.delete(id);
      if (waiter.kind === 'approval') waiter.flight.finish({ status: 'unavailable' });
      else if (waiter.kind === 'ack') waiter.done({ kind: 'unavailable' });
      else waiter.reject(reason);
    }
    this.link?.close();
    if (!this.closing) this.emit('unavailable', reason);
  }

  /** Close the connection and release the config folder. Pending requests resolve `unavailable`. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    await this.goneAway(unavailable('the Companion was closed'));
    await this.inbound;
    await this.journal.flush();
    await this.lock.release();
  }

  private newId(prefix: string): string {
    this.idCounter += 1;
    return `${prefix}_${this.idCounter.toString(36)}_${randomNonce().slice(0, 8)}`;
  }

  // -------------------------------------------------------------------------------------------
  // Pairing (docs/bridge-protocol.md "Pairing")

  /**
   * Pair with the extension: commit to a nonce, receive the extension's key and nonce, reveal ours,
   * and return the 6-digit code both sides show. The person compares the codes and confirms in
   * the extension; `confirmed` then resolves, once the extension's key is pinned (written
   * atomically to the config folder). A man in the middle would have to substitute a key, which
   * changes the code; the commitment stops it from choosing a nonce that makes the codes agree.
   */
  async pair(options: { agentName?: string; signal?: AbortSignal } = {}): Promise<Pairing> {
    const { signal } = options;
    signal?.throwIfAborted();
    if (!this.connected || this.extensionKeyThumbprintValue === undefined) throw unavailable('not connected to the Countersign extension');
    const id = this.newId('p');
    const agentNonce = randomNonce();
    const request = parseBridgeMessage(
      pairRequestMessage,
      {
        type: 'pair_request',
        v: BRIDGE_PROTOCOL_VERSION,
        id,
        agent_name: options.agentName ?? this.options.agentName,
        agent_key: this.key.publicJwk,
        agent_nonce_sha256: await pairingCommitment(agentNonce),
      },
      'pair',
    );
    if (!request.ok) throw inputError(request.error);

    const offer = await this.waitFor<PairOffer>(id, 'pair_offer', request.message, signal);
    const offeredThumbprint = await jwkThumbprint(offer.extension_key);
    if (offeredThumbprint !== this.extensionKeyThumbprintValue) {
      // Not revealed: the nonce stays secret and this pairing attempt is dead.
      throw new CountersignError('ERR_KEY_INVALID', 'pair_offer.extension_key: not the key this connection was welcomed with');
    }

    signal?.throwIfAborted();
    // The reveal has its own id; `pair_result`, once the person has answered, answers it.
    const revealId = this.newId('r');
    const confirmed = new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        this.waiters.delete(revealId);
        reject(abortReason(signal as AbortSignal));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.set(revealId, {
        kind: 'pair_result',
        reject: (error) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
        resolve: (status) => {
          signal?.removeEventListener('abort', onAbort);
          if (status === 'rejected') {
            reject(new CountersignError('ERR_PAIRING_FAILED', 'the person did not confirm the pairing in Countersign'));
            return;
          }
          // Pinned only now: a key the person did not confirm is never trusted.
          savePinnedKey(this.configDir, offer.extension_key, this.ctx).then((pin) => {
            this.pin = pin;
            this.welcomePaired = true;
            resolve();
          }, reject);
        },
      });
    });
    // The caller may never await `confirmed` (it showed the code and moved on): no unhandled rejection.
    confirmed.catch(() => undefined);
    if (!this.send({ type: 'pair_reveal', v: BRIDGE_PROTOCOL_VERSION, id: revealId, pairing_id: id, agent_nonce: agentNonce })) throw unavailable('the connection to the Countersign bridge closed');
    const code = await pairingCode({
      extensionKeyThumbprint: offeredThumbprint,
      agentKeyThumbprint: this.key.thumbprint,
      extensionNonce: offer.extension_nonce,
      agentNonce,
    });
    return { code, fingerprint: this.fingerprint, confirmed };
  }

  /** Send `message` and wait (timeoutMs) for the machine answer of type `kind` with the same id. */
  private waitFor<T>(id: string, kind: 'pair_offer', message: AgentToExtensionMessage, signal: AbortSignal | undefined): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      // Aborted during an await before we got here: the 'abort' event has already fired.
      if (signal?.aborted) return reject(abortReason(signal));
      const cleanup = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.waiters.delete(id);
      };
      const onAbort = () => {
        cleanup();
        reject(abortReason(signal as AbortSignal));
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(unavailable(`no ${kind} from the Countersign extension within ${this.options.timeoutMs} ms`));
      }, this.options.timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.set(id, {
        kind,
        resolve: (value) => {
          cleanup();
          resolve(value as T);
        },
        reject: (error) => {
          cleanup();
          reject(error);
        },
      });
      if (!this.send(message)) {
        cleanup();
        reject(unavailable('not connected to the Countersign extension'));
      }
    });
  }

  // -------------------------------------------------------------------------------------------
  // Approvals (spec sections 5 and 7)

  /**
   * Ask the User, through the extension's window, to approve one revision of an operation.
   *
   * Resolves `approved` only with a decision verified against the pinned key (see the class
   * comment); `declined` also carries its verified, signed decision. `expired`, `superseded`,
   * `withdrawn` come from the extension; `unavailable` when it or the bridge went away.
   * Throws CountersignError: ERR_AGENT_NOT_PAIRED (pair first), ERR_AGENT_REVOKED,
   * ERR_OUTCOME_PENDING (section 7), ERR_DECISION_* (a decision that does not verify: never an
   * approval), ERR_INPUT_INVALID / ERR_OPERATION_INVALID (bad input). Aborting `signal` cancels
   * the prompt and rejects with the signal's reason.
   */
  async requestApproval(input: RequestApprovalInput): Promise<ApprovalResult> {
    const signal = input.signal;
    signal?.throwIfAborted();
    const id = this.newId('a');
    // A fresh nonce per request: the decision must name it, so no earlier decision answers this request.
    const nonce = randomNonce();
    const parsed = parseBridgeMessage(
      approvalRequestMessage,
      { type: 'approval_request', v: BRIDGE_PROTOCOL_VERSION, id, nonce, company: input.company, operation: input.operation, request: input.request, session: input.session },
      'requestApproval',
    );
    if (!parsed.ok) throw inputError(parsed.error);
    const message = parsed.message;
    // The parsed operation (unknown members dropped, terms copied) is both what is sent and what the
    // decision is checked against: the hashes cover exactly what the extension showed.
    const operation = message.operation;
    const company = message.company;

    // Section 5: a withdrawn approval is never sent, and asking again does not undo the withdrawal.
    if (this.journal.isWithdrawn(operation.operation_id, operation.revision)) return { status: 'withdrawn' };
    if (this.pin === undefined) {
      throw new CountersignError('ERR_AGENT_NOT_PAIRED', 'this agent has not paired with Countersign: call pair() and have the person confirm the code');
    }
    const stored = this.journal.get(operation.operation_id, operation.revision);
    if (stored !== undefined) return this.fromJournal(stored, operation, company);

    // Section 3 "Expiry": nothing to ask about.
    if (!(epochMs(operation.expires_at) > Date.now())) return { status: 'expired' };
    // Section 7: no new approval for the same action until the first one's outcome is known.
    const open = this.journal.openSibling(operation.operation_id, operation.revision);
    if (open !== undefined) {
      throw new CountersignError(
        'ERR_OUTCOME_PENDING',
        `operation ${operation.operation_id}: revision ${open.revision} was approved and its outcome is not known; retry that approval or reportOutcome() before asking about a new revision (spec section 7)`,
      );
    }
    if (!this.connected) return { status: 'unavailable' };

    return new Promise<ApprovalResult>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const flight: ApprovalFlight = {
        id,
        nonce,
        operation,
        company,
        settled: false,
        finish: (result) => {
          if (flight.settled) return;
          flight.settled = true;
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          if (this.waiters.get(id)?.kind === 'approval') this.waiters.delete(id);
          if (result instanceof Error) reject(result);
          else resolve(result);
        },
      };
      const cancel = () => {
        // Its answers (the request's `cancelled` decision, the cancel's ack) are expected, not strays.
        const cancelId = this.newId('c');
        this.cancelledIds.add(id).add(cancelId);
        this.send({ type: 'approval_cancel', v: BRIDGE_PROTOCOL_VERSION, id: cancelId, request_id: id });
      };
      const onAbort = () => {
        if (flight.settled) return;
        cancel();
        flight.settled = true;
        clearTimeout(timer);
        this.waiters.delete(id);
        reject(abortReason(signal as AbortSignal));
      };
      const deadline = epochMs(operation.expires_at) + EXPIRY_GRACE_MS;
      const arm = () => {
        timer = setTimeout(() => {
          if (Date.now() < deadline) return arm();
          cancel();
          flight.finish({ status: 'expired' });
        }, Math.min(Math.max(deadline - Date.now(), 0), MAX_TIMER_MS));
        timer.unref();
      };
      arm();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.set(id, { kind: 'approval', flight });
      if (!this.send(message)) flight.finish({ status: 'unavailable' });
    });
  }

  /** A revision decided before: the stored decision, re-verified against what is asked now. */
  private async fromJournal(entry: JournalEntry, operation: InFlightOperation, company: Company): Promise<ApprovalResult> {
    let claims: DecisionClaims;
    try {
      // The same checks as a fresh decision (without the seen-nonce set: this nonce was accepted
      // once, by us). A Company that reuses a revision for other terms (section 3 forbids it) or
      // another Company's name gets an error here, never the old approval.
      claims = await verifyDecision(entry.jws, {
        pinnedKey: (this.pin as PinnedKey).key,
        expected: { operation, company, audience: this.key.thumbprint, nonce: entry.nonce },
      });
    } catch (error) {
      if (isCountersignError(error, 'ERR_DECISION_EXPIRED')) return { status: 'expired' };
      throw error;
    }
    if (claims.status !== entry.status) throw new CountersignError('ERR_DECISION_MISMATCH', 'journal: the stored status does not match the signed decision');
    if (claims.status === 'declined') return { status: 'declined', decision: claims, jws: entry.jws, stored: true };
    return { status: 'approved', approval: { operation_id: claims.operation_id, revision: claims.revision }, decision: claims, jws: entry.jws, stored: true };
  }

  private async onDecision(m: Decision): Promise<void> {
    const waiter = this.waiters.get(m.id);
    if (waiter?.kind !== 'approval') {
      if (this.cancelledIds.delete(m.id)) return; // the answer to a request this agent cancelled
      return this.unexpected('decision');
    }
    const flight = waiter.flight;
    const { operation_id, revision } = flight.operation;
    if (m.status === 'cancelled') return flight.finish({ status: 'unavailable' });
    if (m.status === 'expired' || m.status === 'superseded') return flight.finish({ status: m.status });
    if (m.status === 'withdrawn') {
      await this.journal.markWithdrawn(operation_id, revision);
      return flight.finish({ status: 'withdrawn' });
    }

    let claims: DecisionClaims;
    try {
      claims = await verifyDecision(m.jws as string, {
        pinnedKey: (this.pin as PinnedKey).key,
        expected: { operation: flight.operation, company: flight.company, audience: this.key.thumbprint, nonce: flight.nonce },
        seenNonces: this.journal.nonces,
      });
      if (claims.status !== m.status) throw new CountersignError('ERR_DECISION_MISMATCH', 'decision.status: the message and the signed decision disagree');
    } catch (error) {
      // A signed decision that arrived after the revision expired: the Company would refuse it (section 3).
      if (isCountersignError(error, 'ERR_DECISION_EXPIRED')) return flight.finish({ status: 'expired' });
      const e = isCountersignError(error) ? error : new CountersignError('ERR_DECISION_INVALID', 'decision: could not be verified', { cause: error });
      // Tell the extension (it records agent errors); the caller gets the error, never an approval.
      this.send({ type: 'error', v: BRIDGE_PROTOCOL_VERSION, id: m.id, code: e.code, message: e.message.slice(0, 1000), source: 'agent' });
      return flight.finish(e);
    }

    try {
      // Journaled even if the caller aborted while it was being verified: the User did decide, and
      // asking again must return this decision rather than prompt again.
      await this.journal.record({
        operation_id,
        revision,
        status: claims.status,
        jws: m.jws as string,
        nonce: flight.nonce,
        company: flight.company,
        expires_at: flight.operation.expires_at,
        recorded_at: new Date().toISOString(),
      });
    } catch (error) {
      // Unrecorded, the approval could be asked for again or a withdrawal lost: fail closed.
      return flight.finish(isCountersignError(error) ? error : new CountersignError('ERR_INPUT_INVALID', 'journal: could not record the decision', { cause: error }));
    }
    if (this.journal.isWithdrawn(operation_id, revision)) return flight.finish({ status: 'withdrawn' });
    if (claims.status === 'declined') return flight.finish({ status: 'declined', decision: claims, jws: m.jws as string, stored: false });
    flight.finish({ status: 'approved', approval: { operation_id, revision }, decision: claims, jws: m.jws as string, stored: false });
  }

  private async onWithdrawn(operationId: string, revision: string): Promise<void> {
    // Section 5. Unsigned, so anything on the socket could send it: it only ever takes permission
    // away, which is the safe direction.
    const already = this.journal.isWithdrawn(operationId, revision);
    if (!(await this.journal.markWithdrawn(operationId, revision))) return;
    for (const waiter of this.waiters.values()) {
      if (waiter.kind === 'approval' && waiter.flight.operation.operation_id === operationId && waiter.flight.operation.revision === revision) {
        waiter.flight.finish({ status: 'withdrawn' });
      }
    }
    for (const waiter of this.waiters.values()) {
      if (waiter.kind === 'ack' && waiter.sent?.operationId === operationId && waiter.sent.revision === revision) waiter.done({ kind: 'withdrawn' });
    }
    if (!already) this.emit('withdrawn', { operation_id: operationId, revision });
  }

  private onError(m: ErrorMessage): void {
    const error = new CompanionError(m);
    if (m.id !== undefined) {
      const waiter = this.waiters.get(m.id);
      if (waiter === undefined) return void this.emit('protocolError', error);
      this.waiters.delete(m.id);
      if (waiter.kind === 'approval') waiter.flight.finish(error);
      else if (waiter.kind === 'ack') waiter.done({ kind: 'refused', error });
      else waiter.reject(error);
      return;
    }
    this.emit('protocolError', error);
  }

  /**
   * Send an `approval_sent` or `outcome` and wait for its one answer (protocol v2): an `ack`, an
   * `error` with its id, or nothing within `timeoutMs` / the link closing (unavailable).
   */
  private sendAcked(message: AgentToExtensionMessage & { id: string }, sent?: { operationId: string; revision: string }): Promise<AckResult> {
    return new Promise<AckResult>((resolve) => {
      const id = message.id;
      const timer = setTimeout(() => done({ kind: 'unavailable' }), this.options.timeoutMs);
      const done = (result: AckResult) => {
        clearTimeout(timer);
        if (this.waiters.get(id)?.kind === 'ack') this.waiters.delete(id);
        resolve(result);
      };
      if (!this.connected) return done({ kind: 'unavailable' });
      this.waiters.set(id, { kind: 'ack', ...(sent === undefined ? {} : { sent }), done });
      if (!this.send(message)) done({ kind: 'unavailable' });
    });
  }

  /**
   * Tell the extension the approval is being sent to the Company (spec section 5: from now on it
   * cannot be withdrawn). Call it right before sending, and send only when it resolves true.
   *
   * False when the User withdrew it (learned earlier, or the extension refuses now): do not send.
   * True when the extension accepted (or it was marked before: section 7 retries send the same
   * approval again). ERR_INPUT_INVALID for an approval this SDK did not verify;
   * ERR_COMPANION_UNAVAILABLE when the extension cannot be told (do not send yet).
   */
  async markSent(approval: Approval): Promise<boolean> {
    const parsed = parseBridgeMessage(
      approvalSentMessage,
      { type: 'approval_sent', v: BRIDGE_PROTOCOL_VERSION, id: this.newId('s'), operation_id: approval?.operation_id, revision: approval?.revision },
      'approval',
    );
    if (!parsed.ok) throw inputError(parsed.error);
    const { operation_id, revision } = parsed.message;
    const entry = this.journal.get(operation_id, revision);
    if (entry === undefined || entry.status !== 'approved') {
      throw new CountersignError('ERR_INPUT_INVALID', `approval: no verified approval of ${operation_id} revision ${revision} in this agent's journal`);
    }
    if (this.journal.isWithdrawn(operation_id, revision)) return false;
    if (entry.sent) return true;
    if (!this.connected) throw unavailable('not connected to the Countersign extension: it cannot be told, so the approval must not be sent yet');
    // The Company's origin makes the extension's match exact (operation IDs are per Company).
    const result = await this.sendAcked({ ...parsed.message, company_origin: entry.company.origin }, { operationId: operation_id, revision });
    switch (result.kind) {
      case 'ok':
        if (this.journal.isWithdrawn(operation_id, revision)) return false;
        await this.journal.markSent(operation_id, revision);
        return true;
      case 'withdrawn':
        return false;
      case 'refused':
        // ERR_TOO_LATE: the User withdrew first (arrival order at the extension decides); remember it.
        if ((result.error.code === 'ERR_TOO_LATE' || result.error.code === 'ERR_NOT_ALLOWED') && !this.journal.isWithdrawn(operation_id, revision) && (await this.journal.markWithdrawn(operation_id, revision))) {
          this.emit('withdrawn', { operation_id, revision });
        }
        return false;
      case 'unavailable':
        throw unavailable('the Countersign extension went away before it accepted approval_sent: do not send yet');
    }
  }

  /**
   * Report what the Company did with a sent approval (spec section 7), for the extension's history.
   * The outcome is journaled first; `performed`, `failed` and `new_revision` settle the operation
   * so a new revision of it can be asked about, `unknown` keeps it open.
   *
   * Resolves true when delivered, false when the extension could not be told now (it is re-sent
   * on the next connection). Throws the extension's refusal (CompanionError).
   */
  async reportOutcome(report: OutcomeReport): Promise<boolean> {
    const parsed = parseBridgeMessage(
      outcomeMessage,
      {
        type: 'outcome',
        v: BRIDGE_PROTOCOL_VERSION,
        id: this.newId('o'),
        operation_id: report?.operation_id,
        revision: report?.revision,
        outcome: report?.outcome,
        ...(report?.detail === undefined ? {} : { detail: report.detail }),
      },
      'outcome',
    );
    if (!parsed.ok) throw inputError(parsed.error);
    const origin = this.journal.get(parsed.message.operation_id, parsed.message.revision)?.company.origin;
    const m = origin === undefined ? parsed.message : { ...parsed.message, company_origin: origin };
    // Sent at once, in call order: the extension handles this connection's messages in the order
    // they arrive, so an outcome reported before the next requestApproval() must reach it first
    // (spec section 7: the next revision may be asked once the outcome is known). The journal
    // write runs alongside; were the process to die before it lands, the outcome would count as
    // unknown after a restart, the safe side.
    const written = this.journal.setOutcome(m.operation_id, m.revision, m.outcome, m.detail, false);
    const delivered = this.deliverOutcome(m);
    await written;
    return delivered;
  }

  private async deliverOutcome(m: z.output<typeof outcomeMessage>): Promise<boolean> {
    // A fresh id per delivery: a redelivery on a new connection is a new message.
    const result = await this.sendAcked({ ...m, id: this.newId('o') });
    if (result.kind === 'unavailable') return false;
    await this.journal.setOutcome(m.operation_id, m.revision, m.outcome, m.detail, true);
    if (result.kind === 'refused') throw result.error;
    return true;
  }

  private async deliverOutcomes(): Promise<void> {
    for (const entry of this.journal.undelivered()) {
      if (!this.connected || entry.outcome === undefined) return;
      const m = {
        type: 'outcome' as const,
        v: BRIDGE_PROTOCOL_VERSION as typeof BRIDGE_PROTOCOL_VERSION,
        id: this.newId('o'),
        operation_id: entry.operation_id,
        revision: entry.revision,
        company_origin: entry.company.origin,
        outcome: entry.outcome,
        ...(entry.outcome_detail === undefined ? {} : { detail: entry.outcome_detail }),
      };
      try {
        await this.deliverOutcome(m);
      } catch (error) {
        this.emit('protocolError', isCountersignError(error) ? error : new CountersignError('ERR_INPUT_INVALID', 'outcome could not be delivered', { cause: error }));
      }
    }
  }

  /** The extension's public key as this connection's welcome carried it. */
  get extensionPublicKey(): BridgePublicJwk | undefined {
    return this.extensionKey;
  }
}
