import { APPROVE_DELAY_MS } from '../constants';

/**
 * The arm delay of a click that grants something (Approve, Pair): the click counts only after the
 * window has been visible and focused for `APPROVE_DELAY_MS` (src/extension/constants.ts, the one
 * place to change it), and the delay starts over on every refocus: a click meant for another
 * window, or a window that pops up under the pointer, must not approve anything.
 */
export class ArmDelay {
  private since: number | null = null;
  private fired = false;

  constructor(private readonly delayMs = APPROVE_DELAY_MS) {}

  /** Report the window's state; any loss of visibility or focus restarts the delay. */
  observe(now: number, visibleAndFocused: boolean): void {
    if (!visibleAndFocused) this.since = null;
    else if (this.since === null) this.since = now;
  }

  /** The item shown changed: the person has to read the new one. */
  restart(now: number, visibleAndFocused: boolean): void {
    this.since = visibleAndFocused ? now : null;
    this.fired = false;
  }

  shownFor(now: number): number {
    return this.since === null ? 0 : now - this.since;
  }

  /** How far the delay has run, 0 to 1: drawn on the button itself. */
  progress(now: number): number {
    return this.fired ? 1 : Math.min(1, this.shownFor(now) / this.delayMs);
  }

  ready(now: number): boolean {
    return !this.fired && this.shownFor(now) >= this.delayMs;
  }

  /** Approve fires once; a second click (or a double click) does nothing. */
  fire(now: number): boolean {
    if (!this.ready(now)) return false;
    this.fired = true;
    return true;
  }
}
