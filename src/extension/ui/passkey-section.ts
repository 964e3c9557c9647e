import type { browser as browserApi } from 'wxt/browser';
import type { PasskeyAssertion, PasskeyCredential } from '../../protocol/passkey';
import type { SettingsChange } from '../page-messages/settings-change';
import type { Snapshot } from '../snapshot';
import { ArmDelay } from './arm-delay';
import { confirmAction } from './confirm';
import { oneLine } from './lists';
import type { Translate } from './i18n';
import { PASSKEY_TIMEOUT_MS, createPasskey, passkeyAssertion, passkeyUnavailable } from './passkey-ceremony';

type Browser = typeof browserApi;

/**
 * The options page's "Protect approvals with a passkey": register one (a WebAuthn credential of
 * this extension, user verification required), replace it or remove it. Replacing and removing
 * ask first, then need the current passkey itself (the background refuses them without its
 * assertion: docs/ui.md, "Passkey settings"): agents are told at once, and proofs from the old
 * passkey stop counting. Where the browser refuses WebAuthn in extension pages (Firefox ESR:
 * SecurityError at once), the section says so, with the browser's reason, and offers nothing.
 */
export interface PasskeySection {
  /** Redraw for the passkey the background holds now. */
  show(passkey: PasskeyCredential | null | undefined): void;
  /**
   * "Require my passkey for every approval" of one agent, changed by the person (`trusted`: the
   * change event's own isTrusted). On is a plain click. Off takes the protection away, so the
   * passkey confirms exactly that change first; with no passkey registered any more, the click
   * must be the person's own, once the page was in front for the Approve delay (the background
   * checks both: docs/ui.md, "Passkey settings"). Cancelled or refused, it stays on, and the
   * line under the agents says why.
   */
  requireFor(agent: Snapshot['agents'][number], required: boolean, trusted: boolean): Promise<void>;
  /** Settles when the availability check is done. */
  ready: Promise<void>;
}

/** What a page message answers when the background refused it. */
interface Refusal {
  error?: { code: string; message: string };
}

/** Throws the background's refusal as an Error whose message is the background's words. */
export function refused(answer: unknown): void {
  const error = (answer as Refusal | undefined)?.error;
  if (error) throw new Error(`${error.code}: ${error.message}`);
}

/** Why a passkey step failed, in the browser's words (DOMException) or the background's. */
export function reasonOf(error: unknown): string {
  if (error instanceof DOMException) return `${error.name}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

/**
 * The person's passkey confirming one settings change that takes protection away: the background
 * names the change in the challenge, the passkey signs it. Rejects with the browser's
 * DOMException (cancelled, refused, timed out) or the background's refusal.
 */
export async function confirmChange(browser: Browser, change: SettingsChange): Promise<{ now: number; assertion: PasskeyAssertion }> {
  const asked: unknown = await browser.runtime.sendMessage({ type: 'countersign/settings-challenge', change });
  refused(asked);
  const { challenge, credentialId, now } = asked as { challenge: string; credentialId: string; now: number };
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), PASSKEY_TIMEOUT_MS);
  try {
    return { now, assertion: await passkeyAssertion(challenge, credentialId, controller.signal) };
  } finally {
    clearTimeout(timer);
  }
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

  // Replacing or removing: the current passkey confirms exactly this change first.
  const save = async (credential: PasskeyCredential | null): Promise<void> => {
    const userVerification = current === null ? undefined : await confirmChange(browser, { kind: 'passkey', credential });
    refused(await browser.runtime.sendMessage({ type: 'countersign/passkey-set', credential, ...(userVerification ? { userVerification } : {}) }));
    await changed();
  };

  register.addEventListener('click', (event) => {
    if (!event.isTrusted) return;
    void (async () => {
      if (current !== null && !(await confirmAction(doc, t, { title: t('passkeyReplace'), consequence: t('passkeyReplaceConfirm'), confirmLabel: t('passkeyReplace') }))) return;
      register.disabled = true;
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), PASSKEY_TIMEOUT_MS);
      let created: PasskeyCredential | undefined;
      try {
        created = await createPasskey(controller.signal);
        await save(created);
      } catch (error) {
        const reason = reasonOf(error);
        if (error instanceof DOMException && error.name === 'SecurityError') unavailable = reason;
        show(current);
        // Made, but the current passkey did not confirm the swap: nothing changed.
        if (unavailable === undefined) status.textContent = created === undefined ? t('passkeyRegisterFailed', [reason]) : t('passkeyChangeFailed', [reason]);
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
      try {
        await save(null);
      } catch (error) {
        show(current);
        status.textContent = t('passkeyChangeFailed', [reasonOf(error)]);
      }
    })();
  });

  const shown = shownTracker(doc);
  const agentsStatus = $('agents-status');
  const requireFor = async (agent: Snapshot['agents'][number], required: boolean, trusted: boolean): Promise<void> => {
    const message = { type: 'countersign/agent-verification', thumbprint: agent.thumbprint, required } as const;
    agentsStatus.textContent = '';
    try {
      if (required) refused(await browser.runtime.sendMessage(message));
      else if (current !== null) refused(await browser.runtime.sendMessage({ ...message, userVerification: await confirmChange(browser, { kind: 'agent-verification', thumbprint: agent.thumbprint, required }) }));
      else if (trusted) refused(await browser.runtime.sendMessage({ ...message, trusted: true, shownFor: shown() }));
    } catch (error) {
      const words = required ? 'agentRequirePasskeyFailed' : current !== null ? 'agentRequirePasskeyKept' : 'agentRequirePasskeyKeptClick';
      agentsStatus.textContent = t(words, [oneLine(agent.name), reasonOf(error)]);
    }
    await changed();
  };

  // Firefox refuses WebAuthn in extension pages at once; probing Chromium would pend instead.
  const ready = passkeyUnavailable(/\bFirefox\//.test(navigator.userAgent)).then((reason) => {
    unavailable = reason;
    show(current);
  });
  return { show, requireFor, ready };
}

/**
 * How long the page has been visible and focused without a break, counted as the approval window
 * counts it for Approve (ArmDelay): a click that comes sooner may have been meant for something else.
 */
function shownTracker(doc: Document): () => number {
  const gate = new ArmDelay();
  const observe = () => gate.observe(Date.now(), doc.visibilityState === 'visible' && doc.hasFocus());
  observe();
  doc.addEventListener('visibilitychange', observe);
  doc.defaultView?.addEventListener('focus', observe);
  doc.defaultView?.addEventListener('blur', observe);
  return () => {
    observe();
    return gate.shownFor(Date.now());
  };
}

