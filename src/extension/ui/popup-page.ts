import type { browser as browserApi } from 'wxt/browser';
import { diagnose, type Diagnosis } from './diagnose';
import { elements, oneLine, renderApprovalList, showRecord } from './lists';
import { pageTranslator, type Translate } from './i18n';
import { renderChecklist, setupStep } from './setup-checklist';
import type { ApprovalView, Snapshot } from '../snapshot';
import type { PageMessage } from '../runtime-messages';

type Browser = typeof browserApi;

export interface PopupOptions {
  /** Puts text on the clipboard; default `navigator.clipboard.writeText`. */
  copy?: (text: string) => Promise<void>;
  /** Closes the popup after it opened the Countersign window; default `window.close()`. */
  close?: () => void;
}

/** What the popup shows about withdrawing, keyed by the background's answer. */
interface WithdrawAnswer {
  ok?: boolean;
  tooLate?: boolean;
  error?: unknown;
}

/**
 * The toolbar popup, in the order of what to do next: the setup checklist while something is
 * missing (its Copy button is then the primary one), what waits for the person ("Review 2
 * waiting"), approvals on their way (each can still be withdrawn), the connection diagnosis with
 * its fixes, and the last decisions (each opens its record). Settings is always one click away.
 */
export async function mountPopup(doc: Document, browser: Browser, version: string, options: PopupOptions = {}): Promise<void> {
  const t = pageTranslator(browser, doc);
  doc.title = t('extName');
  const app = doc.getElementById('app')!;
  const snapshot = await browser.runtime.sendMessage<PageMessage, Snapshot>({ type: 'countersign/snapshot' });
  app.replaceChildren(...renderPopup(doc, browser, snapshot, t, version, options));
}

export function renderPopup(doc: Document, browser: Browser, snapshot: Snapshot, t: Translate, version: string, options: PopupOptions = {}): HTMLElement[] {
  const el = elements(doc);
  const close = options.close ?? (() => doc.defaultView?.close());
  const openWindow = () => void browser.runtime.sendMessage({ type: 'countersign/open-window' }).then(close);
  const button = (text: string, onClick: () => void, cls?: string) => {
    const b = el('button', text, cls);
    b.type = 'button';
    b.addEventListener('click', onClick);
    return b;
  };
  const out: HTMLElement[] = [];

  const header = el('header', undefined, 'popup-header');
  const title = el('h1', t('extName'));
  const versionLine = el('span', version, 'version muted', true);
  const settings = button(t('settingsLink'), () => void browser.runtime.openOptionsPage().then(close));
  settings.dataset.testid = 'settings';
  settings.className = 'link';
  header.append(title, versionLine, settings);
  out.push(header);

  // 1. Setup, while something is missing.
  const step = setupStep(snapshot);
  if (step === 'install' || step === 'pair') {
    out.push(renderChecklist(doc, snapshot, t, { primaryCopy: step === 'install', ...(options.copy ? { copy: options.copy } : {}) }));
  } else if (step === 'offline') {
    const offline = el('p', t('setupPairedOffline'), 'status offline');
    offline.dataset.testid = 'offline';
    out.push(offline);
  }

  // 2. What waits for the person, with the primary button that opens it.
  const pending = snapshot.active.filter((v) => v.state === 'pending' || v.state === 'held');
  if (pending.length) {
    const section = el('section', undefined, 'pending');
    section.append(el('h2', t('pendingHeading')), renderApprovalList(doc, pending, t));
    section.append(button(t.plural('reviewWaiting', pending.length), openWindow, 'primary'));
    out.push(section);
  } else if (snapshot.pairings.length && step !== 'install') {
    out.push(button(t('pairOpenWindow'), openWindow, 'primary'));
  } else if (step === 'ready') {
    out.push(el('p', t('nothingPending'), 'muted'));
  }

  // 3. Approved and on their way: an approval not yet sent can still be taken back.
  const inProgress = snapshot.active.filter((v) => v.state === 'approved' || v.state === 'sent' || v.state === 'unknown');
  if (inProgress.length) {
    const section = el('section', undefined, 'in-progress');
    section.dataset.testid = 'in-progress';
    section.append(el('h2', t('inProgressHeading')), renderApprovalList(doc, inProgress, t, { action: (v) => (v.state === 'approved' ? withdrawControl(doc, browser, v, t) : null) }));
    out.push(section);
  }

  // 4. The connection, each problem with its fix.
  out.push(renderDiagnosis(doc, snapshot, t));

  // 5. The last decisions; each opens its record.
  if (snapshot.history.length) {
    const section = el('section', undefined, 'recent');
    section.append(el('h2', t('recentHeading')), renderApprovalList(doc, snapshot.history.slice(0, 5), t, { onOpen: (v) => showRecord(doc, v, t) }));
    section.append(button(t('seeAllHistory'), () => void browser.runtime.openOptionsPage().then(close), 'link'));
    out.push(section);
  }
  return out;
}

/** The connection diagnosis (diagnose.ts), each problem with the command or commands that fix it. */
export function renderDiagnosis(doc: Document, snapshot: Snapshot, t: Translate): HTMLElement {
  const el = elements(doc);
  const status = el('ul', undefined, 'diagnosis');
  status.setAttribute('aria-label', t('diagnosisLabel'));
  status.dataset.testid = 'diagnosis';
  // While the checklist shows the install step, "the helper is not installed" would say it twice.
  const installing = setupStep(snapshot) === 'install';
  for (const d of diagnose(snapshot) as Array<Diagnosis & { fixes?: string[] }>) {
    if (installing && d.message === 'diagBridgeMissing') continue;
    const item = el('li', undefined, d.severity);
    const subs = d.substitutions?.map(oneLine);
    item.append(el('span', d.count === undefined ? t(d.message, subs) : t.plural(d.message, d.count, subs)));
    for (const fix of d.fixes ?? (d.fix ? [d.fix] : [])) {
      const line = el('p', undefined, 'fix');
      line.append(el('span', t('fixLabel')), el('code', fix, undefined, true));
      item.append(line);
    }
    status.append(item);
  }
  return status;
}

/**
 * Withdraw for an approval not yet sent. Only the person's own click counts (`isTrusted`); the
 * background answers `tooLate` when the agent had already sent it, and the row says so.
 */
function withdrawControl(doc: Document, browser: Browser, view: ApprovalView, t: Translate): HTMLElement {
  const el = elements(doc);
  const box = el('div', undefined, 'row-action');
  const withdraw = el('button', t('withdraw'));
  withdraw.type = 'button';
  withdraw.dataset.testid = 'withdraw';
  withdraw.setAttribute('aria-label', t('withdrawLabel', oneLine(view.company.name)));
  const note = el('p', '', 'withdraw-note');
  note.setAttribute('role', 'status');
  withdraw.addEventListener('click', (event) => {
    if (!event.isTrusted || withdraw.disabled) return;
    withdraw.disabled = true;
    void browser.runtime.sendMessage<PageMessage, WithdrawAnswer | undefined>({ type: 'countersign/withdraw', key: view.key, trusted: true }).then(
      (answer) => {
        if (answer?.tooLate) note.textContent = t('withdrawTooLate');
        else if (answer?.ok) note.textContent = t('withdrawDone');
        else {
          note.textContent = t('withdrawFailed');
          withdraw.disabled = false;
        }
      },
      () => {
        note.textContent = t('withdrawFailed');
        withdraw.disabled = false;
      },
    );
  });
  box.append(withdraw, note);
  return box;
}
