import { elements } from './lists';
import type { Translate } from './i18n';
import type { Snapshot } from '../snapshot';

/**
 * Where setup stands, in the order the person does it:
 * - `install`: the helper program (the bridge) is not running for this browser;
 * - `pair`: it runs, and no agent was ever paired (or every one was revoked);
 * - `offline`: paired, but none of the paired agents is connected right now;
 * - `ready`: at least one paired agent is connected.
 * "Never paired" and "paired but not running" need different words: the first needs pairing,
 * the second only needs the agent started.
 */
export type SetupStep = 'install' | 'pair' | 'offline' | 'ready';

export function setupStep(snapshot: Pick<Snapshot, 'bridge' | 'agents' | 'agentsConnected'>): SetupStep {
  if (snapshot.bridge !== 'up') return 'install';
  if (snapshot.agentsConnected > 0) return 'ready';
  if (!snapshot.agents.some((a) => !a.revokedAt)) return 'pair';
  return 'offline';
}

/** The command that installs the helper for this browser, exactly as the person types it. */
export function installCommand(browserFamily: Snapshot['browserFamily']): string {
  return `npx countersign-bridge install --browser ${browserFamily === 'firefox' ? 'firefox' : 'chromium'}`;
}

export interface ChecklistOptions {
  /** Puts text on the clipboard; default `navigator.clipboard.writeText`. */
  copy?: (text: string) => Promise<void>;
  /** Makes the Copy button the page's primary button (the popup, when installing is next). */
  primaryCopy?: boolean;
  /** Opens the Countersign window (to type a pairing code); the button shows only with it. */
  openWindow?: () => void;
}

/**
 * The setup checklist: 1. install the helper (with the command to copy and where to run it),
 * 2. pair an agent. Shared by the popup and the welcome page. Each step says whether it is done
 * in words, not only with a mark.
 */
export function renderChecklist(doc: Document, snapshot: Snapshot, t: Translate, options: ChecklistOptions = {}): HTMLElement {
  const el = elements(doc);
  const step = setupStep(snapshot);
  const section = el('section', undefined, 'checklist');
  section.dataset.testid = 'checklist';
  section.dataset.step = step;
  section.setAttribute('aria-labelledby', 'checklist-heading');
  const heading = el('h2', t('setupHeading'));
  heading.id = 'checklist-heading';
  const list = el('ol', undefined, 'steps');
  section.append(heading, list);

  const item = (name: 'install' | 'pair', title: string, state: 'done' | 'current' | 'later') => {
    const li = el('li', undefined, `step ${state}`);
    li.dataset.step = name;
    li.dataset.state = state;
    if (state === 'current') li.setAttribute('aria-current', 'step');
    const head = el('div', undefined, 'step-head');
    head.append(el('h3', title), el('span', t(state === 'done' ? 'setupStepDone' : state === 'current' ? 'setupStepNext' : 'setupStepLater'), 'step-state'));
    li.append(head);
    list.append(li);
    return li;
  };

  // Step 1: the helper program.
  const install = item('install', t('setupInstallTitle'), step === 'install' ? 'current' : 'done');
  if (step === 'install') {
    const command = installCommand(snapshot.browserFamily);
    install.append(el('p', t('setupInstallWhere')));
    const row = el('div', undefined, 'command');
    const code = el('code', command, undefined, true);
    code.dataset.testid = 'install-command';
    const copy = el('button', t('copyCommand'), options.primaryCopy ? 'primary' : undefined);
    copy.type = 'button';
    copy.dataset.testid = 'copy-command';
    const note = el('p', '', 'copy-note');
    note.setAttribute('role', 'status');
    const write = options.copy ?? ((text: string) => doc.defaultView!.navigator.clipboard.writeText(text));
    copy.addEventListener('click', () => {
      void Promise.resolve()
        .then(() => write(command))
        .then(
          () => (note.textContent = t('copiedCommand')),
          () => (note.textContent = t('copyFailed')),
        );
    });
    row.append(code, copy);
    install.append(row, note);
  }

  // Step 2: pairing. Never paired and paired-but-not-running read differently.
  const pair = item('pair', t('setupPairTitle'), step === 'install' ? 'later' : step === 'pair' ? 'current' : 'done');
  if (step === 'install' || step === 'pair') pair.append(el('p', t('setupPairHow')));
  if (step === 'offline') pair.append(el('p', t('setupPairedOffline'), 'offline'));
  if (step !== 'install' && snapshot.pairings.length > 0) {
    pair.append(el('p', t('setupPairWaiting')));
    if (options.openWindow) {
      const open = el('button', t('pairOpenWindow'), 'primary');
      open.type = 'button';
      open.addEventListener('click', () => options.openWindow!());
      pair.append(open);
    }
  }
  return section;
}
