import { describe, it, expect } from 'vitest';
import { formatRemaining, EXPIRY_WARNING_MS } from '../../../src/extension/ui/countdown';
import { englishTranslate } from './locale-table';

const t = englishTranslate();
const S = 1000;
const MIN = 60 * S;
const H = 60 * MIN;
const D = 24 * H;

describe('countdown: formatRemaining (spec section 3 "Expiry": the time left before expires_at)', () => {
  it('minutes and two-digit seconds: 4 min 05 s', () => {
    expect(formatRemaining(4 * MIN + 5 * S, t)).toBe('4 min 05 s');
    expect(formatRemaining(MIN, t)).toBe('1 min 00 s');
    expect(formatRemaining(H - 1, t)).toBe('59 min 59 s');
  });

  it('under a minute: seconds only', () => {
    expect(formatRemaining(59 * S, t)).toBe('59 s');
    expect(formatRemaining(5 * S, t)).toBe('5 s');
  });

  it('rounds down to whole seconds: it never promises a second the queue will not give', () => {
    expect(formatRemaining(999, t)).toBe('0 s');
    expect(formatRemaining(5 * S + 999, t)).toBe('5 s');
    expect(formatRemaining(MIN - 1, t)).toBe('59 s');
  });

  it('past expiry (zero or negative) shows 0 s, never a negative time', () => {
    expect(formatRemaining(0, t)).toBe('0 s');
    expect(formatRemaining(-90 * S, t)).toBe('0 s');
  });

  it('hours and two-digit minutes, seconds dropped', () => {
    expect(formatRemaining(H, t)).toBe('1 h 00 min');
    expect(formatRemaining(2 * H + 5 * MIN + 59 * S, t)).toBe('2 h 05 min');
    expect(formatRemaining(D - 1, t)).toBe('23 h 59 min');
  });

  it('days and hours', () => {
    expect(formatRemaining(D, t)).toBe('1 d 0 h');
    expect(formatRemaining(2 * D + 3 * H + 59 * MIN, t)).toBe('2 d 3 h');
  });

  it('the warning threshold is 30 s (docs/ui.md "Outcomes")', () => {
    expect(EXPIRY_WARNING_MS).toBe(30 * S);
  });
});
