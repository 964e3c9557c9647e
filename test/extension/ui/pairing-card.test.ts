// @vitest-environment jsdom
import { describe, it, expect, beforeEach, afterEach, vi, type Mock } from 'vitest';
import { groupCode, PAIRING_CODE, PairingCard, pairedCard } from '../../../src/extension/ui/pairing-card';
import { APPROVE_DELAY_MS } from '../../../src/extension/constants';
import type { PairingView } from '../../../src/extension/snapshot';
import { englishTranslate } from './locale-table';
import { flush, textOf, trustedClick } from './fake-browser';

const t = englishTranslate();
const T0 = Date.UTC(2026, 9, 8, 19, 0);

describe('pairing: groupCode and PAIRING_CODE (the agent prints "304 236")', () => {
  it('groups six digits 3 + 3 while typing, keeps digits only, at most six', () => {
    expect(groupCode('304236')).toBe('304 236');
    expect(groupCode('304')).toBe('304');
    expect(groupCode('3042')).toBe('304 2');
    expect(groupCode('')).toBe('');
    expect(groupCode('30-42 36x')).toBe('304 236');
    expect(groupCode('304 2369999')).toBe('304 236');
  });

  it('accepts six digits with or without the space, nothing else', () => {
    for (const ok of ['304236', '304 236']) expect(PAIRING_CODE.test(ok), ok).toBe(true);
    for (const bad of ['30423', '3042367', '304  236', '304-236', 'abc def', '']) expect(PAIRING_CODE.test(bad), bad).toBe(false);
  });
});

describe('pairing: PairingCard (Pair is held to Approve\'s rule, and needs the typed code)', () => {
  const pairing: PairingView = { pairingId: 'pair_1', agentName: 'Desk agent', fingerprint: '7Q2M-X9KD', attemptsLeft: 3, requestedAt: T0 };
  let send: Mock<(message: unknown) => Promise<unknown>>;
  let focused: boolean;
  let changed: Mock<() => void>;

  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(T0);
    send = vi.fn(async (_message: unknown): Promise<unknown> => ({ status: 'paired' }));
    focused = true;
    changed = vi.fn(() => undefined);
    document.body.replaceChildren();
  });
  afterEach(() => vi.useRealTimers());

  function make() {
    const c = new PairingCard(pairing, { doc: document, t, send: send, focused: () => focused, changed }, 0);
    document.body.append(c.element);
    const input = c.element.querySelector<HTMLInputElement>('[data-testid="pair-code-input"]')!;
    const pair = c.element.querySelector<HTMLButtonElement>('#pair-confirm')!;
    const reject = c.element.querySelector<HTMLButtonElement>('#pair-reject')!;
    const type = (text: string) => {
      input.value = text;
      input.dispatchEvent(new Event('input', { bubbles: true }));
    };
    /** Time passes; the window ticks as it does every frame. */
    const at = (ms: number, bridgeUp = true) => {
      vi.setSystemTime(T0 + ms);
      c.tick(T0 + ms, bridgeUp);
    };
    return { c, input, pair, reject, type, at };
  }
  const answers = () => send.mock.calls.map(([m]) => m as Record<string, unknown>);

  it('shows the agent, its key and what pairing allows; never a code', () => {
    const { c, input } = make();
    expect(textOf(c.element.querySelector('h1'))).toBe('Pair “Desk agent” with Countersign?');
    expect(textOf(c.element.querySelector('[data-testid="pair-agent"]'))).toBe('Agent key 7Q2M-X9KD');
    expect(textOf(c.element)).toContain(t('pairAllows'));
    expect(input.value).toBe('');
  });

  it('typing groups the code and tells the window to look again', () => {
    const { input, type } = make();
    type('304236');
    expect(input.value).toBe('304 236');
    expect(changed).toHaveBeenCalled();
  });

  it('Pair stays disabled until a 6-digit code is typed AND the gate is ready (and the bridge is up)', () => {
    const { pair, type, at } = make();
    expect(pair.disabled).toBe(true);
    at(APPROVE_DELAY_MS + 10);
    expect(pair.disabled, 'gate ready, no code').toBe(true);
    type('30423');
    at(APPROVE_DELAY_MS + 20);
    expect(pair.disabled, 'five digits').toBe(true);
    type('304236');
    at(APPROVE_DELAY_MS + 30, false);
    expect(pair.disabled, 'bridge down').toBe(true);
    at(APPROVE_DELAY_MS + 40);
    expect(pair.disabled).toBe(false);
  });

  it('a code typed at once does not enable Pair before the arm delay', () => {
    const { pair, type, at } = make();
    type('304 236');
    at(APPROVE_DELAY_MS - 1);
    expect(pair.disabled).toBe(true);
    expect(Number(pair.style.getPropertyValue('--armed'))).toBeLessThan(1);
    at(APPROVE_DELAY_MS);
    expect(pair.disabled).toBe(false);
    expect(pair.style.getPropertyValue('--armed')).toBe('1');
  });

  it('losing focus restarts the delay', () => {
    const { pair, type, at } = make();
    type('304236');
    at(APPROVE_DELAY_MS - 100);
    focused = false;
    at(APPROVE_DELAY_MS - 50);
    focused = true;
    at(APPROVE_DELAY_MS);
    expect(pair.disabled).toBe(true);
    at(2 * APPROVE_DELAY_MS - 1);
    expect(pair.disabled, 'the moment counts from the refocus').toBe(true);
    at(2 * APPROVE_DELAY_MS);
    expect(pair.disabled).toBe(false);
  });

  it('an untrusted click (a script\'s, not the person\'s) sends nothing, on Pair or Don\'t pair', async () => {
    const { pair, reject, type, at } = make();
    type('304236');
    at(APPROVE_DELAY_MS);
    expect(pair.disabled).toBe(false);
    pair.click();
    pair.dispatchEvent(new MouseEvent('click', { bubbles: true }));
    reject.click();
    await flush();
    expect(send).not.toHaveBeenCalled();
    expect(pair.disabled).toBe(false);
  });

  it('a trusted click after the gate sends countersign/pair-answer with the code, once', async () => {
    const { c, pair, type, at } = make();
    type('304236');
    at(APPROVE_DELAY_MS + 250);
    trustedClick(pair);
    trustedClick(pair);
    await flush();
    expect(answers()).toEqual([{ type: 'countersign/pair-answer', pairingId: 'pair_1', confirmed: true, code: '304 236', trusted: true, shownFor: APPROVE_DELAY_MS + 250 }]);
    expect(pair.disabled).toBe(true);
    expect(c.paired).toBe(true);
  });

  it('a trusted click before the gate is ready sends nothing', async () => {
    const { pair, type } = make();
    type('304236');
    pair.disabled = false; // even if the button were enabled early
    vi.setSystemTime(T0 + APPROVE_DELAY_MS - 1);
    trustedClick(pair);
    await flush();
    expect(send).not.toHaveBeenCalled();
  });

  it('Don\'t pair: the person\'s click sends confirmed: false, without a code', async () => {
    const { reject } = make();
    vi.setSystemTime(T0 + 400);
    trustedClick(reject);
    await flush();
    expect(answers()).toEqual([{ type: 'countersign/pair-answer', pairingId: 'pair_1', confirmed: false, trusted: true, shownFor: 400 }]);
  });

  it('a wrong code: the plural message with the tries left, and the delay starts over', async () => {
    send.mockResolvedValueOnce({ status: 'code-mismatch', attemptsLeft: 2 }).mockResolvedValueOnce({ status: 'code-mismatch', attemptsLeft: 1 });
    const { c, pair, type, at } = make();
    const note = c.element.querySelector('.pair-note')!;
    type('111111');
    at(APPROVE_DELAY_MS);
    trustedClick(pair);
    await flush();
    expect(note.textContent).toBe('That is not the code. 2 tries left.');
    expect(note.textContent).toBe(t.plural('pairCodeMismatch', 2));
    // Styled and announced as an error, until the person types again.
    expect(note.classList.contains('error')).toBe(true);
    expect(c.element.querySelector('.pair-code-input')!.getAttribute('aria-invalid')).toBe('true');
    expect(c.paired).toBe(false);
    at(APPROVE_DELAY_MS + 10);
    expect(pair.disabled, 'the delay starts over after a wrong code').toBe(true);
    at(2 * APPROVE_DELAY_MS + 10);
    expect(pair.disabled).toBe(false);
    trustedClick(pair);
    await flush();
    expect(note.textContent).toBe('That is not the code. 1 try left.');
    expect(send).toHaveBeenCalledTimes(2);
    type('222222');
    expect(note.classList.contains('error')).toBe(false);
    expect(c.element.querySelector('.pair-code-input')!.hasAttribute('aria-invalid')).toBe(false);
  });

  it('paired: the success card names the agent and has Close', () => {
    const card = pairedCard(document, t, 'Desk agent', '7Q2M-X9KD');
    expect(textOf(card.querySelector('h1'))).toBe('“Desk agent” is paired.');
    expect(card.querySelector('button[data-action="close-result"]')).not.toBeNull();
  });
});
