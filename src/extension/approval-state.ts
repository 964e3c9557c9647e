import { CountersignError } from '../protocol/errors';

/**
 * The life of one revision of one operation in the extension (docs/bridge-protocol.md, "The
 * life of an approval", has the same diagram and the table of messages per state).
 *
 *   pending   → approved | declined | expired | superseded | withdrawn | cancelled
 *   cancelled → pending (asked again: the person had not decided, so they are asked again)
 *   held      → pending | expired | superseded | declined (kept for stores written before
 *               protocol v2, where a refused request was held; v2 never creates it)
 *   approved  → sent | withdrawn | performed | failed | unknown | expired
 *   sent      → performed | failed | unknown   (a withdrawal now is "too late", recorded)
 *   unknown   → performed | failed
 *
 * `held` is a new revision of an operation whose approved revision has no known outcome yet:
 * section 7 forbids asking the User about it until the agent knows whether the first one
 * was performed.
 */
export const APPROVAL_STATES = [
  'pending',
  'held',
  'approved',
  'declined',
  'expired',
  'superseded',
  'withdrawn',
  'sent',
  'performed',
  'failed',
  'unknown',
  'cancelled',
] as const;
export type ApprovalState = (typeof APPROVAL_STATES)[number];

export type ApprovalEvent =
  | 'approve'
  | 'decline'
  | 'expire'
  | 'supersede'
  | 'withdraw'
  | 'release'
  | 'cancel'
  | 'reopen'
  | 'sent'
  | 'performed'
  | 'failed'
  | 'unknown';

const TRANSITIONS: Record<ApprovalState, Partial<Record<ApprovalEvent, ApprovalState>>> = {
  pending: {
    approve: 'approved',
    decline: 'declined',
    expire: 'expired',
    supersede: 'superseded',
    withdraw: 'withdrawn',
    cancel: 'cancelled',
  },
  cancelled: { reopen: 'pending', expire: 'expired', supersede: 'superseded' },
  held: { release: 'pending', expire: 'expired', supersede: 'superseded', decline: 'declined' },
  // Section 5: the User may withdraw until the agent has sent the approval.
  approved: {
    sent: 'sent',
    withdraw: 'withdrawn',
    performed: 'performed',
    failed: 'failed',
    unknown: 'unknown',
    expire: 'expired',
  },
  sent: { performed: 'performed', failed: 'failed', unknown: 'unknown' },
  unknown: { performed: 'performed', failed: 'failed', unknown: 'unknown' },
  declined: {},
  expired: {},
  superseded: {},
  withdrawn: {},
  performed: {},
  failed: {},
};

export function nextState(state: ApprovalState, event: ApprovalEvent): ApprovalState {
  const next = TRANSITIONS[state][event];
  if (!next) {
    // The state machine's refusal is the protocol's "not allowed in the current state" (docs/bridge-protocol.md, 9.6).
    throw new CountersignError('ERR_NOT_ALLOWED', `approval: cannot ${event} an approval that is ${state}`);
  }
  return next;
}

export function canTransition(state: ApprovalState, event: ApprovalEvent): boolean {
  return TRANSITIONS[state][event] !== undefined;
}

/** States in which the User is being asked (or may be asked) for a decision. */
export function isAwaitingUser(state: ApprovalState): boolean {
  return state === 'pending';
}

/** States that block a new prompt for the same operation_id (section 7). */
export function isOutcomeOpen(state: ApprovalState): boolean {
  return state === 'approved' || state === 'sent' || state === 'unknown';
}

export function isFinal(state: ApprovalState): boolean {
  return Object.keys(TRANSITIONS[state]).length === 0;
}
