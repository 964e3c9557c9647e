import { describe, expect, it, vi } from 'vitest';
import { APPROVE_DELAY_MS } from '../../../src/extension/constants';
import { decide, decideMessage } from '../../../src/extension/page-messages/decide';
import type { BackgroundParts, PageServices } from '../../../src/extension/page-messages/index';

/**
 * The background's own arm delay: an approval whose item the window showed for less than
 * APPROVE_DELAY_MS is refused before the queue signs anything, whatever the page's button did
 * (the page's arm delay is tested in test/extension/ui). A decline needs no delay.
 */

function services(portState: 'up' | 'down' = 'up') {
  const queue = { decide: vi.fn(async () => ({})) };
  const parts = { port: { state: portState }, queue } as unknown as BackgroundParts;
  const s = { ready: async () => parts } as unknown as PageServices;
  return { s, queue };
}

const message = (decision: 'approve' | 'decline', shownFor: number) =>
  decideMessage.parse({ type: 'countersign/decide', key: 'k1', decision, trusted: true, shownFor });

describe('decide (page message)', () => {
  it('refuses an approval shown for less than the arm delay, and the queue never sees it', async () => {
    for (const shownFor of [0, 1, APPROVE_DELAY_MS / 2, APPROVE_DELAY_MS - 1, APPROVE_DELAY_MS - 0.001]) {
      const { s, queue } = services();
      await expect(decide.handler(message('approve', shownFor), s)).rejects.toMatchObject({
        name: 'CountersignError',
        code: 'ERR_NOT_ALLOWED',
        message: expect.stringContaining('not in front of the person long enough'),
      });
      expect(queue.decide).not.toHaveBeenCalled();
    }
  });

  it('approves once the item was shown for the arm delay exactly, or longer', async () => {
    for (const shownFor of [APPROVE_DELAY_MS, APPROVE_DELAY_MS + 1, 60_000]) {
      const { s, queue } = services();
      await expect(decide.handler(message('approve', shownFor), s)).resolves.toEqual({ ok: true });
      expect(queue.decide).toHaveBeenCalledExactlyOnceWith('k1', 'approve');
    }
  });

  it('lets the person decline at once', async () => {
    const { s, queue } = services();
    await expect(decide.handler(message('decline', 0), s)).resolves.toEqual({ ok: true });
    expect(queue.decide).toHaveBeenCalledExactlyOnceWith('k1', 'decline');
  });

  it('refuses an approval while the bridge is down, but not a decline', async () => {
    const down = services('down');
    await expect(decide.handler(message('approve', APPROVE_DELAY_MS), down.s)).rejects.toMatchObject({ code: 'ERR_COMPANION_UNAVAILABLE' });
    expect(down.queue.decide).not.toHaveBeenCalled();
    const declining = services('down');
    await expect(decide.handler(message('decline', 0), declining.s)).resolves.toEqual({ ok: true });
  });

  it('is accepted only from the approval window, trusted, with a non-negative shownFor', () => {
    expect(decide.from).toEqual(['approve']);
    const base = { type: 'countersign/decide', key: 'k1', decision: 'approve', trusted: true, shownFor: APPROVE_DELAY_MS };
    expect(decideMessage.safeParse(base).success).toBe(true);
    expect(decideMessage.safeParse({ ...base, trusted: false }).success).toBe(false);
    expect(decideMessage.safeParse({ ...base, shownFor: -1 }).success).toBe(false);
    expect(decideMessage.safeParse({ ...base, shownFor: undefined }).success).toBe(false);
    expect(decideMessage.safeParse({ ...base, extra: 1 }).success).toBe(false);
  });

  it('the arm delay is one second', () => {
    expect(APPROVE_DELAY_MS).toBe(1000);
  });
});
