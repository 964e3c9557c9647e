import { closeDialog, elements, openDialog } from './lists';
import type { Translate } from './i18n';

export interface ConfirmOptions {
  /** The question, already translated ("Revoke “Desk agent”?"). */
  title: string;
  /** What will happen, in words, already translated. */
  consequence: string;
  /** The button that acts, already translated ("Revoke"). */
  confirmLabel: string;
}

/**
 * Asks before an action that cannot be undone from here: a `<dialog>` with the consequence in
 * words, Cancel (focused first, and what Escape does) and the action. Resolves true only for a
 * click on the action button. Not `window.confirm`: that one names no consequence, cannot be
 * translated, and is blocked in some extension pages.
 */
export function confirmAction(doc: Document, t: Translate, options: ConfirmOptions): Promise<boolean> {
  const el = elements(doc);
  doc.getElementById('confirm-dialog')?.remove();
  const dialog = el('dialog', undefined, 'confirm');
  dialog.id = 'confirm-dialog';
  dialog.dataset.testid = 'confirm';
  dialog.setAttribute('aria-labelledby', 'confirm-title');
  dialog.setAttribute('aria-describedby', 'confirm-consequence');
  const title = el('h2', options.title);
  title.id = 'confirm-title';
  const consequence = el('p', options.consequence);
  consequence.id = 'confirm-consequence';
  const cancel = el('button', t('cancel'));
  cancel.type = 'button';
  cancel.dataset.testid = 'confirm-cancel';
  const act = el('button', options.confirmLabel, 'danger');
  act.type = 'button';
  act.dataset.testid = 'confirm-act';
  const buttons = el('div', undefined, 'buttons');
  buttons.append(cancel, act);
  dialog.append(title, consequence, buttons);
  doc.body.append(dialog);
  const returnTo = doc.activeElement as HTMLElement | null;

  return new Promise<boolean>((resolve) => {
    let answered = false;
    const finish = (yes: boolean) => {
      if (answered) return;
      answered = true;
      closeDialog(dialog, yes ? 'confirm' : 'cancel');
      dialog.remove();
      returnTo?.focus?.();
      resolve(yes);
    };
    cancel.addEventListener('click', () => finish(false));
    act.addEventListener('click', () => finish(true));
    // Escape, or the dialog closed any other way: nothing happens.
    dialog.addEventListener('cancel', () => finish(false));
    dialog.addEventListener('close', () => finish(false));
    openDialog(dialog);
    cancel.focus();
  });
}
