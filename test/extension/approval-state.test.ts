import { describe, it, expect } from 'vitest';
import { APPROVAL_STATES, canTransition, isAwaitingUser, isFinal, isOutcomeOpen, nextState, type ApprovalEvent } from '../../src/extension/approval-state';

const EVENTS: ApprovalEvent[] = ['approve', 'decline', 'expire', 'supersede', 'withdraw', 'release', 'sent', 'performed', 'failed', 'unknown'];

describe('approval state machine (spec sections 5 and 7)', () => {
  it('section 5: an approval can be withdrawn until the agent has sent it, not after', () => {
    expect(nextState('approved', 'withdraw')).toBe('withdrawn');
    expect(canTransition('sent', 'withdraw')).toBe(false);
  });
  it('section 5: one approval covers one revision; a new revision supersedes a pending one', () => {
    expect(nextState('pending', 'supersede')).toBe('superseded');
    expect(canTransition('approved', 'supersede')).toBe(false);
  });
  it('section 7: a held revision is only released into pending, never approved directly', () => {
    expect(canTransition('held', 'approve')).toBe(false);
    expect(nextState('held', 'release')).toBe('pending');
  });
  it('an unknown outcome can still become performed or failed', () => {
    expect(nextState('unknown', 'performed')).toBe('performed');
    expect(nextState('unknown', 'failed')).toBe('failed');
  });
  it('final states accept no event at all', () => {
    for (const state of APPROVAL_STATES.filter(isFinal)) {
      for (const event of EVENTS) expect(canTransition(state, event)).toBe(false);
    }
    expect(APPROVAL_STATES.filter(isFinal).sort()).toEqual(['declined', 'expired', 'failed', 'performed', 'superseded', 'withdrawn']);
  });
  it('approve is possible from pending only', () => {
    expect(APPROVAL_STATES.filter((s) => canTransition(s, 'approve'))).toEqual(['pending']);
  });
});

describe('approval-state predicates (mutation testing)', () => {
  it('nextState refuses an event the state does not allow, naming both', () => {
    expect(() => nextState('declined', 'approve')).toThrowError('approval: cannot approve an approval that is declined');
    expect(() => nextState('performed', 'withdraw')).toThrowError(expect.objectContaining({ code: 'ERR_NOT_ALLOWED' }));
    expect(nextState('pending', 'approve')).toBe('approved');
  });

  it('only pending awaits the person; approved, sent and unknown hold the outcome open', () => {
    for (const state of APPROVAL_STATES) {
      expect(isAwaitingUser(state), state).toBe(state === 'pending');
      expect(isOutcomeOpen(state), state).toBe(state === 'approved' || state === 'sent' || state === 'unknown');
    }
  });
});
