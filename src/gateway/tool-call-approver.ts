import type { SessionContext } from '../agent/index';
import type { ToolAnnotations, ToolServer } from '../protocol/tool-call';

/**
 * What the gateway asks Countersign, and what it hears back. The real one is
 * countersign-link.ts (the agent SDK over the bridge); unit tests pass their own.
 */

export interface ToolCallQuestion {
  server: ToolServer;
  tool: string;
  /** The tool's own words from the upstream's tools/list, checked (tool-words.ts): on the card, under the signature. */
  description?: string;
  annotations?: ToolAnnotations;
  arguments: Record<string, unknown>;
  /** The prompt closes itself at this time (the person sees a countdown). */
  expiresAt: Date;
  /** Aborted: every caller went away; the prompt is withdrawn. */
  signal: AbortSignal;
}

export type ToolCallAnswer =
  /** A signed decision that covers exactly this call (verified by the SDK): run it once. */
  | { status: 'approved'; callId: string; revision: string; jws: string }
  | { status: 'declined' | 'expired' | 'withdrawn' | 'cancelled'; callId?: string }
  /** Countersign could not be asked (not paired, bridge not installed, browser closed). */
  | { status: 'unavailable'; reason: string };

export interface ApprovedCall {
  callId: string;
  revision: string;
}

export interface ToolCallApprover {
  ask(question: ToolCallQuestion): Promise<ToolCallAnswer>;
  /**
   * Tell Countersign the approved call is about to run; from then on the person cannot withdraw
   * it. False: they withdrew it first, so it must not run. Throws when Countersign cannot be told.
   */
  markRunning(approved: ApprovedCall): Promise<boolean>;
  /**
   * Tell Countersign what the approved call did, for its history. `unknown` (the client left
   * while it ran) is followed by the real outcome once the server answers.
   */
  reportRan(approved: ApprovedCall, outcome: ToolCallOutcome, detail?: string): Promise<void>;
}

/** What an approved call did, as far as the gateway knows. */
export type ToolCallOutcome = 'performed' | 'failed' | 'unknown';

/** How an operations v2 Company call is shown: the Session as the person sees it. */
export type GatewaySession = SessionContext;
