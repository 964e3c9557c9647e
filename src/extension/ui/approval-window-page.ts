// Longer than 500 lines on purpose: the window's one controller. Which item is shown, the arm
// delay, the read-to-the-end and opened-changes gates, the passkey step and the footer all decide
// together whether Approve arms, so they stay in one class; the card itself is approval-card.ts.
import type { browser as browserApi } from 'wxt/browser';
import { renderApprovalCard, type RenderedCard } from './approval-card';
import { ArmDelay } from './arm-delay';
import { pageTranslator, type Translate } from './i18n';
import { PairingCard, pairedCard } from './pairing-card';
import { isResult, renderResultCard } from './result-card';
import { EXPIRY_WARNING_MS, formatRemaining } from './countdown';
import { showsSignedCall } from './tool-call-arguments';
import { approveGate } from './approve-gate';
import { approveLabel } from './approve-label';
import { inspectText } from '../../summary/text-inspection.ts';
import { receivedSnapshot } from './received-snapshot';
import { takeEarlyPort } from './early-port';
import { APPROVE_WINDOW_PORT } from '../constants';
import type { ApprovalView, ReviewedView, Snapshot } from '../snapshot';
import type { PageMessage } from '../runtime-messages';
import { deadlineOf } from '../../protocol/rfc3339';
// In the window's one classic script (entrypoints/approve-main.ts): under 1 kB gzipped, so no
// chunk of its own that a passkey item would wait for.
import { PASSKEY_TIMEOUT_MS, passkeyAssertion } from './passkey-ceremony';

export { formatRemaining } from './countdown';

/**
 * Why the passkey did not approve, in words (docs/ui.md, "Passkey"): a cancel or a timeout is the
 * common case and is no error of the person's; the browser's own error name is for the rest only.
 */
function passkeyFailure(error: unknown, t: Translate): string {
  const name = error instanceof DOMException ? error.name : '';
  if (name === 'NotAllowedError' || name === 'TimeoutError' || name === 'AbortError') return t('passkeyCancelled');
  if (name === 'InvalidStateError' || name === 'SecurityError' || name === 'NotSupportedError') return t('passkeyCannotApprove');
  return t('passkeyFailed', [error instanceof Error ? error.message : String(error)]);
}

type Browser = typeof browserApi;

/** After the queue empties, the window closes itself this much later unless it has focus. */
export const AUTO_CLOSE_MS = 4000;

/** How long the one-line trace of an ended item stays above the next one. */
const RECENT_RESULT_MS = 60_000;

/** Items ending this close together with one outcome (Decline all) are one result. */
const TOGETHER_MS = 2000;

/** What an active item's state means for the person, under the buttons. */
const ACTIVE_STATUS: Partial<Record<ApprovalView['state'], string>> = {
  held: 'stateHeld',
  approved: 'statusApproved',
  sent: 'statusSent',
  unknown: 'statusUnknown',
};

function elements(doc: Document) {
  const $ = <T extends HTMLElement>(id: string) => doc.getElementById(id) as T;
  return {
    notice: $('notice'),
    bridgeDown: $('bridge-down'),
    agentGone: $('agent-gone'),
    queueBar: $('queue-bar'),
    queueHint: $('queue-hint'),
    position: $('position'),
    prev: $<HTMLButtonElement>('prev'),
    next: $<HTMLButtonElement>('next'),
    results: $('results'),
    content: $('content'),
    actions: $('actions'),
    buttons: $('buttons'),
    countdown: $('countdown'),
    status: $('status'),
    announce: $('announce'),
    readHint: $<HTMLButtonElement>('read-hint'),
    riskAck: $('risk-ack'),
    riskAckBox: $<HTMLInputElement>('risk-ack-box'),
    confirmBox: $('decline-all-confirm-box'),
    confirmQuestion: $('decline-all-question'),
    confirmCancel: $<HTMLButtonElement>('decline-all-cancel'),
    confirmAll: $<HTMLButtonElement>('decline-all-confirm'),
    approve: $<HTMLButtonElement>('approve'),
    decline: $<HTMLButtonElement>('decline'),
    declineAll: $<HTMLButtonElement>('decline-all'),
    withdraw: $<HTMLButtonElement>('withdraw'),
  };
}
type Elements = ReturnType<typeof elements>;

function labelStatic(ui: Elements, doc: Document, t: Translate): void {
  doc.title = t('approveTitle');
  ui.decline.textContent = t('decline');
  ui.withdraw.textContent = t('withdraw');
  ui.prev.setAttribute('aria-label', t('previous'));
  ui.next.setAttribute('aria-label', t('next'));
  ui.queueHint.textContent = t('queueHint');
  ui.results.setAttribute('aria-label', t('resultsLabel'));
  ui.bridgeDown.textContent = t('bridgeDown');
  doc.getElementById('risk-ack-text')!.textContent = t('riskAcknowledge');
  ui.confirmCancel.textContent = t('cancel');
}

/**
 * The approval window: one revision at a time, "N of M" when there are several, Approve behind
 * the gate, Decline always. Closing the window decides nothing: it only disconnects this page.
 * Every state it can be in is described in docs/ui.md.
 */
export function mountApprovalWindow(doc: Document, browser: Browser): void {
  const t = pageTranslator(browser, doc);
  const ui = elements(doc);
  labelStatic(ui, doc, t);
  const send = (message: PageMessage) => browser.runtime.sendMessage(message);
  const focused = () => doc.visibilityState === 'visible' && doc.hasFocus();
  const w = new ApprovalWindow(doc, ui, t, send, focused);

  // The worker may stop (MV3) and take this port with it; reconnecting wakes it, and it answers
  // with a fresh snapshot read from IndexedDB. Until then the page shows the bridge as down.
  // The first port is the one approve-port.js opened while this script loaded, when it did: what
  // it heard meanwhile is handled first, in order, before anything it hears next.
  let early = takeEarlyPort(doc.defaultView);
  const connect = () => {
    const taken = early;
    early = undefined;
    const port = taken?.port ?? browser.runtime.connect({ name: APPROVE_WINDOW_PORT });
    const onMessage = (message: unknown) => {
      const snap = receivedSnapshot(message);
      if (snap) w.onSnapshot(snap);
    };
    const onDisconnect = () => {
      w.onDisconnect();
      setTimeout(connect, 250);
    };
    port.onMessage.addListener(onMessage);
    port.onDisconnect.addListener(onDisconnect);
    if (taken === undefined) return;
    taken.release();
    for (const message of taken.messages) onMessage(message);
    if (taken.disconnected) onDisconnect();
  };
  w.listen();
  connect();
  setInterval(() => w.tick(), 200);
}

class ApprovalWindow {
  private readonly gate = new ArmDelay();
  private snapshot: Snapshot | null = null;
  private currentKey: string | null = null;
  private showAll = false;
  private card: RenderedCard | null = null;
  /** The person ticked "I understand the risk" for the item shown. */
  private riskAcknowledged = false;
  /** The item whose summary's end has been on screen; it stays read until another item is shown. */
  private summaryReadFor: string | null = null;
  /** The item whose changes behind "and N more changes" have been opened (docs/ui.md, "Changed"). */
  private changesOpenedFor: string | null = null;
  /**
   * The tool call on the card, once its server, tool and arguments are known to hash to the item's
   * revision: the decision is signed for that revision, so it covers exactly what is shown.
   */
  private signedShown: ReviewedView | null = null;
  private confirmingDeclineAll = false;
  /** The passkey confirmation under way, if any: closing the window or a new click ends it. */
  private passkeyAbort: AbortController | undefined;
  /** What the passkey step last said about an item (confirming, or why it did not approve). */
  private passkeyNote: { key: string; text: string } | undefined;
  /** Items seen while active, to leave a result card when they end. */
  private readonly seen = new Map<string, ReviewedView>();
  /** Newest first; items that ended together with the same outcome share one card. */
  private readonly results: Array<{ views: ReviewedView[]; endedAt: number }> = [];
  private readonly pairingCards = new Map<string, PairingCard>();
  private readonly paired: HTMLElement[] = [];
  private readonly announced = new Set<string>();
  private emptySince: number | null = null;
  private everBusy = false;

  constructor(
    private readonly doc: Document,
    private readonly ui: Elements,
    private readonly t: Translate,
    private readonly send: (message: PageMessage) => Promise<unknown>,
    private readonly focused: () => boolean,
  ) {}

  private current(): ReviewedView | undefined {
    return this.snapshot?.active.find((v) => v.key === this.currentKey);
  }

  /** Shows another item; the person has to read it, so the Approve delay starts over. */
  private select(key: string | null): void {
    if (key === this.currentKey) return;
    this.currentKey = key;
    this.showAll = false;
    this.riskAcknowledged = false;
    this.ui.riskAckBox.checked = false;
    this.confirmingDeclineAll = false;
    this.gate.restart(Date.now(), this.focused());
  }

  onDisconnect(): void {
    if (this.snapshot) this.snapshot = { ...this.snapshot, bridge: 'down' };
    this.render();
  }

  onSnapshot(snap: Snapshot): void {
    const before = this.currentKey;
    this.snapshot = snap;
    this.collectResults(snap);
    const firstPending = snap.active.find((v) => v.state === 'pending');
    const stillThere = snap.active.some((v) => v.key === this.currentKey);
    // Stay on the item being read; go to what needs a decision when that one is gone or decided.
    if (!stillThere || (this.current()?.state !== 'pending' && firstPending)) this.select(firstPending?.key ?? snap.active[0]?.key ?? null);
    this.render(before !== this.currentKey);
  }

  /** Items that left the queue since the last snapshot end as result cards, never silently. */
  private collectResults(snap: Snapshot): void {
    const active = new Set(snap.active.map((v) => v.key));
    for (const [key, shown] of this.seen) {
      if (active.has(key)) continue;
      this.seen.delete(key);
      const ended = snap.history.find((h) => h.key === key);
      // A revision replaced by a newer one is not an outcome: the new one arrives with its banner.
      // The same revision, so the review the window showed is still of its terms.
      if (ended && isResult(ended.state)) this.addResult({ ...ended, review: shown.review });
    }
    this.results.splice(5);
    for (const v of snap.active) this.seen.set(v.key, v);
    for (const card of this.pairingCards.values()) {
      if (snap.pairings.some((p) => p.pairingId === card.pairing.pairingId)) continue;
      this.pairingCards.delete(card.pairing.pairingId);
      if (card.paired) this.paired.unshift(pairedCard(this.doc, this.t, card.pairing.agentName, card.pairing.fingerprint));
    }
  }

  private addResult(ended: ReviewedView): void {
    const now = Date.now();
    const latest = this.results[0];
    if (latest && latest.views[0]!.state === ended.state && now - latest.endedAt < TOGETHER_MS) latest.views.push(ended);
    else this.results.unshift({ views: [ended], endedAt: now });
  }

  private render(itemChanged = false): void {
    const { ui, t } = this;
    const snap = this.snapshot;
    const items = snap?.active ?? [];
    const view = this.current();
    // A new snapshot of the item being read redraws it where the person was: emptying the area
    // would put the scroll back at the top, and the end they had reached off screen again.
    const scrolled = itemChanged ? 0 : ui.content.scrollTop;
    ui.content.replaceChildren();
    this.card = null;
    for (const pairing of snap?.pairings ?? []) ui.content.append(this.pairingCard(pairing).element);
    if (view) {
      this.card = renderApprovalCard(this.doc, view, t, { showAll: this.showAll });
      ui.content.append(this.card.card);
      if (view.toolCall && this.signedShown !== view) this.checkSigned(view);
      // When the summary reached the screen (wall clock): read by `npm run bench` (time-to-window).
      this.doc.defaultView?.requestAnimationFrame(() => {
        ui.content.dataset.paintedKey = view.key;
        ui.content.dataset.paintedAt = String(Date.now());
      });
    } else if ((snap?.pairings.length ?? 0) === 0) {
      ui.content.append(...this.paired);
      const [latest] = this.results;
      if (latest) ui.content.append(renderResultCard(this.doc, latest.views, t, false));
      else if (this.paired.length === 0) ui.content.append(Object.assign(this.doc.createElement('p'), { textContent: t('nothingPending'), className: 'empty' }));
    }
    // While another item is shown, the latest result is one line above it, for a minute.
    const recent = this.results[0] && Date.now() - this.results[0].endedAt < RECENT_RESULT_MS ? this.results[0] : undefined;
    ui.results.replaceChildren(...(view && recent ? [renderResultCard(this.doc, recent.views, t, true)] : []));
    if (scrolled > 0) ui.content.scrollTop = scrolled;
    this.renderQueue(items, view);
    this.renderNotice(view);
    this.renderFooter(view, items);
    this.scheduleClose(items.length + (snap?.pairings.length ?? 0));
    if (itemChanged) this.focusHeading();
    this.tick();
  }

  private renderQueue(items: ApprovalView[], view: ApprovalView | undefined): void {
    const { ui, t } = this;
    const index = view ? items.indexOf(view) : -1;
    // The queue bar only when there is a queue: one item needs no "1 of 1".
    ui.queueBar.hidden = items.length < 2;
    ui.position.textContent = items.length ? t('position', [String(index + 1), String(items.length)]) : '';
    ui.prev.disabled = index <= 0;
    ui.next.disabled = index < 0 || index >= items.length - 1;
  }

  /** One message per state: the connection first, then the asking agent. */
  private renderNotice(view: ApprovalView | undefined): void {
    const { ui, t } = this;
    const bridgeDown = this.snapshot?.bridge === 'down';
    const agentGone = !bridgeDown && !!view && !view.agentConnected;
    ui.bridgeDown.hidden = !bridgeDown;
    ui.agentGone.hidden = !agentGone;
    if (view) ui.agentGone.textContent = t('agentDisconnected', inspectText(view.agentName, { singleLine: true }).display);
    ui.notice.hidden = !bridgeDown && !agentGone;
  }

  private renderFooter(view: ApprovalView | undefined, items: ApprovalView[]): void {
    const { ui, t } = this;
    const pending = view?.state === 'pending';
    const danger = pending && !!this.card?.risk.danger;
    ui.actions.classList.toggle('danger', danger);
    ui.actions.hidden = !view;
    const statusKey = view ? ACTIVE_STATUS[view.state] : undefined;
    ui.status.textContent = statusKey && view ? t(statusKey, inspectText(view.agentName, { singleLine: true }).display) : '';
    // The passkey step's own word on this item outlives re-renders; Approve itself says it needs one.
    if (pending && this.passkeyNote?.key === view.key) ui.status.textContent = this.passkeyNote.text;
    ui.riskAck.hidden = !danger;
    // What a click on Approve does, on the button, from the terms as data (spec section 3: the
    // terms hold what the summary says in words): the summary can claim anything, not this.
    ui.approve.textContent = view ? approveLabel(view, danger, this.card?.action, this.card?.facts ?? [], t) : t('approve');
    ui.approve.className = `${danger ? 'secondary' : 'primary'} armed-button`;
    ui.decline.className = danger ? 'primary' : 'secondary';
    ui.decline.hidden = !view || (view.state !== 'pending' && view.state !== 'held');
    ui.approve.hidden = !pending;
    ui.withdraw.hidden = !view || view.state !== 'approved';
    const waiting = items.filter((v) => v.state === 'pending' || v.state === 'held').length;
    ui.declineAll.hidden = waiting < 2;
    ui.declineAll.textContent = t('declineAllCount', String(waiting));
    // The question takes the buttons' place while it is asked: the footer never grows for it.
    const confirming = this.confirmingDeclineAll && waiting >= 2;
    ui.confirmBox.hidden = !confirming;
    ui.buttons.hidden = confirming;
    ui.actions.classList.toggle('confirming', confirming);
    ui.confirmQuestion.textContent = t.plural('declineAllQuestion', waiting);
    ui.confirmAll.textContent = t('declineAllConfirmCount', String(waiting));
  }

  /** The end of the summary is inside the scrolling area's view (or there is nothing to scroll). */
  private summaryEndVisible(): boolean {
    const summary = this.card?.summary;
    if (!summary) return true;
    const area = this.ui.content.getBoundingClientRect();
    const end = summary.getBoundingClientRect();
    // Before the page has a layout nothing has been seen: never count that as read.
    return area.height > 0 && end.bottom <= area.bottom + 2;
  }

  /** Approve stays disarmed until the call on the card is shown to be the call the decision signs. */
  private checkSigned(view: ReviewedView): void {
    void showsSignedCall(view).then((signed) => {
      if (!signed || this.current() !== view) return;
      this.signedShown = view;
      this.tick();
    });
  }

  private focusHeading(): void {
    const heading = this.ui.content.querySelector<HTMLElement>('.heading');
    heading?.focus({ preventScroll: false });
  }

  /** Remembers when the queue emptied (after it held something), for `closeIfIdle`. */
  private scheduleClose(open: number): void {
    if (open > 0) {
      this.everBusy = true;
      this.emptySince = null;
    } else if (this.everBusy && this.emptySince === null) this.emptySince = Date.now();
  }

  /** The queue has been empty a few seconds and the person is looking elsewhere: close. */
  private closeIfIdle(now: number): void {
    if (this.emptySince === null || now - this.emptySince < AUTO_CLOSE_MS || this.focused()) return;
    this.emptySince = null;
    this.doc.defaultView?.close();
  }

  private pairingCard(pairing: Snapshot['pairings'][number]): PairingCard {
    let card = this.pairingCards.get(pairing.pairingId);
    if (!card) {
      card = new PairingCard(pairing, { doc: this.doc, t: this.t, send: this.send, focused: this.focused, changed: () => this.tick() }, this.pairingCards.size);
      this.pairingCards.set(pairing.pairingId, card);
    }
    return card;
  }

  /** Runs often: the countdown, and whether Approve may be clicked now. */
  tick(): void {
    const { ui, t } = this;
    const now = Date.now();
    const bridgeUp = this.snapshot?.bridge === 'up';
    this.gate.observe(now, this.focused());
    for (const card of this.pairingCards.values()) card.tick(now, bridgeUp);
    this.closeIfIdle(now);
    const view = this.current();
    if (!view) {
      ui.countdown.textContent = '';
      ui.approve.disabled = true;
      return;
    }
    this.countdown(view, now);
    let summaryRead = view.state !== 'pending' || this.summaryReadFor === view.key;
    if (!summaryRead && this.summaryEndVisible()) {
      // Reaching the end is the start of a new look: the delay runs from here, not from the scroll.
      this.summaryReadFor = view.key;
      summaryRead = true;
      this.gate.restart(now, this.focused());
    }
    // A change the banner does not list is on screen only once "and N more changes" is opened:
    // what is approved is on screen in full before Approve arms. Opening is a new look too.
    const more = this.card?.card.querySelector<HTMLDetailsElement>('details.more-changes');
    if (more?.open && this.changesOpenedFor !== view.key) {
      this.changesOpenedFor = view.key;
      this.gate.restart(now, this.focused());
    }
    const state = approveGate({
      pending: view.state === 'pending',
      expired: deadlineOf(view.operation.expires_at) - now <= 0,
      bridgeUp,
      danger: !!this.card?.risk.danger,
      riskAcknowledged: this.riskAcknowledged,
      summaryRead,
      changesOpened: more ? this.changesOpenedFor === view.key : null,
      signed: !view.toolCall || this.signedShown === view,
      armed: this.gate.ready(now),
    });
    ui.approve.disabled = !state.enabled;
    // The fill shows the delay only while the delay is all that holds Approve back.
    ui.approve.classList.toggle('arming', state.arming);
    ui.approve.style.setProperty('--armed', String(this.gate.progress(now)));
    ui.approve.setAttribute('aria-description', state.waiting ? t('approveWaiting') : '');
    ui.readHint.hidden = state.hint === null;
    if (state.hint !== null) ui.readHint.textContent = t(state.hint);
  }

  /** The time left, in words; a warning from 30 s before expiry, announced once. Stops after Approve. */
  private countdown(view: ReviewedView, now: number): void {
    const { ui, t } = this;
    if (view.state !== 'pending') {
      ui.countdown.textContent = '';
      ui.countdown.hidden = true;
      return;
    }
    ui.countdown.hidden = false;
    const left = deadlineOf(view.operation.expires_at) - now;
    ui.countdown.textContent = left > 0 ? t('expiresIn', formatRemaining(left, t)) : t('expired');
    const urgent = left > 0 && left <= EXPIRY_WARNING_MS;
    ui.countdown.classList.toggle('warning', urgent || left <= 0);
    if (urgent && !this.announced.has(view.key)) {
      this.announced.add(view.key);
      ui.announce.textContent = t('expiresSoon', formatRemaining(left, t));
    }
  }

  listen(): void {
    const { ui, doc } = this;
    ui.approve.addEventListener('click', (event) => this.onApprove(event));
    ui.decline.addEventListener('click', (event) => {
      const view = this.current();
      if (!view || !event.isTrusted) return;
      void this.send({ type: 'countersign/decide', key: view.key, decision: 'decline', trusted: true, shownFor: this.gate.shownFor(Date.now()) });
    });
    ui.declineAll.addEventListener('click', (event) => {
      if (!event.isTrusted) return;
      this.confirmingDeclineAll = true;
      this.render();
      ui.confirmCancel.focus();
    });
    ui.confirmCancel.addEventListener('click', () => {
      this.confirmingDeclineAll = false;
      this.render();
    });
    ui.confirmAll.addEventListener('click', (event) => this.onDeclineAll(event));
    ui.withdraw.addEventListener('click', (event) => this.onWithdraw(event));
    ui.riskAckBox.addEventListener('change', () => {
      this.riskAcknowledged = ui.riskAckBox.checked;
      // Ticking the box is not reading the card: the delay starts over from the tick.
      this.gate.restart(Date.now(), this.focused());
      this.tick();
    });
    ui.readHint.addEventListener('click', () => {
      // A page down, or to the closed changes at the top: the gate itself still waits for the end.
      const more = this.card?.card.querySelector<HTMLElement>('details.more-changes:not([open])');
      if (this.summaryReadFor === this.currentKey && more) more.scrollIntoView({ block: 'center' });
      else ui.content.scrollBy({ top: ui.content.clientHeight * 0.85 });
    });
    ui.prev.addEventListener('click', () => this.move(-1));
    ui.next.addEventListener('click', () => this.move(1));
    ui.content.addEventListener('click', (event) => this.onContentClick(event));
    ui.results.addEventListener('click', (event) => this.onContentClick(event));
    ui.content.addEventListener('scroll', () => this.tick(), { passive: true });
    doc.addEventListener('keydown', (event) => {
      // Enter never approves by default: only a focused Approve button does (its own activation).
      if (event.key === 'ArrowLeft' && event.altKey) this.move(-1);
      if (event.key === 'ArrowRight' && event.altKey) this.move(1);
      // Escape decides nothing: it puts the focus on Decline, where Enter would decline.
      if (event.key === 'Escape' && !ui.decline.hidden) {
        event.preventDefault();
        ui.decline.focus();
      }
    });
    const gates = () => [this.gate, ...[...this.pairingCards.values()].map((c) => c.gate)];
    const refocus = () => {
      for (const g of gates()) g.observe(Date.now(), this.focused());
    };
    doc.defaultView?.addEventListener('focus', () => {
      // Focus coming back is a new look: every gate starts its delay again.
      for (const g of gates()) g.observe(Date.now(), false);
      refocus();
    });
    doc.defaultView?.addEventListener('blur', refocus);
    doc.addEventListener('visibilitychange', refocus);
  }

  private onApprove(event: MouseEvent): void {
    const view = this.current();
    // Only a real click by the person counts; scripted clicks (isTrusted false) are not trusted.
    if (!view || !event.isTrusted || this.ui.approve.disabled) return;
    const shownFor = this.gate.shownFor(Date.now());
    if (!this.gate.fire(Date.now())) return;
    this.ui.approve.disabled = true;
    if (view.userVerification === 'required') {
      void this.approveWithPasskey(view.key, shownFor);
      return;
    }
    void this.send({ type: 'countersign/decide', key: view.key, decision: 'approve', trusted: true, shownFor });
  }

  private showPasskeyNote(key: string, text: string): void {
    this.passkeyNote = { key, text };
    this.ui.status.textContent = text;
  }

  /**
   * After the trusted Approve click, the person confirms with their passkey over exactly the
   * claims the decision will carry (docs/bridge-protocol.md, "Passkey-verified decisions"). Never
   * started without that click, always with a signal that ends it. A refusal, a cancel or a
   * timeout is not a decision: the item stays pending and the window says why.
   */
  private async approveWithPasskey(key: string, shownFor: number): Promise<void> {
    this.showPasskeyNote(key, this.t('passkeyConfirming'));
    this.passkeyAbort?.abort();
    const controller = new AbortController();
    this.passkeyAbort = controller;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      timer = setTimeout(() => controller.abort(new DOMException('the passkey took too long', 'TimeoutError')), PASSKEY_TIMEOUT_MS);
      const asked = (await this.send({ type: 'countersign/passkey-challenge', key })) as { challenge?: string; credentialId?: string; now?: number; error?: { message: string } };
      if (asked.error !== undefined || asked.challenge === undefined || asked.credentialId === undefined || asked.now === undefined) throw new Error(asked.error?.message ?? 'no challenge');
      const assertion = await passkeyAssertion(asked.challenge, asked.credentialId, controller.signal);
      const answer = (await this.send({ type: 'countersign/decide', key, decision: 'approve', trusted: true, shownFor, userVerification: { now: asked.now, assertion } })) as { error?: { message: string } } | undefined;
      if (answer?.error !== undefined) throw new Error(answer.error.message);
      this.passkeyNote = undefined;
    } catch (error) {
      this.showPasskeyNote(key, passkeyFailure(error, this.t));
      // Approve can be clicked again, after its arm delay once more: the item is still pending.
      this.gate.restart(Date.now(), this.focused());
      this.tick();
    } finally {
      clearTimeout(timer);
      if (this.passkeyAbort === controller) this.passkeyAbort = undefined;
    }
  }

  private onDeclineAll(event: MouseEvent): void {
    if (!event.isTrusted) return;
    this.confirmingDeclineAll = false;
    void this.send({ type: 'countersign/decline-all', trusted: true }).then((answer: unknown) => {
      // Each item is declined on its own; say which ones could not be, rather than stop silently.
      const failed = (answer as { failed?: unknown[] } | undefined)?.failed;
      if (Array.isArray(failed) && failed.length > 0) this.ui.status.textContent = this.t.plural('declineAllFailed', failed.length);
    });
    this.render();
  }

  private onWithdraw(event: MouseEvent): void {
    const view = this.current();
    if (!view || !event.isTrusted) return;
    void this.send({ type: 'countersign/withdraw', key: view.key, trusted: true }).then((answer: unknown) => {
      // The agent's "sent" arrived first: the approval may already be at the Company. Say so.
      if ((answer as { tooLate?: boolean } | undefined)?.tooLate) this.ui.status.textContent = this.t('withdrawTooLate');
    });
  }

  private onContentClick(event: MouseEvent): void {
    const target = (event.target as HTMLElement).closest<HTMLElement>('[data-action]');
    switch (target?.dataset.action) {
      case 'show-all':
        this.showAll = true;
        this.render();
        break;
      case 'why': {
        const details = this.doc.getElementById('risk-details');
        details?.scrollIntoView({ block: 'start' });
        details?.focus({ preventScroll: true });
        break;
      }
      case 'close-result':
        this.closeResult(target.dataset.key);
        break;
    }
  }

  /** Close on a result: gone from the window; the last one closes the window when nothing waits. */
  private closeResult(key: string | undefined): void {
    const i = this.results.findIndex((r) => r.views[0]!.key === key);
    if (i >= 0) this.results.splice(i, 1);
    else this.paired.splice(0);
    const nothingLeft = (this.snapshot?.active.length ?? 0) === 0 && (this.snapshot?.pairings.length ?? 0) === 0 && this.results.length === 0 && this.paired.length === 0;
    if (nothingLeft) this.doc.defaultView?.close();
    else this.render(true);
  }

  private move(step: number): void {
    const items = this.snapshot?.active ?? [];
    const i = items.findIndex((v) => v.key === this.currentKey);
    const target = items[i + step];
    if (target) {
      this.select(target.key);
      this.render(true);
    }
  }
}
