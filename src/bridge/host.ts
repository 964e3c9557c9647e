import { randomBytes } from 'node:crypto';
import net from 'node:net';
import type { Readable, Writable } from 'node:stream';
import {
  BRIDGE_PROTOCOL_VERSION,
  MAX_AGENT_CONNECTIONS,
  SUPPORTED_PROTOCOL_VERSIONS,
  agentSocketPath,
  agentToExtensionMessage,
  base64urlEncode,
  extensionToBridgeMessage,
  parseBridgeMessage,
  requestIdOf,
  type BridgeToExtensionMessage,
} from '../protocol/bridge';
import { FrameDecoder, MAX_FRAME_BYTES, encodeJsonFrame, nativeEndianness, type Endianness, type FrameEvent } from '../protocol/bridge-framing';
import { CountersignError, isCountersignError, type ErrorCode } from '../protocol/errors';
import type { Logger } from './log';
import { listenAgentSocket } from './socket';
import { BRIDGE_VERSION } from './version';

/**
 * The native-messaging host: one process per extension port. It relays between the extension
 * (stdin/stdout) and any number of agents (a local socket), and understands only envelopes: it
 * checks that each message is well formed for its direction, wraps agent messages with their
 * connection id, and routes the extension's replies by that id. Pairing, authentication and
 * decisions are between the agent and the extension; the bridge never reads them for meaning.
 *
 * Every input is validated before it changes anything; a bad frame or message gets a typed error
 * to its sender and the relay carries on. docs/bridge-protocol.md describes the behaviour this
 * file implements.
 */

export type HostState = 'waiting' | 'starting' | 'ready' | 'closing' | 'closed';
type DisconnectReason = 'closed' | 'error' | 'frame_error' | 'not_reading' | 'agent_close';

export interface BridgeHostOptions {
  /** The extension's stream of frames (stdin). */
  input: Readable;
  /** Toward the extension (stdout). Nothing but frames may ever be written to it. */
  output: Writable;
  log: Logger;
  /** Which browser started us (from argv): reported to agents in `bridge_info`. */
  browser: 'chromium' | 'firefox';
  /** Inputs of the socket path rule (src/protocol/bridge.ts agentSocketPath). */
  socket: { platform: string; env: Readonly<Record<string, string | undefined>>; uid: number; username: string };
  /** Called once, after the bridge has shut down, with the exit code. */
  onExit: (code: number) => void;
  /** See socket.ts ListenOptions. */
  busyTimeoutMs?: number;
  maxAgents?: number;
  /** Bytes an agent may leave unread before it is disconnected ("not_reading"). */
  maxAgentBacklog?: number;
  /** Byte order on stdio; native unless a test says otherwise. */
  endianness?: Endianness;
}

interface Agent {
  conn: string;
  socket: net.Socket;
  decoder: FrameDecoder;
  /** `{"type":"relay","v":1,"conn":"<conn>","message":` as bytes: the envelope is built around the agent's own bytes. */
  envelopePrefix: Uint8Array;
  reason: DisconnectReason;
}

const encoder = new TextEncoder();
const CLOSE_BRACE = encoder.encode('}');
/** How long an ending agent connection may take to close before it is destroyed. */
const AGENT_END_GRACE_MS = 1000;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Connection ids are random, not counters: after a bridge restart an old id must not name a new agent. */
function newConnId(): string {
  return `c_${base64urlEncode(randomBytes(12))}`;
}

export class BridgeHost {
  private state: HostState = 'waiting';
  private thumbprint: string | undefined;
  private socketPath: string | undefined;
  private readonly agents = new Map<string, Agent>();
  private readonly server: net.Server;
  private readonly decoder: FrameDecoder;
  private readonly endian: Endianness;
  private readonly maxAgents: number;
  private readonly maxAgentBacklog: number;
  private exitCode = 0;

  constructor(private readonly options: BridgeHostOptions) {
    this.endian = options.endianness ?? nativeEndianness();
    this.maxAgents = options.maxAgents ?? MAX_AGENT_CONNECTIONS;
    this.maxAgentBacklog = options.maxAgentBacklog ?? 8 * MAX_FRAME_BYTES;
    // Oversized stdio frames are skipped, not fatal: the browser wrote the length, so it is true,
    // and skipping it lands exactly on the next frame (docs/bridge-protocol.md, "Framing").
    this.decoder = new FrameDecoder({ endian: this.endian, oversize: 'skip' });
    this.server = net.createServer((socket) => this.onAgent(socket));
    // Errors while listening are handled by listenAgentSocket (a busy socket is retried); only
    // later ones, on a socket that was working, are worth a line on stderr.
    this.server.on('error', (error) => {
      if (this.state === 'ready') options.log.error(`agent socket: ${error.message}`);
    });
  }

  /** Start reading the extension's frames. */
  start(): void {
    const { input, output, log } = this.options;
    input.on('data', (chunk: Uint8Array) => {
      for (const event of this.decoder.push(chunk)) this.onExtensionEvent(event);
    });
    // stdin ends when the browser closes the port or its worker stops: the only way we learn that
    // the extension is gone.
    input.on('end', () => {
      for (const event of this.decoder.end()) if (event.kind === 'error') log.warn(event.error.message);
      void this.shutdown(0);
    });
    input.on('error', (error) => {
      log.warn(`stdin: ${error.message}`);
      void this.shutdown(0);
    });
    // EPIPE: the browser stopped reading. Same as stdin ending.
    output.on('error', (error) => {
      log.warn(`stdout: ${error.message}`);
      void this.shutdown(0);
    });
  }

  /** State for diagnostics and tests. */
  snapshot(): { state: HostState; thumbprint: string | undefined; socketPath: string | undefined; conns: string[] } {
    return { state: this.state, thumbprint: this.thumbprint, socketPath: this.socketPath, conns: [...this.agents.keys()] };
  }

  // -------------------------------------------------------------------------------------------
  // Extension side

  private toExtension(message: BridgeToExtensionMessage): void {
    this.writeExtensionFrame(encodeJsonFrame(message, this.endian));
  }

  private writeExtensionFrame(frame: Uint8Array): void {
    const { output } = this.options;
    if (this.state === 'closed' || output.destroyed || !output.writable) return;
    output.write(frame);
  }

  private bridgeError(error: CountersignError, extra: { conn?: string | undefined; id?: string | undefined } = {}): void {
    this.options.log.warn(`to extension: ${error.code}: ${error.message}`);
    this.toExtension({
      type: 'bridge_error',
      v: BRIDGE_PROTOCOL_VERSION,
      code: error.code,
      message: error.message.slice(0, 1000),
      ...(extra.conn === undefined ? {} : { conn: extra.conn }),
      ...(extra.id === undefined ? {} : { id: extra.id }),
    });
  }

  private onExtensionEvent(event: FrameEvent): void {
    if (this.state === 'closing' || this.state === 'closed') return;
    if (event.kind === 'error') {
      this.bridgeError(event.error);
      return;
    }
    const value = event.value;
    const parsed = parseBridgeMessage(extensionToBridgeMessage, value);
    if (!parsed.ok) {
      const conn = isRecord(value) && typeof value['conn'] === 'string' && this.agents.has(value['conn']) ? value['conn'] : undefined;
      const id = isRecord(value) ? requestIdOf(value['message']) : undefined;
      this.bridgeError(parsed.error, { conn, id });
      return;
    }
    const message = parsed.message;
    switch (message.type) {
      case 'bridge_hello':
        void this.onBridgeHello(message.extension_key_thumbprint);
        return;
      case 'relay':
        // The extension's own value, not zod's copy: members this bridge does not know travel on.
        this.onRelay(message.conn, (value as { message: unknown }).message);
        return;
      case 'agent_close':
        this.onAgentClose(message.conn);
        return;
    }
  }

  private async onBridgeHello(thumbprint: string): Promise<void> {
    if (this.state === 'ready') {
      if (thumbprint === this.thumbprint) {
        this.sendReady();
      } else {
        this.bridgeError(new CountersignError('ERR_BRIDGE_MESSAGE_INVALID', 'this bridge already serves another extension key; open a new port for another key'));
      }
      return;
    }
    if (this.state === 'starting') {
      this.bridgeError(new CountersignError('ERR_BRIDGE_MESSAGE_INVALID', 'bridge_hello is already being handled'));
      return;
    }
    this.state = 'starting';
    const { socket, log } = this.options;
    try {
      const socketPath = agentSocketPath({ ...socket, thumbprint });
      await listenAgentSocket(this.server, {
        socketPath,
        platform: socket.platform,
        uid: socket.uid,
        log,
        ...(this.options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: this.options.busyTimeoutMs }),
      });
      // The extension may have left while we waited for the socket.
      if (this.state !== 'starting') {
        this.server.close();
        return;
      }
      this.thumbprint = thumbprint;
      this.socketPath = socketPath;
      this.state = 'ready';
      log.info(`listening on ${socketPath}`);
      this.sendReady();
    } catch (error) {
      if (this.state !== 'starting') return;
      // Nothing changed: the extension may send bridge_hello again.
      this.state = 'waiting';
      this.bridgeError(isCountersignError(error) ? error : new CountersignError('ERR_SOCKET_IN_USE', 'cannot open the agent socket', { cause: error }));
    }
  }

  private sendReady(): void {
    this.toExtension({
      type: 'bridge_ready',
      v: BRIDGE_PROTOCOL_VERSION,
      bridge_version: BRIDGE_VERSION,
      protocol_versions: [...SUPPORTED_PROTOCOL_VERSIONS],
      socket_path: this.socketPath ?? '',
    });
  }

  private requireReady(id: string | undefined, conn: string): boolean {
    if (this.state === 'ready') return true;
    this.bridgeError(new CountersignError('ERR_BRIDGE_MESSAGE_INVALID', 'send bridge_hello first'), { conn, id });
    return false;
  }

  private onRelay(conn: string, message: unknown): void {
    const id = requestIdOf(message);
    if (!this.requireReady(id, conn)) return;
    const agent = this.agents.get(conn);
    if (agent === undefined) {
      this.bridgeError(new CountersignError('ERR_CONNECTION_UNKNOWN', 'no agent is connected with this id (it disconnected)'), { conn, id });
      return;
    }
    let frame: Uint8Array;
    try {
      frame = encodeJsonFrame(message, 'BE');
    } catch (error) {
      this.bridgeError(isCountersignError(error) ? error : new CountersignError('ERR_INPUT_INVALID', 'message cannot be relayed', { cause: error }), { conn, id });
      return;
    }
    this.writeAgent(agent, frame);
  }

  private onAgentClose(conn: string): void {
    if (!this.requireReady(undefined, conn)) return;
    const agent = this.agents.get(conn);
    if (agent === undefined) {
      this.bridgeError(new CountersignError('ERR_CONNECTION_UNKNOWN', 'no agent is connected with this id (it disconnected)'), { conn });
      return;
    }
    agent.reason = 'agent_close';
    this.endAgent(agent);
  }

  // -------------------------------------------------------------------------------------------
  // Agent side

  private onAgent(socket: net.Socket): void {
    const { log } = this.options;
    if (this.state !== 'ready') {
      socket.destroy();
      return;
    }
    socket.on('error', () => {});
    if (this.agents.size >= this.maxAgents) {
      log.warn(`refusing agent connection: ${this.maxAgents} already connected`);
      socket.end(encodeJsonFrame(this.agentError('ERR_THROTTLED', `at most ${this.maxAgents} agents may be connected at once`), 'BE'));
      return;
    }
    let conn = newConnId();
    while (this.agents.has(conn)) conn = newConnId();
    const agent: Agent = {
      conn,
      socket,
      decoder: new FrameDecoder({ endian: 'BE', oversize: 'fatal' }),
      envelopePrefix: encoder.encode(`{"type":"relay","v":${BRIDGE_PROTOCOL_VERSION},"conn":"${conn}","message":`),
      reason: 'closed',
    };
    this.agents.set(conn, agent);
    // The extension hears of the connection before any of its messages: ordering on stdout is ours.
    this.toExtension({ type: 'agent_connected', v: BRIDGE_PROTOCOL_VERSION, conn });
    this.writeAgent(
      agent,
      encodeJsonFrame(
        {
          type: 'bridge_info',
          v: BRIDGE_PROTOCOL_VERSION,
          conn,
          extension_key_thumbprint: this.thumbprint,
          bridge_version: BRIDGE_VERSION,
          protocol_versions: [...SUPPORTED_PROTOCOL_VERSIONS],
          browser: this.options.browser,
        },
        'BE',
      ),
    );
    socket.on('data', (chunk: Uint8Array) => {
      if (agent.decoder.isStopped) return;
      for (const event of agent.decoder.push(chunk)) this.onAgentEvent(agent, event);
    });
    socket.on('error', (error) => {
      if (agent.reason === 'closed') agent.reason = 'error';
      log.debug(`agent ${conn}: ${error.message}`);
    });
    socket.on('close', () => {
      this.agents.delete(conn);
      if (this.state === 'ready') this.toExtension({ type: 'agent_disconnected', v: BRIDGE_PROTOCOL_VERSION, conn, reason: agent.reason });
    });
  }

  private agentError(code: ErrorCode, message: string, id?: string): Record<string, unknown> {
    return { type: 'error', v: BRIDGE_PROTOCOL_VERSION, ...(id === undefined ? {} : { id }), code, message: message.slice(0, 1000), source: 'bridge' };
  }

  private onAgentEvent(agent: Agent, event: FrameEvent): void {
    if (this.state !== 'ready') return;
    if (event.kind === 'error') {
      this.options.log.debug(`agent ${agent.conn}: ${event.error.code}: ${event.error.message}`);
      this.writeAgent(agent, encodeJsonFrame(this.agentError(event.error.code, event.error.message), 'BE'));
      if (event.fatal) {
        // After a length we refuse, the next frame boundary is unknown: this connection is done.
        agent.reason = 'frame_error';
        this.endAgent(agent);
      }
      return;
    }
    const parsed = parseBridgeMessage(agentToExtensionMessage, event.value);
    if (!parsed.ok) {
      this.writeAgent(agent, encodeJsonFrame(this.agentError(parsed.error.code, parsed.error.message, requestIdOf(event.value)), 'BE'));
      return;
    }
    // The envelope is built around the agent's exact bytes: nothing is re-serialized, so what the
    // extension parses is byte for byte what the agent sent.
    const length = agent.envelopePrefix.length + event.bytes.length + CLOSE_BRACE.length;
    if (length > MAX_FRAME_BYTES) {
      const error = `message is ${event.bytes.length} bytes; with its relay envelope it must fit in ${MAX_FRAME_BYTES} bytes (at most ${MAX_FRAME_BYTES - agent.envelopePrefix.length - 1})`;
      this.writeAgent(agent, encodeJsonFrame(this.agentError('ERR_FRAME_TOO_LARGE', error, requestIdOf(event.value)), 'BE'));
      return;
    }
    const frame = new Uint8Array(4 + length);
    new DataView(frame.buffer).setUint32(0, length, this.endian === 'LE');
    frame.set(agent.envelopePrefix, 4);
    frame.set(event.bytes, 4 + agent.envelopePrefix.length);
    frame.set(CLOSE_BRACE, 4 + agent.envelopePrefix.length + event.bytes.length);
    this.writeExtensionFrame(frame);
  }

  private writeAgent(agent: Agent, frame: Uint8Array): void {
    const socket = agent.socket;
    if (socket.destroyed || !socket.writable) return;
    socket.write(frame);
    if (socket.writableLength > this.maxAgentBacklog) {
      // An agent that does not read would make us buffer without bound.
      this.options.log.warn(`agent ${agent.conn} is not reading; disconnecting it`);
      agent.reason = 'not_reading';
      socket.destroy();
    }
  }

  /** Half-close toward the agent, and destroy it if it does not close its side soon. */
  private endAgent(agent: Agent): Promise<void> {
    return new Promise((resolve) => {
      if (agent.socket.destroyed) return resolve();
      const timer = setTimeout(() => agent.socket.destroy(), AGENT_END_GRACE_MS);
      agent.socket.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
      agent.socket.end();
    });
  }

  // -------------------------------------------------------------------------------------------
  // Shutdown

  /**
   * The extension is gone (stdin ended, stdout broke) or we were told to stop: tell every agent
   * "companion unavailable", close the socket (Node removes the socket file), then exit.
   */
  async shutdown(code: number): Promise<void> {
    if (this.state === 'closing' || this.state === 'closed') return;
    this.exitCode = code;
    this.state = 'closing';
    this.options.log.info('extension gone; closing');
    const unavailable = encodeJsonFrame({ type: 'companion_unavailable', v: BRIDGE_PROTOCOL_VERSION }, 'BE');
    const ending: Promise<void>[] = [];
    for (const agent of this.agents.values()) {
      if (!agent.socket.destroyed && agent.socket.writable) agent.socket.write(unavailable);
      ending.push(this.endAgent(agent));
    }
    const closing = new Promise<void>((resolve) => {
      if (!this.server.listening) return resolve();
      this.server.close(() => resolve());
    });
    await Promise.all([...ending, closing]);
    // Stop reading a stdin that is still open (a signal, a broken stdout): it would keep us alive.
    this.options.input.removeAllListeners('data');
    this.options.input.pause();
    this.state = 'closed';
    this.options.onExit(this.exitCode);
  }
}
