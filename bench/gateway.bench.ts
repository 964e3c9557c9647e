/**
 * countersign-mcp benchmarks (README, "Benchmarks"), with the built gateway as a real process in
 * front of @modelcontextprotocol/server-everything, both over stdio:
 * - a pass-through `allow` call (`echo`, annotated read-only) through the gateway against the same
 *   call made to server-everything directly: p50 and p99 ratio (goal ≤ 1.2x at p50);
 * - the gateway's resident memory after 10,000 calls against after 100 (goal ≤ 1.2x).
 * Both paths are measured in this run, interleaved in blocks so that load on the machine falls on
 * both alike. Nothing is asserted.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { BenchResult } from './run';

const GATEWAY = resolve('dist/countersign-mcp.mjs');
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
  const direct = await connect([EVERYTHING, 'stdio']);
  const configDir = mkdtempSync(join(tmpdir(), 'cs-bench-gateway-'));
  const gateway = await connect([GATEWAY, '--config-dir', configDir, '--', process.execPath, EVERYTHING, 'stdio']);
  try {
    await timeCalls(direct.client, 200);
    await timeCalls(gateway.client, 200);
    const viaDirect: number[] = [];
    const viaGateway: number[] = [];
    for (let block = 0; block < 10; block++) {
      viaDirect.push(...(await timeCalls(direct.client, 100)));
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
    return [
      {
        name: 'countersign-mcp: allow call p50 (echo)',
        baseline: 'the same call to server-everything directly',
        ratio: p50[0] / p50[1],
        goal: '≤ 1.2x',
        detail: `p50 ${p50[0].toFixed(2)} ms vs ${p50[1].toFixed(2)} ms; p99 ${p99[0].toFixed(2)} ms vs ${p99[1].toFixed(2)} ms (${(p99[0] / p99[1]).toFixed(2)}x); 1,000 calls each, interleaved in blocks of 100`,
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
    await direct.client.close();
    rmSync(configDir, { recursive: true, force: true });
  }
}
