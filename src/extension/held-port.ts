import { browser } from 'wxt/browser';
import { NATIVE_HOST_NAME } from '../protocol/native-host-name';

/** What this module needs of a runtime.Port: its two events. */
export interface ListenablePort<P> {
  onMessage: { addListener(listener: (message: unknown) => void): void };
  onDisconnect: { addListener(listener: (port: P) => void): void };
}

export interface PortListeners {
  message(raw: unknown): void;
  /** `reason`: what the browser said when the port closed, read as it closed. */
  disconnect(reason: string): void;
}

/** An open port whose events wait, in order, until someone listens. */
export interface HeldPort<P> {
  readonly port: P;
  /** Delivers what arrived so far, then every later event as it comes. Once per port. */
  listen(listeners: PortListeners): void;
}

export type OpenedPort<P> = { ok: true; held: HeldPort<P> } | { ok: false; error: string };

/**
 * Opens a port with `open` and listens to it at once, keeping its events until `listen`: a port
 * opened before its owner exists loses nothing (a message, or the browser's reason for closing,
 * which it only tells during the event: `reasonOf` reads it then).
 */
export function holdPort<P extends ListenablePort<P>>(open: () => P, reasonOf: (port: P) => string): OpenedPort<P> {
  let port: P;
  try {
    port = open();
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
  const waiting: Array<{ raw: unknown } | { reason: string }> = [];
  let listeners: PortListeners | null = null;
  port.onMessage.addListener((raw) => {
    if (listeners) listeners.message(raw);
    else waiting.push({ raw });
  });
  port.onDisconnect.addListener((closed) => {
    const reason = reasonOf(closed);
    if (listeners) listeners.disconnect(reason);
    else waiting.push({ reason });
  });
  let listened = false;
  const held: HeldPort<P> = {
    port,
    listen(next) {
      if (listened) throw new Error('holdPort: this port already has its listeners');
      listened = true;
      // Anything that arrives while these are delivered joins the queue, and is delivered in turn.
      for (let event = waiting.shift(); event !== undefined; event = waiting.shift()) {
        if ('raw' in event) next.message(event.raw);
        else next.disconnect(event.reason);
      }
      listeners = next;
    },
  };
  return { ok: true, held };
}

export type NativeMessagingPort = ReturnType<typeof browser.runtime.connectNative>;

function disconnectReason(port: NativeMessagingPort): string {
  return (port as { error?: { message?: string } }).error?.message ?? browser.runtime.lastError?.message ?? 'bridge closed';
}

/** A port to `countersign-bridge`: the browser starts the bridge as a new process. */
export function openNativePort(): OpenedPort<NativeMessagingPort> {
  return holdPort(() => browser.runtime.connectNative(NATIVE_HOST_NAME), disconnectReason);
}
