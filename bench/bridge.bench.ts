/**
 * Bridge relay cost (README, "Benchmarks"): agent → bridge → fake extension → bridge →
 * agent, against a raw stdio echo of the same messages by the same fake extension without the
 * bridge.
 * Both sides use the same process and the same reply logic, so the ratio is the price of the
 * bridge: its extra process hop (socket in, stdio out and back) plus framing and validation.
 *
 * Note for reading the ratio: the bridged path crosses four pipes/sockets per round trip, the
 * raw echo two, so even a bridge that costs nothing itself is near 2x at p50 on an idle machine.
 * A third measurement, a pass-through relay process with the same hops that forwards bytes
 * without reading them, shows that floor; bridge ÷ pass-through is what the bridge's own work
 * (framing, validation, routing) adds. The three are measured taking turns, in blocks of rounds,
 * so that a busy moment of a shared machine weighs on each alike. A last row measures the same round trip for a trusted
 * agent while another process floods the socket without authenticating (the adversarial review's
 * flood: every other frame a 1 MB hello), against the same agent without it, and the bridge's
 * memory before and after (docs/bridge-protocol.md section 5, "Before trust"). The first row is
 * the bridge's start as a browser starts it, until `bridge_ready` (its socket listening), against
 * a bare Node host that answers the same first frame: what the bridge's own code adds to the
 * process start a cold service worker waits for. Nothing asserts:
 * run with `npm run bench` (or `npx tsx bench/bridge.bench.ts`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { LAUNCHER_CLEARS, launcherScript } from '../src/bridge/install.ts';
import { FrameDecoder, encodeJsonFrame } from '../src/protocol/bridge-framing.ts';
import { residentBytes } from '../test/e2e/support/socket-flood.ts';

import { removeCodeCaches } from './code-caches';
import type { BenchResult } from './run';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const THUMBPRINT = 'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k';

/**
 * The fake extension, as a standalone script (no imports of ours: it is what a browser would be).
 * `bridge` mode: it starts the bridge like a browser does, and answers each relayed
 * `version_query` with a `version` to the same connection. `direct` mode: the same answers
 * straight back on its own stdio (the baseline).
 */
const FAKE_EXTENSION = String.raw`
import { spawn } from 'node:child_process';
const [mode, bundle, thumbprint] = process.argv.slice(2);
const LE = mode === 'bridge';
function frame(value) {
  const payload = Buffer.from(JSON.stringify(value));
  const out = Buffer.allocUnsafe(4 + payload.length);
  if (LE) out.writeUInt32LE(payload.length, 0); else out.writeUInt32BE(payload.length, 0);
  payload.copy(out, 4);
  return out;
}
function reader(stream, onMessage) {
  let buf = Buffer.alloc(0);
  stream.on('data', (chunk) => {
    buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
    while (buf.length >= 4) {
      const n = LE ? buf.readUInt32LE(0) : buf.readUInt32BE(0);
      if (buf.length < 4 + n) break;
      onMessage(JSON.parse(buf.subarray(4, 4 + n).toString('utf8')));
      buf = buf.subarray(4 + n);
    }
  });
}
const answer = (q) => ({ type: 'version', v: 2, id: q.id, product: 'Countersign', extension_version: '0.1.0', protocol_versions: [2] });
// The bench's own agent is welcomed as paired (no challenge: the bridge trusts a connection on the
// extension's word alone); any other hello, a flood's, gets an unpaired welcome.
const welcome = (h) => ({ type: 'welcome', v: 2, id: h.id, paired: h.agent_name === 'Bench agent', extension_key: { kty: 'OKP', crv: 'Ed25519', x: '33L538Y6mLHlg5hsBbt01W3lCSTPAlURxJi16Uva51M' } });
if (mode === 'bridge') {
  const bridge = spawn(process.execPath, [bundle, 'chrome-extension://mlfaahkflpghlfdpkpmonibnlhieinil/'], { stdio: ['pipe', 'pipe', 'inherit'] });
  reader(bridge.stdout, (m) => {
    if (m.type === 'bridge_ready') process.stdout.write('ready ' + bridge.pid + '\n');
    else if (m.type === 'relay' && m.message.type === 'hello') bridge.stdin.write(frame({ type: 'relay', v: 2, conn: m.conn, message: welcome(m.message) }));
    else if (m.type === 'relay' && m.message.type === 'version_query') bridge.stdin.write(frame({ type: 'relay', v: 2, conn: m.conn, message: answer(m.message) }));
    else if (m.type === 'relay' && m.message.type === 'approval_request') bridge.stdin.write(frame({ type: 'relay', v: 2, conn: m.conn, message: { type: 'decision', v: 2, id: m.message.id, status: 'declined' } }));
    else if (m.type === 'relay' && m.message.type === 'approval_sent') bridge.stdin.write(frame({ type: 'relay', v: 2, conn: m.conn, message: { type: 'ack', v: 2, id: m.message.id, sent: true } }));
  });
  bridge.stdin.write(frame({ type: 'bridge_hello', v: 2, extension_key_thumbprint: thumbprint }));
  process.stdin.on('end', () => bridge.stdin.end());
  process.stdin.resume();
} else if (mode === 'relay') {
  // The floor for any relay: the same extra process hop as the bridge, forwarding bytes unread.
  const net = await import('node:net');
  const ext = spawn(process.execPath, [process.argv[1], 'direct'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const server = net.createServer((socket) => {
    socket.pipe(ext.stdin);
    ext.stdout.pipe(socket);
  });
  server.listen(bundle, () => process.stdout.write('ready\n'));
  process.stdin.on('end', () => { server.close(); ext.stdin.end(); });
  process.stdin.resume();
} else {
  reader(process.stdin, (m) => {
    if (m.type === 'version_query') process.stdout.write(frame(answer(m)));
    else if (m.type === 'approval_request') process.stdout.write(frame({ type: 'decision', v: 2, id: m.id, status: 'declined' }));
  });
}
`;

interface Channel {
  send(message: unknown): void;
  /** Resolves with the next reply. Replies come back in order. */
  next(): Promise<unknown>;
  close(): Promise<void>;
}

function channel(write: (bytes: Uint8Array) => void, readable: NodeJS.ReadableStream, close: () => Promise<void>): Channel {
  const decoder = new FrameDecoder({ endian: 'BE', oversize: 'fatal' });
  const queue: unknown[] = [];
  const waiting: Array<(v: unknown) => void> = [];
  readable.on('data', (chunk: Uint8Array) => {
    for (const e of decoder.push(chunk)) {
      if (e.kind !== 'frame') throw e.error;
      const w = waiting.shift();
      if (w) w(e.value);
      else queue.push(e.value);
    }
  });
  return {
    send: (m) => write(encodeJsonFrame(m, 'BE')),
    next: () => (queue.length ? Promise.resolve(queue.shift()) : new Promise((r) => waiting.push(r))),
    close,
  };
}

/** Resolves with everything read once `text` has been. */
function waitFor(stream: NodeJS.ReadableStream, text: string): Promise<string> {
  return new Promise((resolve) => {
    let seen = '';
    const on = (d: Buffer) => {
      seen += d.toString();
      if (seen.includes(text)) {
        stream.off('data', on);
        resolve(seen);
      }
    };
    stream.on('data', on);
  });
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', () => r())));
}

async function bridgedChannel(script: string, bundle: string, runtimeDir: string): Promise<Channel & { bridgePid: number }> {
  const ext = spawn(process.execPath, [script, 'bridge', bundle, THUMBPRINT], { env: { ...process.env, XDG_RUNTIME_DIR: runtimeDir }, stdio: ['pipe', 'pipe', 'inherit'] });
  const bridgePid = Number(/ready (\d+)/.exec(await waitFor(ext.stdout, '\n'))?.[1]);
  const socket = net.connect(path.join(runtimeDir, 'countersign', `${THUMBPRINT}.sock`));
  await new Promise<void>((r) => socket.once('connect', () => r()));
  socket.setNoDelay(true);
  const c = channel(
    (b) => socket.write(b),
    socket,
    async () => {
      socket.destroy();
      ext.stdin.end();
      await exited(ext);
    },
  );
  // bridge_info comes first; then the agent is trusted, as a paired one is after its handshake.
  await c.next();
  c.send({ type: 'hello', v: 2, id: 'h_bench', versions: [2], agent_name: 'Bench agent', agent_key: { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' } });
  await c.next();
  return { ...c, bridgePid };
}


async function passThroughChannel(script: string, socketPath: string): Promise<Channel> {
  const relay = spawn(process.execPath, [script, 'relay', socketPath], { stdio: ['pipe', 'pipe', 'inherit'] });
  await waitFor(relay.stdout, 'ready');
  const socket = net.connect(socketPath);
  await new Promise<void>((r) => socket.once('connect', () => r()));
  return channel(
    (b) => socket.write(b),
    socket,
    async () => {
      socket.destroy();
      relay.stdin.end();
      await exited(relay);
    },
  );
}

function directChannel(script: string): Channel {
  const ext = spawn(process.execPath, [script, 'direct'], { stdio: ['pipe', 'pipe', 'inherit'] });
  return channel(
    (b) => ext.stdin.write(b),
    ext.stdout,
    async () => {
      ext.stdin.end();
      await exited(ext);
    },
  );
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;
}

interface Stats {
  p50: number;
  p99: number;
  perSecond: number;
  pipelinedPerSecond: number;
}

async function measure(c: Channel, make: (i: number) => unknown, rounds: number, warmup: number, burst: number): Promise<Stats> {
  return (await measureTurns([c], make, rounds, warmup, burst))[0]!;
}

/**
 * The same measurement of several channels, taking turns in blocks of rounds, so that a busy
 * moment of a shared machine lands on each of them alike rather than on whichever ran then.
 */
async function measureTurns(channels: readonly Channel[], make: (i: number) => unknown, rounds: number, warmup: number, burst: number, blocks = 10): Promise<Stats[]> {
  for (const c of channels) {
    for (let i = 0; i < warmup; i++) {
      c.send(make(i));
      await c.next();
    }
  }
  const times = channels.map((): number[] => []);
  const totals = channels.map(() => 0);
  const perBlock = Math.ceil(rounds / blocks);
  for (let done = 0; done < rounds; done += perBlock) {
    for (const [k, c] of channels.entries()) {
      const started = performance.now();
      for (let i = done; i < Math.min(rounds, done + perBlock); i++) {
        const t0 = performance.now();
        c.send(make(i));
        await c.next();
        times[k]!.push(performance.now() - t0);
      }
      totals[k]! += performance.now() - started;
    }
  }
  const stats: Stats[] = [];
  for (const [k, c] of channels.entries()) {
    // Throughput with many messages in flight: send a burst, wait for every reply.
    const b0 = performance.now();
    for (let i = 0; i < burst; i++) c.send(make(i));
    for (let i = 0; i < burst; i++) await c.next();
    const burstMs = performance.now() - b0;
    const sorted = times[k]!.sort((a, b) => a - b);
    stats.push({ p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), perSecond: (rounds / totals[k]!) * 1000, pipelinedPerSecond: (burst / burstMs) * 1000 });
  }
  return stats;
}

const fmt = (ms: number) => `${ms.toFixed(3)} ms`;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/**
 * A trusted agent's round trip while the hostile process of the end-to-end tests floods the
 * socket on 4 connections without authenticating, against the same agent just before.
 */
async function underFlood(script: string, bundle: string, query: (i: number) => unknown): Promise<BenchResult> {
  const runtimeDir = mkdtempSync(path.join('/tmp', 'cs-bench-rt-'));
  try {
    const agent = await bridgedChannel(script, bundle, runtimeDir);
    const calm = await measure(agent, query, 1000, 200, 200);
    const before = residentBytes(agent.bridgePid);
    const hostile = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'test/e2e/support/hostile-agent.ts'), 'frames', '4'], {
      env: { ...process.env, HOME: runtimeDir, XDG_RUNTIME_DIR: runtimeDir },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    await waitFor(hostile.stdout, 'flooding');
    await new Promise((r) => setTimeout(r, 500));
    const flooded = await measure(agent, query, 1000, 0, 200);
    const during = residentBytes(agent.bridgePid);
    const report = waitFor(hostile.stdout, '"frames"');
    hostile.stdin.end();
    const floodLine = (await report).split('\n').find((l) => l.includes('"frames"')) ?? '{}';
    const flood = JSON.parse(floodLine) as { bytesSent?: number; connections?: number };
    await exited(hostile);
    await agent.close();
    return {
      name: 'bridge round trip p50, trusted agent under a flood',
      baseline: 'the same agent without it',
      ratio: flooded.p50 / calm.p50,
      goal: '≤ 2x',
      detail:
        `p50 ${fmt(flooded.p50)} vs ${fmt(calm.p50)}, p99 ${fmt(flooded.p99)} vs ${fmt(calm.p99)}; the flood sent ${mb(flood.bytesSent ?? NaN)} on ${flood.connections ?? NaN} connections; ` +
        `bridge RSS ${mb(before)} before, ${mb(during)} during`,
    };
  } finally {
    rmSync(runtimeDir, { recursive: true, force: true });
  }
}

/**
 * A bare Node process that answers the extension's first frame: what any native-messaging host in
 * Node pays before its own code runs. The bridge's start is measured against it.
 */
const BARE_HOST = String.raw`
process.stdin.once('data', () => {
  const payload = Buffer.from(JSON.stringify({ type: 'bridge_ready', v: 2 }));
  const out = Buffer.alloc(4 + payload.length);
  out.writeUInt32LE(payload.length, 0);
  payload.copy(out, 4);
  process.stdout.write(out);
});
process.stdin.on('end', () => process.exit(0));
`;

/** Milliseconds from spawning `command` as a browser starts a host until its first frame (bridge_ready). */
async function startTime(command: string, args: string[], runtimeDir: string): Promise<number> {
  const t0 = performance.now();
  const child = spawn(command, [...args, 'chrome-extension://mlfaahkflpghlfdpkpmonibnlhieinil/'], { env: { ...process.env, XDG_RUNTIME_DIR: runtimeDir }, stdio: ['pipe', 'pipe', 'inherit'] });
  const payload = Buffer.from(JSON.stringify({ type: 'bridge_hello', v: 2, extension_key_thumbprint: THUMBPRINT }));
  const hello = Buffer.alloc(4 + payload.length);
  hello.writeUInt32LE(payload.length, 0);
  payload.copy(hello, 4);
  child.stdin.write(hello);
  await new Promise((r) => child.stdout.once('data', r));
  const elapsed = performance.now() - t0;
  child.stdin.end();
  await exited(child);
  return elapsed;
}

/**
 * The bridge's start (spawn until bridge_ready, its socket listening) against the bare host,
 * taking turns. Both start as a browser starts them, through the launcher the installer writes
 * (src/bridge/install.ts), so both get the environment the launcher leaves them. When this
 * environment sets what the launcher clears (`NODE_EXTRA_CA_CERTS`, `NODE_OPTIONS`), the bare
 * host is also timed without the launcher: what a start costs with them. The bridge starts from
 * its code cache (src/node-start/code-cache.ts) as it does after its first run; a start with the cache
 * removed first is timed too, as a first start after an install or a new node.
 */
async function startUp(bundle: string, work: string): Promise<BenchResult> {
  const bare = path.join(work, 'bare-host.mjs');
  writeFileSync(bare, BARE_HOST);
  const launcher = (name: string, script: string) => {
    const file = path.join(work, name);
    writeFileSync(file, launcherScript('linux', process.execPath, script), { mode: 0o755 });
    return file;
  };
  const bridgeLauncher = launcher('bridge-launcher.sh', bundle);
  const bareLauncher = launcher('bare-launcher.sh', bare);
  const cleared = LAUNCHER_CLEARS.filter((name) => process.env[name] !== undefined);
  const runtimeDir = mkdtempSync(path.join('/tmp', 'cs-bench-rt-'));
  try {
    const bridge: number[] = [];
    const baseline: number[] = [];
    const uncleared: number[] = [];
    const uncached: number[] = [];
    for (let i = 0; i < 24; i++) {
      const b = await startTime(bridgeLauncher, [], runtimeDir);
      const n = await startTime(bareLauncher, [], runtimeDir);
      const u = cleared.length > 0 ? await startTime(process.execPath, [bare], runtimeDir) : Number.NaN;
      // The first start after an install or a new node: no code cache beside the bundle (it writes one as it exits).
      removeCodeCaches(bundle);
      const c = await startTime(bridgeLauncher, [], runtimeDir);
      if (i < 3) continue;
      bridge.push(b);
      baseline.push(n);
      uncleared.push(u);
      uncached.push(c);
    }
    for (const list of [bridge, baseline, uncleared, uncached]) list.sort((a, b) => a - b);
    const p50 = percentile(bridge, 0.5);
    const base = percentile(baseline, 0.5);
    const withThem = cleared.length > 0 ? `; the bare host started with this environment's ${cleared.join(' and ')}, as before the launcher cleared them: p50 ${fmt(percentile(uncleared, 0.5))}` : '';
    return {
      name: 'bridge start, spawn → bridge_ready (socket listening)',
      baseline: 'a bare Node host answering the first frame, same launcher',
      ratio: p50 / base,
      detail: `p50 ${fmt(p50)} vs ${fmt(base)} (+${fmt(p50 - base)} of the bridge's own), fastest ${fmt(bridge[0]!)} vs ${fmt(baseline[0]!)}, n=${bridge.length} each, taking turns; without its code cache (a first start): p50 ${fmt(percentile(uncached, 0.5))}${withThem}`,
    };
  } finally {
    rmSync(runtimeDir, { recursive: true, force: true });
  }
}

export async function run(): Promise<BenchResult[]> {
  const work = mkdtempSync(path.join('/tmp', 'cs-bench-'));
  try {
    const { buildBridge } = (await import(pathToFileURL(path.join(root, 'scripts', 'build-bridge.mjs')).href)) as { buildBridge: (o: { outfile: string }) => Promise<string> };
    const bundle = await buildBridge({ outfile: path.join(work, 'countersign-bridge.mjs') });
    const script = path.join(work, 'fake-extension.mjs');
    writeFileSync(script, FAKE_EXTENSION);

    const query = (i: number) => ({ type: 'version_query', v: 2, id: `q${i}` });
    const operation = {
      operation_id: 'exc_5Rt2',
      revision: '1791487200-k3Jd9Qx2mW8v',
      summary: 'Exchange the Stormline Jacket (M) on order ord_7Hk2 for the Stormline Insulated Jacket (M), for $70.00 more, charged to the card used for the order. '.repeat(8),
      terms: { order_id: 'ord_7Hk2', item_id: 'itm_4Qa', replacement_sku: 'stormline-insulated-m', price_difference: { amount: '70.00', currency: 'USD' }, lines: Array.from({ length: 20 }, (_, k) => ({ sku: `sku-${k}`, qty: k })) },
      expires_at: '2026-10-08T12:20:00-07:00',
    };
    const request = (i: number) => ({
      type: 'approval_request',
      v: 2,
      id: `r${i}`,
      nonce: 'YGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6e3x9fn8',
      company: { name: 'Stormline Outfitters', origin: 'https://shop.stormline.example' },
      operation,
      request: { interface: 'api', method: 'POST', url: 'https://api.stormline.example/orders/ord_7Hk2/exchanges', body: { item_id: 'itm_4Qa' } },
      session: { kind: 'signed_in' },
    });
    const requestBytes = JSON.stringify(request(0)).length;

    const results: BenchResult[] = [await startUp(bundle, work)];
    for (const [label, make] of [
      ['version_query (40 B)', query],
      [`approval_request (${(requestBytes / 1024).toFixed(1)} KiB, full operation validation)`, request],
    ] as const) {
      // All three open at once and measured taking turns: the ratios compare the same moments.
      const runtimeDir = mkdtempSync(path.join('/tmp', 'cs-bench-rt-'));
      const raw = directChannel(script);
      const bridged = await bridgedChannel(script, bundle, runtimeDir);
      const floor = await passThroughChannel(script, path.join(runtimeDir, 'floor.sock'));
      const [rawStats, bridgedStats, floorStats] = (await measureTurns([raw, bridged, floor], make, 3000, 500, 1000)) as [Stats, Stats, Stats];
      for (const c of [raw, bridged, floor]) await c.close();
      rmSync(runtimeDir, { recursive: true, force: true });
      const detail =
        `bridge p50 ${fmt(bridgedStats.p50)}, p99 ${fmt(bridgedStats.p99)}, ${bridgedStats.perSecond.toFixed(0)} msgs/s sequential, ${bridgedStats.pipelinedPerSecond.toFixed(0)} msgs/s pipelined; ` +
        `raw p50 ${fmt(rawStats.p50)}, p99 ${fmt(rawStats.p99)}, ${rawStats.perSecond.toFixed(0)} msgs/s sequential, ${rawStats.pipelinedPerSecond.toFixed(0)} msgs/s pipelined`;
      results.push(
        { name: `bridge round trip p50, ${label}`, baseline: 'raw stdio echo p50', ratio: bridgedStats.p50 / rawStats.p50, detail, goal: '≤1.3x' },
        { name: `bridge round trip p99, ${label}`, baseline: 'raw stdio echo p99', ratio: bridgedStats.p99 / rawStats.p99, detail: `p99 ${fmt(bridgedStats.p99)} vs ${fmt(rawStats.p99)}` },
        {
          name: `bridge round trip p50, ${label}`,
          baseline: 'pass-through relay p50 (same hops, bytes not read)',
          ratio: bridgedStats.p50 / floorStats.p50,
          detail: `bridge ${fmt(bridgedStats.p50)} vs pass-through ${fmt(floorStats.p50)} (p99 ${fmt(floorStats.p99)}, ${floorStats.perSecond.toFixed(0)} msgs/s): what framing, validation and routing add`,
        },
        {
          name: `bridge pipelined throughput, ${label}`,
          baseline: 'raw stdio echo, time per message',
          ratio: rawStats.pipelinedPerSecond / bridgedStats.pipelinedPerSecond,
          detail: `${bridgedStats.pipelinedPerSecond.toFixed(0)} vs ${rawStats.pipelinedPerSecond.toFixed(0)} msgs/s with 1000 in flight`,
        },
      );
    }
    // Protocol v2 answers approval_sent with an ack; v1 took 250 ms of silence as acceptance.
    const runtimeDir = mkdtempSync(path.join('/tmp', 'cs-bench-rt-'));
    const acked = await bridgedChannel(script, bundle, runtimeDir);
    const sent = (i: number) => ({ type: 'approval_sent', v: 2, id: `s${i}`, operation_id: 'exc_5Rt2', revision: '1791487200-k3Jd9Qx2mW8v', company_origin: 'https://shop.stormline.example' });
    const ackStats = await measure(acked, sent, 1000, 200, 200);
    await acked.close();
    rmSync(runtimeDir, { recursive: true, force: true });
    results.push(await underFlood(script, bundle, query));
    const silences: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      await new Promise((r) => setTimeout(r, 250));
      silences.push(performance.now() - t0);
    }
    silences.sort((a, b) => a - b);
    const silence = silences[2]!;
    results.push({
      name: 'approval_sent acknowledged (protocol v2), round trip p50',
      baseline: "protocol v1's 250 ms silence window, measured",
      ratio: ackStats.p50 / silence,
      detail: `ack p50 ${fmt(ackStats.p50)}, p99 ${fmt(ackStats.p99)} vs a ${fmt(silence)} wait; and the ack is an answer, where silence could also mean a lost refusal`,
    });
    return results;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const r of await run()) console.log(`${r.name.padEnd(70)} ${r.ratio.toFixed(2).padStart(6)}x vs ${r.baseline}${r.goal ? ` (goal ${r.goal})` : ''}\n    ${r.detail}`);
}
