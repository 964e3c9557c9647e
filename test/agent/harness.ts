import 'fake-indexeddb/auto';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Companion } from '../../src/agent/companion';
import { AgentSessions } from '../../src/extension/agent-sessions';
import type { PendingPairing } from '../../src/extension/bridge-messages/types';
import { ApprovalQueue } from '../../src/extension/approval-queue';
import { extensionKey, signRecord } from '../../src/extension/keys';
import { Store, type ApprovalRecord, type StoredKeyPair } from '../../src/extension/store';
import {
  BRIDGE_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  agentToExtensionMessage,
  bridgeToExtensionMessage,
  parseBridgeMessage,
  type AgentToExtensionMessage,
  type ExtensionToAgentMessage,
} from '../../src/protocol/bridge';
import { FrameDecoder, encodeJsonFrame, nativeEndianness } from '../../src/protocol/bridge-framing';

/**
 * A fake extension for the agent SDK's tests ("The extension side is faked in these
 * tests by a process speaking the documented protocol").
 *
 * The bridge is the REAL one: `src/bridge/main.ts` run with tsx as its own process, started the
 * way Chromium starts it (the extension origin as the only argument). This test process is the
 * browser: it speaks native messaging on the bridge's stdio, and behind that runs the REAL
 * extension services (AgentSessions, ApprovalQueue, Store over fake-indexeddb, a
 * non-extractable Ed25519 key) wired as entrypoints' background-main.ts wires them. Only the
 * person is simulated: tests call decide/withdraw/answerPairing as the approval window would.
 *
 * `tamper` sits between the extension and the bridge, on the extension's way out, so tests can
 * play a corrupted or malicious relay (flip a byte, swap a signature, drop or duplicate a message).
 *
 * DirectExtension is the same extension services behind an in-process socket, with no bridge: the
 * real bridge validates every relay and drops what is malformed, so only without it can a test
 * put garbage in front of the SDK's own validation.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const EXTENSION_ORIGIN = 'chrome-extension://mlfaahkflpghlfdpkpmonibnlhieinil/';

/** Returns the raw messages to deliver instead of `message` (none drops it). */
export type Tamper = (conn: string, message: ExtensionToAgentMessage) => unknown[] | Promise<unknown[]>;

let instances = 0;

/** The error a promise rejects with; fails the test if it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

export async function waitFor<T>(probe: () => T | undefined | false | Promise<T | undefined | false>, what: string, timeoutMs = 8000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The extension's services, wired as entrypoints' background-main.ts wires them. */
abstract class ExtensionSide {
  /** Every message an agent sent, as the extension received it. */
  readonly fromAgents: Array<{ conn: string; message: AgentToExtensionMessage }> = [];
  tamper: Tamper | undefined;
  socketPath = '';
  readonly queue: ApprovalQueue;
  readonly sessions: AgentSessions;
  /** What the extension side threw while handling a message or a connection event (a port's listener would log it). */
  readonly inboundErrors: unknown[] = [];
  private inbound: Promise<void> = Promise.resolve();
  private outbound: Promise<void> = Promise.resolve();

  protected constructor(
    readonly runtimeDir: string,
    readonly store: Store,
    readonly key: StoredKeyPair,
  ) {
    this.queue = new ApprovalQueue({
      store,
      sign: (record, status, now) => signRecord(key, record, status, now),
      send: (conn, reply) => this.sessions.sendReply(conn, reply),
      changed: () => {},
    });
    this.sessions = new AgentSessions({
      store,
      queue: this.queue,
      key,
      extensionVersion: '0.1.0',
      sendToAgent: (conn, message) => this.toAgent(conn, message),
      pairingsChanged: () => {},
    });
  }

  protected static async services(): Promise<{ runtimeDir: string; store: Store; key: StoredKeyPair }> {
    // Short: a Unix socket path must fit in 103 bytes (bridge.ts MAX_UNIX_SOCKET_PATH_BYTES).
    const runtimeDir = await mkdtemp(path.join(os.tmpdir(), 'csx-'));
    const store = await Store.open(`agent-test-${process.pid}-${++instances}`);
    return { runtimeDir, store, key: await extensionKey(store) };
  }

  /**
   * Work for the extension side, in arrival order like a port's onMessage chain. A failure is
   * recorded and the chain goes on, as a listener's would: one rejected step must not silence
   * every later message.
   */
  protected handle(work: () => Promise<void>): void {
    this.inbound = this.inbound.then(work).catch((error: unknown) => {
      this.inboundErrors.push(error);
    });
  }

  /**
   * Everything handed to the extension side so far is handled (before its store closes). What it
   * threw on the way fails the suite here: the extension's listeners must not throw on any input.
   */
  protected async drained(): Promise<void> {
    await this.inbound;
    if (this.inboundErrors.length) throw new AggregateError(this.inboundErrors, `the extension side threw ${this.inboundErrors.length} time(s) while handling agents`);
  }

  /** One message from an agent connection. */
  protected fromAgent(conn: string, raw: unknown): void {
    this.handle(async () => {
      const parsed = agentToExtensionMessage.safeParse(raw);
      if (parsed.success) this.fromAgents.push({ conn, message: parsed.data });
      await this.sessions.receive(conn, raw);
    });
  }

  /** Deliver one raw message to an agent connection. */
  protected abstract deliver(conn: string, raw: unknown): void;

  private toAgent(conn: string, message: ExtensionToAgentMessage): void {
    this.outbound = this.outbound.then(async () => {
      const raws = this.tamper ? await this.tamper(conn, message) : [message];
      for (const raw of raws) this.deliver(conn, raw);
    });
  }

  /** Send any raw message to an agent connection, as a compromised extension side could. */
  inject(conn: string, raw: unknown): void {
    this.outbound = this.outbound.then(() => this.deliver(conn, raw));
  }

  sentBy(conn: string | undefined, type: string): AgentToExtensionMessage[] {
    return this.fromAgents.filter((e) => (conn === undefined || e.conn === conn) && e.message.type === type).map((e) => e.message);
  }

  async record(agent: string, operationId: string, revision: string): Promise<ApprovalRecord | undefined> {
    // The harness's agents each ask one Company at a time: the revision names one record.
    return (await this.store.byRevision(agent, operationId, revision))[0];
  }

  /** Wait until the User is being asked about this revision (the window would show it). */
  async prompt(agent: string, operationId: string, revision: string): Promise<string> {
    let key = '';
    await waitFor(async () => {
      const record = await this.record(agent, operationId, revision);
      key = record?.key ?? '';
      return record?.state === 'pending';
    }, `a pending prompt for ${operationId} ${revision}`);
    return key;
  }

  /** Wait for the pairing code to be on screen. */
  pairingShown(): Promise<PendingPairing> {
    return waitFor(() => [...this.sessions.pairings.values()].find((p) => p.code !== undefined), 'a pairing code in the extension');
  }

  /** Pair `companion` as the person would: the code is shown, typed and confirmed. */
  async pairConfirmed(companion: Companion): Promise<Companion> {
    const pairing = await companion.pair();
    const shown = await this.pairingShown();
    await this.sessions.answerPairing(shown.pairingId, { confirmed: true, code: pairing.code });
    await pairing.confirmed;
    return companion;
  }

  abstract dispose(): Promise<void>;
}

/** The real bridge process in front of the extension services. */
export class FakeExtension extends ExtensionSide {
  readonly bridgeErrors: unknown[] = [];
  stderr = '';
  private readonly decoder = new FrameDecoder({ endian: nativeEndianness(), oversize: 'skip' });
  private readonly exited: Promise<number | null>;
  private ready!: () => void;
  private readonly readyPromise = new Promise<void>((r) => (this.ready = r));

  private constructor(runtimeDir: string, store: Store, key: StoredKeyPair, readonly child: ChildProcessWithoutNullStreams) {
    super(runtimeDir, store, key);
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  /**
   * `sparse`: the bridge runs without XDG_RUNTIME_DIR and TMPDIR, so it listens where an agent
   * with a reduced environment looks too (/tmp/countersign-<uid>/, socket-path.ts).
   * `xdgRuntimeDir`: the bridge's XDG_RUNTIME_DIR, as a login session sets it (/run/user/<uid>).
   */
  static async start(options: { sparse?: boolean; xdgRuntimeDir?: string } = {}): Promise<FakeExtension> {
    const { runtimeDir, store, key } = await ExtensionSide.services();
    const { XDG_RUNTIME_DIR: _runtime, TMPDIR: _tmp, ...inherited } = process.env;
    const folders = options.sparse === true ? {} : { XDG_RUNTIME_DIR: options.xdgRuntimeDir ?? runtimeDir, TMPDIR: runtimeDir };
    // Started as Chromium starts it: the extension's origin is the only argument.
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src', 'bridge', 'main.ts'), EXTENSION_ORIGIN], {
      cwd: ROOT,
      env: { ...inherited, ...folders, COUNTERSIGN_BRIDGE_LOG: 'warn' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const ext = new FakeExtension(runtimeDir, store, key, child);
    ext.wire();
    ext.post({ type: 'bridge_hello', v: BRIDGE_PROTOCOL_VERSION, extension_key_thumbprint: key.thumbprint, extension_version: '0.1.0' });
    await Promise.race([
      ext.readyPromise,
      ext.exited.then((code) => {
        throw new Error(`bridge exited (${code}) before bridge_ready: ${ext.stderr}`);
      }),
      new Promise((_, reject) => setTimeout(() => reject(new Error(`no bridge_ready: ${ext.stderr}`)), 20_000)),
    ]);
    return ext;
  }

  private wire(): void {
    this.child.stderr.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString('utf8');
    });
    this.child.stdout.on('data', (chunk: Buffer) => {
      for (const event of this.decoder.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length))) {
        if (event.kind === 'error') {
          this.bridgeErrors.push(event.error);
          continue;
        }
        const parsed = parseBridgeMessage(bridgeToExtensionMessage, event.value);
        if (!parsed.ok) {
          this.bridgeErrors.push(parsed.error);
          continue;
        }
        const m = parsed.message;
        switch (m.type) {
          case 'bridge_ready':
            this.socketPath = m.socket_path;
            this.ready();
            break;
          case 'agent_connected':
            this.handle(async () => this.sessions.connected(m.conn));
            break;
          case 'agent_disconnected':
            this.handle(() => this.sessions.disconnected(m.conn));
            break;
          case 'relay':
            this.fromAgent(m.conn, (event.value as { message: unknown }).message);
            break;
          case 'bridge_error':
            this.bridgeErrors.push(m);
            break;
        }
      }
    });
  }

  private post(message: unknown): void {
    if (this.child.stdin.writable) this.child.stdin.write(encodeJsonFrame(message, nativeEndianness()));
  }

  protected deliver(conn: string, raw: unknown): void {
    this.post({ type: 'relay', v: BRIDGE_PROTOCOL_VERSION, conn, message: raw });
  }

  /** The browser closes the port: stdin ends, and the bridge tells every agent and exits. */
  async stop(): Promise<number | null> {
    this.child.stdin.end();
    return this.exited;
  }

  /** The bridge dies without a word. */
  async kill(): Promise<void> {
    this.child.kill('SIGKILL');
    await this.exited;
  }

  async dispose(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.stdin.end();
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 3000);
      await this.exited;
      clearTimeout(timer);
    }
    try {
      await this.drained();
    } finally {
      this.store.close();
      await rm(this.runtimeDir, { recursive: true, force: true });
    }
  }
}

/**
 * The extension services behind an in-process socket that plays the bridge without its checks:
 * it frames whatever the extension side (or a test) hands it. `bridgeInfo` may be rewritten to
 * play a bridge that lies about the extension it serves.
 */
export class DirectExtension extends ExtensionSide {
  private readonly server = net.createServer((socket) => this.onAgent(socket));
  private readonly sockets = new Map<string, net.Socket>();
  bridgeInfo: ((info: Record<string, unknown>) => Record<string, unknown>) | undefined;

  static async start(): Promise<DirectExtension> {
    const { runtimeDir, store, key } = await ExtensionSide.services();
    const ext = new DirectExtension(runtimeDir, store, key);
    ext.socketPath = path.join(runtimeDir, `${key.thumbprint}.sock`);
    await new Promise<void>((resolve) => ext.server.listen(ext.socketPath, resolve));
    return ext;
  }

  /** Connection ids, newest last. */
  get conns(): string[] {
    return [...this.sockets.keys()];
  }

  private onAgent(socket: net.Socket): void {
    const conn = `c_${randomBytes(6).toString('hex')}`;
    const decoder = new FrameDecoder({ endian: 'BE', oversize: 'fatal' });
    this.sockets.set(conn, socket);
    this.handle(async () => this.sessions.connected(conn));
    socket.on('error', () => {});
    socket.on('close', () => {
      this.sockets.delete(conn);
      this.handle(() => this.sessions.disconnected(conn));
    });
    socket.on('data', (chunk: Buffer) => {
      for (const event of decoder.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length))) {
        if (event.kind === 'frame') this.fromAgent(conn, event.value);
      }
    });
    const info = {
      type: 'bridge_info',
      v: BRIDGE_PROTOCOL_VERSION,
      conn,
      extension_key_thumbprint: this.key.thumbprint,
      bridge_version: '0.0.0-test',
      protocol_versions: [...SUPPORTED_PROTOCOL_VERSIONS],
      browser: 'chromium',
    };
    socket.write(encodeJsonFrame(this.bridgeInfo ? this.bridgeInfo(info) : info, 'BE'));
  }

  protected deliver(conn: string, raw: unknown): void {
    const socket = this.sockets.get(conn);
    if (socket === undefined || socket.destroyed) return;
    // Anything at all, framed: JSON.stringify of a value it cannot write becomes "null".
    socket.write(encodeJsonFrame(raw === undefined ? null : raw, 'BE'));
  }

  /** A frame of raw bytes (not JSON, not UTF-8, ...) to an agent connection. */
  deliverBytes(conn: string, payload: Uint8Array): void {
    const frame = new Uint8Array(4 + payload.length);
    new DataView(frame.buffer).setUint32(0, payload.length, false);
    frame.set(payload, 4);
    this.writeRaw(conn, frame);
  }

  /** Bytes exactly as given, no framing. */
  writeRaw(conn: string, bytes: Uint8Array): void {
    this.sockets.get(conn)?.write(bytes);
  }

  async dispose(): Promise<void> {
    const closed = [...this.sockets.values()].map((socket) => new Promise<void>((resolve) => socket.once('close', () => resolve())));
    for (const socket of this.sockets.values()) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    // Each close queues the connection's disconnect, which writes to the store.
    await Promise.all(closed);
    try {
      await this.drained();
    } finally {
      this.store.close();
      await rm(this.runtimeDir, { recursive: true, force: true });
    }
  }
}
