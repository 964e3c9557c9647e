import { browser } from 'wxt/browser';
import { ApprovalQueue } from './approval-queue';
import { AgentSessions, MAX_PAIRING_CODE_ATTEMPTS } from './agent-sessions';
import { showApprovalWindow, APPROVE_PAGE } from './approval-window';
import { signRecord, extensionKey } from './keys';
import { NativePort } from './native-port';
import { APPROVE_DELAY_MS, DEFAULT_SETTINGS, pageMessage, settingsSchema, type Settings, type VersionAnswer } from './runtime-messages';
import { toView } from './snapshot';
import { ACTIVE_STATES, isActive, viewsOf, type Snapshot } from './snapshot';
import type { ApprovalRecord } from './store';
import { Store } from './store';
import { BRIDGE_PROTOCOL_VERSION, type BridgeToExtensionMessage } from '../protocol/bridge';
import { CountersignError } from '../protocol/errors';
import { keyFingerprint } from '../protocol/fingerprint';

/** Decided approvals shown in the popup and sent with each snapshot. */
const HISTORY_SIZE = 20;
const OPTIONS_PAGE = '/options.html' as const;
const POPUP_PAGE = '/popup.html' as const;
const WELCOME_PAGE = '/welcome.html' as const;

interface Services {
  store: Store;
  queue: ApprovalQueue;
  sessions: AgentSessions;
  port: NativePort;
  thumbprint: string;
}

/**
 * The background's wiring: native port ↔ sessions ↔ queue ↔ store, and the badge, notification
 * and window. Listeners are registered synchronously (an MV3 worker woken by an event must find
 * them at once); state is read from IndexedDB each time, so a restarted worker resumes as it was.
 */
export function startBackground(): void {
  const startedAt = Date.now();
  const version = browser.runtime.getManifest().version;
  const pagePorts = new Set<ReturnType<typeof browser.runtime.connect>>();
  let services: Promise<Services> | null = null;
  let broadcastTimer: ReturnType<typeof setTimeout> | null = null;
  /** Approvals waiting for the person, as of the last badge update (for the bridge's retry pace). */
  let pendingCount = 0;

  const init = (): Promise<Services> => (services ??= create());

  async function create(): Promise<Services> {
    const store = await Store.open();
    const key = await extensionKey(store);
    // eslint-disable-next-line prefer-const
    let sessions: AgentSessions;
    const port: NativePort = new NativePort({
      thumbprint: key.thumbprint,
      extensionVersion: version,
      onMessage: (m) => void onBridge(m),
      onInvalid: (reason) => void store.audit('bridge-invalid', { detail: reason.slice(0, 500) }),
      urgent: () => pagePorts.size > 0 || pendingCount > 0,
      onState: (state, reason) => {
        if (state === 'down') void sessions?.reset();
        void store.audit(`bridge-${state}`, reason ? { detail: reason.slice(0, 300) } : {});
        scheduleBroadcast();
      },
    });
    const queue = new ApprovalQueue({
      store,
      sign: (record, status, now) => signRecord(key, record, status, now),
      send: (conn, reply) => sessions.sendReply(conn, reply),
      changed: (reason) => {
        scheduleBroadcast();
        if (reason === 'new') void announce();
        if (reason === 'reask') void showApprovalWindow();
      },
    });
    sessions = new AgentSessions({
      store,
      queue,
      key,
      extensionVersion: version,
      sendToAgent: (conn, message) => port.post({ type: 'relay', v: BRIDGE_PROTOCOL_VERSION, conn, message }),
      pairingsChanged: () => {
        scheduleBroadcast();
        if ([...sessions.pairings.values()].some((p) => p.code)) void showApprovalWindow();
      },
    });

    async function onBridge(m: BridgeToExtensionMessage): Promise<void> {
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

    // A (re)started worker has no agent connections yet: every stored item waits for its agent to
    // authenticate again, so the window shows "agent disconnected" and sends nothing to a dead id.
    await queue.allDisconnected();
    port.connect();
    await queue.expireDue();
    await updateBadge(store);
    return { store, queue, sessions, port, thumbprint: key.thumbprint };
  }

  async function snapshot(): Promise<Snapshot> {
    const s = await init();
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
      ...viewsOf(active, await s.store.newest(HISTORY_SIZE, (r) => !isActive(r)), previous),
      pairings: [...s.sessions.pairings.values()]
        .filter((p) => p.code)
        .map((p) => ({
          pairingId: p.pairingId,
          agentName: p.agentName,
          fingerprint: keyFingerprint(p.agentThumbprint),
          attemptsLeft: MAX_PAIRING_CODE_ATTEMPTS - p.attempts,
          requestedAt: p.requestedAt,
        })),
      agents: (await s.store.agents()).map(({ thumbprint, name, pairedAt, revokedAt }) => ({
        thumbprint,
        fingerprint: keyFingerprint(thumbprint),
        name,
        pairedAt,
        ...(revokedAt ? { revokedAt } : {}),
      })),
      throttled: [...s.queue.throttled].map(([agent, count]) => ({ agent, count })),
      extensionKeyThumbprint: s.thumbprint,
    };
  }

  /**
   * A snapshot made ahead, for the window about to open: built while the browser creates the
   * window, so the page gets it the moment it connects. Valid only for the version of the state it
   * was made at; every change (which always schedules a broadcast) makes it stale.
   */
  let stateVersion = 0;
  let prepared: { version: number; snapshot: Promise<Snapshot> } | null = null;
  function preparedSnapshot(): Promise<Snapshot> {
    if (prepared?.version !== stateVersion) prepared = { version: stateVersion, snapshot: snapshot() };
    return prepared.snapshot;
  }

  function scheduleBroadcast(): void {
    stateVersion += 1;
    if (broadcastTimer) return;
    broadcastTimer = setTimeout(() => {
      broadcastTimer = null;
      void broadcast();
    }, 20);
  }

  async function broadcast(): Promise<void> {
    const s = await init();
    await updateBadge(s.store);
    if (pagePorts.size === 0) return;
    const snap = await snapshot();
    for (const p of pagePorts) p.postMessage({ snapshot: snap });
  }

  async function updateBadge(store: Store): Promise<void> {
    const pending = (await store.byState('pending')).length;
    pendingCount = pending;
    await browser.action.setBadgeText({ text: pending ? String(pending) : '' });
    await browser.action.setBadgeBackgroundColor({ color: '#b3261e' });
  }

  async function announce(): Promise<void> {
    // The window first: it is what the person waits for. The reads for the notification overlap it.
    const shown = showApprovalWindow();
    void preparedSnapshot();
    const s = await init();
    const [pending, current] = await Promise.all([s.store.byState('pending'), settings()]);
    await shown;
    const newest = pending.sort((a, b) => b.createdAt - a.createdAt)[0];
    if (newest && current.notifications) {
      // The notification names the Company only; the terms are shown in the trusted window.
      await browser.notifications
        .create('countersign-approval', {
          type: 'basic',
          iconUrl: browser.runtime.getURL('/icon/128.png'),
          title: browser.i18n.getMessage('notificationTitle'),
          message: browser.i18n.getMessage('notificationBody', newest.company.name.slice(0, 100)),
        })
        .catch(() => undefined);
    }
  }

  async function settings(): Promise<Settings> {
    const stored = await browser.storage.local.get('settings').catch(() => ({}) as Record<string, unknown>);
    const parsed = settingsSchema.safeParse((stored as { settings?: unknown }).settings);
    return parsed.success ? parsed.data : DEFAULT_SETTINGS;
  }

  browser.notifications.onClicked.addListener(() => void showApprovalWindow());

  browser.runtime.onConnect.addListener((port) => {
    if (port.name !== 'approve-window' || !isOwnPage(port.sender?.url)) return;
    pagePorts.add(port);
    port.onDisconnect.addListener(() => pagePorts.delete(port));
    void init().then((s) => s.port.nudge());
    void preparedSnapshot().then((snap) => port.postMessage({ snapshot: snap }));
  });

  browser.runtime.onMessage.addListener((raw: unknown, sender) => {
    const parsed = pageMessage.safeParse(raw);
    if (!parsed.success || sender.id !== browser.runtime.id) return undefined;
    const m = parsed.data;
    if (m.type === 'countersign/version') {
      const answer: VersionAnswer = { product: 'Countersign', version, bridgeProtocol: BRIDGE_PROTOCOL_VERSION, startedAt };
      return Promise.resolve(answer);
    }
    return handlePage(m, sender.url).catch((error: unknown) => ({
      error: error instanceof CountersignError ? error.toJSON() : { code: 'ERR_INPUT_INVALID', message: String(error) },
    }));
  });

  function isOwnPage(url: string | undefined, page?: typeof APPROVE_PAGE | typeof OPTIONS_PAGE | typeof POPUP_PAGE): boolean {
    if (!url) return false;
    return url.startsWith(page ? browser.runtime.getURL(page) : browser.runtime.getURL('/'));
  }

  async function handlePage(m: ReturnType<typeof pageMessage.parse>, senderUrl: string | undefined): Promise<unknown> {
    const s = await init();
    switch (m.type) {
      case 'countersign/snapshot':
        return { ...(await snapshot()), settings: await settings() };
      case 'countersign/open-window':
        await showApprovalWindow();
        return { ok: true };
      case 'countersign/decide': {
        // Decisions come only from the approval window, where the whole operation is shown.
        if (!isOwnPage(senderUrl, APPROVE_PAGE)) throw new CountersignError('ERR_NOT_ALLOWED', 'decisions are taken in the approval window only');
        if (m.decision === 'approve') {
          if (m.shownFor < APPROVE_DELAY_MS) throw new CountersignError('ERR_NOT_ALLOWED', 'approve: the window was not in front of the person long enough');
          if (s.port.state !== 'up') throw new CountersignError('ERR_COMPANION_UNAVAILABLE', 'approve: the bridge is down');
        }
        await s.queue.decide(m.key, m.decision);
        return { ok: true };
      }
      case 'countersign/withdraw':
        // Withdrawing only takes permission away: the toolbar popup may do it too.
        if (!isOwnPage(senderUrl, APPROVE_PAGE) && !isOwnPage(senderUrl, POPUP_PAGE)) throw new CountersignError('ERR_NOT_ALLOWED', 'withdraw from the approval window or the popup');
        return { ok: true, tooLate: (await s.queue.withdraw(m.key)).tooLate };
      case 'countersign/decline-all':
        return s.queue.declineAll();
      case 'countersign/history': {
        const q = m.query.trim().toLowerCase();
        const match = (r: ApprovalRecord) =>
          !q || [r.company.name, r.company.origin, r.operation.summary, r.operationId, r.revision, r.state, r.agentName].some((f) => f.toLowerCase().includes(q));
        return (await s.store.newest(m.limit, (r) => !isActive(r) && match(r))).map((r) => toView(r));
      }
      case 'countersign/export':
        return { exportedAt: new Date().toISOString(), approvals: await s.store.all(), agents: await s.store.agents(), audit: await s.store.auditLog() };
      case 'countersign/settings-set':
        await browser.storage.local.set({ settings: m.settings });
        return { ok: true, settings: m.settings };
      case 'countersign/pair-answer': {
        // Pairing grants an agent the right to ask: the same window and gate as Approve.
        if (!isOwnPage(senderUrl, APPROVE_PAGE)) throw new CountersignError('ERR_NOT_ALLOWED', 'pairing is answered in the approval window only');
        if (!m.confirmed) return s.sessions.answerPairing(m.pairingId, { confirmed: false });
        if (m.shownFor < APPROVE_DELAY_MS) throw new CountersignError('ERR_NOT_ALLOWED', 'pair: the window was not in front of the person long enough');
        if (m.code === undefined) throw new CountersignError('ERR_PAIRING_FAILED', 'pair: type the 6-digit code your agent shows');
        return s.sessions.answerPairing(m.pairingId, { confirmed: true, code: m.code });
      }
      case 'countersign/revoke-agent': {
        const agent = await s.store.getAgent(m.thumbprint);
        if (agent && !agent.revokedAt) await s.store.putAgent({ ...agent, revokedAt: Date.now() });
        scheduleBroadcast();
        return { ok: true };
      }
      default:
        return undefined;
    }
  }

  browser.alarms?.create('countersign-expiry', { periodInMinutes: 1 });
  browser.alarms?.onAlarm.addListener(() => void init().then((s) => s.queue.expireDue()));
  setInterval(() => void init().then((s) => s.queue.expireDue()), 5000);
  // After a browser restart, approvals still waiting come back in front of the person.
  browser.runtime.onStartup.addListener(() =>
    void init().then(async (s) => {
      if ((await s.store.byState('pending')).length > 0) await showApprovalWindow();
    }),
  );
  browser.runtime.onInstalled.addListener((details) => {
    void init();
    // A first install (never an update or a browser update) opens the welcome page with its setup checklist.
    if (details.reason === 'install') void browser.tabs.create({ url: browser.runtime.getURL(WELCOME_PAGE) }).catch(() => undefined);
  });
  void init();
}
