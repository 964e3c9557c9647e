import { describe, expect, it } from 'vitest';
import { isReviewOf, receivedSnapshot } from '../../../src/extension/ui/received-snapshot';
import type { ReviewedView } from '../../../src/extension/snapshot';
import { approvalWindowInJsdom } from './approval-window-jsdom';
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
    const page = approvalWindowInJsdom();
    try {
      page.mount();
      page.ports[0]!.deliver(snapshotWith(danger));
      const shown = page.doc.getElementById('content')!.textContent;
      expect(page.doc.querySelector('[data-testid="risk"]')).not.toBeNull();
      // The same item, its review emptied of the danger: refused, so the danger is still on screen.
      page.ports[0]!.deliver(snapshotWith({ ...danger, review: { ...danger.review, findings: [{ severity: 'danger' }] } }));
      expect(page.doc.getElementById('content')!.textContent).toBe(shown);
      expect(page.doc.querySelector('[data-testid="risk"]')).not.toBeNull();
      expect(page.doc.querySelector<HTMLButtonElement>('#approve')!.disabled).toBe(true);
    } finally {
      page.close();
    }
  });
});
