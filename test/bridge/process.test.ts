import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CODE_CACHE_EXTENSION, isCodeCacheOf } from '../../src/node-start/code-cache';
import { BRIDGE_PROTOCOL_VERSION } from '../../src/protocol/bridge';
import { MAX_FRAME_BYTES, encodeFrame } from '../../src/protocol/bridge-framing';
import { FakeAgent, FrameQueue, NONCE, TEST_EXTENSION_KEY, THUMBPRINT, approvalRequest, buildOnce, newAgentKey, removeDir, signAuth, sleep, spawnBridge, tempDir, type SpawnedBridge } from './helpers';

// The real bundle (dist/countersign-bridge.mjs, built by scripts/build-bridge.mjs into a temp
// file), started the way a browser starts it, with a fake extension on its stdio and agents on
// its socket.

let bundle = '';
const cleanups: Array<() => void> = [];

beforeAll(async () => {
  bundle = await buildOnce();
}, 60_000);

afterAll(() => {
  for (const c of cleanups.splice(0)) c();
  if (bundle) removeDir(path.dirname(bundle));
});

function runtime(): { dir: string; socketPath: string } {
  const dir = tempDir();
  cleanups.push(() => removeDir(dir));
  return { dir, socketPath: path.join(dir, 'countersign', `${THUMBPRINT}.sock`) };
}

function start(dir: string, env: Record<string, string> = {}): SpawnedBridge {
  const b = spawnBridge(bundle, { XDG_RUNTIME_DIR: dir, ...env });
  cleanups.push(() => b.child.kill('SIGKILL'));
  return b;
}

describe('the bridge process', () => {
  it('relays for three agents at once; extension gone → companion_unavailable to all, exit 0, socket removed', async () => {
    const { dir, socketPath } = runtime();
    const b = start(dir);
    expect(await b.extension.hello()).toMatchObject({ type: 'bridge_ready', socket_path: socketPath, bridge_version: '0.1.0' });
    expect(statSync(socketPath).mode & 0o777).toBe(0o600);

    const agents = await Promise.all([1, 2, 3].map(() => FakeAgent.connect(socketPath)));
    // A full handshake through the relay: the fake extension challenges, each agent signs.
    const keys = await Promise.all(agents.map(() => newAgentKey()));
    agents.forEach((a, i) => a.send({ type: 'hello', v: 2, id: `h${i}`, versions: [2], agent_name: `agent ${i}`, agent_key: keys[i]!.jwk }));
    for (const [i, a] of agents.entries()) {
      const hello = await b.extension.frames.next((m) => m['type'] === 'relay' && m['conn'] === a.conn);
      expect(hello['message']).toMatchObject({ type: 'hello', agent_name: `agent ${i}` });
      b.extension.relay(a.conn, { type: 'challenge', v: 2, id: `h${i}`, nonce: `${'A'.repeat(42)}${'AEIM'[i]}`, version: 2 });
    }
    for (const [i, a] of agents.entries()) {
      const challenge = await a.frames.nextOfType('challenge');
      a.send({ type: 'auth', v: 2, id: `a${i}`, signature: signAuth(keys[i]!, { extensionKeyThumbprint: THUMBPRINT, conn: a.conn, nonce: String(challenge['nonce']) }) });
    }
    for (const a of agents) {
      const auth = await b.extension.frames.next((m) => m['type'] === 'relay' && m['conn'] === a.conn);
      expect(auth['message']).toMatchObject({ type: 'auth' });
      // The fake extension takes every key as paired: from its welcome on, the bridge relays all (section 5).
      b.extension.relay(a.conn, { type: 'welcome', v: 2, id: (auth['message'] as { id: string }).id, paired: true, extension_key: TEST_EXTENSION_KEY });
      await a.frames.nextOfType('welcome');
    }
    // Interleaved requests and replies stay with their connection.
    agents.forEach((a, i) => a.send(approvalRequest(`req_${i}`)));
    for (const [i, a] of agents.entries()) {
      expect(await b.extension.frames.next((m) => m['type'] === 'relay' && m['conn'] === a.conn)).toMatchObject({ message: { id: `req_${i}` } });
    }
    b.extension.relay(agents[2]!.conn, { type: 'decision', v: 2, id: 'req_2', status: 'declined' });
    b.extension.relay(agents[0]!.conn, { type: 'decision', v: 2, id: 'req_0', status: 'superseded' });
    expect(await agents[2]!.frames.nextOfType('decision')).toMatchObject({ id: 'req_2', status: 'declined' });
    expect(await agents[0]!.frames.nextOfType('decision')).toMatchObject({ id: 'req_0', status: 'superseded' });

    b.extension.end();
    for (const a of agents) {
      expect(await a.frames.nextOfType('companion_unavailable')).toEqual({ type: 'companion_unavailable', v: 2 });
      await a.waitClosed();
    }
    // agents[1] never got a reply: nothing else arrived for it.
    expect(agents[1]!.frames.received).toEqual([]);
    expect(await b.exit).toBe(0);
    expect(existsSync(socketPath)).toBe(false);
    expect(b.extension.frames.errors).toEqual([]);
  }, 30_000);

  it('reports an agent that disconnects mid-request', async () => {
    const { dir, socketPath } = runtime();
    const b = start(dir);
    await b.extension.hello();
    const a = await (await FakeAgent.connect(socketPath)).trusted(b.extension);
    a.send(approvalRequest('req_mid'));
    await b.extension.frames.nextOfType('relay');
    a.destroy();
    expect(await b.extension.frames.nextOfType('agent_disconnected')).toMatchObject({ conn: a.conn });
    b.extension.relay(a.conn, { type: 'decision', v: 2, id: 'req_mid', status: 'expired' });
    expect(await b.extension.frames.nextOfType('bridge_error')).toMatchObject({ code: 'ERR_CONNECTION_UNKNOWN', id: 'req_mid' });
    b.extension.end();
    expect(await b.exit).toBe(0);
  }, 20_000);

  it('survives bad stdio frames: oversized (skipped), invalid UTF-8, invalid JSON, empty', async () => {
    const { dir, socketPath } = runtime();
    const b = start(dir);
    const big = new Uint8Array(4 + MAX_FRAME_BYTES + 1);
    new DataView(big.buffer).setUint32(0, MAX_FRAME_BYTES + 1, true);
    b.extension.sendRaw(big);
    expect(await b.extension.frames.nextOfType('bridge_error')).toMatchObject({ code: 'ERR_FRAME_TOO_LARGE' });
    b.extension.sendRaw(encodeFrame(new Uint8Array([0xff, 0xfe]), 'LE'));
    expect(await b.extension.frames.nextOfType('bridge_error')).toMatchObject({ code: 'ERR_FRAME_INVALID' });
    b.extension.sendRaw(encodeFrame(new TextEncoder().encode('{nope'), 'LE'));
    expect(await b.extension.frames.nextOfType('bridge_error')).toMatchObject({ code: 'ERR_FRAME_INVALID' });
    b.extension.sendRaw(new Uint8Array(4));
    expect(await b.extension.frames.nextOfType('bridge_error')).toMatchObject({ code: 'ERR_FRAME_INVALID' });
    b.extension.send({ type: 'bridge_hello', v: 2 });
    expect(await b.extension.frames.nextOfType('bridge_error')).toMatchObject({ code: 'ERR_BRIDGE_MESSAGE_INVALID' });
    // Still alive, still in sync: the hello works, and exactly 1 MiB from the extension is accepted.
    expect(await b.extension.hello()).toMatchObject({ type: 'bridge_ready' });
    const a = await FakeAgent.connect(socketPath);
    const msg = { type: 'relay', v: 2, conn: a.conn, message: { type: 'error', v: 2, code: 'ERR_X', message: '' } };
    const base = JSON.stringify(msg);
    b.extension.sendRaw(encodeFrame(new TextEncoder().encode(base + ' '.repeat(MAX_FRAME_BYTES - base.length)), 'LE'));
    expect(await a.frames.nextOfType('error', 10_000)).toMatchObject({ code: 'ERR_X' });
    // Diagnostics went to stderr, and stdout held nothing but frames.
    expect(b.stderr.join('')).toContain('ERR_FRAME_TOO_LARGE');
    expect(b.extension.frames.errors).toEqual([]);
    b.extension.end();
    expect(await b.exit).toBe(0);
  }, 30_000);

  it('replaces a stale socket left by a killed bridge, and the next bridge takes over', async () => {
    const { dir, socketPath } = runtime();
    const first = start(dir);
    await first.extension.hello();
    first.child.kill('SIGKILL');
    await first.exit;
    // SIGKILL leaves the file behind: connecting to it is refused.
    expect(existsSync(socketPath)).toBe(true);
    const second = start(dir);
    expect(await second.extension.hello()).toMatchObject({ type: 'bridge_ready' });
    const a = await FakeAgent.connect(socketPath);
    a.send({ type: 'version_query', v: 2, id: 'q' });
    expect(await second.extension.frames.nextOfType('relay')).toMatchObject({ conn: a.conn });
    expect(second.stderr.join('')).toContain('stale');
    second.extension.end();
    expect(await second.exit).toBe(0);
  }, 20_000);

  it('never steals a live socket: ERR_SOCKET_IN_USE, and a later bridge_hello works once it is free', async () => {
    const { dir, socketPath } = runtime();
    mkdirSync(path.dirname(socketPath), { mode: 0o700 });
    const squatter = net.createServer((s) => s.destroy());
    await new Promise<void>((r) => squatter.listen(socketPath, r));
    const b = start(dir);
    expect(await b.extension.hello()).toMatchObject({ type: 'bridge_error', code: 'ERR_SOCKET_IN_USE' });
    expect(existsSync(socketPath)).toBe(true);
    await new Promise<void>((r) => squatter.close(() => r()));
    expect(await b.extension.hello()).toMatchObject({ type: 'bridge_ready' });
    b.extension.end();
    expect(await b.exit).toBe(0);
  }, 20_000);

  it('hands over to a new bridge started while the old one is still leaving (extension reconnect)', async () => {
    const { dir, socketPath } = runtime();
    const old = start(dir);
    await old.extension.hello();
    const a = await FakeAgent.connect(socketPath);
    const fresh = start(dir);
    const ready = fresh.extension.hello();
    await sleep(300);
    old.extension.end();
    expect(await a.frames.nextOfType('companion_unavailable')).toBeTruthy();
    expect(await old.exit).toBe(0);
    expect(await ready).toMatchObject({ type: 'bridge_ready' });
    // The agent reconnects to the new bridge.
    const again = await FakeAgent.connect(socketPath);
    again.send({ type: 'version_query', v: 2, id: 'q2' });
    expect(await fresh.extension.frames.nextOfType('relay')).toMatchObject({ conn: again.conn, message: { id: 'q2' } });
    fresh.extension.end();
    expect(await fresh.exit).toBe(0);
  }, 20_000);

  it('shuts down cleanly on SIGTERM', async () => {
    const { dir, socketPath } = runtime();
    const b = start(dir);
    await b.extension.hello();
    const a = await FakeAgent.connect(socketPath);
    b.child.kill('SIGTERM');
    expect(await a.frames.nextOfType('companion_unavailable')).toBeTruthy();
    expect(await b.exit).toBe(0);
    expect(existsSync(socketPath)).toBe(false);
  }, 20_000);

  it('runs as Firefox starts it (manifest path + add-on id), and refuses other argv with usage', async () => {
    const { dir, socketPath } = runtime();
    const child = spawn(process.execPath, [bundle, '/home/u/.mozilla/native-messaging-hosts/dev.countersign.bridge.json', 'countersign@countersign.dev'], {
      env: { PATH: process.env['PATH'] ?? '', XDG_RUNTIME_DIR: dir },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    cleanups.push(() => child.kill('SIGKILL'));
    const { FakeExtension } = await import('./helpers');
    const ext = new FakeExtension(child.stdin, child.stdout);
    await ext.hello();
    const a = await FakeAgent.connect(socketPath);
    expect(a.conn).toMatch(/^c_/);
    ext.end();
    await new Promise((r) => child.once('exit', r));

    const usage = spawn(process.execPath, [bundle], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    usage.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise((r) => usage.once('exit', r));
    expect(code).toBe(2);
    expect(err).toContain('Usage:');
  }, 20_000);

  it('starts from its code cache: the first run writes it as it exits, the next read it and leave it, a damaged one is replaced', async () => {
    const dir = tempDir('cs-cached-');
    cleanups.push(() => removeDir(dir));
    const copy = path.join(dir, 'countersign-bridge.mjs');
    copyFileSync(bundle, copy);
    const version = () => execFileSync(process.execPath, [copy, '--version'], { encoding: 'utf8' }).trim();
    const caches = () => readdirSync(dir).filter((name) => isCodeCacheOf('countersign-bridge.mjs', name, { partial: true }));

    expect(caches()).toEqual([]);
    expect(version()).toBe('0.1.0');
    expect(caches()).toHaveLength(1);
    const cache = path.join(dir, caches()[0]!);
    expect(cache.endsWith(`${process.version}-${process.arch}${CODE_CACHE_EXTENSION}`)).toBe(true);
    const written = statSync(cache);
    // Accepted: the bridge has nothing to write, so the file stays the one the first run renamed in.
    expect(version()).toBe('0.1.0');
    expect(statSync(cache).ino).toBe(written.ino);
    writeFileSync(cache, 'not a code cache');
    expect(version()).toBe('0.1.0');
    expect(readFileSync(cache, 'utf8')).not.toBe('not a code cache');
    expect(caches()).toHaveLength(1);
  }, 20_000);
});

// Connection hygiene in the real process (docs/bridge-protocol.md section 5). Deadlines are
// shortened with COUNTERSIGN_BRIDGE_LIMITS, which can only lower them; the untrusted limit is the
// real one (8) unless a test says otherwise.
describe('the bridge process: connection limits and deadlines', () => {
  const V = BRIDGE_PROTOCOL_VERSION;
  const EXT_KEY = { kty: 'OKP', crv: 'Ed25519', x: '33L538Y6mLHlg5hsBbt01W3lCSTPAlURxJi16Uva51M' };

  interface Raw {
    socket: net.Socket;
    frames: FrameQueue;
    /** bridge_info when admitted, the ERR_THROTTLED error when refused. */
    first: Record<string, unknown>;
  }

  async function raw(socketPath: string): Promise<Raw> {
    const socket = net.connect(socketPath);
    socket.on('error', () => {});
    cleanups.push(() => socket.destroy());
    const frames = new FrameQueue(socket, 'BE');
    return { socket, frames, first: await frames.next() };
  }

  function closed(socket: net.Socket, timeoutMs = 5000): Promise<void> {
    return new Promise((resolve, reject) => {
      if (socket.destroyed) return resolve();
      const timer = setTimeout(() => reject(new Error('socket did not close')), timeoutMs);
      socket.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  it('a flood of 64 connections that never authenticate does not keep a paired agent out, nor disturb it once trusted', async () => {
    const { dir, socketPath } = runtime();
    const b = start(dir, { COUNTERSIGN_BRIDGE_LIMITS: 'displace_ms=300' });
    expect(await b.extension.hello()).toMatchObject({ type: 'bridge_ready' });
    const flood = await Promise.all(Array.from({ length: 64 }, () => raw(socketPath)));
    const admitted = flood.filter((r) => r.first['type'] === 'bridge_info');
    const refused = flood.filter((r) => r.first['type'] === 'error');
    expect(admitted).toHaveLength(8);
    expect(refused).toHaveLength(56);
    for (const r of refused) expect(r.first).toMatchObject({ code: 'ERR_THROTTLED', source: 'bridge' });
    await Promise.all(refused.map((r) => closed(r.socket)));

    // The flood has held its 8 slots for longer than 300 ms: the paired agent's connection takes
    // the slot of the one that waited longest, and has time for its handshake.
    await sleep(400);
    const agent = await FakeAgent.connect(socketPath);
    const key = await newAgentKey();
    agent.send({ type: 'hello', v: V, id: 'h1', versions: [V], agent_name: 'Paired agent', agent_key: key.jwk });
    expect(await b.extension.frames.next((m) => m['type'] === 'relay' && m['conn'] === agent.conn)).toMatchObject({ message: { type: 'hello' } });
    b.extension.relay(agent.conn, { type: 'challenge', v: V, id: 'h1', nonce: NONCE, version: V });
    const challenge = await agent.frames.nextOfType('challenge');
    agent.send({ type: 'auth', v: V, id: 'a1', signature: signAuth(key, { extensionKeyThumbprint: THUMBPRINT, conn: agent.conn, nonce: String(challenge['nonce']) }) });
    expect(await b.extension.frames.next((m) => m['type'] === 'relay' && m['conn'] === agent.conn)).toMatchObject({ message: { type: 'auth' } });
    b.extension.relay(agent.conn, { type: 'welcome', v: V, id: 'a1', paired: true, extension_key: EXT_KEY });
    expect(await agent.frames.nextOfType('welcome')).toMatchObject({ paired: true });
    const displaced = await Promise.race(admitted.map((r) => r.frames.nextOfType('error').then(() => r)));
    await closed(displaced.socket);

    // A second flood: the trusted agent is not one of the untrusted connections, so it is never
    // refused, displaced or timed out; it is relayed as before.
    const second = await Promise.all(Array.from({ length: 64 }, () => raw(socketPath)));
    expect(second.filter((r) => r.first['type'] === 'bridge_info').length).toBeLessThanOrEqual(8);
    agent.send({ type: 'version_query', v: V, id: 'q1' });
    expect(await b.extension.frames.next((m) => m['type'] === 'relay' && m['conn'] === agent.conn)).toMatchObject({ message: { id: 'q1' } });
    b.extension.relay(agent.conn, { type: 'version', v: V, id: 'q1', product: 'Countersign', extension_version: '0.1.0', protocol_versions: [V] });
    expect(await agent.frames.nextOfType('version')).toMatchObject({ id: 'q1' });
    expect(agent.frames.received.filter((m) => m['type'] === 'error')).toEqual([]);
    b.extension.end();
    expect(await agent.frames.nextOfType('companion_unavailable')).toBeTruthy();
    expect(await b.exit).toBe(0);
    expect(b.extension.frames.errors).toEqual([]);
  }, 30_000);

  it('closes an untrusted connection at its deadline (ERR_AUTH_FAILED); one with a pair_offer lives until the pairing deadline (ERR_PAIRING_FAILED)', async () => {
    const { dir, socketPath } = runtime();
    const b = start(dir, { COUNTERSIGN_BRIDGE_LIMITS: 'auth_ms=500,pairing_ms=2000' });
    await b.extension.hello();
    const idle = await FakeAgent.connect(socketPath);
    const pairing = await FakeAgent.connect(socketPath);
    const started = Date.now();
    idle.send({ type: 'version_query', v: V, id: 'q0' });
    b.extension.relay(pairing.conn, { type: 'pair_offer', v: V, id: 'p1', extension_key: EXT_KEY, extension_nonce: NONCE });
    expect(await pairing.frames.nextOfType('pair_offer')).toMatchObject({ id: 'p1' });

    expect(await idle.frames.nextOfType('error')).toMatchObject({ code: 'ERR_AUTH_FAILED', source: 'bridge' });
    await idle.waitClosed();
    expect(await b.extension.frames.next((m) => m['type'] === 'agent_disconnected' && m['conn'] === idle.conn)).toMatchObject({ reason: 'closed' });
    expect(Date.now() - started).toBeLessThan(1500);

    // Past the short deadline the pairing connection is still served...
    await sleep(1000 - (Date.now() - started));
    pairing.send({ type: 'version_query', v: V, id: 'q2' });
    expect(await b.extension.frames.next((m) => m['type'] === 'relay' && m['conn'] === pairing.conn)).toMatchObject({ message: { id: 'q2' } });
    // ...until the pairing deadline.
    expect(await pairing.frames.nextOfType('error', 5000)).toMatchObject({ code: 'ERR_PAIRING_FAILED', source: 'bridge' });
    await pairing.waitClosed();
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
    expect(await b.extension.frames.next((m) => m['type'] === 'agent_disconnected' && m['conn'] === pairing.conn)).toMatchObject({ reason: 'closed' });
    b.extension.end();
    expect(await b.exit).toBe(0);
  }, 20_000);

  it('refuses the 9th untrusted connection with ERR_THROTTLED (default limits), and never tells the extension about it', async () => {
    const { dir, socketPath } = runtime();
    const b = start(dir);
    await b.extension.hello();
    const eight = await Promise.all(Array.from({ length: 8 }, () => FakeAgent.connect(socketPath)));
    // Each says something, so the extension hears of it (section 6.2).
    for (const a of eight) a.send({ type: 'version_query', v: V, id: 'q0' });
    const ninth = await raw(socketPath);
    expect(ninth.first).toMatchObject({ type: 'error', v: V, code: 'ERR_THROTTLED', source: 'bridge', message: expect.stringContaining('at most 8') });
    await closed(ninth.socket);
    const connected = new Set<unknown>();
    while (connected.size < 8) connected.add((await b.extension.frames.nextOfType('agent_connected'))['conn']);
    expect([...connected].sort()).toEqual(eight.map((a) => a.conn).sort());
    await sleep(100);
    expect(b.extension.frames.received.filter((m) => m['type'] === 'agent_connected')).toEqual([]);
    expect(b.stderr.join('')).toContain('refused 1 agent connection(s)');
    b.extension.end();
    expect(await b.exit).toBe(0);
  }, 20_000);
});
