import { readFileSync } from 'node:fs';
import { JSDOM } from 'jsdom';
import { describe, expect, it } from 'vitest';
import { mountApprovalWindow } from '../../../src/extension/ui/approval-window-page';
import { isReviewOf, receivedSnapshot } from '../../../src/extension/ui/received-snapshot';
import type { ReviewedView } from '../../../src/extension/snapshot';
import { chromeGetMessage, englishMessages } from './locale-table';
import { baseSnapshot } from './fake-browser';
import { jacketOperation, jacketView, T700 } from './jacket-view';

const danger = jacketView({ operation: jacketOperation({ terms: T700 }) });
const snapshotWith = (view: unknown) => ({ snapshot: { ...baseSnapshot(), active: [view] } });

/** Each way a review may arrive broken or for other terms. */
const BROKEN: Array<[string, (view: ReviewedView) => unknown]> = [
  ['no review', ({ review: _review, ...view }) => view],
  ['the review of another revision', (view) => ({ ...view, review: { ...view.review, revision: 'rev0' } })],
  ['the review of another operation', (view) => ({ ...view, review: { ...view.review, operationId: 'exc_other' } })],
  ['findings that are not a list', (view) => ({ ...view, review: { ...view.review, findings: {} } })],
  ['a finding without its severity', (view) => ({ ...view, review: { ...view.review, findings: view.review.findings.map(({ severity: _s, ...f }) => f) } })],
  ['a finding of an unknown severity', (view) => ({ ...view, review: { ...view.review, findings: view.review.findings.map((f) => ({ ...f, severity: 'fine' })) } })],
  ['a fact whose value is a number', (view) => ({ ...view, review: { ...view.review, facts: view.review.facts.map((f) => ({ ...f, value: 700 })) } })],
  ['a checked statement without its text', (view) => ({ ...view, review: { ...view.review, checked: [{ code: 'amounts-stated', message: 'x' }] } })],
  ['a diff whose words are not a list', (view) => ({ ...view, review: { ...view.review, diff: { summary: 'x', terms: [], expiry: null } } })],
];

describe('the window checks the review it is sent (docs/ui.md, "Where the review runs")', () => {
  it('a review the background made for the view passes', () => {
    expect(isReviewOf(danger.review, danger.operation)).toBe(true);
    expect(receivedSnapshot(snapshotWith(danger))?.active).toEqual([danger]);
  });

  it.each(BROKEN)('refuses a snapshot with %s', (_name, broken) => {
    const message = snapshotWith(broken(danger));
    expect(receivedSnapshot(message)).toBeNull();
  });

  it('refuses what is no snapshot at all', () => {
    for (const message of [null, 'x', {}, { snapshot: null }, { snapshot: { active: 'x' } }]) expect(receivedSnapshot(message)).toBeNull();
  });

  it('a refused snapshot changes nothing on screen: the item shown with its danger stays, Approve stays off', () => {
    const html = readFileSync('entrypoints/approve/index.html', 'utf8').replace(/<script[^>]*><\/script>/g, '');
    const { window } = new JSDOM(html, { pretendToBeVisual: true });
    const get = chromeGetMessage(englishMessages());
    const deliver: Array<(m: unknown) => void> = [];
    const browser = {
      i18n: { getMessage: (key: string, subs?: string | string[]) => (key === '@@ui_locale' ? 'en' : get(key, subs)), getUILanguage: () => 'en' },
      runtime: { connect: () => ({ onMessage: { addListener: (f: (m: unknown) => void) => deliver.push(f) }, onDisconnect: { addListener: () => undefined } }), sendMessage: async () => ({ ok: true }) },
    };
    const realInterval = globalThis.setInterval;
    const timers: Array<ReturnType<typeof setInterval>> = [];
    globalThis.setInterval = ((f: () => void, ms: number) => timers[timers.push(realInterval(f, ms)) - 1]) as typeof setInterval;
    try {
      mountApprovalWindow(window.document, browser as never);
      deliver[0]!(snapshotWith(danger));
      const shown = window.document.getElementById('content')!.textContent;
      expect(window.document.querySelector('[data-testid="risk"]')).not.toBeNull();
      // The same item, its review emptied of the danger: refused, so the danger is still on screen.
      deliver[0]!(snapshotWith({ ...danger, review: { ...danger.review, findings: [{ severity: 'danger' }] } }));
      expect(window.document.getElementById('content')!.textContent).toBe(shown);
      expect(window.document.querySelector('[data-testid="risk"]')).not.toBeNull();
      expect(window.document.querySelector<HTMLButtonElement>('#approve')!.disabled).toBe(true);
    } finally {
      globalThis.setInterval = realInterval;
      for (const id of timers) clearInterval(id);
      window.close();
    }
  });
});
