import type { browser as browserApi } from 'wxt/browser';
import { elements, oneLine, renderAgents, renderApprovalList, showRecord } from './lists';
import { confirmAction } from './confirm';
import { mountPasskeySection } from './passkey-section';
import { pageTranslator } from './i18n';
import type { ApprovalView, Snapshot } from '../snapshot';
import type { PageMessage, Settings } from '../runtime-messages';

type Browser = typeof browserApi;

export interface OptionsPage {
  /** Settles once the first snapshot and history are shown. */
  ready: Promise<void>;
  /** Reads the snapshot again and redraws (done on mount and after each change). */
  refresh(): Promise<void>;
  /** Redraws the history for what the search box holds now. */
  showHistory(): Promise<void>;
}

/**
 * Settings: a pairing waiting (only a way to the window that answers it), paired agents (with
 * their fingerprints; Revoke asks first), the history (search, a row opens its record, save a
 * copy), the notification setting, and the extension's own key under "Technical details".
 */
export function mountOptions(doc: Document, browser: Browser): OptionsPage {
  const t = pageTranslator(browser, doc);
  const el = elements(doc);
  const $ = (id: string) => doc.getElementById(id)!;
  doc.title = t('optionsTitle');
  for (const node of doc.querySelectorAll<HTMLElement>('[data-i18n]')) node.textContent = t(node.dataset.i18n!);
  const search = $('search') as HTMLInputElement;
  search.setAttribute('aria-label', t('historySearch'));
  search.placeholder = t('historySearch');
  const notifications = $('setting-notifications') as HTMLInputElement;
  const passkey = mountPasskeySection(doc, browser, t, () => refresh());

  async function revoke(agent: Snapshot['agents'][number]): Promise<void> {
    const name = oneLine(agent.name);
    const yes = await confirmAction(doc, t, {
      title: t('revokeConfirmTitle', name),
      consequence: t('revokeConfirmBody', name),
      confirmLabel: t('revoke'),
    });
    if (!yes) return;
    await browser.runtime.sendMessage({ type: 'countersign/revoke-agent', thumbprint: agent.thumbprint });
    await refresh();
  }

  async function refresh(): Promise<void> {
    const snapshot = await browser.runtime.sendMessage<PageMessage, Snapshot & { settings: Settings }>({ type: 'countersign/snapshot' });
    $('key').textContent = snapshot.extensionKeyThumbprint ?? '';
    ($('technical') as HTMLDetailsElement).hidden = !snapshot.extensionKeyThumbprint;
    notifications.checked = snapshot.settings.notifications;
    const pairings = $('pairings');
    pairings.replaceChildren();
    // Pairing is answered only in the approval window, behind its gate; here, only a way there.
    ($('pairing-section')).hidden = snapshot.pairings.length === 0;
    if (snapshot.pairings.length > 0) {
      const box = el('div', undefined, 'pairing');
      const open = el('button', t('pairOpenWindow'), 'primary');
      open.type = 'button';
      open.addEventListener('click', () => void browser.runtime.sendMessage({ type: 'countersign/open-window' }));
      box.append(el('p', t('pairingWaitingElsewhere')), open);
      pairings.append(box);
    }
    $('agents').replaceChildren(snapshot.agents.length ? renderAgents(doc, snapshot, (agent) => void revoke(agent), t, (agent, required, trusted) => void passkey.requireFor(agent, required, trusted)) : el('p', t('noAgents'), 'empty'));
    passkey.show(snapshot.passkey);
    await showHistory();
  }

  let asked = 0;
  async function showHistory(): Promise<void> {
    const query = search.value.slice(0, 200);
    const mine = ++asked;
    const views = await browser.runtime.sendMessage<PageMessage, ApprovalView[]>({ type: 'countersign/history', query, limit: 200 });
    // An older answer arriving after a newer search must not replace it.
    if (mine !== asked) return;
    const history = $('history');
    if (views.length) {
      history.replaceChildren(renderApprovalList(doc, views, t, { onOpen: (v) => showRecord(doc, v, t) }));
    } else {
      const empty = el('p', query.trim() ? t('historyNoMatch', oneLine(query.trim())) : t('historyEmpty'), 'empty');
      empty.dataset.testid = 'history-empty';
      history.replaceChildren(empty);
    }
  }

  let searchTimer: ReturnType<typeof setTimeout> | undefined;
  search.addEventListener('input', () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => void showHistory(), 150);
  });
  $('export').addEventListener('click', () => void exportHistory());
  async function exportHistory(): Promise<void> {
    const data = await browser.runtime.sendMessage<PageMessage, unknown>({ type: 'countersign/export' });
    const url = URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' }));
    const a = doc.createElement('a');
    a.href = url;
    a.download = `countersign-history-${new Date().toISOString().slice(0, 10)}.json`;
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }
  notifications.addEventListener('change', () => {
    void browser.runtime.sendMessage({ type: 'countersign/settings-set', settings: { notifications: notifications.checked } });
  });
  const ready = Promise.all([refresh(), passkey.ready]).then(() => undefined);
  return { ready, refresh: () => ready.then(refresh), showHistory };
}
