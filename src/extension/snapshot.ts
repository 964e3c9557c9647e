import type { PasskeyCredential } from '../protocol/passkey';
import { keyFingerprint } from '../protocol/fingerprint';
import { displayOrigin, type DisplayOrigin } from '../summary/origin.ts';
import type { ToolCall } from '../protocol/tool-call';
import type { ApprovalRecord, PairedAgent } from './store';
import type { SnapshotReview, SnapshotReviews } from './snapshot-review';

/**
 * What the background shows its pages: built from the store on each change, never kept
 * (derived state would drift from IndexedDB across a worker restart).
 */
export interface ApprovalView {
  key: string;
  state: ApprovalRecord['state'];
  agentName: string;
  /** The asking agent's key fingerprint, shown beside its name everywhere (two agents may share a name). */
  agentFingerprint: string;
  agentConnected: boolean;
  company: ApprovalRecord['company'];
  /**
   * The Company's origin prepared for display (registrable domain, IDN policy), computed in the
   * background so the approval window does not carry the Public Suffix List.
   */
  origin: DisplayOrigin | null;
  operation: ApprovalRecord['operation'];
  /** A tool call from countersign-mcp (not a Company's operation): the server, the tool (its description and annotations when sent) and its arguments, as the decision signs them. */
  toolCall?: Pick<ToolCall, 'server' | 'tool' | 'description' | 'annotations' | 'arguments'>;
  /** The revision this one replaced, for "what changed". */
  previous?: ApprovalRecord['operation'];
  /** null: a view with no request or Session to show. */
  request: ApprovalRecord['request'] | null;
  session: ApprovalRecord['session'] | null;
  createdAt: number;
  updatedAt: number;
  outcomeDetail?: string;
  /** Approve needs the person's passkey too (the agent asked, or the person requires it for this agent). */
  userVerification?: 'required';
}

/** An item of the queue with the background's review of its terms: what the approval window renders. */
export interface ReviewedView extends ApprovalView {
  review: SnapshotReview;
}

/** A pairing waiting for the person. Never the code: the person types the one their agent shows. */
export interface PairingView {
  pairingId: string;
  agentName: string;
  /** The agent's key fingerprint ("7Q2M-X9KD"), as the agent prints it. */
  fingerprint: string;
  /** Wrong codes the person may still type before the pairing is refused. */
  attemptsLeft: number;
  requestedAt: number;
}

/** Why an agent could not use Countersign, for the popup's "what to do" list. */
export interface AgentProblem {
  kind: 'unpaired' | 'revoked' | 'version' | 'auth' | 'too-large';
  agentName: string;
  at: number;
}

export interface Snapshot {
  bridge: 'up' | 'down';
  /** The browser's reason when the bridge is down ("Specified native messaging host not found." …). */
  bridgeError: string | null;
  /** Agents connected and proven right now. */
  agentsConnected: number;
  problems: AgentProblem[];
  browserFamily: 'chromium' | 'firefox';
  /** Waiting for the User (pending), or approved and not yet sent (withdrawable), or held. */
  active: ReviewedView[];
  /** The latest decided ones, newest first. */
  history: ApprovalView[];
  pairings: PairingView[];
  agents: Array<Pick<PairedAgent, 'thumbprint' | 'name' | 'pairedAt' | 'revokedAt' | 'requireUserVerification'> & { fingerprint: string }>;
  throttled: Array<{ agent: string; count: number }>;
  extensionKeyThumbprint: string | null;
  /** The passkey that protects approvals (public parts only), or null. */
  passkey?: PasskeyCredential | null;
}

export const ACTIVE_STATES = ['pending', 'held', 'approved', 'sent', 'unknown'] as const;
const ACTIVE: ReadonlySet<ApprovalRecord['state']> = new Set(ACTIVE_STATES);

export function isActive(record: Pick<ApprovalRecord, 'state'>): boolean {
  return ACTIVE.has(record.state);
}

function fingerprintOrEmpty(thumbprint: string): string {
  try {
    return keyFingerprint(thumbprint);
  } catch {
    return '';
  }
}

function safeOrigin(url: string): DisplayOrigin | null {
  try {
    return displayOrigin(url);
  } catch {
    return null;
  }
}

export function toView(record: ApprovalRecord, previous?: ApprovalRecord): ApprovalView {
  return {
    key: record.key,
    state: record.state,
    agentName: record.agentName,
    agentFingerprint: fingerprintOrEmpty(record.agent),
    agentConnected: record.agentConnected,
    company: record.company,
    // A tool call has no web address: the server is reached by a command or an MCP URL.
    origin: record.toolCall ? null : safeOrigin(record.company.origin),
    operation: record.operation,
    ...(record.toolCall ? { toolCall: shownToolCall(record.toolCall) } : {}),
    ...(record.userVerification === 'required' ? { userVerification: 'required' as const } : {}),
    ...(previous ? { previous: previous.operation } : {}),
    request: record.request,
    session: record.session,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    ...(record.outcomeDetail === undefined ? {} : { outcomeDetail: record.outcomeDetail }),
  };
}

/**
 * Views of the active records (oldest first: the order they were asked in), each with its review
 * (made once per revision by `reviews`), and the history (newest first). `previous` supplies the
 * revision a record replaced, for "what changed".
 */
export function viewsOf(active: ApprovalRecord[], history: ApprovalRecord[], previous: Map<string, ApprovalRecord>, reviews: SnapshotReviews): Pick<Snapshot, 'active' | 'history'> {
  const view = (r: ApprovalRecord): ReviewedView => {
    const replaced = r.previousKey ? previous.get(r.previousKey) : undefined;
    return { ...toView(r, replaced), review: reviews.of(r, replaced) };
  };
  const views = [...active].sort((a, b) => a.createdAt - b.createdAt).map(view);
  reviews.done();
  return { active: views, history: history.map((r) => toView(r)) };
}

/** What the window shows of a tool call: everything its revision covers (tool-call-revision.ts), nothing else. */
export function shownToolCall(call: ToolCall): NonNullable<ApprovalView['toolCall']> {
  const { server, tool, description, annotations } = call;
  return { server, tool, ...(description === undefined ? {} : { description }), ...(annotations === undefined ? {} : { annotations }), arguments: call.arguments };
}
