import { describe, it, expect } from 'vitest';
import { placeWindow } from '../../src/extension/approval-window';

describe('approval window placement (on-screen, over the last focused window; docs/ui.md, "Layout")', () => {
  it('centres horizontally over the browser window, a little below its top', () => {
    expect(placeWindow({ left: 100, top: 50, width: 1200, height: 900 }, { width: 1920, height: 1080 })).toEqual({ left: 440, top: 110, width: 520, height: 560 });
  });
  it('never lands off-screen, even for a browser window partly off-screen', () => {
    const b = placeWindow({ left: 1800, top: 900, width: 800, height: 600 }, { width: 1920, height: 1080 });
    expect(b.left + b.width).toBeLessThanOrEqual(1920);
    expect(b.top + b.height).toBeLessThanOrEqual(1080);
    const c = placeWindow({ left: -3000, top: -200, width: 800, height: 600 }, { width: 1920, height: 1080 });
    expect(c.left).toBeGreaterThanOrEqual(0);
    expect(c.top).toBeGreaterThanOrEqual(0);
  });
  it('fits a 1366 × 768 screen at 125 % (1093 × 614 CSS pixels) with a 40-pixel taskbar', () => {
    const b = placeWindow({ left: 0, top: 0, width: 1093, height: 574 }, { width: 1093, height: 574 });
    expect(b.top + b.height).toBeLessThanOrEqual(574);
    expect(b.height).toBe(560);
  });
  it('shrinks to a small screen', () => {
    expect(placeWindow(undefined, { width: 400, height: 500 })).toEqual({ left: 0, top: 0, width: 400, height: 500 });
  });
});
