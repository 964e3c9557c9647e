import { describe, it, expect } from 'vitest';
import { ApproveGate } from '../../src/extension/ui/approve-gate';

describe('approve gate (issue 5: Approve only after the window was visible and focused ~1 s)', () => {
  it('is not ready before the delay and ready after it', () => {
    const gate = new ApproveGate(1000);
    gate.update(true, 0);
    expect(gate.ready(999)).toBe(false);
    expect(gate.ready(1000)).toBe(true);
  });
  it('restarts the delay on refocus', () => {
    const gate = new ApproveGate(1000);
    gate.update(true, 0);
    gate.update(false, 900);
    gate.update(true, 950);
    expect(gate.ready(1500)).toBe(false);
    expect(gate.ready(1950)).toBe(true);
  });
  it('fires once', () => {
    const gate = new ApproveGate(1000);
    gate.update(true, 0);
    expect(gate.fire(1000)).toBe(true);
    expect(gate.fire(1001)).toBe(false);
  });
  it('a new item shown restarts the delay and allows a new approval', () => {
    const gate = new ApproveGate(1000);
    gate.update(true, 0);
    gate.fire(1000);
    gate.reset(1100, true);
    expect(gate.ready(1500)).toBe(false);
    expect(gate.fire(2100)).toBe(true);
  });
  it('is never ready while hidden', () => {
    const gate = new ApproveGate(1000);
    gate.update(false, 0);
    expect(gate.ready(10_000)).toBe(false);
  });
});
