// @vitest-environment jsdom
import { describe, it, expect, beforeEach, vi } from 'vitest';
import { plainSummary, relativeTime, renderApprovalList } from '../../../src/extension/ui/lists';
import { translator } from '../../../src/extension/ui/i18n';
import { fakeBrowser, textOf, unlocalisedText, view } from './fake-browser';

const NOW = Date.UTC(2026, 9, 8, 19, 20);

function setup() {
  const f = fakeBrowser();
  const b = f.browser as unknown as { i18n: { getMessage: (k: string, s?: string | string[]) => string } };
  const t = translator((k, s) => b.i18n.getMessage(k, s), 'en');
  return { f, t };
}

describe('history rows you can scan (renderApprovalList)', () => {
  beforeEach(() => document.body.replaceChildren());

  it('a row: relative time (absolute in title and datetime), Company with its bold registrable domain, amount, chip, plain summary, agent with fingerprint', () => {
    const { f, t } = setup();
    const v = view({ state: 'performed', updatedAt: NOW - 5 * 60_000 });
    const list = renderApprovalList(document, [v], t, { now: NOW });
    document.body.append(list);
    const row = list.querySelector('li')!;
    const time = row.querySelector('time')!;
    expect(textOf(time)).toBe('5 minutes ago');
    expect(time.dateTime).toBe(new Date(NOW - 5 * 60_000).toISOString());
    expect(time.title).toBe(new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(NOW - 5 * 60_000)));
    expect(textOf(row.querySelector('.company'))).toBe('Jacket Shop');
    expect(textOf(row.querySelector('.domain'))).toBe('checkout.jacketshop.co.uk');
    expect(textOf(row.querySelector('.domain strong'))).toBe('jacketshop.co.uk');
    expect(textOf(row.querySelector('.amount'))).toBe('$70.00');
    expect(textOf(row.querySelector('.chip'))).toBe(f.msg('chipPerformed'));
    expect(f.msg('chipPerformed')).toBe('Approved · done');
    expect(textOf(row.querySelector('.summary'))).toBe('Exchange your jacket for size L; we charge the price difference.');
    expect(textOf(row.querySelector('.asker'))).toBe(f.msg('rowAskedBy', ['Desk agent', '7Q2M-X9KD']));
    expect(textOf(row.querySelector('.asker'))).toContain('7Q2M-X9KD');
    expect(unlocalisedText(list, f.shown)).toEqual([]);
  });

  it('each state has its own chip words', () => {
    const { f, t } = setup();
    const states = ['performed', 'approved', 'sent', 'declined', 'expired', 'withdrawn', 'cancelled', 'failed', 'unknown', 'superseded'] as const;
    const list = renderApprovalList(document, states.map((state) => view({ state })), t, { now: NOW });
    const chips = [...list.querySelectorAll('.chip')].map(textOf);
    expect(chips).toEqual(['Approved · done', 'Approved · sending', 'Approved · sent', 'Declined', 'Expired', 'Withdrawn', 'Cancelled', 'Failed', 'Outcome unknown', 'Replaced by a newer request']);
    expect(new Set(chips).size).toBe(chips.length);
    expect(chips[0]).toBe(f.msg('chipPerformed'));
  });

  it('no amount in the terms → no amount shown; no origin → the origin as given, still bold', () => {
    const { t } = setup();
    const v = view({ origin: null, operation: { ...view().operation, terms: { order_id: 'ord_1' } } });
    const row = renderApprovalList(document, [v], t, { now: NOW }).querySelector('li')!;
    expect(row.querySelector('.amount')).toBeNull();
    expect(textOf(row.querySelector('.domain strong'))).toBe('https://checkout.jacketshop.co.uk');
  });

  it('the summary is plain text: no Markdown rendered, cut near 140 characters', () => {
    const { t } = setup();
    const long = `# Heading\n\n**Bold** and [a link](https://evil.example) and <img src=x onerror=alert(1)> ${'word '.repeat(60)}`;
    const row = renderApprovalList(document, [view({ operation: { ...view().operation, summary: long } })], t, { now: NOW }).querySelector('li')!;
    const summary = row.querySelector('.summary')!;
    expect(summary.children).toHaveLength(0);
    expect(summary.textContent.startsWith('Heading Bold and a link and <img src=x onerror=alert(1)>')).toBe(true);
    expect(Array.from(summary.textContent).length).toBeLessThanOrEqual(141);
    expect(summary.textContent.endsWith('…')).toBe(true);
    expect(row.querySelector('img, a')).toBeNull();
  });

  it('Company and agent text is untrusted: set as text, hidden characters shown as tokens', () => {
    const { t } = setup();
    const v = view({ company: { name: 'Evil\u202Emoc.<b>x</b>', origin: 'https://checkout.jacketshop.co.uk' }, agentName: 'Desk\u200Bagent' });
    const row = renderApprovalList(document, [v], t, { now: NOW }).querySelector('li')!;
    expect(row.querySelector('b')).toBeNull();
    expect(textOf(row.querySelector('.company'))).toBe('Evil⟨U+202E⟩moc.<b>x</b>');
    expect(textOf(row.querySelector('.asker'))).toContain('Desk⟨U+200B⟩agent');
  });

  it('a row opens its record when the page asks for it', () => {
    const { t } = setup();
    const onOpen = vi.fn();
    const v = view();
    const list = renderApprovalList(document, [v], t, { now: NOW, onOpen });
    list.querySelector<HTMLButtonElement>('button.row-open')!.click();
    expect(onOpen).toHaveBeenCalledWith(v);
  });
});

describe('plain text and relative time helpers', () => {
  it('strips emphasis but keeps identifiers with underscores and asterisks in numbers', () => {
    expect(plainSummary('Order ord_7Hk2 for *two* items, 2 * 3 = 6, __now__', null)).toBe('Order ord_7Hk2 for two items, 2 * 3 = 6, now');
    expect(plainSummary('- one\n- two\n> quoted', null)).toBe('one\ntwo\nquoted');
  });
  it('relative times in the page language', () => {
    expect(relativeTime(NOW - 30_000, NOW, 'en')).toBe('now');
    expect(relativeTime(NOW - 2 * 3600_000, NOW, 'en')).toBe('2 hours ago');
    expect(relativeTime(NOW - 24 * 3600_000, NOW, 'en')).toBe('yesterday');
    expect(relativeTime(NOW - 3 * 24 * 3600_000, NOW, 'de')).toBe('vor 3 Tagen');
  });
});
