import fc from 'fast-check';
import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, sign as nodeSign, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import { BridgeHost } from '../../src/bridge/host';
import { silentLogger } from '../../src/bridge/log';
import type { HygieneLimits } from '../../src/bridge/hygiene';
import { BRIDGE_PROTOCOL_VERSION, agentAuthInput, jwkThumbprint, type BridgePublicJwk } from '../../src/protocol/bridge';
import { FrameDecoder, encodeFrame, encodeJsonFrame, nativeEndianness, type Endianness } from '../../src/protocol/bridge-framing';

/** A fixed extension key thumbprint for tests (the RFC 8037 example key's). */
export const THUMBPRINT = 'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k';
/** Keys of docs/bridge-protocol.md's examples: what a welcome and a hello carry in relay tests. */
export const TEST_EXTENSION_KEY = { kty: 'OKP', crv: 'Ed25519', x: '33L538Y6mLHlg5hsBbt01W3lCSTPAlURxJi16Uva51M' };
export const TEST_AGENT_KEY = { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' };

export function tempDir(prefix = 'cs-bridge-'): string {
  // Short: a Unix socket path must fit in 103 bytes.
  return mkdtempSync(path.join('/tmp', prefix));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

type Matcher = (message: Record<string, unknown>) => boolean;

/** Frames read from a stream, queued; `next` waits for the first one matching. */
export class FrameQueue {
  readonly received: Record<string, unknown>[] = [];
  readonly errors: string[] = [];
  private readonly decoder: FrameDecoder;
  private waiters: Array<{ match: Matcher; resolve: (m: Record<string, unknown>) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }> = [];
  private ended = false;

  constructor(stream: Readable, endian: Endianness) {
    this.decoder = new FrameDecoder({ endian, oversize: 'fatal' });
    stream.on('data', (chunk: Uint8Array) => {
      for (const event of this.decoder.push(chunk)) {
        if (event.kind === 'error') this.errors.push(event.error.message);
        else this.deliver(event.value as Record<string, unknown>);
      }
    });
    stream.on('end', () => this.end());
    stream.on('close', () => this.end());
    stream.on('error', () => this.end());
  }

  get isEnded(): boolean {
    return this.ended;
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    for (const w of this.waiters) {
      clearTimeout(w.timer);
      w.reject(new Error('stream ended while waiting for a frame'));
    }
    this.waiters = [];
  }

  private deliver(message: Record<string, unknown>): void {
    const index = this.waiters.findIndex((w) => w.match(message));
    if (index >= 0) {
      const [w] = this.waiters.splice(index, 1);
      clearTimeout(w!.timer);
      w!.resolve(message);
      return;
    }
    this.received.push(message);
  }

  /** The first queued or future frame matching `match` (removed from the queue). */
  next(match: Matcher = () => true, timeoutMs = 5000): Promise<Record<string, unknown>> {
    const index = this.received.findIndex(match);
    if (index >= 0) return Promise.resolve(this.received.splice(index, 1)[0]!);
    if (this.ended) return Promise.reject(new Error('stream already ended'));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w.timer !== timer);
        reject(new Error(`no matching frame within ${timeoutMs} ms; queued: ${JSON.stringify(this.received).slice(0, 500)}`));
      }, timeoutMs);
      this.waiters.push({ match, resolve, reject, timer });
    });
  }

  nextOfType(type: string, timeoutMs?: number): Promise<Record<string, unknown>> {
    return this.next((m) => m['type'] === type, timeoutMs);
  }
}

/** The extension side of a bridge: frames in native byte order on the bridge's stdin/stdout. */
export class FakeExtension {
  readonly frames: FrameQueue;
  constructor(
    readonly toBridge: Writable,
    fromBridge: Readable,
    readonly endian: Endianness = nativeEndianness(),
  ) {
    this.frames = new FrameQueue(fromBridge, endian);
  }

  send(message: unknown): void {
    this.toBridge.write(encodeJsonFrame(message, this.endian, Number.MAX_SAFE_INTEGER));
  }

  sendRaw(bytes: Uint8Array): void {
    this.toBridge.write(bytes);
  }

  async hello(thumbprint = THUMBPRINT): Promise<Record<string, unknown>> {
    this.send({ type: 'bridge_hello', v: BRIDGE_PROTOCOL_VERSION, extension_key_thumbprint: thumbprint });
    return this.frames.next((m) => m['type'] === 'bridge_ready' || m['type'] === 'bridge_error', 8000);
  }

  relay(conn: string, message: unknown): void {
    this.send({ type: 'relay', v: BRIDGE_PROTOCOL_VERSION, conn, message });
  }

  end(): void {
    this.toBridge.end();
  }
}

/** An agent on the socket: big-endian frames. */
export class FakeAgent {
  readonly frames: FrameQueue;
  conn = '';
  private constructor(readonly socket: net.Socket) {
    this.frames = new FrameQueue(socket, 'BE');
  }

  static async connect(socketPath: string): Promise<FakeAgent> {
    const socket = net.connect(socketPath);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    socket.on('error', () => {});
    const agent = new FakeAgent(socket);
    const info = await agent.frames.nextOfType('bridge_info');
    agent.conn = String(info['conn']);
    return agent;
  }

  send(message: unknown): void {
    this.socket.write(encodeJsonFrame(message, 'BE', Number.MAX_SAFE_INTEGER));
  }

  sendPayload(payload: Uint8Array): void {
    this.socket.write(encodeFrame(payload, 'BE', Number.MAX_SAFE_INTEGER));
  }

  sendRaw(bytes: Uint8Array): void {
    this.socket.write(bytes);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.socket.destroyed) return resolve();
      this.socket.once('close', () => resolve());
      this.socket.end();
    });
  }

  destroy(): void {
    this.socket.destroy();
  }

  /**
   * Becomes trusted the way a paired agent does (docs/bridge-protocol.md section 5): its `hello`
   * is relayed (so the extension hears of it), and the extension answers `welcome` with
   * `paired: true`. The fake extension skips the challenge: the bridge reads only the welcome.
   */
  async trusted(extension: FakeExtension): Promise<this> {
    this.send({ type: 'hello', v: BRIDGE_PROTOCOL_VERSION, id: 'h_trusted', versions: [BRIDGE_PROTOCOL_VERSION], agent_name: 'Test agent', agent_key: TEST_AGENT_KEY });
    await extension.frames.next((m) => m['type'] === 'relay' && m['conn'] === this.conn && (m['message'] as { id?: unknown }).id === 'h_trusted');
    extension.relay(this.conn, { type: 'welcome', v: BRIDGE_PROTOCOL_VERSION, id: 'h_trusted', paired: true, extension_key: TEST_EXTENSION_KEY });
    await this.frames.next((m) => m['type'] === 'welcome' && m['id'] === 'h_trusted');
    return this;
  }

  waitClosed(timeoutMs = 5000): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.socket.destroyed) return resolve();
      const timer = setTimeout(() => reject(new Error('socket did not close')), timeoutMs);
      this.socket.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

/** A bridge in this process, on PassThrough "stdio", with a real socket under `runtimeDir`. */
export interface InProcessBridge {
  host: BridgeHost;
  extension: FakeExtension;
  exited: Promise<number>;
  runtimeDir: string;
  socketPath: string;
  stop(): Promise<void>;
}

export async function startInProcessBridge(
  options: { busyTimeoutMs?: number; maxAgents?: number; hygiene?: Partial<HygieneLimits>; now?: () => number; hello?: boolean } = {},
): Promise<InProcessBridge> {
  const runtimeDir = tempDir();
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  let resolveExit!: (code: number) => void;
  const exited = new Promise<number>((r) => (resolveExit = r));
  const host = new BridgeHost({
    input: stdin,
    output: stdout,
    log: silentLogger,
    browser: 'chromium',
    socket: { platform: 'linux', env: { XDG_RUNTIME_DIR: runtimeDir }, uid: process.getuid!(), username: 'tester' },
    onExit: resolveExit,
    busyTimeoutMs: options.busyTimeoutMs ?? 200,
    hygiene: { ...options.hygiene, ...(options.maxAgents === undefined ? {} : { maxConnections: options.maxAgents }) },
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  host.start();
  const extension = new FakeExtension(stdin, stdout);
  const socketPath = path.join(runtimeDir, 'countersign', `${THUMBPRINT}.sock`);
  if (options.hello !== false) {
    const ready = await extension.hello();
    if (ready['type'] !== 'bridge_ready') throw new Error(`bridge not ready: ${JSON.stringify(ready)}`);
  }
  return {
    host,
    extension,
    exited,
    runtimeDir,
    socketPath,
    async stop() {
      extension.end();
      await exited;
      removeDir(runtimeDir);
    },
  };
}

/** Path to the bundle tests run (built once per test file by `buildOnce`). */
export async function buildOnce(): Promise<string> {
  // In a folder of its own: the bundle's runs leave their code cache beside it (src/node-start/code-cache.ts).
  const outfile = path.join(mkdtempSync(path.join(os.tmpdir(), 'cs-bundle-')), 'countersign-bridge.mjs');
  // @ts-expect-error: a plain .mjs script without type declarations
  const { buildBridge } = (await import('../../scripts/build-bridge.mjs')) as { buildBridge: (o: { outfile: string }) => Promise<string> };
  return buildBridge({ outfile });
}

export interface SpawnedBridge {
  child: ChildProcess;
  extension: FakeExtension;
  stderr: string[];
  exit: Promise<number | null>;
}

/** The real bridge process, as a browser starts it (`bundle chrome-extension://<id>/`). */
export function spawnBridge(bundle: string, env: Record<string, string>): SpawnedBridge {
  const child = spawn(process.execPath, [bundle, 'chrome-extension://mlfaahkflpghlfdpkpmonibnlhieinil/'], {
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/root', COUNTERSIGN_BRIDGE_LOG: 'debug', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const stderr: string[] = [];
  child.stderr.on('data', (d: Buffer) => stderr.push(d.toString('utf8')));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, extension: new FakeExtension(child.stdin, child.stdout), stderr, exit };
}

// ---------------------------------------------------------------------------------------------
// Agent keys

export interface AgentKey {
  jwk: BridgePublicJwk;
  privateKey: KeyObject;
  thumbprint: string;
}

export async function newAgentKey(kind: 'Ed25519' | 'P-256' = 'Ed25519'): Promise<AgentKey> {
  const pair = kind === 'Ed25519' ? generateKeyPairSync('ed25519') : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const exported = pair.publicKey.export({ format: 'jwk' }) as Record<string, string>;
  const jwk: BridgePublicJwk = kind === 'Ed25519' ? { kty: 'OKP', crv: 'Ed25519', x: exported['x']! } : { kty: 'EC', crv: 'P-256', x: exported['x']!, y: exported['y']! };
  return { jwk, privateKey: pair.privateKey, thumbprint: await jwkThumbprint(jwk) };
}

/** The `auth` signature, made with node:crypto the way a non-WebCrypto agent would (P-256: r‖s, not DER). */
export function signAuth(key: AgentKey, fields: { extensionKeyThumbprint: string; conn: string; nonce: string }): string {
  const data = agentAuthInput({ ...fields, agentKeyThumbprint: key.thumbprint });
  const signature =
    key.jwk.kty === 'OKP' ? nodeSign(null, data, key.privateKey) : nodeSign('sha256', data, { key: key.privateKey, dsaEncoding: 'ieee-p1363' });
  return signature.toString('base64url');
}

// ---------------------------------------------------------------------------------------------
// Valid messages, for relays and as seeds of mutations

export const OPERATION = {
  operation_id: 'exc_5Rt2',
  revision: '1791487200-k3Jd9Qx2mW8v',
  summary: 'Exchange the Stormline Jacket (M) on order ord_7Hk2 for the Stormline Insulated Jacket (M), for $70.00 more, charged to the card used for the order.',
  terms: { order_id: 'ord_7Hk2', item_id: 'itm_4Qa', replacement_sku: 'stormline-insulated-m', price_difference: { amount: '70.00', currency: 'USD' } },
  expires_at: '2026-10-08T12:20:00-07:00',
};

export const NONCE = 'p8Cj5xv7pWk2yqvXlWqYb1Vf6o1C3N1r7wXcA4yLq2E';

export function approvalRequest(id = 'req_1'): Record<string, unknown> {
  return {
    type: 'approval_request',
    v: 2,
    id,
    nonce: NONCE,
    company: { name: 'Stormline Outfitters', origin: 'https://shop.example' },
    operation: OPERATION,
    request: { interface: 'api', method: 'POST', url: 'https://api.shop.example/orders/ord_7Hk2/exchanges', body: { item_id: 'itm_4Qa', replacement_sku: 'stormline-insulated-m' } },
    session: { kind: 'signed_in', account: 'jane@example.com' },
  };
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Every path to a member or element, for deep mutations. */
export function paths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (typeof value !== 'object' || value === null) return [];
  const out: (string | number)[][] = [];
  for (const [k, v] of Array.isArray(value) ? value.entries() : Object.entries(value)) {
    const p = [...prefix, k];
    out.push(p, ...paths(v, p));
  }
  return out;
}

/** A copy of `value` with the member or element at `path` deleted or replaced. */
export function mutateAt(value: unknown, path: (string | number)[], replacement: { delete: true } | { set: unknown }): unknown {
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let target = copy;
  for (const key of path.slice(0, -1)) target = target[key] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if ('delete' in replacement) {
    if (Array.isArray(target)) target.splice(Number(last), 1);
    else delete target[last];
  } else {
    target[last] = replacement.set;
  }
  return copy;
}

/** One of `seeds` as it is, without one member, with one replaced by one of `interesting`, or with one more. */
export function mutatedSeeds(seeds: Record<string, unknown>[], interesting: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc.constantFrom(...seeds).chain((seed) => {
    const all = paths(seed);
    return fc.oneof(
      fc.constant<unknown>(seed),
      fc.constantFrom(...all).map((p) => mutateAt(seed, p, { delete: true })),
      fc.tuple(fc.constantFrom(...all), interesting).map(([p, v]) => mutateAt(seed, p, { set: v })),
      fc.tuple(fc.string({ maxLength: 8 }), interesting).map(([k, v]) => ({ ...seed, [k]: v })),
    );
  });
}
