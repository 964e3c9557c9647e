import type { ApprovalRecord, PairedAgent } from './store';

/**
 * What the background shows its pages: built from the store on each change, never kept
 * (derived state would drift from IndexedDB across a worker restart).
 */
export interface ApprovalView {
  key: string;
  state: ApprovalRecord['state'];
  agentName: string;
  agentConnected: boolean;
  company: ApprovalRecord['company'];
  operation: ApprovalRecord['operation'];
  /** The revision this one replaced, for "what changed". */
  previous?: ApprovalRecord['operation'];
  request: unknown;
  session: unknown;
  createdAt: number;
  updatedAt: number;
  outcomeDetail?: string;
}

export interface PairingView {
  pairingId: string;
  agentName: string;
  code: string;
  requestedAt: number;
}

export interface Snapshot {
  bridge: 'up' | 'down';
  /** Waiting for the User (pending), or approved and not yet sent (withdrawable), or held. */
  active: ApprovalView[];
  /** The latest decided ones, newest first. */
  history: ApprovalView[];
  pairings: PairingView[];
  agents: Array<Pick<PairedAgent, 'thumbprint' | 'name' | 'pairedAt' | 'revokedAt'>>;
  throttled: Array<{ agent: string; count: number }>;
  extensionKeyThumbprint: string | null;
}

const ACTIVE: ReadonlySet<ApprovalRecord['state']> = new Set(['pending', 'held', 'approved', 'sent', 'unknown']);

export function toView(record: ApprovalRecord, previous?: ApprovalRecord): ApprovalView {
  return {
    key: record.key,
    state: record.state,
    agentName: record.agentName,
    agentConnected: record.agentConnected,
    company: record.company,
    operation: record.operation,
    ...(previous ? { previous: previous.operation } : {}),
    request: record.request,
    session: record.session,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    ...(record.outcomeDetail === undefined ? {} : { outcomeDetail: record.outcomeDetail }),
  };
}

export function splitRecords(records: ApprovalRecord[], historySize = 50): Pick<Snapshot, 'active' | 'history'> {
  const byKey = new Map(records.map((r) => [r.key, r]));
  const view = (r: ApprovalRecord) => toView(r, r.previousKey ? byKey.get(r.previousKey) : undefined);
  const active = records.filter((r) => ACTIVE.has(r.state)).sort((a, b) => a.createdAt - b.createdAt).map(view);
  const history = records
    .filter((r) => !ACTIVE.has(r.state))
    .sort((a, b) => b.updatedAt - a.updatedAt)
    .slice(0, historySize)
    .map(view);
  return { active, history };
}
