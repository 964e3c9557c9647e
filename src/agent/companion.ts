import { EventEmitter } from 'node:events';
import os from 'node:os';
import { BRIDGE_PROTOCOL_VERSION, approvalRequestMessage, parseBridgeMessage, randomNonce, type AgentToExtensionMessage, type BridgePublicJwk } from '../protocol/bridge';
import type { Approval } from '../protocol/approval';
import { CountersignError } from '../protocol/errors';
import { keyFingerprint } from '../protocol/fingerprint';
import { summaryTooLong } from '../protocol/operation';
import { deliverOutcomes, markSent as markApprovalSent, reportOutcome as deliverReport } from './acknowledgements';
import { epochMs, fly, fromJournal } from './approval-flight';
import { markToolCallSent, reportToolCallOutcome, requestToolCallApproval } from './tool-call-flight';
import { CompanionState, inputError, unavailable } from './companion-state';
import type { ApprovalResult, CompanionEvents, CompanionOptions, OutcomeReport, Pairing, RequestApprovalInput, RequestToolCallApprovalInput, ToolCallApprovalResult } from './companion-types';
import { defaultConfigDir, lockConfigDir, preparePrivateDir, type ConfigLock, type PrivacyContext } from './files';
import { greet, helloFor, socketsFor } from './handshake';
import { linkHandlers } from './inbound';
import { Journal } from './journal';
import { PasskeyPin } from './passkey-pin';
import type { PasskeyCredential } from '../protocol/passkey';
import { loadOrCreateAgentKey, loadPinnedKey, type AgentKey, type PinnedKey } from './keys';
import { pair as pairWithExtension } from './pairing';

export {
  CompanionError,
  type ApprovalResult,
  type CompanionEvents,
  type CompanionOptions,
  type OperationInput,
  type OutcomeReport,
  type Pairing,
  type RequestApprovalInput,
  type RequestContext,
  type SessionContext,
} from './companion-types';

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
 *
 * This file is the public class; the work is done by modules that share one CompanionState
 * (companion-state.ts): handshake.ts (connecting), pairing.ts, approval-flight.ts (a request in
 * flight, its decision, the journal's answers), acknowledgements.ts (approval_sent and outcome),
 * and inbound.ts, which routes every inbound message to what it answers.
 */

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_ACK_WINDOW_MS = 250;

/**
 * A connection to the Countersign extension through its bridge. Create with `Companion.connect`;
 * one per config folder at a time; `close()` when done. After the `unavailable` event, close it
 * and connect again.
 */
export class Companion extends EventEmitter<CompanionEvents> {
  private readonly state: CompanionState;

  private constructor(
    private readonly options: Required<Pick<CompanionOptions, 'agentName' | 'timeoutMs' | 'ackWindowMs'>> & Pick<CompanionOptions, 'agentVersion'>,
    readonly configDir: string,
    private readonly ctx: PrivacyContext,
    private readonly lock: ConfigLock,
    key: AgentKey,
    pin: PinnedKey | undefined,
    journal: Journal,
    passkey: PasskeyPin,
  ) {
    super();
    this.state = new CompanionState(this, options.timeoutMs, key, pin, journal, passkey);
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
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new CountersignError('ERR_ARGUMENT_INVALID', `timeoutMs: expected a positive number, got ${String(timeoutMs)}`);
    if (!Number.isFinite(ackWindowMs) || ackWindowMs < 0) throw new CountersignError('ERR_ARGUMENT_INVALID', `ackWindowMs: expected a number ≥ 0, got ${String(ackWindowMs)}`);
    const ctx: PrivacyContext = { platform, uid };

    await preparePrivateDir(configDir, ctx);
    const lock = await lockConfigDir(configDir);
    let companion: Companion | undefined;
    try {
      const key = await loadOrCreateAgentKey(configDir, ctx);
      const pin = await loadPinnedKey(configDir, ctx);
      const journal = await Journal.open(configDir, ctx);
      const passkey = await PasskeyPin.load(configDir, ctx);
      const hello = helloFor(options, key);
      const { paths, expected } = await socketsFor({ socketPath: options.socketPath, platform, env, uid, pin });
      companion = new Companion(
        { agentName: options.agentName, timeoutMs, ackWindowMs, ...(options.agentVersion === undefined ? {} : { agentVersion: options.agentVersion }) },
        configDir,
        ctx,
        lock,
        key,
        pin,
        journal,
        passkey,
      );
      await companion.open(paths, hello, expected);
      return companion;
    } catch (error) {
      if (companion !== undefined) await companion.close();
      else await lock.release();
      throw error;
    }
  }

  private async open(paths: string[], hello: AgentToExtensionMessage, expected: string | undefined): Promise<void> {
    await greet(this.state, paths, hello, expected, linkHandlers(this.state));
    // Outcomes recorded while the extension could not be told (section 7 history), delivered now.
    if (this.state.paired) void deliverOutcomes(this.state);
  }

  // -------------------------------------------------------------------------------------------
  // State

  /** RFC 7638 thumbprint of this agent's key: its identity in the extension, the `aud` of its decisions. */
  get agentKeyThumbprint(): string {
    return this.state.key.thumbprint;
  }

  /**
   * This agent's short key fingerprint ("7Q2M-X9KD"): Countersign shows it beside the agent's name
   * on every prompt and in its list of agents. Print it when pairing, so the person can match it.
   */
  get fingerprint(): string {
    return keyFingerprint(this.state.key.thumbprint);
  }

  /** The agent's public key (what the extension pins). */
  get agentPublicKey(): BridgePublicJwk {
    return this.state.key.publicJwk;
  }

  /**
   * The person's passkey as the extension last announced it and this agent pinned it: null when
   * they removed it, undefined when none was ever announced (docs/agent-sdk.md, "Passkey-verified approvals").
   */
  get passkey(): PasskeyCredential | null | undefined {
    return this.state.passkey.current?.passkey;
  }

  /**
   * Whether the person requires their passkey for every approval of this agent, as the extension
   * last announced it: then an approval without a verified assertion is refused (ERR_PASSKEY_INVALID)
   * even for a request that did not ask for one.
   */
  get passkeyRequired(): boolean {
    return this.state.passkey.current?.required === true;
  }

  /** Thumbprint of the extension's key, as this connection's welcome carried it. */
  get extensionKeyThumbprint(): string | undefined {
    return this.state.extensionKeyThumbprint;
  }

  /** The extension's public key as this connection's welcome carried it. */
  get extensionPublicKey(): BridgePublicJwk | undefined {
    return this.state.extensionKey;
  }

  /** True when the extension knows this agent and this agent has pinned that extension's key: approvals can be asked for and verified. */
  get paired(): boolean {
    return this.state.paired;
  }

  /** False once the bridge or the extension went away, or after close(). */
  get connected(): boolean {
    return this.state.connected;
  }

  /** The bridge this connection goes through (bridge_info). */
  get bridgeInfo(): { conn: string; version: string; browser: 'chromium' | 'firefox' } | undefined {
    const { bridge, conn } = this.state;
    return bridge === undefined || conn === undefined ? undefined : { conn, ...bridge };
  }

  /** Spec section 5: true when the User withdrew this approval; the caller must not send it. */
  isWithdrawn(operationId: string, revision: string): boolean {
    return this.state.journal.isWithdrawn(operationId, revision);
  }

  /** Close the connection and release the config folder. Pending requests resolve `unavailable`. */
  async close(): Promise<void> {
    const state = this.state;
    if (state.closing) return;
    state.closing = true;
    await state.goneAway(unavailable('the Companion was closed'));
    await state.inbound;
    await state.journal.flush();
    await this.lock.release();
  }

  // -------------------------------------------------------------------------------------------
  // Pairing (docs/bridge-protocol.md section 8)

  /**
   * Pair with the extension: commit to a nonce, receive the extension's key and nonce, reveal ours,
   * and return the 6-digit code both sides show. The person compares the codes and confirms in
   * the extension; `confirmed` then resolves, once the extension's key is pinned (written
   * atomically to the config folder). A man in the middle would have to substitute a key, which
   * changes the code; the commitment stops it from choosing a nonce that makes the codes agree.
   */
  pair(options: { agentName?: string; signal?: AbortSignal } = {}): Promise<Pairing> {
    return pairWithExtension(this.state, { agentName: this.options.agentName, configDir: this.configDir, ctx: this.ctx }, options);
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
   * approval), ERR_SUMMARY_TOO_LONG (a summary over MAX_SUMMARY_LENGTH, refused before anything
   * is sent), ERR_ARGUMENT_INVALID / ERR_OPERATION_INVALID (bad input). Aborting `signal` cancels
   * the prompt and rejects with the signal's reason.
   */
  async requestApproval(input: RequestApprovalInput): Promise<ApprovalResult> {
    const signal = input.signal;
    signal?.throwIfAborted();
    // First, whatever else is wrong: the extension could never show this summary, so the caller
    // learns exactly that (with the length) and the request never leaves this process.
    const tooLong = summaryTooLong(input.operation, 'requestApproval.operation');
    if (tooLong) throw tooLong;
    const state = this.state;
    const journal = state.journal;
    const id = state.newId('a');
    // A fresh nonce per request: the decision must name it, so no earlier decision answers this request.
    const nonce = randomNonce();
    const parsed = parseBridgeMessage(
      approvalRequestMessage,
      {
        type: 'approval_request',
        v: BRIDGE_PROTOCOL_VERSION,
        id,
        nonce,
        company: input.company,
        operation: input.operation,
        request: input.request,
        session: input.session,
        ...(input.userVerification === undefined ? {} : { user_verification: input.userVerification }),
      },
      'requestApproval',
    );
    if (!parsed.ok) throw inputError(parsed.error);
    const message = parsed.message;
    // The parsed operation (unknown members dropped, terms copied) is both what is sent and what the
    // decision is checked against: the hashes cover exactly what the extension showed.
    const operation = message.operation;
    const company = message.company;

    // Section 5: a withdrawn approval is never sent, and asking again does not undo the withdrawal.
    if (journal.isWithdrawn(operation.operation_id, operation.revision)) return { status: 'withdrawn' };
    if (state.pin === undefined) {
      throw new CountersignError('ERR_AGENT_NOT_PAIRED', 'this agent has not paired with Countersign: call pair() and have the person confirm the code');
    }
    const stored = journal.get(operation.operation_id, operation.revision);
    if (stored !== undefined) return fromJournal(state, stored, operation, company, input.userVerification === 'required');

    // Section 3 "Expiry": nothing to ask about.
    if (!(epochMs(operation.expires_at) > Date.now())) return { status: 'expired' };
    // Section 7: no new approval for the same action until the first one's outcome is known.
    const open = journal.openSibling(operation.operation_id, operation.revision);
    if (open !== undefined) {
      throw new CountersignError(
        'ERR_OUTCOME_PENDING',
        `operation ${operation.operation_id}: revision ${open.revision} was approved and its outcome is not known; retry that approval or reportOutcome() before asking about a new revision (spec section 7)`,
      );
    }
    if (!state.connected) return { status: 'unavailable' };
    return fly(state, id, nonce, message, signal);
  }

  /**
   * Tell the extension the approval is being sent to the Company (spec section 5: from now on it
   * cannot be withdrawn). Call it right before sending, and send only when it resolves true.
   *
   * False when the User withdrew it (learned earlier, or the extension refuses now): do not send.
   * True when the extension accepted (or it was marked before: section 7 retries send the same
   * approval again). ERR_ARGUMENT_INVALID for an approval this SDK did not verify;
   * ERR_COMPANION_UNAVAILABLE when the extension cannot be told (do not send yet).
   */
  markSent(approval: Approval): Promise<boolean> {
    return markApprovalSent(this.state, approval);
  }

  /**
   * Report what the Company did with a sent approval (spec section 7), for the extension's history.
   * The outcome is journaled first; `performed`, `failed` and `new_revision` settle the operation
   * so a new revision of it can be asked about, `unknown` keeps it open.
   *
   * Resolves true when delivered, false when the extension could not be told now (it is re-sent
   * on the next connection). Throws the extension's refusal (CompanionError).
   */
  reportOutcome(report: OutcomeReport): Promise<boolean> {
    return deliverReport(this.state, report);
  }

  /**
   * Ask the person to approve one MCP tool call (docs/mcp-gateway.md): Countersign writes the
   * summary itself from the tool and its arguments, and signs a tool-call decision, which this
   * method verifies against exactly this call. Approved: call `markToolCallSent`, then run the
   * tool once, then `reportToolCallOutcome`. A tool-call approval is never a Company's approval.
   */
  requestToolCallApproval(input: RequestToolCallApprovalInput): Promise<ToolCallApprovalResult> {
    return requestToolCallApproval(this.state, input);
  }

  /** The approved tool call is about to run: true to run it now, false when the person withdrew it. */
  markToolCallSent(approved: { callId: string; revision: string }): Promise<boolean> {
    return markToolCallSent(this.state, approved);
  }

  /** What the approved tool call did, for the person's history in Countersign. */
  reportToolCallOutcome(report: { callId: string; revision: string; outcome: 'performed' | 'failed' | 'unknown'; detail?: string }): Promise<boolean> {
    return reportToolCallOutcome(this.state, report);
  }
}
