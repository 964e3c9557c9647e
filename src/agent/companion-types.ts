import type { PasskeyAssertion, PasskeyCredential } from '../protocol/passkey';
import type * as z from 'zod';
import type { Approval } from '../protocol/approval';
import type { requestContextSchema, sessionSchema } from '../protocol/bridge';
import type { DecisionClaims } from '../protocol/decision';
import { CountersignError, ERROR_CODES, type ErrorCode } from '../protocol/errors';
import type { ToolAnnotations, ToolCall, ToolServer } from '../protocol/tool-call';
import type { ToolCallClaims } from '../protocol/tool-call-decision';
import type { Outcome } from './journal';

/**
 * The public types and the error class of the agent SDK's Companion (docs/agent-sdk.md). They sit
 * below every module of the Companion so each can name them without importing the class;
 * companion.ts re-exports them, which is where callers import them from.
 */

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
  /**
   * "required": after Approve the person confirms with their passkey, and the result is
   * `approved` only with an assertion that verifies against the pinned passkey
   * (docs/agent-sdk.md, "Passkey-verified approvals").
   */
  userVerification?: 'required';
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
      /** True when the person confirmed with their passkey and its assertion over these claims verified. */
      userVerified?: boolean;
      /** That assertion, for a Company that checks it too (docs/agent-sdk.md). */
      passkeyAssertion?: PasskeyAssertion;
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
  /** The person registered, replaced or removed their passkey (null), as the extension announced it. */
  passkeyChanged: [passkey: PasskeyCredential | null];
  /**
   * The person started or stopped requiring their passkey for every approval of this agent, as
   * the extension announced it (signed): while `required`, no approval counts without a verified
   * assertion, whatever the request asked.
   */
  passkeyRequirementChanged: [required: boolean];
}

/**
 * An `error` message from the extension or the bridge, as a typed error. `code` is the remote code
 * when this version knows it (otherwise ERR_REMOTE, with the remote one in `remoteCode`:
 * codes are open-ended on the wire, docs/bridge-protocol.md "Errors").
 */
export class CompanionError extends CountersignError {
  readonly remoteCode: string;
  readonly source: 'bridge' | 'extension' | 'agent' | undefined;

  constructor(remote: { code: string; message: string; source?: 'bridge' | 'extension' | 'agent' | undefined }) {
    const known = (ERROR_CODES as readonly string[]).includes(remote.code);
    super(known ? (remote.code as ErrorCode) : 'ERR_REMOTE', `${remote.source ?? 'companion'}: ${known ? '' : `${remote.code}: `}${remote.message}`);
    this.remoteCode = remote.code;
    this.source = remote.source;
  }
}

export interface RequestToolCallApprovalInput {
  /** The MCP server as it introduces itself, and how it is reached (shown to the person). */
  server: ToolServer;
  tool: string;
  /** The tool's description and annotations from the server's tools/list, shown on the card and covered by the revision. */
  description?: string;
  annotations?: ToolAnnotations;
  arguments: Record<string, unknown>;
  /** When the prompt closes. */
  expiresAt: Date;
  /** Aborting withdraws the prompt (approval_cancel) and rejects with the signal's reason. */
  signal?: AbortSignal;
}

export type ToolCallApprovalResult =
  | { status: 'approved'; callId: string; revision: string; decision: ToolCallClaims; jws: string }
  | { status: 'declined'; callId: string; revision: string; decision: ToolCallClaims; jws: string }
  | { status: 'expired' | 'superseded' | 'withdrawn' | 'unavailable'; callId: string; revision: string };

export interface ToolCallFlight {
  id: string;
  nonce: string;
  call: ToolCall;
  revision: string;
  finish(result: ToolCallApprovalResult | Error): void;
}
