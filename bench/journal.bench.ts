/**
 * Decision journal benchmarks (src/agent/journal.ts, format 2: a snapshot line, then one appended
 * line per change). Measured, not asserted:
 * - the time to record the 1,000th decision against the 10th, in the same journal; goal at most
 *   1.5x (an append costs the same whatever the journal already holds);
 * - the bytes written for 1,000 decisions against the size of the file they leave; goal at most
 *   3x (linear: the snapshots rewritten along the way are paid for by the appends);
 * - recording the 1,000th decision against one whole-file rewrite of the same journal, which is
 *   what format 1 did on every change.
 * Medians over several fresh journals in a temporary folder, so the disk's fsync dominates. Run
 * alone with `npx tsx bench/journal.bench.ts`.
 */
import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { writePrivateFileAtomic } from '../src/agent/files.ts';
import { JOURNAL_FILE, Journal, type JournalEntry } from '../src/agent/journal.ts';
import { randomNonce } from '../src/protocol/bridge.ts';
import type { BenchResult } from './run.ts';

const ctx = { platform: process.platform, uid: process.getuid?.() };
const DECISIONS = 1000;
const RUNS = 3;
/** Records 6 to 15 stand for the 10th, 991 to 1,000 for the 1,000th: one record's fsync is noisy. */
const EARLY = [6, 15] as const;
const LATE = [DECISIONS - 9, DECISIONS] as const;

/** About the size of a real compact JWS of a decision (header, claims with digests, signature). */
const JWS = `eyJhbGciOiJFZERTQSJ9.${'p'.repeat(900)}.${'s'.repeat(86)}`;

function decision(i: number): JournalEntry {
  return {
    operation_id: `exc_${i}`,
    revision: 'rev1',
    status: 'approved',
    jws: JWS,
    nonce: randomNonce(),
    company: { name: 'Stormline', origin: 'https://stormline.example' },
    expires_at: '2099-10-08T12:20:00-07:00',
    recorded_at: new Date().toISOString(),
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const ms = (t: number) => `${t.toFixed(2)} ms`;
const kB = (b: number) => (b < 10 * 1024 * 1024 ? `${(b / 1024).toFixed(0)} kB` : `${(b / 1024 / 1024).toFixed(0)} MB`);

type Writes = { write: (...a: unknown[]) => Promise<{ bytesWritten: number }>; writeFile: (data: unknown, ...a: unknown[]) => Promise<void> };

/** Counts what every FileHandle writes while `fn` runs: the appends, and the temporary files of rewrites. */
async function countingWrites<T>(dir: string, fn: () => Promise<T>): Promise<{ value: T; bytes: number }> {
  const probe = await fsp.open(path.join(dir, '.probe'), 'w');
  const proto = Object.getPrototypeOf(probe) as Writes;
  await probe.close();
  await fsp.unlink(path.join(dir, '.probe'));
  const { write, writeFile } = proto;
  let bytes = 0;
  proto.write = async function (this: unknown, ...args: unknown[]) {
    const result = await write.apply(this, args);
    bytes += result.bytesWritten;
    return result;
  };
  proto.writeFile = async function (this: unknown, data: unknown, ...args: unknown[]) {
    bytes += typeof data === 'string' ? Buffer.byteLength(data) : (data as Uint8Array).byteLength;
    return writeFile.call(this, data, ...args);
  };
  try {
    return { value: await fn(), bytes };
  } finally {
    proto.write = write;
    proto.writeFile = writeFile;
  }
}

/** Record DECISIONS decisions in a fresh journal; the time each record took, in order. */
async function fill(dir: string): Promise<{ times: number[]; journal: Journal }> {
  const journal = await Journal.open(dir, ctx);
  const times: number[] = [];
  for (let i = 1; i <= DECISIONS; i++) {
    const entry = decision(i);
    const start = performance.now();
    await journal.record(entry);
    times.push(performance.now() - start);
  }
  return { times, journal };
}

export async function run(): Promise<BenchResult[]> {
  const root = await fsp.mkdtemp(path.join(os.tmpdir(), 'countersign-journal-bench-'));
  try {
    // A short journal first, so that the 10th record of the measured ones is not paying for the JIT.
    const warm = path.join(root, 'warm-up');
    await fsp.mkdir(warm, { mode: 0o700 });
    const warmJournal = await Journal.open(warm, ctx);
    for (let i = 1; i <= 50; i++) await warmJournal.record(decision(i));

    const early: number[] = [];
    const late: number[] = [];
    let slowest = { time: 0, at: 0 };
    let bytes = 0;
    let size = 0;
    let journal: Journal | undefined;
    for (let r = 0; r < RUNS; r++) {
      const dir = path.join(root, `run${r}`);
      await fsp.mkdir(dir, { mode: 0o700 });
      const counted = await countingWrites(dir, () => fill(dir));
      const { times } = counted.value;
      early.push(...times.slice(EARLY[0] - 1, EARLY[1]));
      late.push(...times.slice(LATE[0] - 1, LATE[1]));
      times.forEach((time, i) => {
        if (time > slowest.time) slowest = { time, at: i + 1 };
      });
      if (r === 0) {
        bytes = counted.bytes;
        size = (await fsp.stat(path.join(dir, JOURNAL_FILE))).size;
        journal = counted.value.journal;
      }
    }
    const tEarly = median(early);
    const tLate = median(late);

    // Format 1's cost at the same point: the whole journal, indented, written atomically.
    const entries = journal!.entries();
    const v1 = `${JSON.stringify(
      { v: 1, kind: 'countersign-decision-journal', decisions: entries, withdrawn: {}, seen_nonces: Object.fromEntries(entries.map((e) => [e.nonce, Date.parse(e.expires_at)])) },
      null,
      1,
    )}\n`;
    const rewrites: number[] = [];
    for (let i = 0; i < 7; i++) {
      const start = performance.now();
      await writePrivateFileAtomic(path.join(root, 'v1.json'), v1, ctx);
      rewrites.push(performance.now() - start);
    }
    const tRewrite = median(rewrites);

    return [
      {
        name: `journal: record the ${DECISIONS.toLocaleString('en')}th decision`,
        baseline: 'the 10th decision, same journal',
        ratio: tLate / tEarly,
        detail: `${ms(tLate)} (records ${LATE[0]}-${LATE[1]}) vs ${ms(tEarly)} (records ${EARLY[0]}-${EARLY[1]}), median over ${RUNS} journals; slowest single record ${ms(slowest.time)} (record ${slowest.at})`,
        goal: '<= 1.5x',
      },
      {
        name: `journal: bytes written for ${DECISIONS.toLocaleString('en')} decisions`,
        baseline: 'the final file size',
        ratio: bytes / size,
        detail: `${kB(bytes)} written for a ${kB(size)} file; format 1 rewrote the whole file every time (about ${kB((DECISIONS * (DECISIONS + 1) * (v1.length / DECISIONS)) / 2)} for the same decisions)`,
        goal: '<= 3x',
      },
      {
        name: `journal: record the ${DECISIONS.toLocaleString('en')}th decision, append`,
        baseline: 'one whole-file rewrite of the same journal (format 1)',
        ratio: tLate / tRewrite,
        detail: `${ms(tLate)} vs ${ms(tRewrite)} to rewrite ${kB(v1.length)} atomically (median of 7)`,
      },
    ];
  } finally {
    await fsp.rm(root, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const r of await run()) {
    console.log(`${r.name.padEnd(58)} ${r.ratio.toFixed(2).padStart(7)}x vs ${r.baseline}${r.goal ? `  (goal ${r.goal})` : ''}\n    ${r.detail}`);
  }
}
