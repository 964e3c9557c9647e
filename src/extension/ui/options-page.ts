import type { browser as browserApi } from 'wxt/browser';
import { renderAgents, renderApprovalList } from './lists';
import type { ApprovalView, Snapshot } from '../snapshot';
import type { Settings } from '../runtime-messages';

type Browser = typeof browserApi;

/** Options: pairing, paired agents (fingerprints, revoke), history (search, JSON export), settings. */
export function mountOptions(doc: Document, browser: Browser): void {
  const t = (key: string, subs?: string | string[]) => browser.i18n.getMessage(key as never, subs as never) || key;
  const $ = (id: string) => doc.getElementById(id)!;
  doc.title = t('optionsTitle');
  for (const node of doc.querySelectorAll<HTMLElement>('[data-i18n]')) node.textContent = t(node.dataset.i18n!);
  const search = $('search') as HTMLInputElement;
  search.setAttribute('aria-label', t('historySearch'));
  search.placeholder = t('historySearch');
  const notifications = $('setting-notifications') as HTMLInputElement;

  async function refresh(): Promise<void> {
    const snapshot = (await browser.runtime.sendMessage({ type: 'countersign/snapshot' })) as Snapshot & { settings: Settings };
    $('key').textContent = t('extensionKey', snapshot.extensionKeyThumbprint ?? '…');
    notifications.checked = snapshot.settings.notifications;
    const pairings = $('pairings');
    pairings.replaceChildren();
    // Pairing is answered only in the approval window, behind its gate; here, only a way there.
    if (snapshot.pairings.length > 0) {
      const box = doc.createElement('div');
      box.className = 'pairing';
      const note = doc.createElement('p');
      note.textContent = t('pairingWaitingElsewhere');
      const open = doc.createElement('button');
      open.type = 'button';
      open.textContent = t('openWindow');
      open.addEventListener('click', () => void browser.runtime.sendMessage({ type: 'countersign/open-window' }));
      box.append(note, open);
      pairings.append(box);
    }
    const agents = $('agents');
    agents.replaceChildren(
      snapshot.agents.length
        ? renderAgents(doc, snapshot, (thumbprint) => void browser.runtime.sendMessage({ type: 'countersign/revoke-agent', thumbprint }).then(refresh), t)
        : Object.assign(doc.createElement('p'), { textContent: t('noAgents') }),
    );
    await showHistory();
  }

  async function showHistory(): Promise<void> {
    const views = (await browser.runtime.sendMessage({ type: 'countersign/history', query: search.value.slice(0, 200), limit: 200 })) as ApprovalView[];
    $('history').replaceChildren(renderApprovalList(doc, views, t));
  }

  let searchTimer: ReturnType<typeof setTimeout> | undefined;
  search.addEventListener('input', () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => void showHistory(), 150);
  });
  $('export').addEventListener('click', async () => {
    const data = await browser.runtime.sendMessage({ type: 'countersign/export' });
    const url = URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' }));
    const a = doc.createElement('a');
    a.href = url;
    a.download = `countersign-history-${new Date().toISOString().slice(0, 10)}.json`;
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  });
  notifications.addEventListener('change', () => {
    void browser.runtime.sendMessage({ type: 'countersign/settings-set', settings: { notifications: notifications.checked } });
  });
  void refresh();
}
