import { describe, expect, it } from 'vitest';
import { approveGate, type ApproveGateFacts } from '../../../src/extension/ui/approve-gate';

/** Everything in place: Approve is clickable. Each test takes one fact away. */
const READY: ApproveGateFacts = { pending: true, expired: false, bridgeUp: true, danger: false, riskAcknowledged: false, summaryRead: true, changesOpened: null, signed: true, armed: true };

describe('approveGate (docs/ui.md, "When Approve arms")', () => {
  it('arms when the item waits, is read in full, is the call signed, and the delay has run', () => {
    expect(approveGate(READY)).toEqual({ enabled: true, arming: false, waiting: false, hint: null });
  });

  it.each([
    ['decided already', { pending: false }],
    ['past its deadline', { expired: true }],
    ['with the bridge down', { bridgeUp: false }],
    ['a tool call not yet shown to hash to its revision', { signed: false }],
    ['a danger not acknowledged', { danger: true }],
  ] as Array<[string, Partial<ApproveGateFacts>]>)('stays off %s, with no reading hint', (_, change) => {
    const state = approveGate({ ...READY, ...change });
    expect(state.enabled).toBe(false);
    expect(state.arming).toBe(false);
    expect(state.hint).toBeNull();
  });

  it('a danger acknowledged arms like any other item', () => {
    expect(approveGate({ ...READY, danger: true, riskAcknowledged: true }).enabled).toBe(true);
  });

  it('asks for the end of the summary first, then for the closed changes', () => {
    expect(approveGate({ ...READY, summaryRead: false })).toMatchObject({ enabled: false, hint: 'readToEnd' });
    expect(approveGate({ ...READY, summaryRead: false, changesOpened: false })).toMatchObject({ hint: 'readToEnd' });
    expect(approveGate({ ...READY, changesOpened: false })).toMatchObject({ enabled: false, hint: 'openChangesToApprove' });
    expect(approveGate({ ...READY, changesOpened: true }).enabled).toBe(true);
  });

  it('shows the fill only while the delay alone holds it back, and says it waits whatever else does', () => {
    expect(approveGate({ ...READY, armed: false })).toEqual({ enabled: false, arming: true, waiting: true, hint: null });
    expect(approveGate({ ...READY, armed: false, summaryRead: false })).toMatchObject({ arming: false, waiting: true });
    expect(approveGate({ ...READY, armed: false, pending: false })).toMatchObject({ arming: false, waiting: false });
  });
});
