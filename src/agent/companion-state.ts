import type { PasskeyPin } from './passkey-pin';
import type { EventEmitter } from 'node:events';
import type * as z from 'zod';
import { randomNonce, type AgentInboundMessage, type AgentToExtensionMessage, type BridgePublicJwk, type approvalRequestMessage } from '../protocol/bridge';
import { CountersignError, isCountersignError } from '../protocol/errors';
import type { ApprovalResult, CompanionError, CompanionEvents, ToolCallFlight } from './companion-types';
import type { Journal } from './journal';
import type { AgentKey, PinnedKey } from './keys';
import type { Link } from './link';

/**
 * What the Companion's modules share: one connection to the extension through its bridge, the
 * questions waiting on it for their one answer (docs/bridge-protocol.md section 2.1, "Answers and
 * order"), what the handshake learned, and the pinned extension key. The handshake, pairing,
 * approval and acknowledgement modules each take this state and import none of each other;
 * inbound.ts routes what arrives to them, and companion.ts, the public class, sits on top.
 */

type ParsedApprovalRequest = z.output<typeof approvalRequestMessage>;
export type InFlightOperation = ParsedApprovalRequest['operation'];
export type Company = ParsedApprovalRequest['company'];
export type PairOffer = Extract<AgentInboundMessage, { type: 'pair_offer' }>;
export type Decision = Extract<AgentInboundMessage, { type: 'decision' }>;
export type ErrorMessage = Extract<AgentInboundMessage, { type: 'error' }>;

export interface ApprovalFlight {
  id: string;
  nonce: string;
  operation: InFlightOperation;
  company: Company;
  /** The request asked for the person's passkey: only a verified assertion makes it approved. */
  userVerification: boolean;
  /** Its one answer (approval-flight.ts `inFlight`): a later one is ignored. */
  finish(result: ApprovalResult | Error): void;
}

/** Tool calls approved on this connection (tool-call-flight.ts), until they ran or were withdrawn. */
export type ApprovedToolCalls = Map<string, { revision: string; state: 'approved' | 'sent' | 'withdrawn' }>;

/** A question sent with an id, waiting for its one answer with that id (section 2.1). */
export type Waiter =
  | { kind: 'approval'; flight: ApprovalFlight }
  | { kind: 'tool_call'; flight: ToolCallFlight }
  | { kind: 'pair_offer'; resolve(offer: PairOffer): void; reject(error: Error): void }
  | { kind: 'pair_result'; resolve(status: 'confirmed' | 'rejected'): void; reject(error: Error): void }
  | { kind: 'ack'; sent?: { operationId: string; revision: string }; done(result: AckResult): void };

/** What became of an `approval_sent` or `outcome`: its one answer (protocol v2), or none because the link went away. */
export type AckResult = { kind: 'ok' } | { kind: 'refused'; error: CompanionError } | { kind: 'withdrawn' } | { kind: 'unavailable' };

export interface Handshake {
  stage: 'info' | 'challenge' | 'welcome';
  hello: AgentToExtensionMessage;
  /** The extension key thumbprint the socket was chosen for, when known. */
  expected: string | undefined;
  resolve(): void;
  reject(error: Error): void;
}

export function unavailable(message: string): CountersignError {
  return new CountersignError('ERR_COMPANION_UNAVAILABLE', message);
}

/** Our own input that failed a bridge.ts schema: the caller's mistake, named as theirs. */
export function inputError(error: CountersignError): CountersignError {
  return error.code === 'ERR_BRIDGE_MESSAGE_INVALID' ? new CountersignError('ERR_ARGUMENT_INVALID', error.message, { cause: error }) : error;
}

export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

export class CompanionState {
  link: Link | undefined;
  /** Set while the handshake runs: every inbound message goes to it until then. */
  handshake: Handshake | undefined;
  readonly waiters = new Map<string, Waiter>();
  readonly toolCalls: ApprovedToolCalls = new Map();
  /** Ids of requests this agent cancelled: their `cancelled` decision and the cancel's ack are expected, not strays. */
  readonly cancelledIds = new Set<string>();
  /** Inbound messages are handled one at a time, in the order they arrived (inbound.ts). */
  inbound: Promise<void> = Promise.resolve();
  gone = false;
  closing = false;
  conn: string | undefined;
  extensionKey: BridgePublicJwk | undefined;
  extensionKeyThumbprint: string | undefined;
  welcomePaired = false;
  /** A passkey announcement that arrived before the extension key was pinned (pairing.ts accepts it then). */
  unpinnedPasskey: string | undefined;
  bridge: { version: string; browser: 'chromium' | 'firefox' } | undefined;
  private idCounter = 0;

  constructor(
    /** The Companion itself: its events are emitted from here. */
    readonly events: EventEmitter<CompanionEvents>,
    readonly timeoutMs: number,
    readonly key: AgentKey,
    public pin: PinnedKey | undefined,
    readonly journal: Journal,
    readonly passkey: PasskeyPin,
  ) {}

  /**
   * A passkey announcement (welcome.passkey, passkey_changed), accepted only under the pinned
   * extension key; one that does not verify changes nothing and is reported.
   */
  async acceptPasskey(jws: string): Promise<void> {
    // Right after pairing the announcement can arrive before the key is pinned: kept until it is.
    if (this.pin === undefined) {
      this.unpinnedPasskey = jws;
      return;
    }
    this.unpinnedPasskey = undefined;
    try {
      const changed = await this.passkey.accept(jws, this.pin.key, this.key.thumbprint);
      if (changed.passkey) this.events.emit('passkeyChanged', this.passkey.current?.passkey ?? null);
      if (changed.required) this.events.emit('passkeyRequirementChanged', this.passkey.current?.required === true);
    } catch (error) {
      this.events.emit('protocolError', isCountersignError(error) ? error : new CountersignError('ERR_DECISION_INVALID', 'passkey announcement: could not be verified', { cause: error }));
    }
  }

  /** False once the bridge or the extension went away, or after close(). */
  get connected(): boolean {
    return !this.gone && this.link?.isOpen === true;
  }

  /** True when the extension knows this agent and this agent has pinned that extension's key. */
  get paired(): boolean {
    return this.welcomePaired && this.pin !== undefined && this.pin.thumbprint === this.extensionKeyThumbprint;
  }

  send(message: AgentToExtensionMessage): boolean {
    return this.link !== undefined && !this.gone && this.link.send(message);
  }

  newId(prefix: string): string {
    this.idCounter += 1;
    return `${prefix}_${this.idCounter.toString(36)}_${randomNonce().slice(0, 8)}`;
  }

  unexpected(type: string): void {
    this.events.emit('protocolError', new CountersignError('ERR_BRIDGE_MESSAGE_INVALID', `unexpected ${type} message: it answers nothing this agent asked; ignored`));
  }

  /**
   * The link is gone (the extension went away, the bridge closed it, or close()): every question
   * still waiting ends without its answer (section 2.1), approvals as `unavailable`.
   */
  async goneAway(reason: CountersignError): Promise<void> {
    if (this.gone) return;
    this.gone = true;
    this.handshake?.reject(reason);
    for (const [id, waiter] of this.waiters) {
      this.waiters.delete(id);
      if (waiter.kind === 'approval') waiter.flight.finish({ status: 'unavailable' });
      else if (waiter.kind === 'tool_call') waiter.flight.finish({ status: 'unavailable', callId: waiter.flight.call.call_id, revision: waiter.flight.revision });
      else if (waiter.kind === 'ack') waiter.done({ kind: 'unavailable' });
      else waiter.reject(reason);
    }
    this.link?.close();
    if (!this.closing) this.events.emit('unavailable', reason);
  }
}
