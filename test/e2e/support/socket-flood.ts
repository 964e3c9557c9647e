import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';

/**
 * A flood of the bridge's agent socket by a process that never authenticates, as the adversarial
 * review ran it: a few connections at once, each writing frames as fast as the socket takes them,
 * and a new one opened whenever the bridge closes one. Used by test/adversarial/bridge-flood.test.ts,
 * the hostile agent process of the end-to-end tests, and the benchmarks.
 */

export interface FloodStats {
  connections: number;
  framesSent: number;
  bytesSent: number;
  /** The bridge's error replies to the flood, by code. */
  codes: Record<string, number>;
  /** The connection ids the bridge gave the flood (bridge_info). */
  conns: Set<string>;
}

export interface FloodOptions {
  socketPath: string;
  /** Connections open at once. */
  parallel: number;
  /** The i-th frame sent, length and payload. */
  frame: (i: number) => Uint8Array;
  /** The flood stops when this aborts. */
  signal: AbortSignal;
}

const V = 2;
const KEY = { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' };

/** A big-endian frame of `value`, as an agent writes one (docs/bridge-protocol.md section 4). */
export function agentFrame(value: unknown): Uint8Array {
  const payload = Buffer.from(JSON.stringify(value), 'utf8');
  const frame = Buffer.alloc(4 + payload.length);
  frame.writeUInt32BE(payload.length, 0);
  payload.copy(frame, 4);
  return frame;
}

/** A well-formed `hello`; with `padBytes`, an unknown member of that size carries the bulk (it is relayed byte for byte). */
export function hostileHello(id: string, padBytes = 0): Record<string, unknown> {
  return { type: 'hello', v: V, id, versions: [V], agent_name: 'Flood', agent_key: KEY, ...(padBytes > 0 ? { x_pad: 'x'.repeat(padBytes) } : {}) };
}

/** The review's mix: every other frame a hello of about 1 MB (just under the limit with its envelope), the rest small hellos. */
export function reviewFloodFrame(): (i: number) => Uint8Array {
  const big = agentFrame(hostileHello('h_big', 1024 * 1024 - 400));
  return (i) => (i % 2 === 0 ? big : agentFrame(hostileHello(`h${i}`)));
}

export async function floodSocket(options: FloodOptions): Promise<FloodStats> {
  const { socketPath, signal, frame } = options;
  const stats: FloodStats = { connections: 0, framesSent: 0, bytesSent: 0, codes: {}, conns: new Set() };
  const one = async (): Promise<void> => {
    while (!signal.aborted) {
      const socket = net.connect(socketPath);
      stats.connections++;
      let buffered = Buffer.alloc(0);
      socket.on('data', (chunk: Buffer) => {
        buffered = Buffer.concat([buffered, chunk]);
        while (buffered.length >= 4 && buffered.length >= 4 + buffered.readUInt32BE(0)) {
          const n = buffered.readUInt32BE(0);
          const m = JSON.parse(buffered.subarray(4, 4 + n).toString('utf8')) as Record<string, unknown>;
          buffered = buffered.subarray(4 + n);
          if (m['type'] === 'bridge_info') stats.conns.add(String(m['conn']));
          if (m['type'] === 'error') stats.codes[String(m['code'])] = (stats.codes[String(m['code'])] ?? 0) + 1;
          // The bridge is closing this one: a flood does not wait for it, it opens the next.
          if (m['code'] === 'ERR_FRAME_TOO_LARGE') socket.destroy();
        }
      });
      await new Promise<void>((resolve) => {
        const stop = () => socket.destroy();
        signal.addEventListener('abort', stop, { once: true });
        socket.once('close', () => {
          signal.removeEventListener('abort', stop);
          resolve();
        });
        socket.on('error', () => undefined);
        const pump = () => {
          while (!socket.destroyed && !signal.aborted) {
            const bytes = frame(stats.framesSent++);
            stats.bytesSent += bytes.length;
            if (!socket.write(bytes)) {
              socket.once('drain', pump);
              return;
            }
          }
        };
        socket.once('connect', pump);
      });
      // A refused connection (ERR_THROTTLED, the bridge full) comes back at once: not a busy loop.
      await new Promise((r) => setImmediate(r));
    }
  };
  await Promise.all(Array.from({ length: options.parallel }, one));
  return stats;
}

/** A process's resident memory in bytes (Linux /proc): what a flood would make the bridge hold. */
export function residentBytes(pid: number | string): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
}

/** The resident memory of the bridge processes a browser started under `root` (a Stack's folder). */
export function bridgeRss(root: string): number {
  const pids = execFileSync('pgrep', ['-f', `${root}/.*countersign-bridge\\.mjs`]).toString().trim().split('\n');
  return pids.reduce((sum, pid) => sum + residentBytes(pid), 0);
}
