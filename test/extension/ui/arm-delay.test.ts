import { describe, it, expect } from 'vitest';
import { ArmDelay } from '../../../src/extension/ui/arm-delay';

describe('ArmDelay (spec section 5, docs/ui.md: Approve only after the window was visible and focused ~1 s)', () => {
  it('is not ready before the delay and ready after it', () => {
    const gate = new ArmDelay(1000);
    gate.observe(0, true);
    expect(gate.ready(999)).toBe(false);
    expect(gate.ready(1000)).toBe(true);
  });
  it('restarts the delay on refocus', () => {
    const gate = new ArmDelay(1000);
    gate.observe(0, true);
    gate.observe(900, false);
    gate.observe(950, true);
    expect(gate.ready(1500)).toBe(false);
    expect(gate.ready(1950)).toBe(true);
  });
  it('fires once', () => {
    const gate = new ArmDelay(1000);
    gate.observe(0, true);
    expect(gate.fire(1000)).toBe(true);
    expect(gate.fire(1001)).toBe(false);
  });
  it('a new item shown restarts the delay and allows a new approval', () => {
    const gate = new ArmDelay(1000);
    gate.observe(0, true);
    gate.fire(1000);
    gate.restart(1100, true);
    expect(gate.ready(1500)).toBe(false);
    expect(gate.fire(2100)).toBe(true);
  });
  it('is never ready while hidden', () => {
    const gate = new ArmDelay(1000);
    gate.observe(0, false);
    expect(gate.ready(10_000)).toBe(false);
  });
});

describe('approve gate: progress() (the arm delay drawn on the button)', () => {
  it('0 before the window is visible and focused, and while hidden', () => {
    const gate = new ArmDelay(1000);
    expect(gate.progress(0)).toBe(0);
    gate.observe(0, false);
    expect(gate.progress(5000)).toBe(0);
  });
  it('grows with the time shown, and is capped at 1', () => {
    const gate = new ArmDelay(1000);
    gate.observe(0, true);
    expect(gate.progress(0)).toBe(0);
    expect(gate.progress(250)).toBe(0.25);
    expect(gate.progress(999)).toBeCloseTo(0.999);
    expect(gate.progress(1000)).toBe(1);
    expect(gate.progress(60_000)).toBe(1);
  });
  it('drops to 0 on a loss of focus and counts again from the refocus', () => {
    const gate = new ArmDelay(1000);
    gate.observe(0, true);
    gate.observe(800, false);
    expect(gate.progress(800)).toBe(0);
    gate.observe(900, true);
    expect(gate.progress(1400)).toBe(0.5);
  });
  it('stays full once Approve has fired (the button does not empty after the click)', () => {
    const gate = new ArmDelay(1000);
    gate.observe(0, true);
    expect(gate.fire(1000)).toBe(true);
    gate.observe(1100, false);
    expect(gate.progress(1100)).toBe(1);
    expect(gate.ready(1100)).toBe(false);
  });
  it('a new item shown starts from 0 (reset), visible or not', () => {
    const gate = new ArmDelay(1000);
    gate.observe(0, true);
    gate.fire(1000);
    gate.restart(2000, true);
    expect(gate.progress(2000)).toBe(0);
    expect(gate.progress(2500)).toBe(0.5);
    gate.restart(3000, false);
    expect(gate.progress(9000)).toBe(0);
  });
});
