// Longer than 500 lines on purpose: the host is one state machine over two channels (native
// messaging and the agent socket), and every relay rule depends on the state both share. Limits
// and deadlines live in hygiene.ts, the socket in socket.ts.
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import type { Readable, Writable } from 'node:stream';
import {
  BRIDGE_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  agentSocketPath,
  agentToExtensionMessage,
  base64urlEncode,
  compiledBridgeParser,
  extensionToBridgeMessage,
  requestIdOf,
  type BridgeToExtensionMessage,
} from '../protocol/bridge';
import { FrameDecoder, MAX_FRAME_BYTES, encodeJsonFrame, nativeEndianness, type Endianness, type FrameEvent } from '../protocol/bridge-framing';
import { CountersignError, isCountersignError, type ErrorCode } from '../protocol/errors';
import { ExtensionOutbox, type OutboxLimits, type RelayOrigin } from './extension-outbox';
import { ConnectionHygiene, type HygieneLimits, type RelayedMessage, type Trust } from './hygiene';
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
  /** Connection limits and deadlines (hygiene.ts); the defaults are HYGIENE_LIMITS. */
  hygiene?: Partial<HygieneLimits>;
  /** A monotonic clock in milliseconds, for the deadlines; performance.now() unless a test says otherwise. */
  now?: () => number;
  /** Bytes an agent may leave unread before it is disconnected ("not_reading"). */
  maxAgentBacklog?: number;
  /** Byte order on stdio; native unless a test says otherwise. */
  endianness?: Endianness;
  /** How much may wait for the extension to read (extension-outbox.ts); the defaults are OUTBOX_LIMITS. */
  outbox?: Partial<OutboxLimits>;
}

interface Agent {
  conn: string;
  socket: net.Socket;
  decoder: FrameDecoder;
  /** `{"type":"relay","v":1,"conn":"<conn>","message":` as bytes: the envelope is built around the agent's own bytes. */
  envelopePrefix: Uint8Array;
  reason: DisconnectReason;
  /** The bridge is closing it: what it still sends is not relayed (a connection past its deadline must not go on talking). */
  closing: boolean;
  /**
   * The extension has heard of it (agent_connected). Only with its first message relayed: a
   * connection that never says anything worth relaying costs the extension nothing, so opening
   * and closing connections in a loop does not flood it either (docs/bridge-protocol.md 6.2).
   */
  announced: boolean;
}

const encoder = new TextEncoder();
const CLOSE_BRACE = encoder.encode('}');
/** How long an ending agent connection may take to close before it is destroyed. */
const AGENT_END_GRACE_MS = 1000;
/** At most one warning per this interval about refused connections: a flood must not flood stderr too (Firefox shows it). */
const THROTTLE_WARN_INTERVAL_MS = 10_000;

/**
 * The two directions' checks, each the whole protocol's (docs/bridge-protocol.md section 4, "Framing", and 6.3):
 * a type that arrives often is checked by compiled code, with the same verdicts and errors.
 */
const parseFromExtension = compiledBridgeParser(extensionToBridgeMessage);
const parseFromAgent = compiledBridgeParser(agentToExtensionMessage);

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
  private readonly hygiene: ConnectionHygiene;
  private readonly now: () => number;
  /** The one timer of the hygiene deadlines, armed for the earliest (deadlineAt). */
  private deadlineTimer: NodeJS.Timeout | undefined;
  private deadlineAt: number | undefined;
  private refusedSinceWarning = 0;
  private lastRefusalWarning = -Infinity;
  private readonly maxAgentBacklog: number;
  private readonly outbox: ExtensionOutbox;
  private exitCode = 0;

  constructor(private readonly options: BridgeHostOptions) {
    this.endian = options.endianness ?? nativeEndianness();
    this.hygiene = new ConnectionHygiene(options.hygiene);
    this.now = options.now ?? (() => performance.now());
    this.maxAgentBacklog = options.maxAgentBacklog ?? 8 * MAX_FRAME_BYTES;
    this.outbox = new ExtensionOutbox(options.output, options.outbox ?? {}, (origin) => this.onDropped(origin));
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

  /** State for diagnostics and tests; `queued`: bytes waiting for the extension to read. */
  snapshot(): { state: HostState; thumbprint: string | undefined; socketPath: string | undefined; conns: string[]; queued: number } {
    return { state: this.state, thumbprint: this.thumbprint, socketPath: this.socketPath, conns: [...this.agents.keys()], queued: this.outbox.queued };
  }

  /** How hygiene counts a connection (undefined: unknown, or being closed), for diagnostics and tests. */
  trustOf(conn: string): Trust | undefined {
    return this.hygiene.trustOf(conn);
  }

  // -------------------------------------------------------------------------------------------
  // Extension side

  private toExtension(message: BridgeToExtensionMessage): void {
    if (this.state === 'closed') return;
    this.outbox.control(encodeJsonFrame(message, this.endian));
  }

  /** An agent's message toward the extension. False when it was refused: the extension is not reading, and there is no room. */
  private relayToExtension(frame: Uint8Array, origin: RelayOrigin): boolean {
    if (this.state === 'closed') return true;
    return this.outbox.relay(frame, origin);
  }

  /** An untrusted connection's message was dropped from the queue to make room: its sender hears why, with the request's id. */
  private onDropped(origin: RelayOrigin): void {
    const agent = this.agents.get(origin.conn);
    if (agent === undefined) return;
    this.writeAgent(
      agent,
      encodeJsonFrame(
        this.agentError('ERR_THROTTLED', 'not relayed: the extension is not reading, and messages of connections that are not trusted yet make room first (docs/bridge-protocol.md section 5)', origin.id),
        'BE',
      ),
    );
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
    const parsed = parseFromExtension(value);
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
        // zod's copy is what hygiene reads: it is validated.
        this.onRelay(message.conn, (value as { message: unknown }).message, message.message);
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

  private onRelay(conn: string, message: unknown, parsed: RelayedMessage): void {
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
      // encodeJsonFrame throws only CountersignErrors; anything else is this bridge failing, which to the extension is the other side failing.
      this.bridgeError(isCountersignError(error) ? error : new CountersignError('ERR_REMOTE', 'message cannot be relayed', { cause: error }), { conn, id });
      return;
    }
    this.writeAgent(agent, frame);
    // What the extension says to a connection is what makes it trusted (docs/bridge-protocol.md
    // section 5): read only after the message is on its way, so the agent sees it first.
    const trust = this.hygiene.observe(conn, parsed, this.now());
    if (trust !== undefined) {
      this.options.log.debug(`agent ${conn} is now ${trust}`);
      // A trusted agent may send the largest messages (an approval request with its terms).
      if (trust === 'trusted') agent.decoder.maxBytes = MAX_FRAME_BYTES;
      this.armDeadline();
    }
  }

  private onAgentClose(conn: string): void {
    if (!this.requireReady(undefined, conn)) return;
    const agent = this.agents.get(conn);
    if (agent === undefined) {
      this.bridgeError(new CountersignError('ERR_CONNECTION_UNKNOWN', 'no agent is connected with this id (it disconnected)'), { conn });
      return;
    }
    this.closeAgent(agent, 'agent_close');
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
    const now = this.now();
    const admission = this.hygiene.admission(now);
    if (!admission.admit) {
      this.noteRefusal(now, admission.why);
      // Never announced to the extension: it never was a connection. Destroyed soon even if the
      // other side keeps it open, so refused connections cannot pile up as open sockets.
      const timer = setTimeout(() => socket.destroy(), AGENT_END_GRACE_MS);
      timer.unref();
      socket.once('close', () => clearTimeout(timer));
      socket.end(encodeJsonFrame(this.agentError('ERR_THROTTLED', admission.why), 'BE'));
      return;
    }
    if (admission.displace !== undefined) {
      const old = this.agents.get(admission.displace);
      if (old === undefined) {
        this.hygiene.remove(admission.displace);
      } else {
        log.debug(`agent ${old.conn} makes room: not authenticated after ${this.hygiene.limits.displaceAfterMs} ms, and no slot is free`);
        this.closeAgent(old, 'closed', this.agentError('ERR_THROTTLED', 'closed to make room for a new connection: the bridge is full and this one had not authenticated (docs/bridge-protocol.md section 5)'));
      }
    }
    let conn = newConnId();
    while (this.agents.has(conn)) conn = newConnId();
    const agent: Agent = {
      conn,
      socket,
      // Until it is trusted, a frame longer than any handshake message closes the connection before
      // its payload is even read (docs/bridge-protocol.md section 5, "Before trust").
      decoder: new FrameDecoder({ endian: 'BE', oversize: 'fatal', maxBytes: this.hygiene.limits.untrustedMessageBytes }),
      envelopePrefix: encoder.encode(`{"type":"relay","v":${BRIDGE_PROTOCOL_VERSION},"conn":"${conn}","message":`),
      reason: 'closed',
      closing: false,
      announced: false,
    };
    this.agents.set(conn, agent);
    this.hygiene.add(conn, now);
    this.armDeadline();
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
      if (agent.closing || agent.decoder.isStopped) return;
      for (const event of agent.decoder.push(chunk)) this.onAgentEvent(agent, event);
    });
    socket.on('error', (error) => {
      if (agent.reason === 'closed') agent.reason = 'error';
      log.debug(`agent ${conn}: ${error.message}`);
    });
    socket.on('close', () => {
      this.agents.delete(conn);
      this.hygiene.remove(conn);
      this.armDeadline();
      if (this.state === 'ready' && agent.announced) this.toExtension({ type: 'agent_disconnected', v: BRIDGE_PROTOCOL_VERSION, conn, reason: agent.reason });
    });
  }

  private noteRefusal(now: number, why: string): void {
    this.refusedSinceWarning += 1;
    if (now - this.lastRefusalWarning < THROTTLE_WARN_INTERVAL_MS) return;
    this.options.log.warn(`refused ${this.refusedSinceWarning} agent connection(s): ${why}`);
    this.refusedSinceWarning = 0;
    this.lastRefusalWarning = now;
  }

  /**
   * The bridge ends a connection: the optional error frame first, then a half-close. Its slot is
   * free at once (hygiene forgets it now, not when the socket finally closes), and the extension
   * hears `agent_disconnected` with `reason` when it has closed. Deadlines and making room use
   * "closed": the wire has no reason of its own for them (section 6.2), and the extension handles
   * every reason as a disconnect.
   */
  private closeAgent(agent: Agent, reason: DisconnectReason, error?: Record<string, unknown>): void {
    if (error !== undefined) this.writeAgent(agent, encodeJsonFrame(error, 'BE'));
    agent.closing = true;
    agent.reason = reason;
    this.hygiene.remove(agent.conn);
    this.armDeadline();
    void this.endAgent(agent);
  }

  /** (Re)arm the one deadline timer for the earliest hygiene deadline. */
  private armDeadline(): void {
    const next = this.state === 'ready' ? this.hygiene.nextDeadline() : undefined;
    if (next === this.deadlineAt) return;
    if (this.deadlineTimer !== undefined) clearTimeout(this.deadlineTimer);
    this.deadlineTimer = undefined;
    this.deadlineAt = next;
    if (next === undefined) return;
    this.deadlineTimer = setTimeout(() => this.onDeadline(), Math.max(0, Math.ceil(next - this.now())));
    // stdin keeps the process alive while it serves; a pending deadline must not keep it alive after.
    this.deadlineTimer.unref();
  }

  private onDeadline(): void {
    this.deadlineTimer = undefined;
    this.deadlineAt = undefined;
    if (this.state !== 'ready') return;
    const { authDeadlineMs, pairingDeadlineMs } = this.hygiene.limits;
    for (const { conn, trust } of this.hygiene.expired(this.now())) {
      const agent = this.agents.get(conn);
      if (agent === undefined) {
        this.hygiene.remove(conn);
        continue;
      }
      this.options.log.info(`closing agent ${conn}: ${trust === 'pairing' ? 'pairing not finished' : 'not authenticated'} in time`);
      // Section 5: ERR_PAIRING_FAILED names what ran out for a connection that was pairing, so
      // the agent can tell its user "the pairing timed out" rather than "authentication failed".
      const error =
        trust === 'pairing'
          ? this.agentError('ERR_PAIRING_FAILED', `the pairing was not finished within ${pairingDeadlineMs} ms of pair_offer; connect again to pair (docs/bridge-protocol.md section 5)`)
          : this.agentError('ERR_AUTH_FAILED', `not trusted within ${authDeadlineMs} ms: authenticate with a paired key, or start pairing, right after connecting (docs/bridge-protocol.md section 5)`);
      this.closeAgent(agent, 'closed', error);
    }
    // Timers may fire a little early on a coarse clock: whatever is left is armed again.
    this.armDeadline();
  }

  private agentError(code: ErrorCode, message: string, id?: string): Record<string, unknown> {
    return {
      type: 'error',
      v: BRIDGE_PROTOCOL_VERSION,
      ...(id === undefined ? {} : { id }),
      code,
      message: message.slice(0, 1000),
      source: 'bridge',
      // An agent of another version learns which one to speak (docs/bridge-protocol.md, "Versioning").
      ...(code === 'ERR_PROTOCOL_VERSION' ? { supported_versions: [...SUPPORTED_PROTOCOL_VERSIONS] } : {}),
    };
  }

  private onAgentEvent(agent: Agent, event: FrameEvent): void {
    if (this.state !== 'ready') return;
    if (event.kind === 'error') {
      this.options.log.debug(`agent ${agent.conn}: ${event.error.code}: ${event.error.message}`);
      const untrusted = event.error.code === 'ERR_FRAME_TOO_LARGE' && this.hygiene.trustOf(agent.conn) !== 'trusted';
      const message = untrusted ? `${event.error.message} before the extension trusts this connection (docs/bridge-protocol.md section 5)` : event.error.message;
      this.writeAgent(agent, encodeJsonFrame(this.agentError(event.error.code, message), 'BE'));
      if (event.fatal) {
        // After a length we refuse, the next frame boundary is unknown: this connection is done.
        this.closeAgent(agent, 'frame_error');
        // And what follows is not even read: a flood of large frames costs no memory while the
        // connection closes (the grace timer destroys it if the other side does not close first).
        agent.socket.pause();
      }
      return;
    }
    const parsed = parseFromAgent(event.value);
    if (!parsed.ok) {
      const id = requestIdOf(event.value);
      this.writeAgent(agent, encodeJsonFrame(this.agentError(parsed.error.code, parsed.error.message, id), 'BE'));
      // A request refused for its summary's length never reaches the extension, yet the person
      // should hear that their agent asked something Countersign could not show: the extension
      // is told which connection sent it (docs/bridge-protocol.md, "bridge_error"). Only for a
      // trusted one: the extension tells the person only about paired agents, and records every
      // bridge_error, so an untrusted connection must not be able to make it write.
      if (parsed.error.code === 'ERR_SUMMARY_TOO_LONG' && agent.announced && this.hygiene.trustOf(agent.conn) === 'trusted') {
        this.bridgeError(parsed.error, { conn: agent.conn, id });
      }
      return;
    }
    const id = requestIdOf(event.value);
    const verdict = this.hygiene.mayRelay(agent.conn, parsed.message.type, event.bytes.length, this.now());
    if (!verdict.relay) {
      this.options.log.debug(`agent ${agent.conn}: not relayed: ${verdict.why}`);
      if (verdict.code !== undefined) this.writeAgent(agent, encodeJsonFrame(this.agentError(verdict.code, verdict.why, id), 'BE'));
      return;
    }
    // The envelope is built around the agent's exact bytes: nothing is re-serialized, so what the
    // extension parses is byte for byte what the agent sent.
    const length = agent.envelopePrefix.length + event.bytes.length + CLOSE_BRACE.length;
    if (length > MAX_FRAME_BYTES) {
      const error = `message is ${event.bytes.length} bytes; with its relay envelope it must fit in ${MAX_FRAME_BYTES} bytes (at most ${MAX_FRAME_BYTES - agent.envelopePrefix.length - 1})`;
      this.writeAgent(agent, encodeJsonFrame(this.agentError('ERR_FRAME_TOO_LARGE', error, id), 'BE'));
      return;
    }
    const frame = new Uint8Array(4 + length);
    new DataView(frame.buffer).setUint32(0, length, this.endian === 'LE');
    frame.set(agent.envelopePrefix, 4);
    frame.set(event.bytes, 4 + agent.envelopePrefix.length);
    frame.set(CLOSE_BRACE, 4 + agent.envelopePrefix.length + event.bytes.length);
    // The extension hears of the connection before any of its messages: ordering on stdout is ours.
    if (!agent.announced) {
      agent.announced = true;
      this.toExtension({ type: 'agent_connected', v: BRIDGE_PROTOCOL_VERSION, conn: agent.conn });
    }
    const trusted = this.hygiene.trustOf(agent.conn) === 'trusted';
    if (!this.relayToExtension(frame, { conn: agent.conn, id, trusted })) {
      // Never dropped without a word: the agent learns this request did not get through, and may send it again.
      this.options.log.debug(`agent ${agent.conn}: a message was refused: the extension is not reading`);
      this.writeAgent(agent, encodeJsonFrame(this.agentError('ERR_THROTTLED', 'not relayed: the extension is not reading, and the bridge holds as much as it may for it; send it again later (docs/bridge-protocol.md section 5)', id), 'BE'));
    }
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
    this.armDeadline();
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
