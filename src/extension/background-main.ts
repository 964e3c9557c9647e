import { browser } from 'wxt/browser';
import { ApprovalQueue } from './approval-queue';
import { AgentSessions, MAX_PAIRING_CODE_ATTEMPTS } from './agent-sessions';
import { showApprovalWindow } from './approval-window';
import { signRecord, extensionKey } from './keys';
import { takeEarlyNativePort } from './early-native-port';
import { NativePort } from './native-port';
import { dispatchPageMessage, type DispatchContext } from './page-messages/dispatch';
import { PAGE_PATHS, type BackgroundParts, type PageServices } from './page-messages/index';
import { DEFAULT_SETTINGS, settingsSchema, type Settings } from './runtime-messages';
import { ACTIVE_STATES, isActive, viewsOf, type Snapshot } from './snapshot';
import { SnapshotReviews } from './snapshot-review';
import { APPROVE_WINDOW_PORT } from './constants';
import { uiLocale } from './ui/i18n';
import type { ApprovalRecord } from './store';
import { Store } from './store';
import { BRIDGE_PROTOCOL_VERSION, type BridgeToExtensionMessage } from '../protocol/bridge';
import { keyFingerprint } from '../protocol/fingerprint';

/** Decided approvals shown in the popup and sent with each snapshot. */
const HISTORY_SIZE = 20;

type PagePort = ReturnType<typeof browser.runtime.connect>;

/**
 * The background's wiring: native port ↔ sessions ↔ queue ↔ store, and the badge, notification
 * and window. Listeners are registered synchronously (an MV3 worker woken by an event must find
 * them at once); state is read from IndexedDB each time, so a restarted worker resumes as it was.
 */
export function startBackground(): void {
  const background = new Background(browser.runtime.getManifest().version, Date.now());
  const dispatch: DispatchContext = { ownId: browser.runtime.id, pageUrl: (path) => browser.runtime.getURL(path), services: background.pageServices() };

  browser.notifications.onClicked.addListener(() => void showApprovalWindow());
  browser.runtime.onConnect.addListener((port) => background.pageConnected(port));
  // The returned promise is the answer the page awaits (undefined: not ours, no answer).
  // eslint-disable-next-line @typescript-eslint/no-misused-promises
  browser.runtime.onMessage.addListener((raw: unknown, sender) => dispatchPageMessage(raw, sender, dispatch));

  void browser.alarms?.create('countersign-expiry', { periodInMinutes: 1 });
  browser.alarms?.onAlarm.addListener(() => void background.init().then((s) => s.queue.expireDue()));
  setInterval(() => void background.init().then((s) => s.queue.expireDue()), 5000);
  // After a browser restart, approvals still waiting come back in front of the person.
  browser.runtime.onStartup.addListener(() =>
    void background.init().then(async (s) => {
      if ((await s.store.countInState('pending')) > 0) await showApprovalWindow();
    }),
  );
  browser.runtime.onInstalled.addListener((details) => {
    void background.init();
    // A first install (never an update or a browser update) opens the welcome page with its setup checklist.
    if (details.reason === 'install') void browser.tabs.create({ url: browser.runtime.getURL(PAGE_PATHS.welcome) }).catch(() => undefined);
  });
  void background.init();
}

/** The worker's memory: the parts once started, the open pages, and the badge's last count. */
class Background {
  private readonly pagePorts = new Set<PagePort>();
  private parts: Promise<BackgroundParts> | null = null;
  private broadcastTimer: ReturnType<typeof setTimeout> | null = null;
  private broadcasting = false;
  private broadcastAgain = false;
  /** The newest prompt not yet announced (its window shown), and the announcement under way. */
  private toAnnounce: ApprovalRecord | null = null;
  private announcing: Promise<void> | null = null;
  /** The newest prompt its notification will name, while that notification waits. */
  private toNotify: ApprovalRecord | null = null;
  /** Approvals waiting for the person, as of the last badge update (for the bridge's retry pace). */
  private pendingCount = 0;
  /**
   * A snapshot made ahead, for the window about to open: built while the browser creates the
   * window, so the page gets it the moment it connects. Valid only for the version of the state it
   * was made at; every change (which always schedules a broadcast) makes it stale.
   */
  private stateVersion = 0;
  private prepared: { version: number; snapshot: Promise<Snapshot> } | null = null;
  /** The terms review of each item shown, run here once per revision so the window only renders it. */
  private readonly reviews = new SnapshotReviews(uiLocale(browser));

  constructor(
    private readonly version: string,
    private readonly startedAt: number,
  ) {}

  init(): Promise<BackgroundParts> {
    return (this.parts ??= this.start());
  }

  /** What page-message handlers use: the parts, and the page-facing actions of this worker. */
  pageServices(): PageServices {
    return {
      version: this.version,
      // The passkey's relying party is this origin (chrome-extension://<id>), without the trailing slash.
      extensionOrigin: browser.runtime.getURL('/').replace(/\/$/, ''),
      startedAt: this.startedAt,
      ready: () => this.init(),
      snapshot: () => this.snapshot(),
      settings: () => readSettings(),
      saveSettings: (settings) => browser.storage.local.set({ settings }),
      showApprovalWindow: () => showApprovalWindow(),
      changed: () => this.scheduleBroadcast(),
    };
  }

  /** An approval window, popup or options page opened its port: it gets every snapshot from now on. */
  pageConnected(port: PagePort): void {
    if (port.name !== APPROVE_WINDOW_PORT || !port.sender?.url?.startsWith(browser.runtime.getURL('/'))) return;
    this.pagePorts.add(port);
    port.onDisconnect.addListener(() => this.pagePorts.delete(port));
    void this.init().then((s) => s.port.nudge());
    void this.preparedSnapshot().then((snap) => port.postMessage({ snapshot: snap }));
  }

  private async start(): Promise<BackgroundParts> {
    const parts = await wireParts(this.version, {
      urgent: () => this.pagePorts.size > 0 || this.pendingCount > 0,
      changed: () => this.scheduleBroadcast(),
      announce: (record) => this.announce(record),
    });
    await parts.queue.expireDue();
    await this.updateBadge(parts.store);
    return parts;
  }

  private async snapshot(): Promise<Snapshot> {
    return buildSnapshot(await this.init(), this.reviews);
  }

  private preparedSnapshot(): Promise<Snapshot> {
    if (this.prepared?.version !== this.stateVersion) this.prepared = { version: this.stateVersion, snapshot: this.snapshot() };
    return this.prepared.snapshot;
  }

  private scheduleBroadcast(): void {
    this.stateVersion += 1;
    if (this.broadcasting) {
      this.broadcastAgain = true;
      return;
    }
    this.armBroadcast(20);
  }

  private armBroadcast(delayMs: number): void {
    if (this.broadcastTimer) return;
    this.broadcastTimer = setTimeout(() => {
      this.broadcastTimer = null;
      void this.broadcastOnce();
    }, delayMs);
  }

  /**
   * One broadcast at a time. A snapshot of a long queue takes longer to build than the 20 ms
   * between changes of a burst (a hundred re-asks, intake under load): overlapping builds would
   * compete with the very work they report. Changes made meanwhile are sent by the next one, at
   * least as long after as this one took, so that repainting takes at most half of the worker's
   * time however long the queue; a change after a quiet moment is still sent within 20 ms.
   */
  private async broadcastOnce(): Promise<void> {
    this.broadcasting = true;
    const started = performance.now();
    try {
      await this.broadcast();
    } finally {
      this.broadcasting = false;
      if (this.broadcastAgain) {
        this.broadcastAgain = false;
        this.armBroadcast(Math.max(20, performance.now() - started));
      }
    }
  }

  private async broadcast(): Promise<void> {
    const s = await this.init();
    await this.updateBadge(s.store);
    if (this.pagePorts.size === 0) return;
    const snap = await this.snapshot();
    for (const p of this.pagePorts) p.postMessage({ snapshot: snap });
  }

  private async updateBadge(store: Store): Promise<void> {
    const pending = await store.countInState('pending');
    this.pendingCount = pending;
    await browser.action.setBadgeText({ text: pending ? String(pending) : '' });
    await browser.action.setBadgeBackgroundColor({ color: '#b3261e' });
  }

  /**
   * A new prompt: the window, and a notification naming the newest one's Company. A burst of
   * requests is one window at a time and one notification: those arriving meanwhile are named by
   * the next notification, once, rather than each reading the queue and notifying in turn.
   */
  private announce(record: ApprovalRecord): void {
    this.toAnnounce = record;
    this.announcing ??= this.announceWaiting().finally(() => {
      this.announcing = null;
    });
  }

  private async announceWaiting(): Promise<void> {
    // The window first: it is what the person waits for. The settings' read overlaps it.
    const shown = showApprovalWindow();
    void this.preparedSnapshot();
    const current = await readSettings();
    await shown;
    const newest = this.toAnnounce;
    this.toAnnounce = null;
    if (newest && current.notifications) this.notifyAfterWindow(newest);
  }

  /**
   * Chromium draws a notification's icon on a canvas in this worker (7 to 30 ms of its thread
   * here), in the process that is loading the window: the notification follows the window by half
   * a second, by when the window has drawn. It names only what the window already shows, so it
   * loses nothing by waiting.
   */
  private notifyAfterWindow(record: ApprovalRecord): void {
    const waiting = this.toNotify !== null;
    this.toNotify = record;
    if (waiting) return;
    setTimeout(() => {
      // Those that arrived meanwhile replaced `record`: the newest is named.
      const newest = this.toNotify ?? record;
      this.toNotify = null;
      // The notification names the Company only; the terms are shown in the trusted window.
      void browser.notifications
        .create('countersign-approval', {
          type: 'basic',
          iconUrl: browser.runtime.getURL('/icon/128.png'),
          title: browser.i18n.getMessage('notificationTitle'),
          message: browser.i18n.getMessage('notificationBody', newest.company.name.slice(0, 100)),
        })
        .catch(() => undefined);
    }, NOTIFY_AFTER_WINDOW_MS);
  }
}

/** How long after the window opens its notification follows (docs/ui.md, "Opening fast"). */
const NOTIFY_AFTER_WINDOW_MS = 500;

interface WiringHooks {
  /** Whether someone waits on the bridge (an open page, a pending approval): it retries sooner. */
  urgent(): boolean;
  /** Something the pages show changed. */
  changed(): void;
  /** A new approval to put in front of the person. */
  announce(record: ApprovalRecord): void;
}

/**
 * Starts the native port, opens the store and key, and connects the port, sessions and queue to
 * each other. The port comes first: the browser starts the bridge as a new process, which is most
 * of a cold start, so it starts while IndexedDB opens (and, in the worker, was opened before the
 * rest of its code was evaluated: early-native-port.ts). Nothing from the bridge is handled until
 * the parts are wired and every stored item is marked disconnected (below).
 */
async function wireParts(version: string, hooks: WiringHooks): Promise<BackgroundParts> {
  let wired!: (parts: BackgroundParts) => void;
  let failed!: (error: unknown) => void;
  const ready = new Promise<BackgroundParts>((resolve, reject) => {
    wired = resolve;
    failed = reject;
  });
  // Callbacks chained on one promise run in the order they were added, so bridge messages keep
  // their order while they wait.
  const later = (work: (parts: BackgroundParts) => Promise<void> | void) => void ready.then(work).catch(() => undefined);
  // The bridge opens its socket once it has the key's thumbprint: it gets it as soon as the key is
  // read, not after the stored items are marked (a cold start waits on that socket).
  let keyRead!: (thumbprint: string) => void;
  let keyFailed!: (error: unknown) => void;
  const thumbprint = new Promise<string>((resolve, reject) => {
    keyRead = resolve;
    keyFailed = reject;
  });
  const port: NativePort = new NativePort({
    opened: takeEarlyNativePort(),
    thumbprint,
    extensionVersion: version,
    onMessage: (m) => later((parts) => onBridge(parts.sessions, parts.store, m)),
    onInvalid: (reason) => later((parts) => parts.store.audit('bridge-invalid', { detail: reason.slice(0, 500) })),
    urgent: () => hooks.urgent(),
    onState: (state, reason) =>
      later((parts) => {
        if (state === 'down') void parts.sessions.reset();
        void parts.store.audit(`bridge-${state}`, reason ? { detail: reason.slice(0, 300) } : {});
        hooks.changed();
      }),
  });
  port.connect();
  // A reconnected agent asks again for every prompt it waits on: the window is brought forward
  // once for such a burst, not once (three window calls) for each of fifty re-asks.
  let showTimer: ReturnType<typeof setTimeout> | null = null;
  const showSoon = () => {
    showTimer ??= setTimeout(() => {
      showTimer = null;
      void showApprovalWindow();
    }, 20);
  };
  try {
    const store = await Store.open();
    const key = await extensionKey(store);
    keyRead(key.thumbprint);
    const queue: ApprovalQueue = new ApprovalQueue({
      store,
      sign: (record, status, now) => signRecord(key, record, status, now),
      send: (conn, reply) => sessions.sendReply(conn, reply),
      changed: (reason, record) => {
        hooks.changed();
        if (reason === 'new' && record) hooks.announce(record);
        if (reason === 'reask') showSoon();
      },
    });
    const sessions: AgentSessions = new AgentSessions({
      store,
      queue,
      key,
      extensionVersion: version,
      sendToAgent: (conn, message) => port.post({ type: 'relay', v: BRIDGE_PROTOCOL_VERSION, conn, message }),
      pairingsChanged: () => {
        hooks.changed();
        if ([...sessions.pairings.values()].some((p) => p.code)) void showApprovalWindow();
      },
    });
    // A (re)started worker has no agent connections yet: every stored item waits for its agent to
    // authenticate again, so the window shows "agent disconnected" and sends nothing to a dead id.
    await queue.allDisconnected();
    const parts = { store, queue, sessions, port, thumbprint: key.thumbprint };
    wired(parts);
    return parts;
  } catch (error) {
    keyFailed(error);
    failed(error);
    throw error;
  }
}

/** One message from the native bridge, to the agent sessions (and the audit log). */
async function onBridge(sessions: AgentSessions, store: Store, m: BridgeToExtensionMessage): Promise<void> {
  switch (m.type) {
    case 'bridge_ready':
      return;
    case 'agent_connected':
      sessions.connected(m.conn);
      return;
    case 'agent_disconnected':
      await sessions.disconnected(m.conn);
      return;
    case 'relay':
      await sessions.receive(m.conn, m.message);
      return;
    case 'bridge_error':
      // Queued for its connection before anything awaits, so an agent_disconnected behind it
      // cannot forget the connection first.
      await Promise.all([
        m.conn === undefined ? undefined : sessions.refusedByBridge(m.conn, m.code),
        store.audit('bridge-error', { detail: `${m.code}: ${m.message}`.slice(0, 500) }),
      ]);
      return;
  }
}

/** Everything the pages show, read from the store and the sessions now. */
async function buildSnapshot(s: BackgroundParts, reviews: SnapshotReviews): Promise<Snapshot> {
  const active = await s.store.inStates(ACTIVE_STATES);
  const previous = new Map<string, ApprovalRecord>();
  for (const r of active) {
    if (!r.previousKey) continue;
    const p = await s.store.get(r.previousKey);
    if (p) previous.set(p.key, p);
  }
  return {
    bridge: s.port.state,
    bridgeError: s.port.state === 'down' ? s.port.lastError : null,
    agentsConnected: s.sessions.authenticatedCount(),
    problems: [...s.sessions.problems],
    browserFamily: browser.runtime.getURL('/').startsWith('moz-extension:') ? 'firefox' : 'chromium',
    ...viewsOf(active, await s.store.newest(HISTORY_SIZE, (r) => !isActive(r)), previous, reviews),
    pairings: [...s.sessions.pairings.values()]
      .filter((p) => p.code)
      .map((p) => ({
        pairingId: p.pairingId,
        agentName: p.agentName,
        fingerprint: keyFingerprint(p.agentThumbprint),
        attemptsLeft: MAX_PAIRING_CODE_ATTEMPTS - p.attempts,
        requestedAt: p.requestedAt,
      })),
    agents: (await s.store.agents()).map(({ thumbprint, name, pairedAt, revokedAt, requireUserVerification }) => ({
      thumbprint,
      fingerprint: keyFingerprint(thumbprint),
      name,
      pairedAt,
      ...(revokedAt ? { revokedAt } : {}),
      ...(requireUserVerification === true ? { requireUserVerification } : {}),
    })),
    throttled: [...s.queue.throttled].map(([agent, count]) => ({ agent, count })),
    extensionKeyThumbprint: s.thumbprint,
    passkey: (await s.store.getPasskey())?.credential ?? null,
  };
}

/** The person's settings, or the defaults when none (or none valid) are stored. */
async function readSettings(): Promise<Settings> {
  const stored: Record<string, unknown> = await browser.storage.local.get('settings').catch(() => ({}));
  const parsed = settingsSchema.safeParse(stored.settings);
  return parsed.success ? parsed.data : DEFAULT_SETTINGS;
}
