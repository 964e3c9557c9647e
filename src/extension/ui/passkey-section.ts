import type { browser as browserApi } from 'wxt/browser';
import type { PasskeyCredential } from '../../protocol/passkey';
import { confirmAction } from './confirm';
import type { Translate } from './i18n';
import { PASSKEY_TIMEOUT_MS, createPasskey, passkeyUnavailable } from './passkey-ceremony';

type Browser = typeof browserApi;

/**
 * The options page's "Protect approvals with a passkey": register one (a WebAuthn credential of
 * this extension, user verification required), replace it or remove it. Replacing and removing
 * ask first: agents are told at once, and proofs from the old passkey stop counting. Where the
 * browser refuses WebAuthn in extension pages (Firefox ESR: SecurityError at once), the section
 * says so, with the browser's reason, and offers nothing.
 */
export interface PasskeySection {
  /** Redraw for the passkey the background holds now. */
  show(passkey: PasskeyCredential | null | undefined): void;
  /** Settles when the availability check is done. */
  ready: Promise<void>;
}

export function mountPasskeySection(doc: Document, browser: Browser, t: Translate, changed: () => Promise<void>): PasskeySection {
  const $ = (id: string) => doc.getElementById(id)!;
  const status = $('passkey-status');
  const register = $('passkey-register') as HTMLButtonElement;
  const remove = $('passkey-remove') as HTMLButtonElement;
  let current: PasskeyCredential | null = null;
  let unavailable: string | undefined;

  const show = (passkey: PasskeyCredential | null | undefined): void => {
    current = passkey ?? null;
    if (unavailable !== undefined) {
      status.textContent = t('passkeyUnavailable', [unavailable]);
      register.hidden = true;
      remove.hidden = true;
      return;
    }
    status.textContent = current === null ? t('passkeyNone') : t('passkeyRegistered', [new Date(current.registered_at).toLocaleString(t.locale)]);
    register.hidden = false;
    register.textContent = t(current === null ? 'passkeyRegister' : 'passkeyReplace');
    remove.hidden = current === null;
  };

  const save = async (credential: PasskeyCredential | null): Promise<void> => {
    await browser.runtime.sendMessage({ type: 'countersign/passkey-set', credential });
    await changed();
  };

  register.addEventListener('click', (event) => {
    if (!event.isTrusted) return;
    void (async () => {
      if (current !== null && !(await confirmAction(doc, t, { title: t('passkeyReplace'), consequence: t('passkeyReplaceConfirm'), confirmLabel: t('passkeyReplace') }))) return;
      register.disabled = true;
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), PASSKEY_TIMEOUT_MS);
      try {
        await save(await createPasskey(controller.signal));
      } catch (error) {
        const reason = error instanceof DOMException ? `${error.name}: ${error.message}` : String(error);
        if (error instanceof DOMException && error.name === 'SecurityError') unavailable = reason;
        show(current);
        if (unavailable === undefined) status.textContent = t('passkeyRegisterFailed', [reason]);
      } finally {
        clearTimeout(timer);
        register.disabled = false;
      }
    })();
  });

  remove.addEventListener('click', (event) => {
    if (!event.isTrusted) return;
    void (async () => {
      if (!(await confirmAction(doc, t, { title: t('passkeyRemove'), consequence: t('passkeyRemoveConfirm'), confirmLabel: t('passkeyRemove') }))) return;
      await save(null);
    })();
  });

  // Firefox refuses WebAuthn in extension pages at once; probing Chromium would pend instead.
  const ready = passkeyUnavailable(/\bFirefox\//.test(navigator.userAgent)).then((reason) => {
    unavailable = reason;
    show(current);
  });
  return { show, ready };
}
