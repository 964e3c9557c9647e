import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isCountersignError } from '../../src/agent';
import { writePrivateFileAtomic } from '../../src/agent/files';
import { JOURNAL_FILE, Journal, type JournalEntry } from '../../src/agent/journal';
import { randomNonce } from '../../src/protocol/bridge';
import { rejection } from './harness';

/**
 * The decision journal's file (format 2): a snapshot line, then one appended line per change,
 * rewritten as a fresh snapshot when the appended lines outgrow it. What is measured here: the
 * bytes written stay linear in the number of decisions, a crash mid-append loses only that
 * append, a damaged line anywhere else is an error, and a format 1 file is still read.
 */

const ctx = { platform: process.platform, uid: process.getuid?.() };
const company = { name: 'Stormline', origin: 'https://stormline.example' };
const FAR = '2099-10-08T12:20:00-07:00';
/** About the size of a real compact JWS of a decision (header, claims with digests, signature). */
const JWS = `eyJhbGciOiJFZERTQSJ9.${'p'.repeat(900)}.${'s'.repeat(86)}`;

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

async function tempDir(): Promise<string> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'csj-'));
  cleanup.push(() => fsp.rm(dir, { recursive: true, force: true }));
  return dir;
}

function decision(i: number, overrides: Partial<JournalEntry> = {}): JournalEntry {
  return {
    operation_id: `exc_${i}`,
    revision: 'rev1',
    status: 'approved',
    jws: JWS,
    nonce: randomNonce(),
    company,
    expires_at: FAR,
    recorded_at: '2026-10-08T19:00:00.000Z',
    ...overrides,
  };
}

/** Counts the bytes every FileHandle writes (appends and the temporary files of atomic rewrites) while `fn` runs. */
async function bytesWrittenBy(dir: string, fn: () => Promise<void>): Promise<number> {
  const probe = await fsp.open(path.join(dir, '.probe'), 'w');
  const proto = Object.getPrototypeOf(probe) as { write: (...a: unknown[]) => Promise<{ bytesWritten: number }>; writeFile: (data: unknown, ...a: unknown[]) => Promise<void> };
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
    await fn();
  } finally {
    proto.write = write;
    proto.writeFile = writeFile;
  }
  return bytes;
}

const codeOf = (error: unknown) => (isCountersignError(error) ? error.code : undefined);

const fileOf = (dir: string) => path.join(dir, JOURNAL_FILE);
const linesOf = async (dir: string) => (await fsp.readFile(fileOf(dir), 'utf8')).split('\n').filter((l) => l !== '');

/** What a journal holds, for comparing a reopened one with the one that wrote it. */
function contents(journal: Journal, ids: Array<[string, string]>) {
  return {
    entries: journal.entries().sort((a, b) => a.operation_id.localeCompare(b.operation_id)),
    withdrawn: ids.filter(([o, r]) => journal.isWithdrawn(o, r)),
  };
}

describe('decision journal on disk (format 2: snapshot line, appended changes)', () => {
  it('1,000 decisions cost bytes linear in the file size, not quadratic', async () => {
    // Measured on this code's predecessor, which rewrote the whole file on every change: 654,161,388
    // bytes written for a 1,307,004-byte file (500x). This code: about 1.6 MB for 1.2 MB (1.3x).
    // Right after a rewrite the ratio peaks near 1 + 1/COMPACT_GROWTH of the snapshots before it
    // plus the appends: about 2.2x. The bound leaves room for that and fails far below quadratic.
    const dir = await tempDir();
    const journal = await Journal.open(dir, ctx);
    const written = await bytesWrittenBy(dir, async () => {
      for (let i = 1; i <= 1000; i++) await journal.record(decision(i));
    });
    const size = (await fsp.stat(fileOf(dir))).size;
    expect(size).toBeGreaterThan(1000 * JWS.length);
    expect(written).toBeLessThan(3 * size);
    expect((await Journal.open(dir, ctx)).entries()).toHaveLength(1000);
  });

  it('a crash mid-append: the cut line is dropped, every line before it is kept, and the next write repairs the file', async () => {
    const dir = await tempDir();
    const journal = await Journal.open(dir, ctx);
    await journal.record(decision(1));
    await journal.record(decision(2));
    await journal.markSent('exc_1', 'rev1');
    const whole = await fsp.readFile(fileOf(dir));
    await journal.setOutcome('exc_1', 'rev1', 'performed', 'order ord_7Hk2 updated', false);
    const withLast = await fsp.readFile(fileOf(dir));
    const lastLength = withLast.length - whole.length;

    // Every cut inside the last line, including just before its "\n".
    for (const keep of [1, 2, Math.floor(lastLength / 2), lastLength - 2]) {
      await fsp.writeFile(fileOf(dir), withLast.subarray(0, whole.length + keep));
      const reopened = await Journal.open(dir, ctx);
      expect(reopened.entries().map((e) => e.operation_id).sort()).toEqual(['exc_1', 'exc_2']);
      expect(reopened.get('exc_1', 'rev1')).toMatchObject({ sent: true });
      expect(reopened.get('exc_1', 'rev1')?.outcome).toBeUndefined();
    }

    // Cut just before the "\n": the line is whole JSON, so it is kept.
    await fsp.writeFile(fileOf(dir), withLast.subarray(0, withLast.length - 1));
    const whole2 = await Journal.open(dir, ctx);
    expect(whole2.get('exc_1', 'rev1')).toMatchObject({ outcome: 'performed', outcome_reported: false });

    // A torn tail, then a write: the file is rewritten (no line glued to the torn one), nothing lost.
    await fsp.writeFile(fileOf(dir), withLast.subarray(0, whole.length + 7));
    const repaired = await Journal.open(dir, ctx);
    expect(await repaired.markWithdrawn('exc_2', 'rev1')).toBe(true);
    expect(await linesOf(dir)).toHaveLength(1);
    const after = await Journal.open(dir, ctx);
    expect(after.isWithdrawn('exc_2', 'rev1')).toBe(true);
    expect(after.get('exc_1', 'rev1')).toMatchObject({ sent: true });
  });

  it('a damaged line that is not a cut-short last append is an error, not a shorter journal', async () => {
    const dir = await tempDir();
    const journal = await Journal.open(dir, ctx);
    await journal.record(decision(1));
    await journal.markWithdrawn('exc_9', 'rev1');
    await journal.markSent('exc_1', 'rev1');
    const good = await fsp.readFile(fileOf(dir), 'utf8');
    const lines = good.split('\n');
    expect(lines).toHaveLength(4); // snapshot, withdrawn, sent, ""
    const variants = [
      // A middle line that is not JSON.
      [lines[0], lines[1]!.slice(0, 10), lines[2], ''].join('\n'),
      // A last line that is JSON but not a change (no crash cuts a line into another valid one).
      [lines[0], lines[1], '{"t":"sent"}', ''].join('\n'),
      [lines[0], lines[1], '{"t":"sent"}'].join('\n'),
      // A last line ending in "\n" that is not JSON: not what a cut-short append leaves.
      [lines[0], lines[1], 'xx', ''].join('\n'),
      // A sent mark for a decision that is not in the file: lines are missing.
      [lines[0], lines[1], lines[2]!.replace('exc_1', 'exc_2'), ''].join('\n'),
      // An empty line, a damaged snapshot, an empty file.
      [lines[0], '', lines[1], ''].join('\n'),
      [lines[0]!.replace('"v":2', '"v":3'), lines[1], ''].join('\n'),
      '',
      // Format 1 followed by more lines.
      `${JSON.stringify({ v: 1, kind: 'countersign-decision-journal', decisions: [], withdrawn: {}, seen_nonces: {} })}\n${lines[1]}\n`,
    ];
    for (const text of variants) {
      await writePrivateFileAtomic(fileOf(dir), text, ctx);
      expect(codeOf(await rejection(Journal.open(dir, ctx))), text.slice(0, 200)).toBe('ERR_STORAGE_FAILED');
    }
    await writePrivateFileAtomic(fileOf(dir), good, ctx);
    expect((await Journal.open(dir, ctx)).get('exc_1', 'rev1')?.sent).toBe(true);
  });

  it('compaction: the appended lines are folded into a fresh snapshot once they outgrow it; nothing is lost', async () => {
    const dir = await tempDir();
    const journal = await Journal.open(dir, ctx);
    const ids: Array<[string, string]> = [];
    let longest = 0;
    let rewrites = 0;
    let previous = 0;
    for (let i = 1; i <= 300; i++) {
      ids.push([`exc_${i}`, 'rev1']);
      await journal.record(decision(i));
      if (i % 3 === 0) await journal.markSent(`exc_${i}`, 'rev1');
      if (i % 5 === 0) await journal.markWithdrawn(`exc_${i}`, 'rev1');
      const count = (await linesOf(dir)).length;
      if (count < previous) rewrites++;
      previous = count;
      longest = Math.max(longest, count);
    }
    // The first write creates the snapshot; later ones append until the log outgrows it.
    expect(rewrites).toBeGreaterThanOrEqual(2);
    expect(longest).toBeLessThan(400);
    const size = (await fsp.stat(fileOf(dir))).size;
    const snapshotSize = Buffer.byteLength((await linesOf(dir))[0]!) + 1;
    expect(size).toBeLessThanOrEqual(5 * snapshotSize + 64 * 1024);
    const reopened = await Journal.open(dir, ctx);
    expect(contents(reopened, ids)).toEqual(contents(journal, ids));
    expect(reopened.get('exc_3', 'rev1')?.sent).toBe(true);
    expect(reopened.isWithdrawn('exc_5', 'rev1')).toBe(true);
  });

  it('changes made together, across a rewrite, are each written once and read back as made', async () => {
    const dir = await tempDir();
    const journal = await Journal.open(dir, ctx);
    const ids: Array<[string, string]> = [];
    const writes: Array<Promise<unknown>> = [];
    // Not awaited one by one: later changes are queued while a rewrite takes the whole memory.
    for (let i = 1; i <= 150; i++) {
      ids.push([`exc_${i}`, 'rev1']);
      writes.push(journal.record(decision(i)));
      writes.push(journal.markSent(`exc_${i}`, 'rev1'));
      writes.push(journal.setOutcome(`exc_${i}`, 'rev1', i % 2 ? 'performed' : 'unknown', i % 4 ? undefined : `try ${i}`, i % 3 === 0));
    }
    const nonce = randomNonce();
    journal.nonces.add(nonce);
    writes.push(journal.markWithdrawn('exc_999', 'rev1'));
    await Promise.all(writes);
    const reopened = await Journal.open(dir, ctx);
    expect(contents(reopened, [...ids, ['exc_999', 'rev1']])).toEqual(contents(journal, [...ids, ['exc_999', 'rev1']]));
    expect(reopened.undelivered().length).toBe(journal.undelivered().length);
    expect(reopened.nonces.has(nonce)).toBe(true);
  });

  it('a nonce verifyDecision adds goes out with the next write', async () => {
    const dir = await tempDir();
    const journal = await Journal.open(dir, ctx);
    await journal.record(decision(1));
    const nonce = randomNonce();
    journal.nonces.add(nonce);
    expect((await Journal.open(dir, ctx)).nonces.has(nonce)).toBe(false); // not written yet
    await journal.markSent('exc_1', 'rev1');
    expect((await Journal.open(dir, ctx)).nonces.has(nonce)).toBe(true);
  });

  it('a failed append is repaired by rewriting the file from memory', async () => {
    const dir = await tempDir();
    const journal = await Journal.open(dir, ctx);
    await journal.record(decision(1));
    await journal.record(decision(2));
    // The file vanishes: an append (which never creates the file) fails, and the whole journal is written instead.
    await fsp.unlink(fileOf(dir));
    await journal.markSent('exc_2', 'rev1');
    const reopened = await Journal.open(dir, ctx);
    expect(reopened.entries()).toHaveLength(2);
    expect(reopened.get('exc_2', 'rev1')?.sent).toBe(true);
    expect((await fsp.stat(fileOf(dir))).mode & 0o777).toBe(0o600);
  });

  it('a change the reader would refuse is refused before it is made', async () => {
    const dir = await tempDir();
    const journal = await Journal.open(dir, ctx);
    expect(codeOf(await rejection(journal.record(decision(1, { expires_at: 'tomorrow' }))))).toBe('ERR_ARGUMENT_INVALID');
    expect(journal.get('exc_1', 'rev1')).toBeUndefined();
    await journal.record(decision(2));
    expect(codeOf(await rejection(journal.setOutcome('exc_2', 'rev1', 'failed', 'x'.repeat(2001), false)))).toBe('ERR_ARGUMENT_INVALID');
    expect(journal.get('exc_2', 'rev1')?.outcome).toBeUndefined();
    expect((await Journal.open(dir, ctx)).entries()).toHaveLength(1);
  });

  it('a format 1 journal is read as it is and rewritten in format 2 on the first change', async () => {
    const dir = await tempDir();
    const old = decision(1, { sent: true, outcome: 'unknown', outcome_reported: false });
    const seen = randomNonce();
    const v1 = {
      v: 1,
      kind: 'countersign-decision-journal',
      decisions: [old, decision(2, { status: 'declined' })],
      withdrawn: { 'exc_7 rev2': Date.now() },
      seen_nonces: { [seen]: Date.now() + 3600_000, [old.nonce]: Date.parse(FAR) },
    };
    // Written the way format 1 was: the whole document, indented.
    await writePrivateFileAtomic(fileOf(dir), `${JSON.stringify(v1, null, 1)}\n`, ctx);
    const journal = await Journal.open(dir, ctx);
    expect(journal.get('exc_1', 'rev1')).toMatchObject({ sent: true, outcome: 'unknown', outcome_reported: false });
    expect(journal.get('exc_2', 'rev1')?.status).toBe('declined');
    expect(journal.isWithdrawn('exc_7', 'rev2')).toBe(true);
    expect(journal.nonces.has(seen)).toBe(true);
    expect(journal.nonces.has(old.nonce)).toBe(true);
    expect(journal.undelivered().map((e) => e.operation_id)).toEqual(['exc_1']);

    await journal.setOutcome('exc_1', 'rev1', 'performed', undefined, true);
    const lines = await linesOf(dir);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ v: 2, kind: 'countersign-decision-journal' });
    const reopened = await Journal.open(dir, ctx);
    expect(reopened.get('exc_1', 'rev1')).toMatchObject({ outcome: 'performed', outcome_reported: true });
    expect(reopened.get('exc_2', 'rev1')?.status).toBe('declined');
    expect(reopened.isWithdrawn('exc_7', 'rev2')).toBe(true);
    expect(reopened.nonces.has(seen)).toBe(true);
    // The next change is appended.
    await reopened.markWithdrawn('exc_8', 'rev1');
    expect(await linesOf(dir)).toHaveLength(2);

    // A one-line format 1 file is read too.
    await writePrivateFileAtomic(fileOf(dir), JSON.stringify(v1), ctx);
    expect((await Journal.open(dir, ctx)).entries()).toHaveLength(2);
  });
});
