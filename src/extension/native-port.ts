import {
  BRIDGE_PROTOCOL_VERSION,
  bridgeToExtensionMessage,
  parseBridgeMessage,
  type BridgeToExtensionMessage,
  type ExtensionToBridgeMessage,
} from '../protocol/bridge';
import { openNativePort, type NativeMessagingPort, type OpenedPort } from './held-port';

export interface NativePortHandlers {
  /**
   * The extension's key thumbprint, sent first so the bridge opens the socket named after it. A
   * promise, so the port (and with it the bridge process) can start before the key is read.
   */
  thumbprint: Promise<string>;
  extensionVersion: string;
  onMessage(message: BridgeToExtensionMessage): void;
  onInvalid(reason: string): void;
  onState(state: 'up' | 'down', reason?: string): void;
  /**
   * True while someone is waiting on the bridge: an approval is pending or an extension page is
   * open. Retries are then capped at URGENT_RETRY_MS instead of 30 s.
   */
  urgent?(): boolean;
  /** A port already opened (early-native-port.ts): the first connect takes it instead of opening one. */
  opened?: OpenedPort<NativeMessagingPort>;
}

/** The longest wait between reconnects while an approval waits or a page shows "bridge down". */
export const URGENT_RETRY_MS = 2_000;

/** Backoff between reconnects: 0.5 s doubling to 30 s, reset once the bridge answers. */
export function backoffMs(attempt: number): number {
  return Math.min(30_000, 500 * 2 ** Math.min(attempt, 6));
}

/**
 * The port to `countersign-bridge` (native messaging). A service-worker stop closes it and a new
 * worker opens a new one; while the bridge is unreachable we retry with backoff (0.5 s, doubling
 * up to 30 s), so the extension reconnects by itself once the bridge is back.
 */
export class NativePort {
  private port: NativeMessagingPort | null = null;
  private attempt = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private opened: OpenedPort<NativeMessagingPort> | undefined;
  state: 'up' | 'down' = 'down';
  lastError: string | null = null;

  constructor(private readonly handlers: NativePortHandlers) {
    this.opened = handlers.opened;
  }

  connect(): void {
    if (this.port) return;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const opened = this.opened ?? openNativePort();
    this.opened = undefined;
    if (!opened.ok) {
      this.down(opened.error);
      return;
    }
    const port = opened.held.port;
    this.port = port;
    opened.held.listen({
      message: (raw) => {
        const parsed = parseBridgeMessage(bridgeToExtensionMessage, raw);
        if (!parsed.ok) {
          this.handlers.onInvalid(parsed.error.message);
          return;
        }
        if (parsed.message.type === 'bridge_ready') {
          this.attempt = 0;
          this.setState('up');
        }
        // Another bridge still holds our socket (a previous worker's host is leaving): say hello
        // again after the backoff instead of staying down (docs/bridge-protocol.md "bridge_error").
        if (parsed.message.type === 'bridge_error' && parsed.message.code === 'ERR_SOCKET_IN_USE') {
          this.setState('down', parsed.message.message);
          setTimeout(() => this.hello(), backoffMs(this.attempt++));
        }
        this.handlers.onMessage(parsed.message);
      },
      disconnect: (reason) => {
        if (this.port === port) this.port = null;
        this.down(reason);
      },
    });
    this.hello();
  }

  private hello(): void {
    void this.handlers.thumbprint.then((thumbprint) =>
      this.post({ type: 'bridge_hello', v: BRIDGE_PROTOCOL_VERSION, extension_key_thumbprint: thumbprint, extension_version: this.handlers.extensionVersion }),
    );
  }

  post(message: ExtensionToBridgeMessage): boolean {
    if (!this.port) return false;
    try {
      this.port.postMessage(message);
      return true;
    } catch (error) {
      this.port = null;
      this.down(error instanceof Error ? error.message : String(error));
      return false;
    }
  }

  private down(reason: string): void {
    this.lastError = reason;
    this.setState('down', reason);
    if (this.timer) return;
    const wait = backoffMs(this.attempt++);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.connect();
    }, this.handlers.urgent?.() ? Math.min(wait, URGENT_RETRY_MS) : wait);
  }

  /** Someone started waiting (a page opened): if the bridge is down, try now rather than after the backoff. */
  nudge(): void {
    if (this.state === 'up' || this.port) return;
    this.connect();
  }

  private setState(state: 'up' | 'down', reason?: string): void {
    // Once per change: every retry while down would otherwise reset the sessions and rewrite
    // every record's connection again. The latest reason is kept in lastError.
    if (state === this.state) return;
    this.state = state;
    this.handlers.onState(state, reason);
  }
}
