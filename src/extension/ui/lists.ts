import { inspectText } from '../../summary/text-inspection.ts';
import { keyFacts, type KeyFact } from '../../review/key-facts.ts';
import { markData, type Translate } from './i18n';
import { textElements as elements } from './text-elements';
import type { ApprovalView, Snapshot } from '../snapshot';

/** The i18n message that says what state an approval is in, as a sentence (one table for every page). */
export const STATE_MESSAGE: Record<ApprovalView['state'], string> = {
  pending: 'notificationTitle',
  held: 'stateHeld',
  approved: 'stateApproved',
  sent: 'stateSent',
  unknown: 'stateUnknown',
  performed: 'statePerformed',
  failed: 'stateFailed',
  declined: 'stateDeclined',
  withdrawn: 'stateWithdrawn',
  expired: 'stateExpired',
  superseded: 'stateSuperseded',
  cancelled: 'stateCancelled',
};

/** The same state in two or three words, for the chip on a list row. */
export const CHIP_MESSAGE: Record<ApprovalView['state'], string> = {
  pending: 'chipPending',
  held: 'chipHeld',
  approved: 'chipApproved',
  sent: 'chipSent',
  unknown: 'chipUnknown',
  performed: 'chipPerformed',
  failed: 'chipFailed',
  declined: 'chipDeclined',
  withdrawn: 'chipWithdrawn',
  expired: 'chipExpired',
  superseded: 'chipSuperseded',
  cancelled: 'chipCancelled',
};

/** How a chip is coloured: good news, bad news, or neither. */
const CHIP_TONE: Record<ApprovalView['state'], 'ok' | 'bad' | 'wait' | 'off'> = {
  pending: 'wait',
  held: 'wait',
  approved: 'wait',
  sent: 'wait',
  unknown: 'wait',
  performed: 'ok',
  failed: 'bad',
  declined: 'off',
  withdrawn: 'off',
  expired: 'off',
  superseded: 'off',
  cancelled: 'off',
};

/** Elements whose text is set as text, never as HTML (one rule for every page: text-elements.ts). */
export { elements };

/** A one-line Company or agent string, its hidden and direction-changing characters shown as tokens. */
export function oneLine(text: string): string {
  return inspectText(text, { singleLine: true }).display;
}

const SUMMARY_CHARS = 140;

/**
 * A Markdown summary as plain text: hidden characters as tokens, emphasis, code, heading, quote
 * and list markers taken away, links as their words. Nothing is rendered: the result is text.
 * `max` cuts it (by characters, never inside a token) with an ellipsis; whole lines are joined.
 */
export function plainSummary(markdown: string, max: number | null = SUMMARY_CHARS): string {
  const shown = inspectText(markdown).display;
  const lines = shown.split(/\r?\n/).map((line) =>
    line
      .replace(/^\s{0,3}(?:#{1,6}\s+|>\s?|[-*+]\s+|\d{1,9}[.)]\s+)+/, '')
      .replace(/^\s{0,3}(?:[-*_]\s*){3,}$/, '')
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/`+([^`]*)`+/g, '$1')
      .replace(/(\*\*|__|~~)(?=\S)(.*?\S)\1/g, '$2')
      .replace(/(^|[^\w*])\*(?=\S)(.*?\S)\*(?!\*)/g, '$1$2')
      .replace(/(^|\W)_(?=\S)(.*?\S)_(?!\w)/g, '$1$2')
      .replace(/\\([\\`*_{}[\]()#+\-.!~>|])/g, '$1')
      .trim(),
  );
  const text = (max === null ? lines.filter(Boolean).join('\n') : lines.filter(Boolean).join(' ')).replace(/[ \t]+/g, ' ');
  if (max === null) return text;
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  let cut = chars.slice(0, max).join('');
  // A token (⟨U+202E⟩) is never cut in half.
  const open = cut.lastIndexOf('\u27E8');
  if (open > cut.lastIndexOf('\u27E9')) cut = cut.slice(0, open);
  return `${cut.trimEnd()}\u2026`;
}

/** The key facts of an approval's terms, or none when the terms are not a plain object. */
export function factsOf(view: ApprovalView, t: Translate): KeyFact[] {
  try {
    return keyFacts(view.operation.terms, { locale: t.locale });
  } catch {
    return [];
  }
}

/** The first amount in the terms ("$70.00"), or null. */
export function amountOf(view: ApprovalView, t: Translate): string | null {
  return factsOf(view, t).find((f) => f.kind === 'money')?.value ?? null;
}

const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
];

/** "5 minutes ago", "yesterday", "now", in the page's language. */
export function relativeTime(at: number, now: number, locale: string): string {
  const format = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' });
  const seconds = Math.round((at - now) / 1000);
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size) return format.format(Math.trunc(seconds / size), unit);
  }
  return format.format(0, 'second');
}

/** "Oct 8, 2026, 7:20 PM", in the page's language and the person's time zone. */
export function absoluteTime(at: number, locale: string): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(at));
}

/** A `<time>` with the relative time as text, the absolute one as its title and machine form. */
export function timeElement(doc: Document, at: number, locale: string, now = Date.now()): HTMLTimeElement {
  const time = markData(doc.createElement('time'));
  time.dateTime = new Date(at).toISOString();
  time.title = absoluteTime(at, locale);
  time.textContent = relativeTime(at, now, locale);
  return time;
}

/** The Company's website with its registrable domain in bold: `shop.` **`example.com`**. */
export function domainElement(doc: Document, view: ApprovalView): HTMLElement {
  const el = elements(doc);
  const domain = el('span', undefined, 'domain', true);
  const origin = view.origin;
  if (!origin) {
    domain.append(el('strong', oneLine(view.company.origin), 'registrable', true));
    return domain;
  }
  // Plain http is worth seeing; https is the expected case and left out to keep the row short.
  if (origin.scheme === 'http') domain.append(el('span', 'http://', 'scheme', true));
  if (origin.subdomain) domain.append(el('span', `${origin.subdomain}.`, 'subdomain', true));
  domain.append(el('strong', origin.registrableDomain, 'registrable', true));
  if (origin.port) domain.append(el('span', `:${origin.port}`, 'port', true));
  return domain;
}

export interface ListOptions {
  /** Makes each row a button that opens the record's details. */
  onOpen?: (view: ApprovalView) => void;
  /** Something to do on a row (Withdraw), shown after it. */
  action?: (view: ApprovalView) => HTMLElement | null;
  /** For relative times; default now. */
  now?: number;
}

/**
 * A list of approvals to scan: when, which Company (its domain in bold), how much, what became
 * of it, the first words of the summary as plain text (nothing rendered), and which agent asked.
 */
export function renderApprovalList(doc: Document, views: ApprovalView[], t: Translate, options: ListOptions = {}): HTMLUListElement {
  const el = elements(doc);
  const list = el('ul', undefined, 'approvals');
  const now = options.now ?? Date.now();
  for (const v of views) {
    const item = el('li', undefined, 'row');
    item.dataset.key = v.key;
    item.dataset.state = v.state;
    let body: HTMLElement = el('div', undefined, 'row-body');
    const onOpen = options.onOpen;
    if (onOpen) {
      const button = el('button', undefined, 'row-open');
      button.type = 'button';
      button.addEventListener('click', () => onOpen(v));
      body = button;
    }
    const top = el('span', undefined, 'row-top');
    const company = el('strong', oneLine(v.company.name), 'company', true);
    top.append(company, domainElement(doc, v));
    const amount = amountOf(v, t);
    if (amount) top.append(el('span', amount, 'amount', true));
    const chip = el('span', t(CHIP_MESSAGE[v.state]), `chip ${CHIP_TONE[v.state]}`);
    chip.dataset.state = v.state;
    top.append(chip, timeElement(doc, v.updatedAt, t.locale, now));
    const summary = el('span', plainSummary(v.operation.summary), 'summary', true);
    // Who asked, with the fingerprint: a row must not read the same for two agents of one name.
    const asker = el('span', t('rowAskedBy', [oneLine(v.agentName), v.agentFingerprint]), 'asker');
    body.append(top, summary, asker);
    // The button's name: who, what became of it, when; not every word of the row.
    if (onOpen) body.setAttribute('aria-label', t('rowOpenLabel', [company.textContent ?? '', chip.textContent ?? '', top.querySelector('time')?.textContent ?? '']));
    item.append(body);
    const action = options.action?.(v);
    if (action) item.append(action);
    list.append(item);
  }
  return list;
}

/** Opens a `<dialog>` as modal where the browser can, else just open (jsdom). */
export function openDialog(dialog: HTMLDialogElement): void {
  if (dialog.open) return;
  if (typeof dialog.showModal === 'function') dialog.showModal();
  else dialog.setAttribute('open', '');
}

export function closeDialog(dialog: HTMLDialogElement, returnValue = ''): void {
  if (typeof dialog.close === 'function') dialog.close(returnValue);
  else {
    dialog.returnValue = returnValue;
    dialog.removeAttribute('open');
    dialog.dispatchEvent(new Event('close'));
  }
}

/**
 * The stored record of one approval, as text: Company, website, what happened, the amounts and
 * other facts from its terms, the summary as plain text, who asked, when. Not the approval
 * window's renderer: nothing here is rendered from Markdown.
 */
export function renderRecordDetails(doc: Document, view: ApprovalView, t: Translate): HTMLElement {
  const el = elements(doc);
  const box = el('div', undefined, 'record');
  box.dataset.testid = 'record';
  const heading = el('h2', oneLine(view.company.name), 'record-company', true);
  heading.id = 'record-heading';
  box.append(heading);
  const list = el('dl', undefined, 'record-facts');
  const row = (label: string, ...value: Array<HTMLElement | string>) => {
    const dd = el('dd');
    dd.append(...value);
    list.append(el('dt', t(label)), dd);
  };
  row('detailWebsite', domainElement(doc, view));
  row('detailWhatHappened', el('span', t(CHIP_MESSAGE[view.state]), `chip ${CHIP_TONE[view.state]}`), el('span', t(STATE_MESSAGE[view.state]), 'state-sentence'));
  if (view.outcomeDetail) row('detailOutcome', el('span', oneLine(view.outcomeDetail).slice(0, 500), undefined, true));
  const facts = factsOf(view, t);
  if (facts.length) {
    const ul = el('ul', undefined, 'record-terms');
    for (const f of facts) {
      const li = el('li');
      li.append(el('span', f.label, 'fact-label', true), el('span', f.value, 'fact-value', true));
      ul.append(li);
    }
    row('detailAmounts', ul);
  }
  row('detailSummary', el('p', plainSummary(view.operation.summary, null), 'record-summary', true));
  row('detailAskedBy', el('span', t('rowAskedBy', [oneLine(view.agentName), view.agentFingerprint])));
  const when = (at: number) => {
    const time = timeElement(doc, at, t.locale);
    time.textContent = absoluteTime(at, t.locale);
    return time;
  };
  row('detailAsked', when(view.createdAt));
  row('detailUpdated', when(view.updatedAt));
  row('detailReference', el('code', `${oneLine(view.operation.operation_id)} · ${oneLine(view.operation.revision)}`, undefined, true));
  box.append(list);
  return box;
}

/**
 * Shows one record in the page's `<dialog id="record-dialog">` (made on first use), with a
 * Close button; focus goes back where it was when it closes.
 */
export function showRecord(doc: Document, view: ApprovalView, t: Translate): HTMLDialogElement {
  const el = elements(doc);
  let dialog = doc.getElementById('record-dialog') as HTMLDialogElement | null;
  if (!dialog) {
    dialog = el('dialog', undefined, 'record-dialog');
    dialog.id = 'record-dialog';
    dialog.setAttribute('aria-labelledby', 'record-heading');
    doc.body.append(dialog);
  }
  const returnTo = doc.activeElement as HTMLElement | null;
  const close = el('button', t('close'));
  close.type = 'button';
  const d = dialog;
  close.addEventListener('click', () => closeDialog(d));
  d.addEventListener('close', () => returnTo?.focus?.(), { once: true });
  const buttons = el('div', undefined, 'buttons');
  buttons.append(close);
  d.replaceChildren(renderRecordDetails(doc, view, t), buttons);
  openDialog(d);
  close.focus();
  return d;
}

export function renderAgents(
  doc: Document,
  snapshot: Snapshot,
  onRevoke: (agent: Snapshot['agents'][number]) => void,
  t: Translate,
  onRequirePasskey?: (agent: Snapshot['agents'][number], required: boolean, trusted: boolean) => void,
): HTMLTableElement {
  const el = elements(doc);
  const table = el('table', undefined, 'agents');
  const head = el('thead');
  const headRow = el('tr');
  for (const label of ['agentsColName', 'agentsColFingerprint', 'agentsColPaired', 'agentsColAction']) {
    const th = el('th', t(label));
    th.scope = 'col';
    headRow.append(th);
  }
  head.append(headRow);
  const body = el('tbody');
  for (const agent of snapshot.agents) {
    const row = el('tr');
    if (agent.revokedAt) row.className = 'revoked';
    const shownName = oneLine(agent.name);
    const name = el('td', shownName, undefined, true);
    const key = el('td');
    // The short fingerprint the agent prints (and every prompt shows), then the full RFC 7638
    // thumbprint, grouped for reading aloud against the agent's own display.
    const short = el('strong', agent.fingerprint, undefined, true);
    const full = el('small', (agent.thumbprint.match(/.{1,4}/g) ?? []).join(' '), 'thumbprint', true);
    key.append(short, full);
    key.setAttribute('aria-label', t('agentFingerprintLabel', [agent.fingerprint, agent.thumbprint]));
    const when = el('td');
    if (agent.revokedAt) when.append(el('span', t('revokedOn', absoluteTime(agent.revokedAt, t.locale))));
    else {
      const time = timeElement(doc, agent.pairedAt, t.locale);
      time.textContent = absoluteTime(agent.pairedAt, t.locale);
      when.append(time);
    }
    const action = el('td');
    if (!agent.revokedAt) {
      const revoke = el('button', t('revoke'));
      revoke.type = 'button';
      revoke.setAttribute('aria-label', t('revokeLabel', shownName));
      revoke.addEventListener('click', () => onRevoke(agent));
      action.append(revoke);
      // Only with a passkey registered (requiring one without it would block every approval), or
      // while still required after the passkey was removed, so that it can be turned off.
      if (onRequirePasskey && (snapshot.passkey || agent.requireUserVerification === true)) {
        const box = el('input');
        box.type = 'checkbox';
        box.checked = agent.requireUserVerification === true;
        box.addEventListener('change', (event) => onRequirePasskey(agent, box.checked, event.isTrusted));
        const label = el('label');
        label.append(box, ` ${t('agentRequirePasskey')}`);
        action.append(label);
      }
    }
    row.append(name, key, when, action);
    body.append(row);
  }
  table.append(head, body);
  return table;
}
