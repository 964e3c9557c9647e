import type { Writable } from 'node:stream';
import { MAX_FRAME_BYTES } from '../protocol/bridge-framing';

/**
 * What the bridge has written toward the extension and the browser has not read yet
 * (docs/bridge-protocol.md section 5, "Before trust"). A worker that is busy, stopped or stuck
 * stops reading stdout; without a bound, the bridge would hold whatever agents send meanwhile,
 * and a flood would grow it by hundreds of megabytes a minute. So frames wait here, in order,
 * while the output stream asks us to wait ('drain'), and the queue has a size:
 *
 * - messages of connections that are not trusted share a small part of it; when it is full, the
 *   oldest of them is dropped first, and its sender is told (onDropped);
 * - a trusted agent's message is never dropped once queued: when it does not fit even after every
 *   untrusted one is gone, it is refused, and the host tells the agent (ERR_THROTTLED);
 * - the bridge's own frames (agent_connected, bridge_error...) are small and always kept, so the
 *   extension's view of connections stays whole.
 */

export interface OutboxLimits {
  /** Bytes of frames waiting here at most (the output stream's own buffer holds one more frame at most). */
  maxQueuedBytes: number;
  /** Of those, bytes of frames from connections not trusted yet. */
  maxUntrustedQueuedBytes: number;
}

export const OUTBOX_LIMITS: Readonly<OutboxLimits> = Object.freeze({
  // Eight of the largest messages: a trusted agent's burst of big requests waits; more is refused.
  maxQueuedBytes: 8 * MAX_FRAME_BYTES,
  // Sixteen connections' worth of handshakes (4 KiB each at most, section 5).
  maxUntrustedQueuedBytes: 64 * 1024,
});

/** Who an agent's frame is from: the error for a dropped or refused frame names its request. */
export interface RelayOrigin {
  conn: string;
  id: string | undefined;
  trusted: boolean;
}

interface Queued {
  bytes: Uint8Array;
  origin: RelayOrigin | undefined;
}

export class ExtensionOutbox {
  private readonly limits: Readonly<OutboxLimits>;
  private queue: Queued[] = [];
  private queuedBytes = 0;
  private untrustedBytes = 0;
  /** The output stream said to wait: everything goes through the queue until it drains. */
  private waiting = false;

  constructor(
    private readonly output: Writable,
    limits: Partial<OutboxLimits>,
    private readonly onDropped: (origin: RelayOrigin) => void,
  ) {
    this.limits = { ...OUTBOX_LIMITS, ...limits };
  }

  /** Bytes waiting here now, for diagnostics and tests. */
  get queued(): number {
    return this.queuedBytes;
  }

  /** A frame of the bridge's own: kept whatever the queue holds. */
  control(bytes: Uint8Array): void {
    this.put({ bytes, origin: undefined });
  }

  /** An agent's message. False when it does not fit: it was not queued, and the caller tells its sender. */
  relay(bytes: Uint8Array, origin: RelayOrigin): boolean {
    const size = bytes.length;
    if (!this.waiting) {
      this.put({ bytes, origin });
      return true;
    }
    const { maxQueuedBytes, maxUntrustedQueuedBytes } = this.limits;
    // Refused before anything is dropped for it when dropping every untrusted message would not do.
    if (this.queuedBytes - this.untrustedBytes + size > maxQueuedBytes) return false;
    if (!origin.trusted) {
      if (size > maxUntrustedQueuedBytes) return false;
      while (this.untrustedBytes + size > maxUntrustedQueuedBytes) this.dropOldestUntrusted();
    }
    while (this.queuedBytes + size > maxQueuedBytes) this.dropOldestUntrusted();
    this.put({ bytes, origin });
    return true;
  }

  private put(item: Queued): void {
    if (!this.waiting) {
      this.write(item.bytes);
      return;
    }
    this.queue.push(item);
    this.queuedBytes += item.bytes.length;
    if (item.origin?.trusted === false) this.untrustedBytes += item.bytes.length;
  }

  private write(bytes: Uint8Array): void {
    if (this.output.destroyed || !this.output.writable) return;
    if (this.output.write(bytes)) return;
    this.waiting = true;
    this.output.once('drain', () => this.flush());
  }

  /** The output drained: write what waited, in order, until it asks to wait again. */
  private flush(): void {
    this.waiting = false;
    let i = 0;
    while (i < this.queue.length && !this.waiting) {
      const item = this.queue[i++]!;
      this.queuedBytes -= item.bytes.length;
      if (item.origin?.trusted === false) this.untrustedBytes -= item.bytes.length;
      this.write(item.bytes);
    }
    this.queue = this.queue.slice(i);
  }

  /** Called only while untrusted bytes are queued, so there is one to drop. */
  private dropOldestUntrusted(): void {
    const index = this.queue.findIndex((item) => item.origin?.trusted === false);
    const [item] = this.queue.splice(index, 1);
    this.queuedBytes -= item!.bytes.length;
    this.untrustedBytes -= item!.bytes.length;
    this.onDropped(item!.origin!);
  }
}
