import type { browser as browserApi } from 'wxt/browser';
import { APPROVE_WINDOW_PORT } from '../constants';

type Browser = typeof browserApi;
type Port = ReturnType<Browser['runtime']['connect']>;

/** Where approve-port.js leaves the port it opened, on the window. */
const EARLY_PORT = '__countersignApprovePort';

/** A port opened before the window's main script ran, with what it heard meanwhile. */
export interface EarlyPort {
  port: Port;
  /** Messages in the order they arrived, not yet handled. */
  messages: unknown[];
  disconnected: boolean;
  /** Stops buffering: called once the window's own listeners are on the port. */
  release(): void;
}

/** Absent until one side runs: the early port, or null once the window took it or went without. */
type Holder = Partial<Record<typeof EARLY_PORT, EarlyPort | null>>;

/**
 * Opens the approval window's port at once, from a small classic script that runs while the HTML
 * is parsed (the main script is a module, which runs only once parsing is done), so that the
 * background's snapshot travels while the main script is still being loaded and compiled, not
 * after it (docs/ui.md, "Opening fast"). What arrives meanwhile is kept for the window, in order.
 */
export function openEarlyPort(browser: Browser, holder: object): void {
  // Never a second port: should the window's main script have run first, it has its own.
  if (EARLY_PORT in holder) return;
  const port = browser.runtime.connect({ name: APPROVE_WINDOW_PORT });
  const onMessage = (message: unknown) => early.messages.push(message);
  const onDisconnect = () => {
    early.disconnected = true;
  };
  const early: EarlyPort = {
    port,
    messages: [],
    disconnected: false,
    release: () => {
      port.onMessage.removeListener(onMessage);
      port.onDisconnect.removeListener(onDisconnect);
    },
  };
  port.onMessage.addListener(onMessage);
  port.onDisconnect.addListener(onDisconnect);
  (holder as Holder)[EARLY_PORT] = early;
}

/**
 * The port openEarlyPort left on `holder`, once: a later call (a reconnect) gets none, and an
 * early script that runs only after this one opens no port of its own.
 */
export function takeEarlyPort(holder: object | null): EarlyPort | undefined {
  if (holder === null) return undefined;
  const early = (holder as Holder)[EARLY_PORT] ?? undefined;
  (holder as Holder)[EARLY_PORT] = null;
  return early;
}
