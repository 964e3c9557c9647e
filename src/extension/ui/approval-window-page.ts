import type { browser as browserApi } from 'wxt/browser';
import { renderApprovalCard, textElements, type Translate } from './approval-card';
import { inspectText } from '../../summary/text-inspection.ts';
import { inspectCompanyName } from '../../summary/company-name.ts';
import { keyFacts, youApproveLine } from '../../review/key-facts.ts';
import { STATE_MESSAGE } from './lists';
import { ApproveGate } from './approve-gate';
import type { ApprovalView, Snapshot } from '../snapshot';
import type { PageMessage } from '../runtime-messages';
import { deadlineOf } from '../../protocol/rfc3339';

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
  const youApprove = $('you-approve');

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

  /**
   * A pairing card. Kept across renders (a snapshot must not wipe a half-typed code), with its
   * own gate: pairing grants an agent the right to ask, so its click is held to Approve's rule
   * (visible and focused for the arm delay, restarting on refocus, single-fire), and it needs
   * the code typed from the agent's own display, which this window never shows.
   */
  interface PairingCard {
    element: HTMLElement;
    gate: ApproveGate;
    input: HTMLInputElement;
    confirm: HTMLButtonElement;
    reject: HTMLButtonElement;
    note: HTMLElement;
    hint: HTMLElement;
    busy: boolean;
  }
  const pairingCards = new Map<string, PairingCard>();
  const CODE = /^\d{3} ?\d{3}$/;

  function pairingCard(pairing: Snapshot['pairings'][number]): PairingCard {
    const existing = pairingCards.get(pairing.pairingId);
    if (existing) return existing;
    const el = textElements(doc);
    const element = el('article', undefined, 'card pairing');
    element.dataset.testid = 'pairing';
    element.dataset.pairingId = pairing.pairingId;
    const name = inspectText(pairing.agentName, { singleLine: true });
    const warnings = el('ul', undefined, 'warnings');
    warnings.setAttribute('role', 'alert');
    for (const finding of [...name.findings.map((f) => f.message), ...inspectCompanyName(pairing.agentName).map((f) => f.message)]) warnings.append(el('li', finding));
    const who = el('p', t('pairWho', [name.display, pairing.fingerprint]), 'agent');
    who.dataset.testid = 'pair-agent';
    const input = el('input', undefined, 'pair-code-input');
    input.id = `pair-code-${pairingCards.size}`;
    input.dataset.testid = 'pair-code-input';
    input.inputMode = 'numeric';
    input.autocomplete = 'off';
    input.maxLength = 7;
    input.spellcheck = false;
    const label = el('label', t('pairCodeLabel'));
    label.htmlFor = input.id;
    const note = el('p', '', 'pair-note');
    note.setAttribute('role', 'status');
    const hint = el('p', '', 'gate-hint');
    const reject = el('button', t('pairReject'), 'secondary');
    reject.type = 'button';
    reject.id = 'pair-reject';
    const confirm = el('button', t('pairConfirm'), 'primary');
    confirm.type = 'button';
    confirm.id = 'pair-confirm';
    confirm.disabled = true;
    const buttons = el('div', undefined, 'buttons');
    buttons.append(reject, confirm);
    element.append(el('h1', t('pairTitle')));
    if (warnings.childElementCount > 0) element.append(warnings);
    element.append(who, el('p', t('pairHow')), label, input, note, hint, buttons);
    const card: PairingCard = { element, gate: new ApproveGate(), input, confirm, reject, note, hint, busy: false };
    card.gate.reset(Date.now(), focused());
    input.addEventListener('input', () => tick());

    reject.addEventListener('click', (event) => {
      if (!event.isTrusted || card.busy) return;
      card.busy = true;
      void send({ type: 'countersign/pair-answer', pairingId: pairing.pairingId, confirmed: false, trusted: true, shownFor: card.gate.shownFor(Date.now()) });
    });
    confirm.addEventListener('click', (event) => {
      const now = Date.now();
      const code = input.value.trim();
      if (!event.isTrusted || card.busy || confirm.disabled || !CODE.test(code)) return;
      const shownFor = card.gate.shownFor(now);
      if (!card.gate.fire(now)) return;
      card.busy = true;
      confirm.disabled = true;
      void send({ type: 'countersign/pair-answer', pairingId: pairing.pairingId, confirmed: true, code, trusted: true, shownFor }).then((answer: unknown) => {
        const a = answer as { status?: string; attemptsLeft?: number; error?: { message?: string } } | undefined;
        if (a?.status === 'paired' || a?.status === 'rejected') return;
        // A wrong code (or a refusal): say so, and arm again from now for the next try.
        card.busy = false;
        card.gate.reset(Date.now(), focused());
        card.note.textContent = a?.status === 'code-mismatch' ? t('pairCodeMismatch', String(a.attemptsLeft ?? 0)) : (a?.error?.message ?? '');
        input.select();
        tick();
      });
    });
    pairingCards.set(pairing.pairingId, card);
    return card;
  }

  function render(): void {
    const items = snapshot?.active ?? [];
    const view = current();
    content.replaceChildren();
    // A pairing waiting for the person comes first: it is about which agent may ask at all.
    const pairings = snapshot?.pairings ?? [];
    for (const id of pairingCards.keys()) if (!pairings.some((p) => p.pairingId === id)) pairingCards.delete(id);
    for (const pairing of pairings) content.append(pairingCard(pairing).element);
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
    // What a click on Approve grants, from the terms as data (spec section 3: the terms hold what
    // the summary says in words); the summary can claim anything, this line cannot be written by it.
    if (view && view.state === 'pending') {
      const facts = keyFacts(view.operation.terms);
      youApprove.textContent = facts.length > 0 ? t('youApprove', youApproveLine(facts)) : t('youApproveNoTerms');
    } else youApprove.textContent = '';
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
    for (const card of pairingCards.values()) {
      card.gate.update(focused(), now);
      const typed = CODE.test(card.input.value.trim());
      card.confirm.disabled = card.busy || !typed || !card.gate.ready(now) || snapshot?.bridge !== 'up';
      card.hint.textContent = !card.busy && !card.gate.ready(now) ? t('pairWaiting') : '';
    }
    const view = current();
    if (!view) {
      countdown.textContent = '';
      approve.disabled = true;
      return;
    }
    // The one clock (protocol/rfc3339.ts): the instant the queue and the signer use too.
    const left = deadlineOf(view.operation.expires_at) - now;
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
    // Only a real click by the person counts; scripted clicks (isTrusted false) are not trusted.
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
    if (!event.isTrusted) return;
    void send({ type: 'countersign/decline-all', trusted: true }).then((answer: unknown) => {
      // Each item is declined on its own; say which ones could not be, rather than stop silently.
      const failed = (answer as { failed?: unknown[] } | undefined)?.failed;
      if (Array.isArray(failed) && failed.length > 0) status.textContent = t('declineAllFailed', String(failed.length));
    });
  });
  withdraw.addEventListener('click', (event) => {
    const view = current();
    if (!view || !event.isTrusted) return;
    void send({ type: 'countersign/withdraw', key: view.key, trusted: true }).then((answer: unknown) => {
      // The agent's "sent" arrived first: the approval may already be at the Company. Say so.
      if ((answer as { tooLate?: boolean } | undefined)?.tooLate) status.textContent = t('withdrawTooLate');
    });
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
  const gates = () => [gate, ...[...pairingCards.values()].map((c) => c.gate)];
  const refocus = () => {
    for (const g of gates()) g.update(focused(), Date.now());
  };
  doc.defaultView?.addEventListener('focus', () => {
    // Focus coming back is a new look: every gate starts its delay again.
    for (const g of gates()) g.update(false, Date.now());
    refocus();
  });
  doc.defaultView?.addEventListener('blur', refocus);
  doc.addEventListener('visibilitychange', refocus);
  setInterval(tick, 200);
}
