/**
 * Whether Approve may be clicked, from what the window knows of the item shown (docs/ui.md,
 * "When Approve arms"): one rule, written once, so the page only feeds it facts. Approve arms
 * when the item waits for a decision, before its deadline, with the bridge up; when what is
 * signed has been on screen in full (the summary's end, the changes behind "and N more changes",
 * a tool call's own hash); when a danger has been acknowledged; and when the arm delay has run.
 */
export interface ApproveGateFacts {
  /** The item waits for a decision (`pending`). */
  pending: boolean;
  /** Its deadline has passed. */
  expired: boolean;
  bridgeUp: boolean;
  /** Something on the card is a danger. */
  danger: boolean;
  /** "I understand the risk" is ticked for this item. */
  riskAcknowledged: boolean;
  /** The end of the summary (or of a tool call's arguments) has been on screen. */
  summaryRead: boolean;
  /** Null when every change is on screen; else whether "and N more changes" has been opened. */
  changesOpened: boolean | null;
  /** For a tool call: the call on the card hashes to the revision the decision signs. Else true. */
  signed: boolean;
  /** The arm delay has run while the window was looked at. */
  armed: boolean;
}

export interface ApproveGateState {
  enabled: boolean;
  /** Only the arm delay holds Approve back: the button shows it filling. */
  arming: boolean;
  /** Approve waits for the delay (announced to screen readers), whatever else holds it. */
  waiting: boolean;
  /** What the person must do before Approve can arm, if it is reading: a message key. */
  hint: 'readToEnd' | 'openChangesToApprove' | null;
}

export function approveGate(facts: ApproveGateFacts): ApproveGateState {
  const blocked = !facts.pending || facts.expired || !facts.bridgeUp;
  const read = facts.summaryRead && facts.changesOpened !== false;
  const ready = !blocked && read && facts.signed && (!facts.danger || facts.riskAcknowledged);
  return {
    enabled: ready && facts.armed,
    arming: ready && !facts.armed,
    waiting: !blocked && !facts.armed,
    hint: blocked || read ? null : facts.summaryRead ? 'openChangesToApprove' : 'readToEnd',
  };
}
