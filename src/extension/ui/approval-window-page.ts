import type { browser as browserApi } from 'wxt/browser';
import { renderApprovalCard, type Translate } from './approval-card';
import { STATE_MESSAGE } from './lists';
import { ApproveGate } from './approve-gate';
import type { ApprovalView, Snapshot } from '../snapshot';
import type { PageMessage } from '../runtime-messages';

type Browser = typeof browserApi;

/** "4 min 05 s": the countdown to a revision's expires_at (section 3 "Expiry"). */
export function formatRemaining(ms: number): string {
  if (ms <= 0) return '0 s';
  const s = Math.floor(ms / 1000);
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (d > 0) return `${d} d ${h} h`;
  if (h > 0) return `${h} h ${String(m).padStart(2, '0')} min`;
  if (m > 0) return `${m} min ${String(sec).padStart(2, '0')} s`;
  return `${sec} s`;
}

/**
 * The approval window: one revision at a time, "N of M", Approve behind the gate, Decline always.
 * Closing the window decides nothing: it only disconnects this page.
 */
export function mountApprovalWindow(doc: Document, browser: Browser): void {
  const t: Translate = (key, subs) => browser.i18n.getMessage(key as never, subs as never) || key;
  const $ = <T extends HTMLElement>(id: string) => doc.getElementById(id) as T;
  const content = $('content');
  const approve = $<HTMLButtonElement>('approve');
  const decline = $<HTMLButtonElement>('decline');
  const declineAll = $<HTMLButtonElement>('decline-all');
  const withdraw = $<HTMLButtonElement>('withdraw');
  const prev = $<HTMLButtonElement>('prev');
  const next = $<HTMLButtonElement>('next');
  const status = $('status');
  const gateHint = $('gate-hint');
  const countdown = $('countdown');
  const bridgeDown = $('bridge-down');
  const agentGone = $('agent-gone');

  doc.title = t('approveTitle');
  approve.textContent = t('approve');
  decline.textContent = t('decline');
  declineAll.textContent = t('declineAll');
  withdraw.textContent = t('withdraw');
  prev.setAttribute('aria-label', t('previous'));
  next.setAttribute('aria-label', t('next'));
  bridgeDown.textContent = t('bridgeDown');
  agentGone.textContent = t('agentDisconnected');

  const gate = new ApproveGate();
  let snapshot: Snapshot | null = null;
  let currentKey: string | null = null;
  let showAll = false;
  const focused = () => doc.visibilityState === 'visible' && doc.hasFocus();

  const send = (message: PageMessage) => browser.runtime.sendMessage(message);

  const current = (): ApprovalView | undefined => snapshot?.active.find((v) => v.key === currentKey);

  /** Shows another item; the person has to read it, so the Approve delay starts over. */
  function select(key: string | null): void {
    if (key === currentKey) return;
    currentKey = key;
    showAll = false;
    gate.reset(Date.now(), focused());
  }

  function renderPairing(pairing: Snapshot['pairings'][number]): HTMLElement {
    const card = doc.createElement('article');
    card.className = 'card pairing';
    const h = doc.createElement('h1');
    h.textContent = t('pairTitle');
    const who = doc.createElement('p');
    who.textContent = t('agentLine', pairing.agentName);
    const code = doc.createElement('p');
    code.className = 'pair-code';
    code.dataset.testid = 'pair-code';
    code.textContent = t('pairCode', pairing.code);
    const buttons = doc.createElement('div');
    buttons.className = 'buttons';
    const reject = doc.createElement('button');
    reject.type = 'button';
    reject.className = 'secondary';
    reject.id = 'pair-reject';
    reject.textContent = t('pairReject');
    const confirm = doc.createElement('button');
    confirm.type = 'button';
    confirm.className = 'primary';
    confirm.id = 'pair-confirm';
    confirm.textContent = t('pairConfirm');
    const answer = (confirmed: boolean) => (event: MouseEvent) => {
      if (!event.isTrusted) return;
      confirm.disabled = reject.disabled = true;
      void send({ type: 'countersign/pair-answer', pairingId: pairing.pairingId, confirmed, trusted: true });
    };
    confirm.addEventListener('click', answer(true));
    reject.addEventListener('click', answer(false));
    buttons.append(reject, confirm);
    card.append(h, who, code, buttons);
    return card;
  }

  function render(): void {
    const items = snapshot?.active ?? [];
    const view = current();
    content.replaceChildren();
    // A pairing waiting for the person comes first: it is about which agent may ask at all.
    for (const pairing of snapshot?.pairings ?? []) content.append(renderPairing(pairing));
    if (!view) {
      const empty = doc.createElement('p');
      empty.textContent = t('nothingPending');
      empty.className = 'muted';
      content.append(empty);
    } else {
      content.append(renderApprovalCard(doc, view, t, { showAll }));
      // When the summary reached the screen (wall clock): read by `npm run bench` (time-to-window).
      const key = view.key;
      doc.defaultView?.requestAnimationFrame(() => {
        content.dataset.paintedKey = key;
        content.dataset.paintedAt = String(Date.now());
      });
    }
    const index = view ? items.indexOf(view) : -1;
    $('position').textContent = items.length ? t('position', [String(index + 1), String(items.length)]) : '';
    prev.disabled = index <= 0;
    next.disabled = index < 0 || index >= items.length - 1;
    bridgeDown.hidden = snapshot?.bridge !== 'down';
    agentGone.hidden = !view || view.agentConnected;
    // A pending item needs no status line: the buttons say what to do.
    status.textContent = view && view.state !== 'pending' ? t(STATE_MESSAGE[view.state]) : '';
    decline.hidden = !view || (view.state !== 'pending' && view.state !== 'held');
    approve.hidden = !view || view.state !== 'pending';
    withdraw.hidden = !view || view.state !== 'approved';
    declineAll.hidden = items.filter((v) => v.state === 'pending' || v.state === 'held').length < 2;
    tick();
  }

  /** Runs often: the countdown, and whether Approve may be clicked now. */
  function tick(): void {
    const now = Date.now();
    gate.update(focused(), now);
    const view = current();
    if (!view) {
      countdown.textContent = '';
      approve.disabled = true;
      return;
    }
    const left = Date.parse(view.operation.expires_at) - now;
    countdown.textContent = left > 0 ? t('expiresIn', formatRemaining(left)) : t('expired');
    const blocked = left <= 0 || snapshot?.bridge !== 'up' || view.state !== 'pending';
    approve.disabled = blocked || !gate.ready(now);
    gateHint.textContent = !blocked && !gate.ready(now) ? t('approveWaiting') : '';
  }

  // The worker may stop (MV3) and take this port with it; reconnecting wakes it, and it answers
  // with a fresh snapshot read from IndexedDB. Until then the page shows the bridge as down.
  const connect = () => {
    const port = browser.runtime.connect({ name: 'approve-window' });
    port.onMessage.addListener(onSnapshot);
    port.onDisconnect.addListener(() => {
      if (snapshot) snapshot = { ...snapshot, bridge: 'down' };
      render();
      setTimeout(connect, 250);
    });
  };

  function onSnapshot(message: unknown): void {
    const snap = (message as { snapshot?: Snapshot }).snapshot;
    if (!snap) return;
    snapshot = snap;
    const firstPending = snap.active.find((v) => v.state === 'pending');
    const stillThere = snap.active.some((v) => v.key === currentKey);
    // Stay on the item being read; go to what needs a decision when that one is gone or decided.
    if (!stillThere || (current()?.state !== 'pending' && firstPending)) select(firstPending?.key ?? snap.active[0]?.key ?? null);
    render();
  }
  connect();

  approve.addEventListener('click', (event) => {
    const view = current();
    // Only a real click by the person counts (issue 5); scripted clicks are not trusted.
    if (!view || !event.isTrusted || approve.disabled) return;
    const shownFor = gate.shownFor(Date.now());
    if (!gate.fire(Date.now())) return;
    approve.disabled = true;
    void send({ type: 'countersign/decide', key: view.key, decision: 'approve', trusted: true, shownFor });
  });
  decline.addEventListener('click', (event) => {
    const view = current();
    if (!view || !event.isTrusted) return;
    void send({ type: 'countersign/decide', key: view.key, decision: 'decline', trusted: true, shownFor: gate.shownFor(Date.now()) });
  });
  declineAll.addEventListener('click', (event) => {
    if (event.isTrusted) void send({ type: 'countersign/decline-all', trusted: true });
  });
  withdraw.addEventListener('click', (event) => {
    const view = current();
    if (view && event.isTrusted) void send({ type: 'countersign/withdraw', key: view.key, trusted: true });
  });
  const move = (step: number) => {
    const items = snapshot?.active ?? [];
    const i = items.findIndex((v) => v.key === currentKey);
    const target = items[i + step];
    if (target) {
      select(target.key);
      render();
    }
  };
  prev.addEventListener('click', () => move(-1));
  next.addEventListener('click', () => move(1));
  content.addEventListener('click', (event) => {
    if ((event.target as HTMLElement).dataset?.action === 'show-all') {
      showAll = true;
      render();
    }
  });
  doc.addEventListener('keydown', (event) => {
    // Enter never approves by default: only a focused Approve button does (its own activation).
    if (event.key === 'ArrowLeft' && event.altKey) move(-1);
    if (event.key === 'ArrowRight' && event.altKey) move(1);
  });
  const refocus = () => gate.update(focused(), Date.now());
  doc.defaultView?.addEventListener('focus', () => {
    gate.update(false, Date.now());
    refocus();
  });
  doc.defaultView?.addEventListener('blur', refocus);
  doc.addEventListener('visibilitychange', refocus);
  setInterval(tick, 200);
}
