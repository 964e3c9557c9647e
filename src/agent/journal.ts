import { constants as fsConstants, promises as fsp } from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import { companySchema, nonceSchema } from '../protocol/bridge';
import { CountersignError } from '../protocol/errors';
import { idSchema } from '../protocol/id';
import { describeZodError } from '../protocol/describe-zod-error';
import { checkRfc3339, deadlineOf } from '../protocol/rfc3339';
import { readPrivateFile, writePrivateFileAtomic, type PrivacyContext } from './files';

/**
 * The agent's decision journal: what the SDK has verified and done, kept in the config folder so
 * that a restarted agent keeps its promises.
 *
 * - Decisions (signed approvals and declines, after verification). A revision once decided is
 *   never prompted for again: asking again is answered from here without a round trip.
 * - Withdrawn approvals (spec section 5: "If the User withdraws their approval before the
 *   Personal Agent has sent it, the Personal Agent doesn't send it"), remembered across restarts.
 * - Sent marks and outcomes (section 7: no new approval for the same action while an approved
 *   one's outcome is unknown; an outcome not yet delivered is re-sent on the next connection).
 * - Nonces of accepted decisions, so a decision is accepted once, even after a restart.
 *
 * On disk (format 2) the journal is one file of JSON lines (https://jsonlines.org/: one JSON value
 * per line, lines separated by "\n"):
 *
 *   line 1   a snapshot: the whole journal as it was when the file was last rewritten
 *   line 2…  changes made since, one per line, in the order they were made: a decision
 *            recorded, a withdrawal, a sent mark, an outcome, a seen nonce
 *
 * A change costs one appended line and one fdatasync, whatever the size of the journal. Before
 * format 2 the whole file was rewritten on every change, so N decisions cost O(N²) bytes. When the
 * appended lines outgrow the snapshot (COMPACT_GROWTH), the file is replaced atomically by a fresh
 * one-line snapshot (files.ts writePrivateFileAtomic: temporary file, fsync, rename, fsync of the
 * folder), the policy of Redis's append-only file ("auto-aof-rewrite-percentage" and
 * "auto-aof-rewrite-min-size" in redis.conf): the rewrites' cost stays proportional to what was
 * appended, so the total is linear.
 *
 * Snapshot and changes share one file so that a rewrite replaces both at once: a crash leaves the
 * old file or the new one, never a snapshot beside a log that was already folded into it. The file
 * keeps its name (decisions.json) so that an older SDK pointed at this folder fails closed (the
 * file is not the JSON document it expects) rather than reading a stale copy.
 *
 * Reading fails closed on a damaged file, as before: every line is checked against its schema, and
 * a damaged line is an error. One exception is the shape a crash leaves: an append cut short by a
 * crash (or a power cut) leaves a last line without its "\n" that is not JSON; that line's write
 * never completed, so nobody was told it was recorded, and it is dropped. Redis treats its log the
 * same way ("aof-load-truncated" in redis.conf: a truncated last command is dropped, anything else
 * stops the server). A format-1 file (one JSON document) is still read; the first change after it
 * rewrites it in format 2.
 *
 * One Companion per folder (files.ts lockConfigDir) keeps writers from interleaving.
 */

export const JOURNAL_FILE = 'decisions.json';

export const OUTCOMES = ['performed', 'failed', 'unknown', 'new_revision'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** How long a settled entry is kept after its revision expired: retries after that fail at the Company anyway (section 7). */
const KEEP_AFTER_EXPIRY_MS = 30 * 24 * 3600 * 1000;
/** Seen nonces outlive their revision by a day: verifyDecision refuses an expired decision by itself. */
const NONCE_KEEP_AFTER_EXPIRY_MS = 24 * 3600 * 1000;
/** Withdrawn marks are kept this long after they were recorded. */
const WITHDRAWN_KEEP_MS = 90 * 24 * 3600 * 1000;
/**
 * Pruning looks at every entry, so it runs at most this often (and before every rewrite), not on
 * every write: on every write it would make each record cost O(entries). Everything above is kept
 * for a day or more, and keeping something an hour longer only errs on the side of remembering.
 */
const PRUNE_EVERY_MS = 3600 * 1000;

/**
 * The file is rewritten as a snapshot once the changes appended after the last snapshot would
 * exceed COMPACT_GROWTH times its size (and at least COMPACT_MIN_BYTES, so a small journal is not
 * rewritten every few changes). The file then stays within 1 + COMPACT_GROWTH snapshots (or one
 * snapshot and COMPACT_MIN_BYTES), and each rewrite is paid for by appends of at least
 * COMPACT_GROWTH times the size of the snapshot before it.
 */
const COMPACT_GROWTH = 4;
const COMPACT_MIN_BYTES = 64 * 1024;

const FORMAT = 2;
const KIND = 'countersign-decision-journal';

const rfc3339 = z.string().refine((s) => checkRfc3339(s).ok, { error: 'expected an RFC 3339 date-time' });
const ms = z.number().refine(Number.isFinite, { error: 'expected a finite number' });

const entrySchema = z.object({
  operation_id: idSchema,
  revision: idSchema,
  status: z.enum(['approved', 'declined']),
  /** The compact JWS exactly as received: re-verified whenever it is used again. */
  jws: z.string().min(1).max(16 * 1024),
  nonce: nonceSchema,
  company: companySchema,
  expires_at: rfc3339,
  recorded_at: z.string(),
  /** The decision came with the person's passkey assertion, verified when it was recorded. */
  user_verified: z.boolean().optional(),
  sent: z.boolean().optional(),
  outcome: z.enum(OUTCOMES).optional(),
  outcome_detail: z.string().max(2000).optional(),
  /** False while an outcome is recorded here but not yet delivered to the extension. */
  outcome_reported: z.boolean().optional(),
});
export type JournalEntry = z.output<typeof entrySchema>;

/** The whole journal: format 1's file, and format 2's first line. */
const stateFields = {
  kind: z.literal(KIND),
  decisions: z.array(entrySchema),
  /** "<operation_id> <revision>" → when the withdrawal was learned (ms). */
  withdrawn: z.record(z.string(), ms),
  /** nonce → the expiry (ms) of the revision its decision was for. */
  seen_nonces: z.record(z.string(), ms),
};
const v1FileSchema = z.object({ v: z.literal(1), ...stateFields });
const snapshotSchema = z.object({ v: z.literal(FORMAT), ...stateFields });
const firstLineSchema = z.discriminatedUnion('v', [v1FileSchema, snapshotSchema]);
type Snapshot = z.input<typeof snapshotSchema>;

const target = { operation_id: idSchema, revision: idSchema };

/** One change, one line after the snapshot. Applying one is an assignment, so the journal is the snapshot with its changes applied in order. */
const changeSchema = z.discriminatedUnion('t', [
  /** Also marks the decision's nonce as seen until its revision expires. */
  z.object({ t: z.literal('decision'), entry: entrySchema }),
  z.object({ t: z.literal('withdrawn'), ...target, at: ms }),
  z.object({ t: z.literal('sent'), ...target }),
  z.object({ t: z.literal('outcome'), ...target, outcome: z.enum(OUTCOMES), detail: z.string().max(2000).optional(), reported: z.boolean() }),
  /** A nonce seen by verifyDecision (journal.nonces.add) before its decision was recorded. */
  z.object({ t: z.literal('nonce'), nonce: z.string(), until: ms }),
]);
type Change = z.output<typeof changeSchema>;

function keyOf(operationId: string, revision: string): string {
  // Ids never contain a space (id.ts), so the join is unambiguous. The extension keys the same way
  // (store.ts approvalKey, without the agent): one revision, one decision, whichever Company.
  return `${operationId} ${revision}`;
}

function expiresMs(entry: Pick<JournalEntry, 'expires_at'>): number {
  return Math.max(0, deadlineOf(entry.expires_at));
}

function damaged(file: string, what: string, cause?: unknown): CountersignError {
  return new CountersignError('ERR_STORAGE_FAILED', `${file}: ${what}; move it aside to start a new journal`, { cause });
}

/** `value` checked against `schema`; `where` is the line ("line 3: ") or nothing, `root` what the line holds. */
function checked<S extends z.ZodType>(schema: S, value: unknown, file: string, where: string, root: string): z.output<S> {
  const parsed = schema.safeParse(value, { reportInput: true });
  if (parsed.success) return parsed.data;
  throw damaged(file, `${where}${describeZodError(parsed.error, root)}`, parsed.error);
}

/** JSON.parse, or `undefined` when `text` is not JSON (no JSON line is the bare word undefined). */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Append `data` to an existing file and wait until it is on disk.
 *
 * - O_APPEND: every write lands at the end of the file (POSIX write(): "the file offset shall be
 *   set to the end of the file prior to each write").
 * - No O_CREAT: a file that vanished is not recreated as a log without its snapshot line; the
 *   caller rewrites it whole instead.
 * - O_NOFOLLOW where the platform has it (open(2)): the file is read only when it is a regular
 *   file (files.ts readPrivateFile); it is not written through a link either.
 * - fdatasync, not fsync: it still flushes the file size an append changes, the metadata "needed
 *   in order to allow a subsequent data retrieval to be correctly handled" (Linux fsync(2)),
 *   and skips the modification time.
 */
async function appendDurably(file: string, data: Buffer): Promise<void> {
  const flags = fsConstants.O_WRONLY | fsConstants.O_APPEND | (fsConstants.O_NOFOLLOW ?? 0);
  const handle = await fsp.open(file, flags);
  try {
    let offset = 0;
    while (offset < data.length) {
      const { bytesWritten } = await handle.write(data, offset, data.length - offset);
      // Caught by the caller, which rewrites the file whole; typed all the same, like every throw here.
      if (bytesWritten <= 0) throw new CountersignError('ERR_STORAGE_FAILED', `${file}: expected the append to write bytes, got none written`);
      offset += bytesWritten;
    }
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

export class Journal {
  private readonly decisions = new Map<string, JournalEntry>();
  private readonly withdrawnMarks = new Map<string, number>();
  private readonly seen = new Map<string, number>();
  private tail: Promise<void> = Promise.resolve();

  /** Nonces added (nonces.add) since the last write: they go out with the next one. */
  private readonly unsavedNonces = new Set<string>();
  /** Changes made so far (in memory), and how many of them the file holds. */
  private changes = 0;
  private saved = 0;
  /** Size of the snapshot line, and of the lines appended after it. */
  private snapshotBytes = 0;
  private logBytes = 0;
  /**
   * The next write must rewrite the file rather than append: there is no file yet, it is in
   * format 1, its last line is not whole, or an append failed (the file may end in part of it).
   */
  private rewriteNext = false;
  private prunedAt = Number.NEGATIVE_INFINITY;

  private constructor(
    private readonly file: string,
    private readonly ctx: PrivacyContext,
    private readonly now: () => number,
  ) {}

  /** Open the journal in `dir`. A damaged file is an error, not an empty journal: forgetting withdrawals or seen nonces fails open. */
  static async open(dir: string, ctx: PrivacyContext, now: () => number = Date.now): Promise<Journal> {
    const journal = new Journal(path.join(dir, JOURNAL_FILE), ctx, now);
    const text = await readPrivateFile(journal.file, ctx);
    if (text === undefined) journal.rewriteNext = true;
    else journal.load(text);
    // What a write would prune is gone already: reopening never brings back what was forgotten.
    journal.prune();
    return journal;
  }

  get(operationId: string, revision: string): JournalEntry | undefined {
    return this.decisions.get(keyOf(operationId, revision));
  }

  entries(): JournalEntry[] {
    return [...this.decisions.values()];
  }

  isWithdrawn(operationId: string, revision: string): boolean {
    return this.withdrawnMarks.has(keyOf(operationId, revision));
  }

  /**
   * An approved revision of `operationId`, other than `revision`, whose outcome is not known
   * (section 7). Mirrors the extension's rule (approval-state.ts isOutcomeOpen): approved and not
   * withdrawn, with no outcome or an `unknown` one. An approval that was never sent still counts:
   * only the caller knows it did not send it, and says so with reportOutcome(failed).
   */
  openSibling(operationId: string, revision: string): JournalEntry | undefined {
    for (const entry of this.decisions.values()) {
      if (entry.operation_id !== operationId || entry.revision === revision || entry.status !== 'approved') continue;
      if (this.isWithdrawn(entry.operation_id, entry.revision)) continue;
      if (entry.outcome === undefined || entry.outcome === 'unknown') return entry;
    }
    return undefined;
  }

  /** The seen-nonce set in the shape verifyDecision takes: `has` and `add` synchronous, persisted with the next write. */
  readonly nonces = {
    has: (nonce: string): boolean => this.seen.has(nonce),
    add: (nonce: string, expiresAtMs = this.now() + KEEP_AFTER_EXPIRY_MS): void => {
      // JSON has no NaN or Infinity: a line holding one could not be read back.
      this.seen.set(nonce, Number.isFinite(expiresAtMs) ? expiresAtMs : this.now() + KEEP_AFTER_EXPIRY_MS);
      this.unsavedNonces.add(nonce);
    },
  };

  /** Record a verified decision. Memory first (synchronously), then the file. */
  record(entry: JournalEntry): Promise<void> {
    return this.change({ t: 'decision', entry });
  }

  /**
   * The User withdrew this revision's approval (a `withdrawn` message, or the extension refusing
   * approval_sent). Ignored (false) once the approval was sent: section 5 allows withdrawing only
   * before, and the extension refuses it after (approval-state.ts), so a late `withdrawn` is not
   * the extension's and must not stop section 7's retries of what was already sent.
   */
  async markWithdrawn(operationId: string, revision: string): Promise<boolean> {
    const entry = this.get(operationId, revision);
    if (entry?.sent) return false;
    if (this.isWithdrawn(operationId, revision)) return true;
    await this.change({ t: 'withdrawn', operation_id: operationId, revision, at: this.now() });
    return true;
  }

  async markSent(operationId: string, revision: string): Promise<void> {
    const entry = this.get(operationId, revision);
    if (!entry || entry.sent) return;
    await this.change({ t: 'sent', operation_id: operationId, revision });
  }

  async setOutcome(operationId: string, revision: string, outcome: Outcome, detail: string | undefined, reported: boolean): Promise<void> {
    if (!this.get(operationId, revision)) return;
    await this.change({ t: 'outcome', operation_id: operationId, revision, outcome, ...(detail === undefined ? {} : { detail }), reported });
  }

  /** Outcomes recorded while the extension could not be told. */
  undelivered(): JournalEntry[] {
    return this.entries().filter((e) => e.outcome !== undefined && e.outcome_reported === false);
  }

  /** Resolves once every write started so far has finished. */
  flush(): Promise<void> {
    return this.tail;
  }

  // -------------------------------------------------------------------------------------------
  // Reading

  private load(text: string): void {
    const newline = text.indexOf('\n');
    const firstLine = newline === -1 ? text : text.slice(0, newline);
    const first = parseJson(firstLine);
    if (first === undefined) {
      // Format 1 was written indented, over many lines: the whole file is one JSON document.
      const whole = parseJson(text);
      if (whole === undefined) throw damaged(this.file, 'expected JSON, got text that is not');
      this.loadState(checked(v1FileSchema, whole, this.file, '', 'journal'));
      this.rewriteNext = true;
      return;
    }
    const head = checked(firstLineSchema, first, this.file, 'line 1: ', 'snapshot');
    this.loadState(head);
    if (head.v === 1) {
      if (newline !== -1 && text.slice(newline + 1).trim() !== '') throw damaged(this.file, 'expected nothing after a format 1 journal, got more text');
      this.rewriteNext = true;
      return;
    }
    if (newline === -1) {
      // The snapshot is written whole with its "\n" (by rename); without it, an append would join its line.
      this.rewriteNext = true;
      return;
    }
    this.snapshotBytes = Buffer.byteLength(firstLine) + 1;
    const rest = text.slice(newline + 1);
    this.logBytes = Buffer.byteLength(rest);
    const lines = rest.split('\n');
    // The piece after the last "\n": empty when the last append finished.
    const last = lines.pop() ?? '';
    lines.forEach((line, index) => {
      const where = `line ${index + 2}: `;
      const value = parseJson(line);
      if (value === undefined) throw damaged(this.file, `${where}expected JSON, got text that is not`);
      this.replay(checked(changeSchema, value, this.file, where, 'change'), where);
    });
    if (last === '') return;
    // An unfinished last line. A line is a JSON object, and no proper prefix of one is JSON: if it
    // is not JSON, it is an append that a crash cut short, never reported as written, and dropped.
    // If it is JSON, only its "\n" is missing, and it is checked like any other line.
    const where = `line ${lines.length + 2}: `;
    const value = parseJson(last);
    if (value !== undefined) this.replay(checked(changeSchema, value, this.file, where, 'change'), where);
    // Either way the file does not end with "\n", so the next write rewrites it.
    this.rewriteNext = true;
  }

  private loadState(state: z.output<typeof v1FileSchema> | z.output<typeof snapshotSchema>): void {
    for (const entry of state.decisions) this.decisions.set(keyOf(entry.operation_id, entry.revision), entry);
    for (const [key, at] of Object.entries(state.withdrawn)) this.withdrawnMarks.set(key, at);
    for (const [nonce, until] of Object.entries(state.seen_nonces)) this.seen.set(nonce, until);
  }

  private replay(change: Change, where: string): void {
    // Sent marks and outcomes are only ever written for a decision the journal holds: one that
    // refers to nothing means lines are missing, and the journal cannot be trusted.
    if (this.apply(change)) return;
    const about = change.t === 'sent' || change.t === 'outcome' ? ` of ${change.operation_id} ${change.revision}` : '';
    throw damaged(this.file, `${where}${change.t}${about}: expected a decision recorded before it, got none`);
  }

  // -------------------------------------------------------------------------------------------
  // Changing

  /**
   * Apply a change to memory. The one place both a live change and a replayed line go through, so
   * a reopened journal is what the running one was. False (nothing changed) when a sent mark or
   * an outcome names an entry that is not here.
   */
  private apply(change: Change): boolean {
    switch (change.t) {
      case 'decision':
        this.decisions.set(keyOf(change.entry.operation_id, change.entry.revision), change.entry);
        this.seen.set(change.entry.nonce, expiresMs(change.entry));
        return true;
      case 'withdrawn':
        this.withdrawnMarks.set(keyOf(change.operation_id, change.revision), change.at);
        return true;
      case 'nonce':
        this.seen.set(change.nonce, change.until);
        return true;
      case 'sent': {
        const entry = this.get(change.operation_id, change.revision);
        if (entry === undefined) return false;
        entry.sent = true;
        return true;
      }
      case 'outcome': {
        const entry = this.get(change.operation_id, change.revision);
        if (entry === undefined) return false;
        entry.outcome = change.outcome;
        if (change.detail === undefined) delete entry.outcome_detail;
        else entry.outcome_detail = change.detail;
        entry.outcome_reported = change.reported;
        return true;
      }
    }
  }

  /**
   * Check a change with the schema the reader uses (a line the reader would refuse would make the
   * whole journal unreadable), apply it to memory, and write it.
   */
  private change(input: z.input<typeof changeSchema>): Promise<void> {
    // A change the reader would refuse comes from the caller (an outcome detail too long, a
    // date that is not one), not from the disk: refused as the caller's, before anything is written.
    const parsed = changeSchema.safeParse(input, { reportInput: true });
    if (!parsed.success) return Promise.reject(new CountersignError('ERR_ARGUMENT_INVALID', describeZodError(parsed.error, 'journal'), { cause: parsed.error }));
    const change = parsed.data;
    this.apply(change);
    // The decision's own line carries its nonce.
    if (change.t === 'decision') this.unsavedNonces.delete(change.entry.nonce);
    // Serialized now: later changes to the same entry are their own lines.
    const line = `${JSON.stringify(change)}\n`;
    const number = ++this.changes;
    const run = this.tail.then(() => this.write(number, line));
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** Writes are chained, one at a time, in the order the changes were made. */
  private async write(number: number, line: string): Promise<void> {
    const now = this.now();
    // A clock set back is not trusted to mean "pruned recently".
    if (now - this.prunedAt >= PRUNE_EVERY_MS || now < this.prunedAt) this.prune();
    // A rewrite since this change was made took the whole memory, this change included.
    if (number <= this.saved) return;
    let text = '';
    for (const nonce of this.unsavedNonces) {
      const until = this.seen.get(nonce);
      if (until !== undefined) text += `${JSON.stringify({ t: 'nonce', nonce, until } satisfies Change)}\n`;
    }
    text += line;
    const data = Buffer.from(text, 'utf8');
    if (this.rewriteNext || this.logBytes + data.length > Math.max(COMPACT_GROWTH * this.snapshotBytes, COMPACT_MIN_BYTES)) {
      await this.rewrite();
      return;
    }
    this.unsavedNonces.clear();
    try {
      await appendDurably(this.file, data);
    } catch {
      // The file may now end in part of these lines: replace it whole, from memory, which holds them.
      await this.rewrite();
      return;
    }
    this.logBytes += data.length;
    this.saved = number;
  }

  /** Replace the file with a one-line snapshot of memory (every change made so far). */
  private async rewrite(): Promise<void> {
    this.prune();
    const upTo = this.changes;
    const body: Snapshot = {
      v: FORMAT,
      kind: KIND,
      decisions: [...this.decisions.values()],
      withdrawn: Object.fromEntries(this.withdrawnMarks),
      seen_nonces: Object.fromEntries(this.seen),
    };
    const text = `${JSON.stringify(body)}\n`;
    this.unsavedNonces.clear();
    // Until the new file is in place, nothing may be appended: changes since the last write are in
    // memory only, and a later line could refer to one of them.
    this.rewriteNext = true;
    await writePrivateFileAtomic(this.file, text, this.ctx);
    this.snapshotBytes = Buffer.byteLength(text);
    this.logBytes = 0;
    this.saved = upTo;
    this.rewriteNext = false;
  }

  private prune(): void {
    const now = this.now();
    this.prunedAt = now;
    for (const [nonce, until] of this.seen) if (until + NONCE_KEEP_AFTER_EXPIRY_MS < now) this.seen.delete(nonce);
    for (const [key, at] of this.withdrawnMarks) if (at + WITHDRAWN_KEEP_MS < now) this.withdrawnMarks.delete(key);
    for (const [key, entry] of this.decisions) {
      const open = entry.status === 'approved' && !this.isWithdrawn(entry.operation_id, entry.revision) && (entry.outcome === undefined || entry.outcome === 'unknown');
      const undelivered = entry.outcome !== undefined && entry.outcome_reported === false;
      if (!open && !undelivered && expiresMs(entry) + KEEP_AFTER_EXPIRY_MS < now) this.decisions.delete(key);
    }
  }
}
