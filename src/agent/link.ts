import net from 'node:net';
import { agentInboundMessage, parseBridgeMessage, type AgentInboundMessage, type AgentToExtensionMessage } from '../protocol/bridge';
import { FrameDecoder, MAX_FRAME_BYTES, encodeJsonFrame } from '../protocol/bridge-framing';
import { CountersignError } from '../protocol/errors';
import { errno } from './files';

/**
 * One agent connection to the bridge: frames in and out, every inbound message validated with
 * the bridge.ts schemas before anyone sees it: whatever is on the other end is not trusted, so bad
 * input is a typed error and changes nothing.
 *
 * Socket framing (docs/bridge-protocol.md "Framing"): a 4-byte big-endian length, then that many
 * bytes of UTF-8 JSON, at most 1 MiB.
 */

/**
 * The bridge wraps each agent message in `{"type":"relay","v":2,"conn":"…","message":…}` and the
 * whole must fit in 1 MiB (bridge/host.ts). The envelope is under 100 bytes; refusing here, with
 * room to spare, gives the caller a clean local error instead of a bridge error later.
 */
const MAX_OUTBOUND_BYTES = MAX_FRAME_BYTES - 256;

export interface LinkHandlers {
  message(message: AgentInboundMessage): void;
  /** A frame or message that failed validation: reported, never acted on. */
  invalid(error: CountersignError): void;
  /** The connection ended (once). */
  closed(error: CountersignError): void;
}

export class Link {
  private readonly decoder = new FrameDecoder({ endian: 'BE', oversize: 'fatal' });
  private ended = false;

  private constructor(
    private readonly socket: net.Socket,
    private readonly handlers: LinkHandlers,
  ) {
    socket.on('data', (chunk: Uint8Array) => this.onData(chunk));
    socket.on('end', () => {
      for (const event of this.decoder.end()) if (event.kind === 'error') this.handlers.invalid(event.error);
    });
    socket.on('error', () => {
      // Reported through 'close', which always follows.
    });
    socket.on('close', () => this.finish(new CountersignError('ERR_COMPANION_UNAVAILABLE', 'the connection to the Countersign bridge closed')));
  }

  /** Connect to a Unix socket or Windows named pipe. ERR_COMPANION_UNAVAILABLE when nobody listens there. */
  static open(socketPath: string, handlers: LinkHandlers, timeoutMs: number): Promise<Link> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(socketPath);
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new CountersignError('ERR_COMPANION_UNAVAILABLE', `no answer from the Countersign bridge at ${socketPath} within ${timeoutMs} ms`));
      }, timeoutMs);
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.removeAllListeners('error');
        resolve(new Link(socket, handlers));
      });
      socket.once('error', (error) => {
        clearTimeout(timer);
        socket.destroy();
        // ECONNREFUSED: a socket file left by a bridge that died; ENOENT: it went away meanwhile.
        reject(new CountersignError('ERR_COMPANION_UNAVAILABLE', `cannot connect to the Countersign bridge at ${socketPath} (${errno(error) ?? 'error'})`, { cause: error }));
      });
    });
  }

  get isOpen(): boolean {
    return !this.ended;
  }

  /** Send one message. False when the connection is gone; throws for a message that cannot be framed. */
  send(message: AgentToExtensionMessage): boolean {
    const frame = encodeJsonFrame(message, 'BE', MAX_OUTBOUND_BYTES);
    if (this.ended || this.socket.destroyed || !this.socket.writable) return false;
    this.socket.write(frame);
    return true;
  }

  /** Close our side; 'closed' follows. */
  close(): void {
    if (this.socket.destroyed) return;
    this.socket.end();
    // A bridge that does not close its side promptly is not waited for.
    setTimeout(() => this.socket.destroy(), 1000).unref();
  }

  private onData(chunk: Uint8Array): void {
    if (this.ended) return;
    for (const event of this.decoder.push(chunk)) {
      if (event.kind === 'error') {
        this.handlers.invalid(event.error);
        // After a length we refuse, the next frame boundary is unknown: the stream is unusable.
        if (event.fatal) this.socket.destroy();
        continue;
      }
      const parsed = parseBridgeMessage(agentInboundMessage, event.value);
      if (parsed.ok) this.handlers.message(parsed.message);
      else this.handlers.invalid(parsed.error);
    }
  }

  private finish(error: CountersignError): void {
    if (this.ended) return;
    this.ended = true;
    this.handlers.closed(error);
  }
}
