import { inspectText } from '../../summary/text-inspection.ts';
import type { ApprovalView, ReviewedView } from '../snapshot';
import type { Translate } from './i18n';
import { textElements } from './text-elements';

/** How an item that left the queue ended, as the person needs to hear it. */
const RESULT_MESSAGE: Partial<Record<ApprovalView['state'], string>> = {
  expired: 'resultExpired',
  performed: 'resultPerformed',
  failed: 'resultFailed',
  declined: 'resultDeclined',
  withdrawn: 'resultWithdrawn',
  cancelled: 'resultCancelled',
};

/** Stands for the time in the message, so the time can be its own element wherever the language puts it. */
const TIME_SLOT = '\u2063TIME\u2063';

function withElement(message: string, element: HTMLElement): Array<string | HTMLElement> {
  const [before, after] = message.split(TIME_SLOT);
  return after === undefined ? [message] : [before ?? '', element, after];
}

/** States that end an item: the window leaves a trace of them rather than letting it vanish. */
export function isResult(state: ApprovalView['state']): boolean {
  return state in RESULT_MESSAGE;
}

/** Items that ended together (Decline all, a burst expiring): one card, not one Close each. */
const MANY_MESSAGE: Partial<Record<ApprovalView['state'], string>> = {
  declined: 'resultDeclinedMany',
  expired: 'resultExpiredMany',
  withdrawn: 'resultWithdrawnMany',
  cancelled: 'resultCancelledMany',
};

function timeElement(el: ReturnType<typeof textElements>, at: Date, t: Translate): HTMLTimeElement {
  const time = el('time', new Intl.DateTimeFormat(t.locale, { timeStyle: 'short' }).format(at), 'time', true);
  time.dateTime = at.toISOString();
  time.title = new Intl.DateTimeFormat(t.locale, { dateStyle: 'full', timeStyle: 'long' }).format(at);
  return time;
}

/**
 * "Expired at 14:05 — nothing was approved. Your agent can ask again." One card per item (or per
 * group of items that ended together) that left the queue while the window showed it, with Close
 * (docs/ui.md, "Outcomes").
 */
export function renderResultCard(doc: Document, views: readonly ReviewedView[], t: Translate, compact: boolean): HTMLElement {
  const el = textElements(doc);
  const view = views[0]!;
  const ok = view.state === 'performed';
  const card = el('article', undefined, `card result ${ok ? 'ok' : 'neutral'}${compact ? ' compact' : ''}`);
  card.dataset.testid = 'result';
  card.dataset.state = view.state;
  const time = timeElement(el, new Date(Math.max(...views.map((v) => v.updatedAt))), t);
  const companies = [...new Set(views.map((v) => inspectText(v.company.name, { singleLine: true }).display))];
  const company = companies.join(', ');
  const message =
    views.length > 1
      ? t.plural(MANY_MESSAGE[view.state] ?? 'resultOtherMany', views.length, [TIME_SLOT])
      : t(RESULT_MESSAGE[view.state] ?? 'resultOther', [TIME_SLOT, company]);
  const heading = el(compact ? 'p' : 'h1', undefined, 'heading');
  heading.append(...withElement(message, time));
  heading.tabIndex = -1;
  card.append(heading);
  // Which request this was: the Company and the terms' facts, so the card stands on its own.
  const what = views.length > 1 ? company : [company, view.review.youApprove].filter(Boolean).join(' \u00B7 ');
  if (!compact) card.append(el('p', what, 'what muted', true));
  if (!compact && views.length === 1 && view.state === 'failed' && view.outcomeDetail) card.append(el('p', inspectText(view.outcomeDetail, { singleLine: true }).display, 'muted', true));
  const close = el('button', t('close'), 'secondary close');
  close.type = 'button';
  close.dataset.action = 'close-result';
  close.dataset.key = view.key;
  close.setAttribute('aria-label', t('closeResult', company));
  card.append(close);
  return card;
}
