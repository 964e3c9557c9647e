import type { browser as browserApi } from 'wxt/browser';
import { elements } from './lists';
import { pageTranslator } from './i18n';
import { renderChecklist, setupStep } from './setup-checklist';
import type { Snapshot } from '../snapshot';
import type { PageMessage } from '../runtime-messages';

type Browser = typeof browserApi;

export interface WelcomeOptions {
  /** Reads the snapshot again this often (ms) until setup is done; 0 never. Default 3000. */
  pollMs?: number;
  /** Puts text on the clipboard; default `navigator.clipboard.writeText`. */
  copy?: (text: string) => Promise<void>;
}

export interface WelcomePage {
  /** Settles once the first snapshot is shown. */
  ready: Promise<void>;
  refresh(): Promise<void>;
  stop(): void;
}

/**
 * The page opened once, on install: what Countersign does, in two sentences, the same setup
 * checklist as the popup (it updates itself while the person runs the command and pairs), and
 * the way to settings.
 */
export function mountWelcome(doc: Document, browser: Browser, options: WelcomeOptions = {}): WelcomePage {
  const t = pageTranslator(browser, doc);
  const el = elements(doc);
  doc.title = t('welcomeTitle');
  const app = doc.getElementById('app')!;
  const heading = el('h1', t('welcomeHeading'));
  const intro = el('div', undefined, 'intro');
  intro.append(el('p', t('welcomeWhat')), el('p', t('welcomeHow')));
  const checklist = el('div', undefined, 'welcome-checklist');
  const done = el('p', '', 'status');
  done.setAttribute('role', 'status');
  const settings = el('button', t('settingsLink'), 'link');
  settings.type = 'button';
  settings.dataset.testid = 'settings';
  settings.addEventListener('click', () => void browser.runtime.openOptionsPage());
  const footer = el('p', undefined, 'welcome-settings');
  footer.append(settings);
  app.replaceChildren(heading, intro, checklist, done, footer);

  let shownStep: string | null = null;
  let timer: ReturnType<typeof setInterval> | undefined;
  const stop = () => clearInterval(timer);

  async function refresh(): Promise<void> {
    const snapshot = await browser.runtime.sendMessage<PageMessage, Snapshot>({ type: 'countersign/snapshot' });
    const step = setupStep(snapshot);
    const key = `${step}:${snapshot.pairings.length}`;
    // Redrawn only when something changed: a redraw would drop the "Copied" note and the focus.
    if (key !== shownStep) {
      shownStep = key;
      checklist.replaceChildren(
        renderChecklist(doc, snapshot, t, {
          primaryCopy: step === 'install',
          openWindow: () => void browser.runtime.sendMessage({ type: 'countersign/open-window' }),
          ...(options.copy ? { copy: options.copy } : {}),
        }),
      );
      done.textContent = step === 'ready' || step === 'offline' ? t('welcomeAllSet') : '';
    }
    if (step === 'ready') stop();
  }

  const ready = refresh();
  const every = options.pollMs ?? 3000;
  if (every > 0) timer = setInterval(() => void refresh().catch(() => undefined), every);
  return { ready, refresh, stop };
}
