// @vitest-environment jsdom
import { describe, it, expect } from 'vitest';
import { isResult, renderResultCard } from '../../../src/extension/ui/result-card';
import type { ReviewedView } from '../../../src/extension/snapshot';
import { englishTranslate } from './locale-table';
import { textOf } from './fake-browser';
import { jacketView, STORMLINE } from './jacket-view';

const t = englishTranslate();
const AT = Date.UTC(2026, 9, 8, 19, 5);
const short = (ms: number) => new Intl.DateTimeFormat('en', { timeStyle: 'short' }).format(new Date(ms));

function card(views: ReviewedView[], compact = false) {
  const c = renderResultCard(document, views, t, compact);
  document.body.replaceChildren(c);
  return c;
}

describe('result card: one item that left the queue (docs/ui.md "Outcomes")', () => {
  it('expired: the sentence with the time as a <time> element carrying its ISO datetime', () => {
    const c = card([jacketView({ state: 'expired', updatedAt: AT })]);
    expect(c.dataset.state).toBe('expired');
    expect(c.classList.contains('neutral')).toBe(true);
    const heading = c.querySelector('h1.heading')!;
    expect(textOf(heading)).toBe(`Expired at ${short(AT)} — nothing was approved. Your agent can ask again.`);
    const time = heading.querySelector('time')!;
    expect(time.dateTime).toBe(new Date(AT).toISOString());
    expect(time.textContent).toBe(short(AT));
    expect(time.hasAttribute('data-value')).toBe(true);
    expect(time.title).toContain('2026');
  });

  it('performed: an "ok" card naming the Company; what was done follows in a line of its own', () => {
    const c = card([jacketView({ state: 'performed', updatedAt: AT })]);
    expect(c.classList.contains('ok')).toBe(true);
    expect(textOf(c.querySelector('.heading'))).toBe(`You approved this, and ${STORMLINE.name} did it at ${short(AT)}.`);
    const what = c.querySelector('.what')!;
    expect(textOf(what)).toBe('Stormline Outfitters · Price difference $70.00 · Order ID ord_7Hk2');
    expect(what.hasAttribute('data-value')).toBe(true);
  });

  it('Close: a button with data-action="close-result", the item\'s key, and a label naming the Company', () => {
    const v = jacketView({ state: 'declined', updatedAt: AT });
    const close = card([v]).querySelector<HTMLButtonElement>('button[data-action="close-result"]')!;
    expect(close.type).toBe('button');
    expect(close.textContent).toBe(t('close'));
    expect(close.dataset.key).toBe(v.key);
    expect(close.getAttribute('aria-label')).toBe(t('closeResult', STORMLINE.name));
  });

  it('failed: the Company\'s reason, as data on one line', () => {
    const c = card([jacketView({ state: 'failed', updatedAt: AT, outcomeDetail: 'Card declined\nby the bank' })]);
    const detail = [...c.querySelectorAll('p.muted')].find((p) => !p.classList.contains('what'))!;
    expect(detail.textContent).not.toContain('\n');
    expect(detail.textContent).toContain('Card declined');
    expect(detail.hasAttribute('data-value')).toBe(true);
  });

  it('compact: the sentence as a paragraph, no "what" line', () => {
    const c = card([jacketView({ state: 'declined', updatedAt: AT })], true);
    expect(c.classList.contains('compact')).toBe(true);
    expect(c.querySelector('h1')).toBeNull();
    expect(c.querySelector('p.heading time')).not.toBeNull();
    expect(c.querySelector('.what')).toBeNull();
  });

  it('a state with no sentence of its own says "ended"', () => {
    expect(isResult('superseded')).toBe(false);
    expect(textOf(card([jacketView({ state: 'superseded', updatedAt: AT })]).querySelector('.heading'))).toBe(`This request ended at ${short(AT)}.`);
  });
});

describe('result card: items that ended together, one card', () => {
  it('three declined → the plural sentence, at the latest time, the Companies named once each', () => {
    const views = [
      jacketView({ state: 'declined', updatedAt: AT - 60_000 }),
      jacketView({ state: 'declined', updatedAt: AT }),
      jacketView({ state: 'declined', updatedAt: AT - 30_000, company: { name: 'Jacket Shop', origin: 'https://jacketshop.example' } }),
    ];
    const c = card(views);
    expect(textOf(c.querySelector('.heading'))).toBe(`Declined 3 requests at ${short(AT)} — nothing was approved.`);
    expect(c.querySelector('time')!.dateTime).toBe(new Date(AT).toISOString());
    expect(textOf(c.querySelector('.what'))).toBe('Stormline Outfitters, Jacket Shop');
    expect(c.querySelectorAll('button[data-action="close-result"]')).toHaveLength(1);
    expect(c.querySelector('button')!.getAttribute('aria-label')).toBe(t('closeResult', 'Stormline Outfitters, Jacket Shop'));
  });

  it('expired together → "N requests expired"; a state without a group sentence → "N requests ended"', () => {
    expect(textOf(card([jacketView({ state: 'expired', updatedAt: AT }), jacketView({ state: 'expired', updatedAt: AT })]).querySelector('.heading'))).toBe(
      `2 requests expired at ${short(AT)} — nothing was approved. Your agent can ask again.`,
    );
    expect(textOf(card([jacketView({ state: 'performed', updatedAt: AT }), jacketView({ state: 'performed', updatedAt: AT })]).querySelector('.heading'))).toBe(
      `2 requests ended at ${short(AT)}. The history has each one.`,
    );
  });
});
