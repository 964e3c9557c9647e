// @vitest-environment jsdom
import { describe, it, expect, beforeEach } from 'vitest';
import { mountOptions } from '../../../src/extension/ui/options-page';
import { fakeBrowser, flush, loadPage, textOf, unlocalisedText, view, type FakeBrowser } from './fake-browser';
import type { ApprovalView, Snapshot } from '../../../src/extension/snapshot';

async function options(snapshot: Partial<Snapshot> = {}, history?: (q: string) => ApprovalView[]): Promise<FakeBrowser> {
  loadPage('options');
  const fake = fakeBrowser(snapshot);
  if (history) fake.history = history;
  await mountOptions(document, fake.browser).ready;
  return fake;
}

const $ = <T extends Element = HTMLElement>(selector: string) => document.querySelector<T>(selector);

async function search(text: string): Promise<void> {
  const box = $<HTMLInputElement>('#search')!;
  box.value = text;
  box.dispatchEvent(new Event('input'));
  await new Promise((r) => setTimeout(r, 200));
  await flush();
}

describe('options: plain words and technical details', () => {
  beforeEach(() => document.body.replaceChildren());

  it('headings in plain words; the extension key only inside "Technical details"', async () => {
    const f = await options();
    const headings = [...document.querySelectorAll('h2')].map(textOf);
    expect(headings).toEqual(expect.arrayContaining([f.msg('agentsHeading'), f.msg('historyHeading'), f.msg('settingsHeading')]));
    const key = $('#key')!;
    expect(key.textContent).toBe(f.snapshot.extensionKeyThumbprint);
    expect(key.closest('details')).not.toBeNull();
    expect(textOf(key.closest('details')!.querySelector('summary'))).toBe(f.msg('technicalDetails'));
    // Nowhere outside the details does the key show.
    const outside = [...document.querySelectorAll('main > *')].filter((n) => !n.contains(key)).map(textOf).join(' ');
    expect(outside).not.toContain(f.snapshot.extensionKeyThumbprint);
  });

  it('the pairing section shows only while a pairing waits', async () => {
    await options();
    expect($('#pairing-section')!.hidden).toBe(true);
    document.body.replaceChildren();
    await options({ pairings: [{ pairingId: 'p', agentName: 'Desk', fingerprint: 'AAAA-BBBB', attemptsLeft: 3, requestedAt: 0 }] });
    expect($('#pairing-section')!.hidden).toBe(false);
  });
});

describe('options: history', () => {
  beforeEach(() => document.body.replaceChildren());

  it('empty history, no search → "No decisions yet"', async () => {
    const f = await options({ history: [] });
    expect(textOf($('[data-testid="history-empty"]'))).toBe(f.msg('historyEmpty'));
    expect(f.msg('historyEmpty')).toBe('No decisions yet');
  });

  it('a search that finds nothing → "Nothing matches “…”", with the words searched', async () => {
    const f = await options({ history: [view()] });
    expect($('[data-testid="history-empty"]')).toBeNull();
    await search('zebra');
    expect(textOf($('[data-testid="history-empty"]'))).toBe(f.msg('historyNoMatch', 'zebra'));
    expect(textOf($('[data-testid="history-empty"]'))).toBe('Nothing matches “zebra”');
    await search('');
    expect($('[data-testid="history-empty"]')).toBeNull();
    expect(document.querySelectorAll('#history li')).toHaveLength(1);
  });

  it('a row opens the stored record in a dialog, as text: Company, domain, what happened, amounts, summary, agent, times', async () => {
    const v = view({ state: 'failed', outcomeDetail: 'Out of stock' });
    const f = await options({ history: [v] });
    $<HTMLButtonElement>(`#history li[data-key="${v.key}"] button.row-open`)!.click();
    const dialog = $<HTMLDialogElement>('#record-dialog')!;
    expect(dialog.open).toBe(true);
    const text = textOf(dialog);
    for (const part of ['Jacket Shop', f.msg('stateFailed'), f.msg('chipFailed'), '$70.00', 'ord_7Hk2', 'Out of stock', 'Exchange your jacket for size L; we charge the price difference.', '7Q2M-X9KD', 'Desk agent']) {
      expect(text).toContain(part);
    }
    expect(textOf(dialog.querySelector('.domain strong'))).toBe('jacketshop.co.uk');
    expect(dialog.querySelectorAll('time')).toHaveLength(2);
    expect(dialog.querySelector('strong:not(.registrable) , em, a, img')).toBeNull();
    dialog.querySelector<HTMLButtonElement>('.buttons button')!.click();
    expect(dialog.open).toBe(false);
  });
});

describe('options: revoke asks first', () => {
  beforeEach(() => document.body.replaceChildren());

  it('Revoke opens a confirmation with the consequence; nothing is sent before confirming; Cancel sends nothing', async () => {
    const f = await options();
    const revoke = $<HTMLButtonElement>('#agents button')!;
    expect(revoke.getAttribute('aria-label')).toBe(f.msg('revokeLabel', 'Desk agent'));
    revoke.click();
    await flush();
    const dialog = $<HTMLDialogElement>('[data-testid="confirm"]')!;
    expect(dialog.open).toBe(true);
    expect(textOf(dialog)).toContain(f.msg('revokeConfirmBody', 'Desk agent'));
    expect(textOf(dialog.querySelector('h2'))).toBe(f.msg('revokeConfirmTitle', 'Desk agent'));
    expect(f.sent.filter((m) => m.type === 'countersign/revoke-agent')).toHaveLength(0);
    dialog.querySelector<HTMLButtonElement>('[data-testid="confirm-cancel"]')!.click();
    await flush();
    expect($('[data-testid="confirm"]')).toBeNull();
    expect(f.sent.filter((m) => m.type === 'countersign/revoke-agent')).toHaveLength(0);
  });

  it('confirming sends the revoke for that agent', async () => {
    const f = await options();
    $<HTMLButtonElement>('#agents button')!.click();
    await flush();
    expect(f.sent.filter((m) => m.type === 'countersign/revoke-agent')).toHaveLength(0);
    $<HTMLButtonElement>('[data-testid="confirm-act"]')!.click();
    await flush();
    expect(f.sent.filter((m) => m.type === 'countersign/revoke-agent')).toEqual([{ type: 'countersign/revoke-agent', thumbprint: f.snapshot.agents[0]!.thumbprint }]);
  });
});

describe('options: every visible text is a message or marked data', () => {
  beforeEach(() => document.body.replaceChildren());

  it('with agents (one revoked), history in every state, a pairing, a record and a confirmation open', async () => {
    const base = fakeBrowser().snapshot.agents[0]!;
    const history = (['performed', 'failed', 'declined', 'withdrawn', 'expired', 'superseded', 'cancelled', 'unknown'] as const).map((state) => view({ state }));
    const f = await options({
      history,
      agents: [base, { ...base, thumbprint: 'x'.repeat(43), fingerprint: 'AAAA-BBBB', name: 'Old agent', revokedAt: Date.now() }],
      pairings: [{ pairingId: 'p', agentName: 'Desk', fingerprint: 'AAAA-BBBB', attemptsLeft: 3, requestedAt: 0 }],
    });
    $<HTMLButtonElement>('#history button.row-open')!.click();
    $<HTMLButtonElement>('#agents button')!.click();
    await flush();
    expect(unlocalisedText(document.body, f.shown)).toEqual([]);
    await search('nothing-like-this');
    expect(unlocalisedText(document.body, f.shown)).toEqual([]);
  });

  it('empty page', async () => {
    const f = await options({ history: [], agents: [], extensionKeyThumbprint: null });
    expect(unlocalisedText(document.body, f.shown)).toEqual([]);
  });
});
