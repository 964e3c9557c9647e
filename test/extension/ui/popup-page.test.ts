// @vitest-environment jsdom
import { describe, it, expect, beforeEach, vi } from 'vitest';
import { mountPopup } from '../../../src/extension/ui/popup-page';
import { fakeBrowser, flush, loadPage, textOf, trustedClick, unlocalisedText, view, type FakeBrowser } from './fake-browser';
import type { Snapshot } from '../../../src/extension/snapshot';

async function popup(snapshot: Partial<Snapshot>, copy = vi.fn(async (_: string) => undefined)): Promise<FakeBrowser & { copy: typeof copy }> {
  loadPage('popup');
  const fake = fakeBrowser(snapshot);
  await mountPopup(document, fake.browser, '0.1.0', { copy, close: () => undefined });
  return Object.assign(fake, { copy });
}

const $ = <T extends Element = HTMLElement>(selector: string) => document.querySelector<T>(selector);
const step = (name: string) => $(`[data-testid="checklist"] [data-step="${name}"]`);
const bridgeMissing = { bridge: 'down', bridgeError: 'Specified native messaging host not found.', agentsConnected: 0 } as const;

describe('popup: first run leads somewhere (setup checklist)', () => {
  beforeEach(() => document.body.replaceChildren());

  it('bridge down → step 1 is next, with the install command for Chromium, where to run it, and Copy as the primary button', async () => {
    const f = await popup({ ...bridgeMissing, agents: [] });
    expect(step('install')?.dataset.state).toBe('current');
    expect(step('pair')?.dataset.state).toBe('later');
    expect(textOf($('[data-testid="install-command"]'))).toBe('npx countersign-bridge install --browser chromium');
    expect(textOf(step('install'))).toContain(f.msg('setupInstallWhere'));
    const copy = $<HTMLButtonElement>('[data-testid="copy-command"]')!;
    expect(copy.classList.contains('primary')).toBe(true);
    expect(document.querySelectorAll('button.primary')).toHaveLength(1);
    copy.click();
    await flush();
    expect(f.copy).toHaveBeenCalledWith('npx countersign-bridge install --browser chromium');
    expect(textOf($('.copy-note'))).toBe(f.msg('copiedCommand'));
  });

  it('bridge down in Firefox → the command names firefox', async () => {
    await popup({ ...bridgeMissing, browserFamily: 'firefox', bridgeError: 'No such native application dev.countersign.bridge' });
    expect(textOf($('[data-testid="install-command"]'))).toBe('npx countersign-bridge install --browser firefox');
  });

  it('a copy the browser refuses says so', async () => {
    const f = await popup({ ...bridgeMissing }, vi.fn(async () => Promise.reject(new Error('denied'))));
    $<HTMLButtonElement>('[data-testid="copy-command"]')!.click();
    await flush();
    expect(textOf($('.copy-note'))).toBe(f.msg('copyFailed'));
  });

  it('bridge up, never paired → step 1 done, step 2 next with how to pair', async () => {
    const f = await popup({ agentsConnected: 0, agents: [] });
    expect(step('install')?.dataset.state).toBe('done');
    expect(textOf(step('install'))).toContain(f.msg('setupStepDone'));
    expect($('[data-testid="install-command"]')).toBeNull();
    expect(step('pair')?.dataset.state).toBe('current');
    expect(textOf(step('pair'))).toContain(f.msg('setupPairHow'));
    expect($('[data-testid="offline"]')).toBeNull();
  });

  it('only revoked agents count as never paired', async () => {
    const base = fakeBrowser().snapshot.agents[0]!;
    await popup({ agentsConnected: 0, agents: [{ ...base, revokedAt: Date.now() }] });
    expect(step('pair')?.dataset.state).toBe('current');
  });

  it('paired but offline is not never paired: no checklist, its own words', async () => {
    const f = await popup({ agentsConnected: 0 });
    expect($('[data-testid="checklist"]')).toBeNull();
    expect(textOf($('[data-testid="offline"]'))).toBe(f.msg('setupPairedOffline'));
    expect(textOf(document.body)).not.toContain(f.msg('setupPairHow'));
    expect(f.msg('setupPairedOffline')).not.toBe(f.msg('setupPairHow'));
  });

  it('everything ready → no checklist, and "nothing waiting"', async () => {
    const f = await popup({});
    expect($('[data-testid="checklist"]')).toBeNull();
    expect(textOf(document.body)).toContain(f.msg('nothingPending'));
  });

  it('a pairing waiting → the primary button opens the window to type the code', async () => {
    const f = await popup({ agentsConnected: 0, agents: [], pairings: [{ pairingId: 'p1', agentName: 'Desk agent', fingerprint: '7Q2M-X9KD', attemptsLeft: 3, requestedAt: Date.now() }] });
    const primary = document.querySelectorAll<HTMLButtonElement>('button.primary');
    expect(primary).toHaveLength(1);
    expect(textOf(primary[0])).toBe(f.msg('pairOpenWindow'));
    primary[0]!.click();
    await flush();
    expect(f.sent.some((m) => m.type === 'countersign/open-window')).toBe(true);
  });

  it('Settings opens the options page', async () => {
    const f = await popup({});
    $<HTMLButtonElement>('[data-testid="settings"]')!.click();
    expect(f.openOptionsPage).toHaveBeenCalledTimes(1);
  });

  it('the diagnosis shows every fix (Firefox: the doctor, then the install command)', async () => {
    await popup({ ...bridgeMissing, browserFamily: 'firefox', bridgeError: 'No such native application dev.countersign.bridge' });
    const codes = [...document.querySelectorAll('[data-testid="diagnosis"] code')].map(textOf);
    expect(codes).toEqual(['countersign-bridge doctor', 'countersign-bridge install --browser firefox']);
  });
});

describe('popup: approvals in progress', () => {
  beforeEach(() => document.body.replaceChildren());

  it('pending items → "Review N waiting" (plural) as the primary button, which opens the window', async () => {
    const f = await popup({ active: [view({ state: 'pending' }), view({ state: 'pending' })] });
    const primary = document.querySelectorAll<HTMLButtonElement>('button.primary');
    expect(primary).toHaveLength(1);
    expect(textOf(primary[0])).toBe(f.msg('reviewWaiting_other', '2'));
    primary[0]!.click();
    await flush();
    expect(f.sent.filter((m) => m.type === 'countersign/open-window')).toHaveLength(1);
    document.body.replaceChildren();
    const one = await popup({ active: [view({ state: 'pending' })] });
    expect(textOf($('button.primary'))).toBe(one.msg('reviewWaiting_one', '1'));
  });

  it('approved, not sent: listed with Withdraw; an untrusted click sends nothing, the person\'s click withdraws', async () => {
    const approved = view({ state: 'approved' });
    const f = await popup({ active: [approved] });
    const row = $(`[data-testid="in-progress"] li[data-key="${approved.key}"]`)!;
    expect(textOf(row.querySelector('.chip'))).toBe(f.msg('chipApproved'));
    const withdraw = row.querySelector<HTMLButtonElement>('[data-testid="withdraw"]')!;
    withdraw.click();
    withdraw.dispatchEvent(new MouseEvent('click', { bubbles: true }));
    await flush();
    expect(f.sent.filter((m) => m.type === 'countersign/withdraw')).toHaveLength(0);
    trustedClick(withdraw);
    await flush();
    expect(f.sent.filter((m) => m.type === 'countersign/withdraw')).toEqual([{ type: 'countersign/withdraw', key: approved.key, trusted: true }]);
    expect(textOf(row.querySelector('.withdraw-note'))).toBe(f.msg('withdrawDone'));
  });

  it('too late to withdraw → it says so', async () => {
    const approved = view({ state: 'approved' });
    loadPage('popup');
    const f = fakeBrowser({ active: [approved] });
    f.withdrawAnswer = { ok: true, tooLate: true };
    await mountPopup(document, f.browser, '0.1.0', { close: () => undefined });
    trustedClick($('[data-testid="withdraw"]')!);
    await flush();
    expect(textOf($('.withdraw-note'))).toBe(f.msg('withdrawTooLate'));
  });

  it('sent items are listed without Withdraw', async () => {
    await popup({ active: [view({ state: 'sent' })] });
    expect($('[data-testid="in-progress"] li')).not.toBeNull();
    expect($('[data-testid="withdraw"]')).toBeNull();
  });

  it('a recent decision opens its record in a dialog', async () => {
    const done = view({ state: 'declined' });
    const f = await popup({ history: [done] });
    $<HTMLButtonElement>(`.recent li[data-key="${done.key}"] button.row-open`)!.click();
    const dialog = $<HTMLDialogElement>('#record-dialog')!;
    expect(dialog.open).toBe(true);
    expect(textOf(dialog)).toContain(f.msg('stateDeclined'));
  });
});

describe('popup: every visible text is a message or marked data', () => {
  beforeEach(() => document.body.replaceChildren());
  const states: Array<[string, Partial<Snapshot>]> = [
    ['bridge missing, Firefox', { ...bridgeMissing, browserFamily: 'firefox', bridgeError: 'No such native application x', agents: [] }],
    ['bridge down, other error', { bridge: 'down', bridgeError: 'Something odd', agentsConnected: 0 }],
    ['never paired, a pairing waiting', { agentsConnected: 0, agents: [], pairings: [{ pairingId: 'p', agentName: 'Desk', fingerprint: 'AAAA-BBBB', attemptsLeft: 3, requestedAt: 0 }] }],
    ['paired offline, a revoked agent asked', { agentsConnected: 0, problems: [{ kind: 'revoked', agentName: 'Old agent', at: 1 }] }],
    ['everything at once', { active: [view({ state: 'pending' }), view({ state: 'held' }), view({ state: 'approved' }), view({ state: 'unknown' })], history: ['performed', 'failed', 'declined', 'withdrawn', 'expired', 'superseded', 'cancelled', 'sent'].map((state) => view({ state: state as never })) }],
  ];
  for (const [name, snapshot] of states) {
    it(name, async () => {
      const f = await popup(snapshot);
      expect(document.body.textContent.trim().length).toBeGreaterThan(0);
      // A copy note and a withdraw note, and an open record, are on the page too.
      $<HTMLButtonElement>('[data-testid="copy-command"]')?.click();
      const withdraw = $('[data-testid="withdraw"]');
      if (withdraw) trustedClick(withdraw);
      $<HTMLButtonElement>('.recent button.row-open')?.click();
      await flush();
      expect(unlocalisedText(document.body, f.shown)).toEqual([]);
    });
  }
});
