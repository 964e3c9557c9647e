/**
 * The extension store's intake (src/extension/store.ts `intake`): every approval request that
 * arrives is inserted after a throttle check of how many that agent already has waiting.
 * Measured, not asserted: the median insert when 1,000 approvals of 20 agents wait, against the
 * same when 10 wait, in one fresh database each (fake-indexeddb, so this is the store's own cost,
 * not Chromium's IndexedDB). Goal: at most 1.5x (an insert's cost independent of how many wait).
 * And a burst of 50 asks taken in as one intake, per ask, against 50 intakes of one.
 * Run alone with `npx tsx bench/store.bench.ts`.
 */
import 'fake-indexeddb/auto';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { Store, approvalKey, type ApprovalRecord } from '../src/extension/store.ts';
import { approvalRecord } from '../test/extension/store-records.ts';
import type { BenchResult } from './run.ts';

const AGENTS = 20;
const SAMPLES = 60;
let dbCount = 0;

function record(agent: string, n: number): ApprovalRecord {
  const operation = { operation_id: `exc_${n}`, revision: `rev${n}`, summary: 'Exchange the jacket for $70.00 more.', expires_at: '2099-10-08T12:20:00-07:00' };
  return approvalRecord({ key: approvalKey(agent, 'https://stormline.example', operation.operation_id, operation.revision), agent, operationId: operation.operation_id, revision: operation.revision, requestId: `req${n}`, operation });
}

function median(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** One ask's intake as the queue makes it: the throttle count, then the insert. */
function takeIn(store: Store, records: ApprovalRecord[], limit: number): Promise<void> {
  return store.intake(
    records.map((r) => ({ key: r.key, agent: r.agent, origin: r.company.origin, operationId: r.operationId })),
    (view) => {
      for (const r of records) if (view.waiting(r.agent) < limit) view.insert(r, { kind: 'request' });
    },
  );
}

/**
 * Median milliseconds of one insert (with its throttle check) while `waiting` approvals wait, and
 * of the check store version 2 made instead: read every pending record, keep the agent's.
 */
async function insertWith(waiting: number): Promise<{ insert: number; readAll: number }> {
  const store = await Store.open(`countersign-bench-${++dbCount}`);
  await takeIn(store, Array.from({ length: waiting }, (_, i) => record(`agent${i % AGENTS}`, i)), Infinity);
  const inserts: number[] = [];
  const readAll: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const started = performance.now();
    await takeIn(store, [record(`agent${i % AGENTS}`, waiting + i)], 1_000_000);
    inserts.push(performance.now() - started);
  }
  // Apart from the inserts: each read clones every pending record, and its garbage would be
  // collected during the next insert's measurement.
  for (let i = 0; i < SAMPLES; i++) {
    const started = performance.now();
    (await store.byState('pending')).filter((r) => r.agent === `agent${i % AGENTS}`);
    readAll.push(performance.now() - started);
  }
  store.close();
  return { insert: median(inserts), readAll: median(readAll) };
}

/** Milliseconds of 50 asks of one agent taken in as one batch, and as 50 intakes one after another. */
async function burst(): Promise<{ batch: number; oneByOne: number }> {
  const times = { batch: [] as number[], oneByOne: [] as number[] };
  for (let round = 0; round < 9; round++) {
    const store = await Store.open(`countersign-bench-${++dbCount}`);
    const asks = Array.from({ length: 100 }, (_, i) => record('agent0', round * 100 + i));
    let started = performance.now();
    await takeIn(store, asks.slice(0, 50), 1_000_000);
    times.batch.push(performance.now() - started);
    started = performance.now();
    for (const ask of asks.slice(50)) await takeIn(store, [ask], 1_000_000);
    times.oneByOne.push(performance.now() - started);
    store.close();
  }
  return { batch: median(times.batch), oneByOne: median(times.oneByOne) };
}

export async function run(): Promise<BenchResult[]> {
  await insertWith(10); // warm-up: the first database pays for module and JIT start
  const few = await insertWith(10);
  const many = await insertWith(1000);
  const bursts = await burst();
  return [
    {
      name: 'store: insert with 1,000 waiting vs 10 (throttle counted)',
      baseline: 'the same insert with 10 waiting',
      ratio: many.insert / few.insert,
      detail: `p50 ${many.insert.toFixed(3)} ms vs ${few.insert.toFixed(3)} ms over ${SAMPLES} inserts, ${AGENTS} agents`,
      goal: '<= 1.5x',
    },
    {
      name: 'store: a burst of 50 asks as one intake',
      baseline: 'the same 50 as one intake each, one after another',
      ratio: bursts.batch / bursts.oneByOne,
      detail: `${bursts.batch.toFixed(2)} ms vs ${bursts.oneByOne.toFixed(2)} ms (median of 9)`,
    },
    {
      name: 'store: the whole insert vs version 2\'s throttle check alone, 1,000 waiting',
      baseline: "reading every pending record and keeping the agent's (store version 2)",
      ratio: many.insert / many.readAll,
      detail: `p50 ${many.insert.toFixed(3)} ms vs ${many.readAll.toFixed(3)} ms`,
    },
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const r of await run()) console.log(r.name, `${r.ratio.toFixed(2)}x`, r.detail);
}
