import { inspectText } from '../../summary/text-inspection.ts';
import { inspectCompanyName } from '../../summary/company-name.ts';
import type { PairingView } from '../snapshot';
import type { PageMessage } from '../runtime-messages';
import { ArmDelay } from './arm-delay';
import type { Translate } from './i18n';
import { textElements } from './text-elements';
import { say } from './approval-card';

/** Six digits, typed with or without the space the agent prints ("304 236"). */
export const PAIRING_CODE = /^\d{3} ?\d{3}$/;

/** "304236" → "304 236" while typing: the same grouping the agent prints, easier to compare. */
export function groupCode(typed: string): string {
  const digits = typed.replace(/\D/g, '').slice(0, 6);
  return digits.length > 3 ? `${digits.slice(0, 3)} ${digits.slice(3)}` : digits;
}

export interface PairingAnswer {
  status?: string;
  attemptsLeft?: number;
  error?: { message?: string };
}

export interface PairingCardContext {
  doc: Document;
  t: Translate;
  send(message: PageMessage): Promise<unknown>;
  /** The window is visible and focused now. */
  focused(): boolean;
  /** Something changed that `tick` must look at (a typed digit). */
  changed(): void;
}

/**
 * A pairing waiting for the person: the agent's name, the code to type, what pairing allows, and
 * Pair / Don't pair. Pairing grants an agent the right to ask, so its click is held to Approve's
 * rule (visible and focused for the arm delay, restarting on refocus, single-fire), and it needs
 * the code typed from the agent's own display, which this window never shows. Kept across renders:
 * a snapshot must not wipe a half-typed code.
 */
export class PairingCard {
  readonly element: HTMLElement;
  readonly gate = new ArmDelay();
  private readonly input: HTMLInputElement;
  private readonly confirm: HTMLButtonElement;
  private readonly note: HTMLElement;
  private busy = false;
  /** Set once the background paired the agent: the card says so until the person closes it. */
  paired = false;

  constructor(readonly pairing: PairingView, private readonly ctx: PairingCardContext, index: number) {
    const { doc, t } = ctx;
    const el = textElements(doc);
    const name = inspectText(pairing.agentName, { singleLine: true });
    this.element = el('article', undefined, 'card pairing');
    this.element.dataset.testid = 'pairing';
    this.element.dataset.pairingId = pairing.pairingId;
    this.element.setAttribute('aria-labelledby', `pair-heading-${index}`);
    const heading = el('h1', t('pairHeading', name.display), 'heading');
    heading.id = `pair-heading-${index}`;
    heading.tabIndex = -1;
    const who = el('p', t('pairKey', pairing.fingerprint), 'agent');
    who.dataset.testid = 'pair-agent';
    const warnings = el('ul', undefined, 'findings');
    warnings.setAttribute('role', 'alert');
    for (const f of name.findings) warnings.append(el('li', say(t, f), 'finding danger'));
    for (const f of inspectCompanyName(pairing.agentName)) warnings.append(el('li', say(t, f), `finding ${f.severity}`));

    this.input = el('input', undefined, 'pair-code-input');
    this.input.id = `pair-code-${index}`;
    this.input.dataset.testid = 'pair-code-input';
    this.input.inputMode = 'numeric';
    this.input.autocomplete = 'off';
    this.input.maxLength = 7;
    this.input.spellcheck = false;
    this.input.placeholder = '000 000';
    this.input.setAttribute('aria-describedby', `pair-allows-${index}`);
    const label = el('label', t('pairCodeLabel', name.display));
    label.htmlFor = this.input.id;
    const allows = el('p', t('pairAllows'), 'allows');
    allows.id = `pair-allows-${index}`;
    this.note = el('p', '', 'pair-note');
    this.note.setAttribute('role', 'status');
    const reject = el('button', t('pairReject'), 'secondary');
    reject.type = 'button';
    reject.id = 'pair-reject';
    this.confirm = el('button', t('pairConfirm'), 'primary armed-button');
    this.confirm.type = 'button';
    this.confirm.id = 'pair-confirm';
    this.confirm.disabled = true;
    const buttons = el('div', undefined, 'buttons');
    buttons.append(reject, this.confirm);
    this.element.append(heading, who);
    if (warnings.childElementCount > 0) this.element.append(warnings);
    this.element.append(label, this.input, allows, this.note, buttons);
    this.gate.restart(Date.now(), ctx.focused());

    this.input.addEventListener('input', () => {
      this.note.classList.remove('error');
      this.input.removeAttribute('aria-invalid');
      const grouped = groupCode(this.input.value);
      if (grouped !== this.input.value) this.input.value = grouped;
      ctx.changed();
    });
    reject.addEventListener('click', (event) => {
      if (!event.isTrusted || this.busy) return;
      this.busy = true;
      ctx.send({ type: 'countersign/pair-answer', pairingId: pairing.pairingId, confirmed: false, trusted: true, shownFor: this.gate.shownFor(Date.now()) }).catch(() => this.unreachable());
    });
    this.confirm.addEventListener('click', (event) => this.onConfirm(event));
  }

  private onConfirm(event: MouseEvent): void {
    const now = Date.now();
    const code = this.input.value.trim();
    if (!event.isTrusted || this.busy || this.confirm.disabled || !PAIRING_CODE.test(code)) return;
    const shownFor = this.gate.shownFor(now);
    if (!this.gate.fire(now)) return;
    this.busy = true;
    this.confirm.disabled = true;
    this.ctx.send({ type: 'countersign/pair-answer', pairingId: this.pairing.pairingId, confirmed: true, code, trusted: true, shownFor }).then((raw: unknown) => {
      const answer = (raw ?? {}) as PairingAnswer;
      if (answer.status === 'paired') {
        this.paired = true;
        return;
      }
      if (answer.status === 'rejected') return;
      // A wrong code (or a refusal): say so, and arm again from now for the next try.
      this.busy = false;
      this.gate.restart(Date.now(), this.ctx.focused());
      this.note.textContent = answer.status === 'code-mismatch' ? this.ctx.t.plural('pairCodeMismatch', answer.attemptsLeft ?? 0) : (answer.error?.message ?? '');
      // Said as an error, not a note: the field and the line turn to the error style, and the
      // field tells assistive technology it holds a wrong value, until the next keystroke.
      this.note.classList.add('error');
      this.input.setAttribute('aria-invalid', 'true');
      this.input.select();
      this.ctx.changed();
    }, () => this.unreachable());
  }

  /** The background did not answer (a worker restarting): nothing was decided; the person can try again. */
  private unreachable(): void {
    this.busy = false;
    this.gate.restart(Date.now(), this.ctx.focused());
    this.note.textContent = this.ctx.t('pairNotSent');
    this.ctx.changed();
  }

  /** Whether Pair may be clicked now; the button shows the arm delay filling up. */
  tick(now: number, bridgeUp: boolean): void {
    this.gate.observe(now, this.ctx.focused());
    const typed = PAIRING_CODE.test(this.input.value.trim());
    this.confirm.disabled = this.busy || !typed || !this.gate.ready(now) || !bridgeUp;
    this.confirm.classList.toggle('arming', !this.busy && typed && bridgeUp && !this.gate.ready(now));
    this.confirm.style.setProperty('--armed', String(this.gate.progress(now)));
  }
}

/** The success state: which agent may now ask, and what it still cannot do. */
export function pairedCard(doc: Document, t: Translate, agentName: string, fingerprint: string): HTMLElement {
  const el = textElements(doc);
  const card = el('article', undefined, 'card result ok');
  card.dataset.testid = 'paired';
  const heading = el('h1', t('pairedHeading', inspectText(agentName, { singleLine: true }).display), 'heading');
  heading.tabIndex = -1;
  const close = el('button', t('close'), 'secondary close');
  close.type = 'button';
  close.dataset.action = 'close-result';
  card.append(heading, el('p', t('pairKey', fingerprint), 'agent'), el('p', t('pairAllows'), 'allows'), close);
  return card;
}
