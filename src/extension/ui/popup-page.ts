import type { browser as browserApi } from 'wxt/browser';
import { diagnose } from './diagnose';
import { renderApprovalList } from './lists';
import type { Snapshot } from '../snapshot';

type Browser = typeof browserApi;

/** The toolbar popup: the connection with its fix, what waits for the person, recent decisions. */
export async function mountPopup(doc: Document, browser: Browser, version: string): Promise<void> {
  const t = (key: string, subs?: string | string[]) => browser.i18n.getMessage(key as never, subs as never) || key;
  const app = doc.getElementById('app')!;
  const snapshot = (await browser.runtime.sendMessage({ type: 'countersign/snapshot' })) as Snapshot;
  const el = <K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, cls?: string) => {
    const node = doc.createElement(tag);
    if (text !== undefined) node.textContent = text;
    if (cls) node.className = cls;
    return node;
  };

  const title = el('h1', `Countersign ${version}`);
  const status = el('ul', undefined, 'diagnosis');
  status.setAttribute('aria-label', 'Connection');
  status.dataset.testid = 'diagnosis';
  for (const d of diagnose(snapshot)) {
    const item = el('li', t(d.message, d.substitutions), d.severity);
    if (d.fix) {
      const fix = el('p', `${t('fixLabel')} `);
      fix.append(el('code', d.fix));
      item.append(fix);
    }
    status.append(item);
  }

  const pending = snapshot.active.filter((v) => v.state === 'pending' || v.state === 'held');
  const open = el('button', `${t('openWindow')}${pending.length ? ` (${pending.length})` : ''}`, 'primary');
  open.type = 'button';
  open.addEventListener('click', () => void browser.runtime.sendMessage({ type: 'countersign/open-window' }).then(() => window.close()));

  app.replaceChildren(title, status, el('h2', t('pendingHeading')));
  app.append(pending.length ? renderApprovalList(doc, pending, t) : el('p', t('nothingPending'), 'muted'), open);
  if (snapshot.history.length) app.append(el('h2', t('recentHeading')), renderApprovalList(doc, snapshot.history.slice(0, 5), t));
}
