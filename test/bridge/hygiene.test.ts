import { readFileSync } from 'node:fs';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionHygiene, HYGIENE_LIMITS, hygieneLimitsFromEnv, type HygieneLimits } from '../../src/bridge/hygiene';
import type { Logger } from '../../src/bridge/log';
import { BRIDGE_PROTOCOL_VERSION, MAX_AGENT_CONNECTIONS } from '../../src/protocol/bridge';
import { encodeJsonFrame } from '../../src/protocol/bridge-framing';
import { FakeAgent, FrameQueue, NONCE, sleep, startInProcessBridge, type InProcessBridge } from './helpers';

// Connection hygiene (docs/bridge-protocol.md section 5, "Limits and deadlines"): the rules as
// plain numbers first, then a BridgeHost in this process with small limits and a real socket.
// process.test.ts runs the same rules in the real bridge process.

const V = BRIDGE_PROTOCOL_VERSION;
const EXT_KEY = { kty: 'OKP', crv: 'Ed25519', x: '33L538Y6mLHlg5hsBbt01W3lCSTPAlURxJi16Uva51M' };
const welcome = (paired: boolean) => ({ type: 'welcome', v: V, id: 'a1', paired, extension_key: EXT_KEY });
const pairOffer = { type: 'pair_offer', v: V, id: 'p1', extension_key: EXT_KEY, extension_nonce: NONCE };
const pairResult = (status: 'confirmed' | 'rejected') => ({ type: 'pair_result', v: V, id: 'p1', status });
const pairingFailed = { type: 'error', v: V, id: 'p2', code: 'ERR_PAIRING_FAILED', message: 'pair_reveal.agent_nonce: does not match', source: 'extension' };

function recordingLog(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const at = (level: string) => (m: string) => void lines.push(`${level}: ${m}`);
  return { lines, error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') };
}

describe('ConnectionHygiene (the rules, on plain numbers)', () => {
  const small: Partial<HygieneLimits> = { maxConnections: 6, maxUntrusted: 3, maxPairing: 2, authDeadlineMs: 100, pairingDeadlineMs: 1000, displaceAfterMs: 20 };

  it('the defaults: 64 connections, 8 untrusted, 3 pairing, 10 s, 5 min, 2 s; before trust 4 KiB a message, 16 messages and 16 KiB a connection, 32 messages and 32 KiB a second in all', () => {
    expect(HYGIENE_LIMITS).toEqual({
      maxConnections: MAX_AGENT_CONNECTIONS,
      maxUntrusted: 8,
      maxPairing: 3,
      authDeadlineMs: 10_000,
      pairingDeadlineMs: 300_000,
      displaceAfterMs: 2_000,
      untrustedMessageBytes: 4096,
      untrustedFrames: 16,
      untrustedBytes: 16_384,
      untrustedFramesPerSecond: 32,
      untrustedBytesPerSecond: 32_768,
    });
    expect(MAX_AGENT_CONNECTIONS).toBe(64);
    expect(Object.isFrozen(HYGIENE_LIMITS)).toBe(true);
  });

  it('admits untrusted connections up to the limit; the next is refused while none has waited long enough to make room', () => {
    const h = new ConnectionHygiene(small);
    for (const c of ['a', 'b', 'c']) {
      expect(h.admission(0)).toEqual({ admit: true });
      h.add(c, 0);
    }
    const refused = h.admission(19);
    expect(refused.admit).toBe(false);
    expect(refused.admit === false && refused.why).toMatch(/3 connections are not authenticated yet \(at most 3 at once\)/);
    // Trusted ones leave the untrusted slots: room again.
    h.observe('a', welcome(true), 5);
    expect(h.admission(19)).toEqual({ admit: true });
    expect([h.count(), h.count('trusted'), h.count('not-trusted')]).toEqual([3, 1, 2]);
  });

  it('untrusted connections never hold more than their slots, so the rest of the total is for trusted ones', () => {
    const h = new ConnectionHygiene({ ...small, displaceAfterMs: 1e9 });
    let n = 0;
    const fill = () => {
      while (h.admission(0).admit) {
        h.add(`c${n++}`, 0);
        expect(h.count('not-trusted')).toBeLessThanOrEqual(3);
      }
    };
    fill();
    expect([h.count(), h.count('not-trusted')]).toEqual([3, 3]);
    // Each connection the extension trusts frees an untrusted slot for the next newcomer.
    for (const c of ['c0', 'c1', 'c2']) h.observe(c, welcome(true), 0);
    fill();
    expect([h.count(), h.count('trusted'), h.count('not-trusted')]).toEqual([6, 3, 3]);
    h.observe('c3', welcome(true), 0);
    h.observe('c4', welcome(true), 0);
    expect(h.admission(0)).toMatchObject({ admit: false, why: expect.stringMatching(/6 agents are connected \(at most 6 at once\)/) });
    expect([h.count('trusted'), h.count('not-trusted')]).toEqual([5, 1]);
  });

  it('makes room by closing the untrusted connection that waited longest, once it has waited displaceAfterMs; never a pairing or trusted one', () => {
    const h = new ConnectionHygiene(small);
    h.add('pairing', 0);
    h.observe('pairing', pairOffer, 1);
    h.add('old', 5);
    h.add('young', 30);
    expect(h.admission(24)).toMatchObject({ admit: false });
    expect(h.admission(25)).toEqual({ admit: true, displace: 'old' });
    h.remove('old');
    h.add('new', 25);
    // Oldest first: 'young' (since 30) has waited 15 at 45, 'new' (since 25) 20; 'pairing' never goes.
    expect(h.admission(45)).toEqual({ admit: true, displace: 'new' });
    h.remove('new');
    h.add('newer', 45);
    expect(h.admission(49)).toMatchObject({ admit: false });
    expect(h.admission(50)).toEqual({ admit: true, displace: 'young' });
    // The whole total full of trusted ones and one untrusted: that untrusted one makes room too.
    const t = new ConnectionHygiene({ ...small, maxConnections: 2 });
    t.add('trusted', 0);
    t.observe('trusted', welcome(true), 0);
    t.add('u', 0);
    expect(t.admission(19)).toMatchObject({ admit: false, why: expect.stringContaining('2 agents are connected') });
    expect(t.admission(20)).toEqual({ admit: true, displace: 'u' });
  });

  it('deadlines: 10 s (here 100) from connecting; pair_offer gives the pairing deadline; trusted ones have none', () => {
    const h = new ConnectionHygiene(small);
    h.add('idle', 0);
    h.add('paired', 0);
    h.add('pairing', 10);
    h.add('unpaired', 10);
    expect(h.observe('paired', welcome(true), 50)).toBe('trusted');
    expect(h.observe('pairing', pairOffer, 60)).toBe('pairing');
    // welcome paired:false proves a key, not a paired one: nothing changes.
    expect(h.observe('unpaired', welcome(false), 60)).toBeUndefined();
    expect(h.nextDeadline()).toBe(100);
    expect(h.expired(99)).toEqual([]);
    expect(h.expired(100)).toEqual([{ conn: 'idle', trust: 'untrusted' }]);
    h.remove('idle');
    expect(h.expired(110)).toEqual([{ conn: 'unpaired', trust: 'untrusted' }]);
    h.remove('unpaired');
    expect(h.nextDeadline()).toBe(1060);
    expect(h.expired(1059)).toEqual([]);
    expect(h.expired(1060)).toEqual([{ conn: 'pairing', trust: 'pairing' }]);
    expect(h.trustOf('paired')).toBe('trusted');
  });

  it('a pairing ends with pair_result (confirmed: trusted) or ERR_PAIRING_FAILED (untrusted again, 100 from then)', () => {
    const h = new ConnectionHygiene({ ...small, maxPairing: 3 });
    for (const c of ['ok', 'refused', 'bad']) {
      h.add(c, 0);
      h.observe(c, pairOffer, 10);
    }
    expect(h.observe('ok', pairResult('confirmed'), 500)).toBe('trusted');
    expect(h.observe('refused', pairResult('rejected'), 500)).toBe('untrusted');
    expect(h.observe('bad', pairingFailed, 600)).toBe('untrusted');
    // Other errors do not end a pairing.
    h.add('other', 0);
    h.observe('other', pairOffer, 0);
    expect(h.observe('other', { ...pairingFailed, code: 'ERR_THROTTLED' }, 600)).toBeUndefined();
    expect(h.expired(599)).toEqual([]);
    expect(h.expired(600)).toEqual([{ conn: 'refused', trust: 'untrusted' }]);
    expect(h.expired(700)).toEqual([
      { conn: 'refused', trust: 'untrusted' },
      { conn: 'bad', trust: 'untrusted' },
    ]);
    // Once over, the pairing no longer shields it from making room.
    expect(h.admission(700)).toMatchObject({ admit: true, displace: 'refused' });
  });

  it('trust lasts for the connection: later messages never take it back; an agent cannot make itself trusted', () => {
    const h = new ConnectionHygiene(small);
    h.add('a', 0);
    h.observe('a', welcome(true), 1);
    for (const m of [welcome(false), pairOffer, pairResult('rejected'), pairingFailed]) expect(h.observe('a', m, 2)).toBeUndefined();
    expect(h.trustOf('a')).toBe('trusted');
    // Unknown connections are ignored (a relay to a connection being closed).
    expect(h.observe('gone', welcome(true), 3)).toBeUndefined();
    expect(h.trustOf('gone')).toBeUndefined();
  });

  it('at most maxPairing connections get the pairing deadline at once', () => {
    const h = new ConnectionHygiene(small);
    for (const c of ['p1', 'p2', 'p3']) h.add(c, 0);
    expect(h.observe('p1', pairOffer, 0)).toBe('pairing');
    expect(h.observe('p2', pairOffer, 0)).toBe('pairing');
    expect(h.observe('p3', pairOffer, 0)).toBeUndefined();
    expect(h.expired(100)).toEqual([{ conn: 'p3', trust: 'untrusted' }]);
  });

  it('section 5 "Before trust": only the handshake before welcome; an error never; anything after welcome, within the connection\'s budget', () => {
    const h = new ConnectionHygiene(small);
    h.add('a', 0);
    expect(h.mayRelay('a', 'hello', 300, 0)).toEqual({ relay: true });
    expect(h.mayRelay('a', 'auth', 150, 0)).toEqual({ relay: true });
    expect(h.mayRelay('a', 'version_query', 40, 0)).toEqual({ relay: true });
    for (const type of ['pair_request', 'pair_reveal', 'approval_request', 'tool_call_request', 'approval_cancel', 'approval_sent', 'outcome', 'what']) {
      expect(h.mayRelay('a', type, 100, 0)).toMatchObject({ relay: false, code: 'ERR_AUTH_FAILED' });
    }
    expect(h.mayRelay('a', 'error', 100, 0)).toEqual({ relay: false, why: expect.stringContaining('not relayed') });
    expect(h.mayRelay('gone', 'hello', 100, 0)).toMatchObject({ relay: false, code: 'ERR_THROTTLED' });
    // A welcome, even unpaired, means it proved a key: it may ask to pair (and a revoked agent hears why it may not ask).
    h.observe('a', welcome(false), 1);
    expect(h.mayRelay('a', 'pair_request', 300, 1)).toEqual({ relay: true });
    expect(h.mayRelay('a', 'approval_request', 1000, 1)).toEqual({ relay: true });
    expect(h.trustOf('a')).toBe('untrusted');
  });

  it('section 5 "Before trust": 16 messages and 16 KiB per connection; refusals cost nothing; trust lifts the budget', () => {
    const h = new ConnectionHygiene({ ...small, untrustedFramesPerSecond: 1000, untrustedBytesPerSecond: 1e6 });
    h.add('a', 0);
    h.add('b', 0);
    for (let i = 0; i < 16; i++) expect(h.mayRelay('a', 'version_query', 40, 0)).toEqual({ relay: true });
    expect(h.mayRelay('a', 'version_query', 40, 0)).toMatchObject({ relay: false, code: 'ERR_THROTTLED', why: expect.stringContaining('16 messages') });
    expect(h.mayRelay('b', 'hello', 4096, 0).relay).toBe(true);
    for (let i = 0; i < 3; i++) expect(h.mayRelay('b', 'hello', 4096, 0).relay).toBe(true);
    expect(h.mayRelay('b', 'hello', 1, 0)).toMatchObject({ relay: false, code: 'ERR_THROTTLED', why: expect.stringContaining('16384 bytes') });
    h.observe('a', welcome(true), 0);
    for (let i = 0; i < 100; i++) expect(h.mayRelay('a', 'approval_request', 1e6, 0)).toEqual({ relay: true });
  });

  it('section 5 "Before trust": all untrusted connections share 32 messages and 32 KiB a second, twice that at once', () => {
    const h = new ConnectionHygiene({ ...small, maxUntrusted: 6 });
    const conns = ['a', 'b', 'c', 'd', 'e', 'f'];
    for (const c of conns) h.add(c, 0);
    let relayed = 0;
    for (const c of conns) for (let i = 0; i < 16; i++) if (h.mayRelay(c, 'version_query', 40, 0).relay) relayed++;
    expect(relayed).toBe(64);
    expect(h.mayRelay('f', 'version_query', 40, 0)).toMatchObject({ relay: false, code: 'ERR_THROTTLED', why: expect.stringContaining('32 messages or 32768 bytes a second') });
    // Half a second later, 16 more.
    relayed = 0;
    for (const c of ['e', 'f']) for (let i = 0; i < 16; i++) if (h.mayRelay(c, 'version_query', 40, 500).relay) relayed++;
    expect(relayed).toBe(16);
    // Bytes run out before messages: 65536 at once, and a refused message gives its message back.
    const b = new ConnectionHygiene({ ...small, maxUntrusted: 6, untrustedBytes: 1e6 });
    for (const c of conns) b.add(c, 0);
    for (let i = 0; i < 16; i++) expect(b.mayRelay(conns[i % 6]!, 'hello', 4096, 0).relay).toBe(true);
    expect(b.mayRelay('a', 'hello', 1, 0)).toMatchObject({ relay: false, code: 'ERR_THROTTLED' });
    expect(b.mayRelay('a', 'hello', 0, 0)).toEqual({ relay: true });
  });

  it('limits are whole, at least 1, and nested (pairing ≤ untrusted ≤ connections)', () => {
    expect(new ConnectionHygiene({ maxConnections: 4, maxUntrusted: 8, maxPairing: 9, authDeadlineMs: 0.5, displaceAfterMs: -3 }).limits).toMatchObject({
      maxConnections: 4,
      maxUntrusted: 4,
      maxPairing: 4,
      authDeadlineMs: 1,
      displaceAfterMs: 1,
    });
  });
});

describe('COUNTERSIGN_BRIDGE_LIMITS', () => {
  it('only lowers limits; anything else is ignored with a warning', () => {
    const log = recordingLog();
    expect(
      hygieneLimitsFromEnv('untrusted=2, auth_ms=500,pairing_ms=1500,displace_ms=100,pairings=1,connections=10,message_bytes=1024,frames=4,bytes=2048,frames_per_s=8,bytes_per_s=4096', log),
    ).toEqual({
      maxUntrusted: 2,
      authDeadlineMs: 500,
      pairingDeadlineMs: 1500,
      displaceAfterMs: 100,
      maxPairing: 1,
      maxConnections: 10,
      untrustedMessageBytes: 1024,
      untrustedFrames: 4,
      untrustedBytes: 2048,
      untrustedFramesPerSecond: 8,
      untrustedBytesPerSecond: 4096,
    });
    expect(log.lines).toEqual([]);
    expect(hygieneLimitsFromEnv('untrusted=64,auth_ms=60000,auth_ms=0,nope=1,pairings=x,=', log)).toEqual({});
    expect(log.lines).toHaveLength(6);
    expect(log.lines[0]).toMatch(/untrusted may only be lowered \(at most 8\)/);
    expect(log.lines[1]).toMatch(/auth_ms may only be lowered \(at most 10000\)/);
    expect(hygieneLimitsFromEnv(undefined, log)).toEqual({});
    expect(hygieneLimitsFromEnv(' ', log)).toEqual({});
  });
});

describe('docs/bridge-protocol.md states the limits', () => {
  it('section 5 and the errors table', () => {
    const doc = readFileSync(new URL('../../docs/bridge-protocol.md', import.meta.url), 'utf8');
    const section5 = doc.slice(doc.indexOf('## 5.'), doc.indexOf('## 6.'));
    const { maxConnections, maxUntrusted, maxPairing, authDeadlineMs, pairingDeadlineMs, displaceAfterMs } = HYGIENE_LIMITS;
    expect(section5).toContain(`| agent connections at once | ${maxConnections} |`);
    expect(section5).toContain(`| untrusted connections at once | ${maxUntrusted} |`);
    expect(section5).toContain(`at least ${maxConnections - maxUntrusted} slots`);
    expect(section5).toContain(`| pairing connections at once | ${maxPairing} |`);
    expect(section5).toContain(`| time to become trusted | ${authDeadlineMs / 1000} s |`);
    expect(section5).toContain(`| time to finish a pairing | ${pairingDeadlineMs / 60_000} minutes |`);
    expect(section5).toContain(`| making room | after ${displaceAfterMs / 1000} s |`);
    const { untrustedMessageBytes, untrustedFrames, untrustedBytes, untrustedFramesPerSecond, untrustedBytesPerSecond } = HYGIENE_LIMITS;
    expect(section5).toContain(`| a message before trust | ${untrustedMessageBytes} bytes |`);
    expect(section5).toContain(`| messages of one connection before trust | ${untrustedFrames}, and ${untrustedBytes / 1024} KiB |`);
    expect(section5).toContain(`| messages of all untrusted connections | ${untrustedFramesPerSecond} a second and ${untrustedBytesPerSecond / 1024} KiB a second |`);
    const errors = doc.slice(doc.indexOf('## 12.'), doc.indexOf('## 13.'));
    for (const code of ['ERR_THROTTLED', 'ERR_AUTH_FAILED', 'ERR_PAIRING_FAILED']) {
      expect(errors).toMatch(new RegExp(`\\| \`${code}\` \\| [^|]*bridge[^|]*\\|`));
    }
  });
});

// ---------------------------------------------------------------------------------------------
// The host, in this process

let bridge: InProcessBridge | undefined;
const sockets: net.Socket[] = [];

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await bridge?.stop();
  bridge = undefined;
});

/** A raw connection: whatever the bridge sends first (bridge_info, or the ERR_THROTTLED refusal). */
async function connect(): Promise<{ socket: net.Socket; frames: FrameQueue; first: Record<string, unknown> }> {
  const socket = net.connect(bridge!.socketPath);
  socket.on('error', () => {});
  sockets.push(socket);
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

describe('BridgeHost hygiene', () => {
  it('closes a connection that is not trusted in time with ERR_AUTH_FAILED, and tells the extension it is gone', async () => {
    bridge = await startInProcessBridge({ hygiene: { authDeadlineMs: 300 } });
    const started = Date.now();
    const a = await connect();
    const conn = String(a.first['conn']);
    expect(bridge.host.trustOf(conn)).toBe('untrusted');
    // It says something, so the extension hears of it (docs/bridge-protocol.md 6.2).
    a.socket.write(encodeJsonFrame({ type: 'version_query', v: V, id: 'early' }, 'BE'));
    await bridge.extension.frames.next((m) => m['type'] === 'relay' && m['conn'] === conn);
    const error = await a.frames.nextOfType('error');
    expect(error).toMatchObject({ v: V, code: 'ERR_AUTH_FAILED', source: 'bridge', message: expect.stringContaining('section 5') });
    expect(error).not.toHaveProperty('id');
    // Past its deadline it is no longer relayed, even before its socket has closed.
    a.socket.write(encodeJsonFrame({ type: 'version_query', v: V, id: 'late' }, 'BE'));
    await closed(a.socket);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(await bridge.extension.frames.next((m) => m['type'] === 'agent_disconnected' && m['conn'] === conn)).toMatchObject({ reason: 'closed' });
    expect(bridge.extension.frames.received.filter((m) => m['type'] === 'relay')).toEqual([]);
    bridge.extension.relay(conn, welcome(true));
    expect(await bridge.extension.frames.nextOfType('bridge_error')).toMatchObject({ code: 'ERR_CONNECTION_UNKNOWN', conn });
    expect(bridge.host.snapshot().conns).toEqual([]);
  });

  it('keeps a connection the extension welcomed as paired; welcome with paired: false is not enough', async () => {
    bridge = await startInProcessBridge({ hygiene: { authDeadlineMs: 300 } });
    const paired = await FakeAgent.connect(bridge.socketPath);
    const unpaired = await FakeAgent.connect(bridge.socketPath);
    bridge.extension.relay(paired.conn, welcome(true));
    bridge.extension.relay(unpaired.conn, welcome(false));
    expect(await paired.frames.nextOfType('welcome')).toMatchObject({ paired: true });
    expect(await unpaired.frames.nextOfType('welcome')).toMatchObject({ paired: false });
    expect(bridge.host.trustOf(paired.conn)).toBe('trusted');
    expect(await unpaired.frames.nextOfType('error')).toMatchObject({ code: 'ERR_AUTH_FAILED', source: 'bridge' });
    await unpaired.waitClosed();
    await sleep(400);
    paired.send({ type: 'version_query', v: V, id: 'q1' });
    expect(await bridge.extension.frames.next((m) => m['type'] === 'relay' && m['conn'] === paired.conn)).toMatchObject({ message: { id: 'q1' } });
    expect(paired.socket.destroyed).toBe(false);
    paired.destroy();
  });

  it('gives a connection with a pair_offer the pairing deadline (ERR_PAIRING_FAILED), and trusts it once the pairing is confirmed', async () => {
    bridge = await startInProcessBridge({ hygiene: { authDeadlineMs: 300, pairingDeadlineMs: 1500 } });
    const waiting = await FakeAgent.connect(bridge.socketPath);
    const confirmed = await FakeAgent.connect(bridge.socketPath);
    const plain = await FakeAgent.connect(bridge.socketPath);
    const started = Date.now();
    waiting.send({ type: 'version_query', v: V, id: 'q0' });
    await bridge.extension.frames.next((m) => m['type'] === 'relay' && m['conn'] === waiting.conn);
    for (const a of [waiting, confirmed]) bridge.extension.relay(a.conn, pairOffer);
    await waiting.frames.nextOfType('pair_offer');
    await confirmed.frames.nextOfType('pair_offer');
    expect(bridge.host.trustOf(waiting.conn)).toBe('pairing');
    await plain.waitClosed();
    bridge.extension.relay(confirmed.conn, pairResult('confirmed'));
    expect(await confirmed.frames.nextOfType('pair_result')).toMatchObject({ status: 'confirmed' });
    expect(bridge.host.trustOf(confirmed.conn)).toBe('trusted');
    // Well past the short deadline, the pairing one is still there...
    await sleep(700 - (Date.now() - started));
    expect(waiting.socket.destroyed).toBe(false);
    // ...until the pairing deadline.
    expect(await waiting.frames.nextOfType('error', 5000)).toMatchObject({ code: 'ERR_PAIRING_FAILED', source: 'bridge' });
    await waiting.waitClosed();
    expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
    expect(await bridge.extension.frames.next((m) => m['type'] === 'agent_disconnected' && m['conn'] === waiting.conn)).toMatchObject({ reason: 'closed' });
    expect(confirmed.socket.destroyed).toBe(false);
    confirmed.destroy();
  });

  it('refuses a connection beyond the untrusted limit with ERR_THROTTLED, unannounced; a trusted one frees its untrusted slot', async () => {
    bridge = await startInProcessBridge({ hygiene: { maxUntrusted: 3 } });
    const admitted = await Promise.all([connect(), connect(), connect()]);
    for (const a of admitted) expect(a.first['type']).toBe('bridge_info');
    for (const a of admitted) a.socket.write(encodeJsonFrame({ type: 'version_query', v: V, id: 'q0' }, 'BE'));
    const refused = await connect();
    expect(refused.first).toMatchObject({ type: 'error', code: 'ERR_THROTTLED', source: 'bridge', message: expect.stringContaining('at most 3') });
    await closed(refused.socket);
    await sleep(100);
    expect(bridge.extension.frames.received.filter((m) => m['type'] === 'agent_connected')).toHaveLength(3);
    bridge.extension.relay(String(admitted[0].first['conn']), welcome(true));
    await admitted[0].frames.nextOfType('welcome');
    expect((await connect()).first['type']).toBe('bridge_info');
    expect(bridge.host.snapshot().conns).toHaveLength(4);
  });

  it('makes room by closing the oldest untrusted connection that has waited long enough; never a pairing one', async () => {
    bridge = await startInProcessBridge({ hygiene: { maxUntrusted: 2, displaceAfterMs: 300 } });
    const pairing = await connect();
    bridge.extension.relay(String(pairing.first['conn']), pairOffer);
    await pairing.frames.nextOfType('pair_offer');
    const idle = await connect();
    idle.socket.write(encodeJsonFrame({ type: 'version_query', v: V, id: 'q0' }, 'BE'));
    await bridge.extension.frames.next((m) => m['type'] === 'relay' && m['conn'] === idle.first['conn']);
    expect((await connect()).first).toMatchObject({ code: 'ERR_THROTTLED' });
    await sleep(350);
    const fresh = await connect();
    expect(fresh.first['type']).toBe('bridge_info');
    expect(await idle.frames.nextOfType('error')).toMatchObject({ code: 'ERR_THROTTLED', source: 'bridge', message: expect.stringContaining('make room') });
    await closed(idle.socket);
    expect(await bridge.extension.frames.next((m) => m['type'] === 'agent_disconnected' && m['conn'] === idle.first['conn'])).toMatchObject({ reason: 'closed' });
    expect(pairing.socket.destroyed).toBe(false);
    // The newcomer is young: the next one is refused, not given its slot.
    expect((await connect()).first).toMatchObject({ code: 'ERR_THROTTLED' });
  });

  it('destroys a refused connection whose client never closes its side', async () => {
    bridge = await startInProcessBridge({ maxAgents: 1 });
    await connect();
    const socket = net.connect({ path: bridge.socketPath, allowHalfOpen: true });
    socket.on('error', () => {});
    sockets.push(socket);
    const frames = new FrameQueue(socket, 'BE');
    // Half-open: this side never ends. Once the bridge has destroyed its end, a write fails (EPIPE).
    expect(await frames.next()).toMatchObject({ code: 'ERR_THROTTLED' });
    await sleep(1300);
    socket.write(new Uint8Array([0, 0, 0, 2, 0x7b, 0x7d]));
    await closed(socket, 2000);
  });

  it('never tells the extension of a connection that closes without a message worth relaying', async () => {
    bridge = await startInProcessBridge({ hygiene: { authDeadlineMs: 200 } });
    const silent = await connect();
    const refusedOnly = await connect();
    refusedOnly.socket.write(encodeJsonFrame({ type: 'approval_sent', v: V, id: 's1', operation_id: 'op', revision: 'r1' }, 'BE'));
    expect(await refusedOnly.frames.nextOfType('error')).toMatchObject({ id: 's1', code: 'ERR_AUTH_FAILED' });
    await Promise.all([closed(silent.socket), closed(refusedOnly.socket)]);
    await sleep(100);
    expect(bridge.extension.frames.received).toEqual([]);
  });

  it('stops its deadline timer when the extension goes away', async () => {
    bridge = await startInProcessBridge({ hygiene: { authDeadlineMs: 60_000 } });
    await connect();
    bridge.extension.end();
    expect(await bridge.exited).toBe(0);
    // No timer keeps anything alive or fires into a closed host.
    await sleep(50);
    expect(bridge.host.snapshot().state).toBe('closed');
  });
});
