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

describe('approve gate: progress() (the arm delay drawn on the button)', () => {
  it('0 before the window is visible and focused, and while hidden', () => {
    const gate = new ApproveGate(1000);
    expect(gate.progress(0)).toBe(0);
    gate.update(false, 0);
    expect(gate.progress(5000)).toBe(0);
  });
  it('grows with the time shown, and is capped at 1', () => {
    const gate = new ApproveGate(1000);
    gate.update(true, 0);
    expect(gate.progress(0)).toBe(0);
    expect(gate.progress(250)).toBe(0.25);
    expect(gate.progress(999)).toBeCloseTo(0.999);
    expect(gate.progress(1000)).toBe(1);
    expect(gate.progress(60_000)).toBe(1);
  });
  it('drops to 0 on a loss of focus and counts again from the refocus', () => {
    const gate = new ApproveGate(1000);
    gate.update(true, 0);
    gate.update(false, 800);
    expect(gate.progress(800)).toBe(0);
    gate.update(true, 900);
    expect(gate.progress(1400)).toBe(0.5);
  });
  it('stays full once Approve has fired (the button does not empty after the click)', () => {
    const gate = new ApproveGate(1000);
    gate.update(true, 0);
    expect(gate.fire(1000)).toBe(true);
    gate.update(false, 1100);
    expect(gate.progress(1100)).toBe(1);
    expect(gate.ready(1100)).toBe(false);
  });
  it('a new item shown starts from 0 (reset), visible or not', () => {
    const gate = new ApproveGate(1000);
    gate.update(true, 0);
    gate.fire(1000);
    gate.reset(2000, true);
    expect(gate.progress(2000)).toBe(0);
    expect(gate.progress(2500)).toBe(0.5);
    gate.reset(3000, false);
    expect(gate.progress(9000)).toBe(0);
  });
});
