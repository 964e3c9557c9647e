/**
 * countersign-mcp benchmarks (README, "Benchmarks"), with the built gateway as a real process in
 * front of @modelcontextprotocol/server-everything, both over stdio:
 * - a pass-through `allow` call (`echo`, annotated read-only) through the gateway against the same
 *   call through a minimal pass-through stdio relay (a process that copies bytes both ways and
 *   parses nothing: the floor of any server between client and upstream): p50 and p99 ratio
 *   (goal ≤ 1.2x at p50); and against the call made to server-everything directly;
 * - the gateway's resident memory after 10,000 calls against after 100 (goal ≤ 1.2x);
 * - a session's start, spawn until the upstream's tools are listed, through the gateway against
 *   through the relay, and the gateway's start from its code cache against with the cache removed
 *   first (its first start after an install or a new node).
 * The paths of a ratio are measured in this run, interleaved (calls in blocks, starts taking turns)
 * so that load on the machine falls on each alike. Nothing is asserted.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { bundleCommand } from '../test/node-start/support/bundle-command';
import { removeCodeCaches } from './code-caches';
import type { BenchResult } from './run';

/** The floor: a process between client and server that only copies bytes (`node -e RELAY <command> [args...]`). */
const RELAY = [
  "const { spawn } = require('node:child_process');",
  "const child = spawn(process.argv[1], process.argv.slice(2), { stdio: ['pipe', 'pipe', 'ignore'] });",
  'process.stdin.pipe(child.stdin);',
  'child.stdout.pipe(process.stdout);',
  "child.on('exit', (code) => process.exit(code ?? 0));",
].join('\n');
const EVERYTHING = resolve('node_modules/@modelcontextprotocol/server-everything/dist/index.js');

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};

async function connect(args: string[]): Promise<{ client: Client; pid: number | null }> {
  const transport = new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore' });
  const client = new Client({ name: 'bench', version: '0' });
  await client.connect(transport);
  return { client, pid: transport.pid };
}

/** Spawn until the upstream's tools are listed: what an MCP client waits for before a session's first turn. */
async function timeStart(args: string[]): Promise<number> {
  const t0 = performance.now();
  const { client } = await connect(args);
  await client.listTools();
  const took = performance.now() - t0;
  await client.close();
  return took;
}

async function timeCalls(client: Client, n: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await client.callTool({ name: 'echo', arguments: { message: `m${i}` } });
    times.push(performance.now() - t0);
  }
  return times;
}

/** Resident memory of a process, from /proc (Linux). */
function rssKiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN);
}

export async function run(): Promise<BenchResult[]> {
  const configDir = mkdtempSync(join(tmpdir(), 'cs-bench-gateway-'));
  // The gateway as the package ships it: the same bundle as scripts/build-package.mjs makes.
  const bundled = await bundleCommand('countersign-mcp', { outfile: join(configDir, 'countersign-mcp.mjs'), version: '0.0.0-bench' });
  const relayArgs = ['-e', RELAY, process.execPath, EVERYTHING, 'stdio'];
  const gatewayArgs = [bundled, '--config-dir', configDir, '--upstream-command', process.execPath, '--upstream-arg', EVERYTHING, '--upstream-arg', 'stdio'];
  // Starts first, with nothing else running; the first start writes the cache the next ones read.
  await timeStart(relayArgs);
  await timeStart(gatewayArgs);
  const startRelay: number[] = [];
  const startCached: number[] = [];
  const startUncached: number[] = [];
  for (let i = 0; i < 15; i++) {
    startRelay.push(await timeStart(relayArgs));
    startCached.push(await timeStart(gatewayArgs));
    removeCodeCaches(bundled);
    startUncached.push(await timeStart(gatewayArgs));
  }
  const start = { relay: quantile(startRelay, 0.5), cached: quantile(startCached, 0.5), uncached: quantile(startUncached, 0.5) };
  const direct = await connect([EVERYTHING, 'stdio']);
  const relay = await connect(relayArgs);
  const gateway = await connect(gatewayArgs);
  try {
    await timeCalls(direct.client, 200);
    await timeCalls(relay.client, 200);
    await timeCalls(gateway.client, 200);
    const viaDirect: number[] = [];
    const viaRelay: number[] = [];
    const viaGateway: number[] = [];
    for (let block = 0; block < 10; block++) {
      viaDirect.push(...(await timeCalls(direct.client, 100)));
      viaRelay.push(...(await timeCalls(relay.client, 100)));
      viaGateway.push(...(await timeCalls(gateway.client, 100)));
    }
    // Memory: after 100 more calls (the warm-ups and blocks above came first), then after 10,000.
    const pid = gateway.pid!;
    await timeCalls(gateway.client, 100);
    const after100 = rssKiB(pid);
    await timeCalls(gateway.client, 9_900);
    const after10k = rssKiB(pid);
    // Growth that goes on past 10,000 would be a leak; V8 settling its heap stops by then.
    await timeCalls(gateway.client, 10_000);
    const after20k = rssKiB(pid);
    const p50 = [quantile(viaGateway, 0.5), quantile(viaDirect, 0.5)] as const;
    const p99 = [quantile(viaGateway, 0.99), quantile(viaDirect, 0.99)] as const;
    const floor = [quantile(viaRelay, 0.5), quantile(viaRelay, 0.99)] as const;
    return [
      {
        name: 'countersign-mcp: allow call p50 (echo), against a pass-through relay',
        baseline: 'the same call through a minimal stdio relay (copies bytes, parses nothing)',
        ratio: p50[0] / floor[0],
        goal: '≤ 1.2x',
        detail: `p50 ${p50[0].toFixed(2)} ms vs ${floor[0].toFixed(2)} ms; p99 ${p99[0].toFixed(2)} ms vs ${floor[1].toFixed(2)} ms (${(p99[0] / floor[1]).toFixed(2)}x); 1,000 calls each, interleaved in blocks of 100`,
      },
      {
        name: 'countersign-mcp: allow call p50 (echo)',
        baseline: 'the same call to server-everything directly',
        ratio: p50[0] / p50[1],
        goal: '≤ 1.2x',
        detail: `p50 ${p50[0].toFixed(2)} ms vs ${p50[1].toFixed(2)} ms; p99 ${p99[0].toFixed(2)} ms vs ${p99[1].toFixed(2)} ms (${(p99[0] / p99[1]).toFixed(2)}x); 1,000 calls each, interleaved in blocks of 100`,
      },
      {
        name: 'countersign-mcp: a session\'s start, spawn until the upstream\'s tools are listed',
        baseline: 'the same through the minimal stdio relay',
        ratio: start.cached / start.relay,
        detail: `p50 ${start.cached.toFixed(0)} ms vs ${start.relay.toFixed(0)} ms (n=15 each, taking turns); the gateway reads the client's initialize before it starts the upstream, the relay starts it at once`,
      },
      {
        name: 'countersign-mcp: the same start from its code cache',
        baseline: 'the same with the cache removed before each start',
        ratio: start.cached / start.uncached,
        detail: `p50 ${start.cached.toFixed(0)} ms vs ${start.uncached.toFixed(0)} ms; without the cache the gateway compiles its bundle, and writes the cache as it exits (its first start after an install or a new node); over the relay: +${(start.cached - start.relay).toFixed(0)} ms vs +${(start.uncached - start.relay).toFixed(0)} ms`,
      },
      {
        name: 'countersign-mcp: resident memory after 10,000 calls',
        baseline: 'after 100',
        ratio: after10k / after100,
        goal: '≤ 1.2x',
        detail: `${(after10k / 1024).toFixed(1)} MiB vs ${(after100 / 1024).toFixed(1)} MiB (VmRSS of the gateway process); after 20,000: ${(after20k / 1024).toFixed(1)} MiB (${(after20k / after10k).toFixed(2)}x the 10,000)`,
      },
    ];
  } finally {
    await gateway.client.close();
    await relay.client.close();
    await direct.client.close();
    rmSync(configDir, { recursive: true, force: true });
  }
}
