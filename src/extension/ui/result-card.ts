import { inspectText } from '../../summary/text-inspection.ts';
import type { ApprovalView } from '../snapshot';
import type { Translate } from './i18n';
import { textElements } from './text-elements';
import { factsOf } from './facts';
import { youApproveLine } from '../../review/key-facts.ts';

function youApproveFacts(terms: Record<string, unknown> | undefined, t: Translate): string {
  return youApproveLine(factsOf(terms, t).slice(0, 2));
}

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

/**
 * "Expired at 14:05 — nothing was approved. Your agent can ask again." One card per item that
 * left the queue while the window showed it, with Close (docs/ui.md, "Outcomes").
 */
export function renderResultCard(doc: Document, view: ApprovalView, t: Translate, compact: boolean): HTMLElement {
  const el = textElements(doc);
  const ok = view.state === 'performed';
  const card = el('article', undefined, `card result ${ok ? 'ok' : 'neutral'}${compact ? ' compact' : ''}`);
  card.dataset.testid = 'result';
  card.dataset.state = view.state;
  const at = new Date(view.updatedAt);
  const time = el('time', new Intl.DateTimeFormat(t.locale, { timeStyle: 'short' }).format(at), 'time', true);
  time.dateTime = at.toISOString();
  time.title = new Intl.DateTimeFormat(t.locale, { dateStyle: 'full', timeStyle: 'long' }).format(at);
  const company = inspectText(view.company.name, { singleLine: true }).display;
  const heading = el(compact ? 'p' : 'h1', undefined, 'heading');
  heading.append(...withElement(t(RESULT_MESSAGE[view.state] ?? 'resultOther', [TIME_SLOT, company]), time));
  heading.tabIndex = -1;
  card.append(heading);
  // Which request this was: the Company and the terms' facts, so the card stands on its own.
  if (!compact) card.append(el('p', [company, youApproveFacts(view.operation.terms, t)].filter(Boolean).join(' \u00B7 '), 'what muted', true));
  if (!compact && view.state === 'failed' && view.outcomeDetail) card.append(el('p', inspectText(view.outcomeDetail, { singleLine: true }).display, 'muted', true));
  const close = el('button', t('close'), 'secondary close');
  close.type = 'button';
  close.dataset.action = 'close-result';
  close.dataset.key = view.key;
  close.setAttribute('aria-label', t('closeResult', company));
  card.append(close);
  return card;
}
