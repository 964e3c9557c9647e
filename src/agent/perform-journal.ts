import { createHash, randomBytes } from 'node:crypto';
import path from 'node:path';
import * as z from 'zod';
import { approvalSchema, type Approval } from '../protocol/approval';
import { canonicalJson } from '../protocol/canonical-json';
import { idSchema } from '../protocol/id';
import { operationSchema, type Operation } from '../protocol/operation';
import { preparePrivateDir, readJournalFile, writePrivateFileAtomic, type PrivacyContext } from './files';

/**
 * The perform journal: the approvals this agent is sending, kept in a file so that a crashed and
 * restarted agent keeps spec section 7's promises:
 *
 * - "If a request with an approval fails or times out, the Personal Agent sends it again with the
 *   same approval": an entry in state `sent` or `unknown` is resumed by sending the SAME approval
 *   (same operation_id and revision, same Idempotency-Key, same conversation message ID) again.
 * - "It MUST NOT ask the User to approve a new operation for the same action until it knows
 *   whether the first one was performed": while an entry for an operation is open, no new
 *   revision of that operation is asked about; the entry is resolved first.
 *
 * One entry per action in flight: `{operation_id, revision, interface, fingerprint of the request,
 * approval, state}`. States, in order:
 *
 *   asked     the User is being asked (section 5); nothing was sent
 *   approved  a verified approval is at hand; nothing was sent
 *   sent      the approval went (or may have gone) to the Company: from here on only the same
 *             approval is ever sent for this operation until its outcome is known
 *   unknown   sent, and every attempt so far failed or timed out: still open, resumed next time
 *   performed | failed | new_revision   settled (the Company's answer, or what findOutcome learned)
 *
 * Secrets never reach the file: the request is kept without its headers (Poppy-Session and
 * Authorization are taken from the caller again when an entry is resumed).
 *
 * The file (`performs.json`, beside the decision journal in the agent's config folder) is written
 * whole and atomically on every change (files.ts: temporary file, fsync, rename, fsync of the
 * folder). Within a process, use one PerformJournal per folder (`sharedPerformJournal`).
 */

export const PERFORM_JOURNAL_FILE = 'performs.json';

export const PERFORM_STATES = ['asked', 'approved', 'sent', 'unknown', 'performed', 'failed', 'new_revision'] as const;
export type PerformState = (typeof PERFORM_STATES)[number];

/** States in which the outcome is not known and the entry must be resumed (section 7). */
export const OPEN_STATES: readonly PerformState[] = ['asked', 'approved', 'sent', 'unknown'];

/** Settled entries are kept this long for the record, then pruned; at most MAX_SETTLED of them. */
const KEEP_SETTLED_MS = 24 * 3600 * 1000;
const MAX_SETTLED = 10;

const jsonValue = z.json();

/** The request an approval goes back through (section 6), without headers. */
export const storedRequestSchema = z.discriminatedUnion('interface', [
  z.object({
    interface: z.literal('api'),
    method: z.string().min(1).max(32),
    url: z.string().min(1).max(8192),
    /** The body as the caller gave it: JSON data, or a string sent as is. */
    body: jsonValue.optional(),
    content_type: z.string().max(256).optional(),
  }),
  z.object({
    interface: z.literal('mcp'),
    server_url: z.string().min(1).max(8192),
    tool: z.string().min(1).max(256),
    arguments: z.record(z.string(), jsonValue),
  }),
  z.object({
    interface: z.literal('conversation'),
    /** The conversations endpoint (`…/conversations`), without the conversation ID. */
    endpoint: z.string().min(1).max(8192),
    conversation_id: idSchema,
    /** The Personal Agent message that led to the operation. */
    message_id: idSchema,
  }),
]);
export type StoredRequest = z.output<typeof storedRequestSchema>;

const entrySchema = z.object({
  /** The Company's origin: operation IDs are the Company's (section 3). */
  origin: z.string().min(1).max(2048),
  company_name: z.string().min(1).max(256),
  interface: z.enum(['api', 'mcp', 'conversation']),
  /** SHA-256 (base64url) of the canonical origin and stored request: the same action asked again. */
  fingerprint: z.string().min(1).max(64),
  request: storedRequestSchema,
  operation_id: idSchema,
  revision: idSchema,
  operation: operationSchema,
  approval: approvalSchema.optional(),
  state: z.enum(PERFORM_STATES),
  /** API: the Idempotency-Key of the request with the approval, its own (section 6), the same on every retry. */
  idempotency_key: z.string().max(256).optional(),
  /** Conversation: the ID of the approval message, the same on every retry (section 7, core 8.3). */
  message_id: idSchema.optional(),
  detail: z.string().max(2000).optional(),
  created_at: z.number(),
  updated_at: z.number(),
});
export type PerformEntry = z.output<typeof entrySchema>;

const fileSchema = z.object({
  v: z.literal(1),
  kind: z.literal('countersign-perform-journal'),
  entries: z.array(entrySchema),
});

/** The fingerprint of an action's request at a Company: equal for the same method, URL and body (or tool and arguments, or conversation message). */
export function requestFingerprint(origin: string, request: StoredRequest): string {
  return createHash('sha256').update(canonicalJson({ origin, request })).digest('base64url');
}

function keyOf(origin: string, operationId: string): string {
  return `${origin} ${operationId}`;
}

export function isOpen(entry: Pick<PerformEntry, 'state'>): boolean {
  return OPEN_STATES.includes(entry.state);
}

export class PerformJournal {
  /** By origin and operation ID: one entry per action (section 3: the operation ID identifies the action). */
  private readonly entries = new Map<string, PerformEntry>();
  private tail: Promise<void> = Promise.resolve();
  private readonly locks = new Map<string, Promise<void>>();

  private constructor(
    readonly file: string,
    private readonly ctx: PrivacyContext,
    private readonly now: () => number,
  ) {}

  /**
   * Open the journal in `dir` (created 0700 if needed). A damaged file is an error, not an empty
   * journal: forgetting an approval in flight could ask the User again (section 7).
   */
  static async open(dir: string, options: { now?: () => number } = {}): Promise<PerformJournal> {
    const ctx: PrivacyContext = { platform: process.platform, uid: typeof process.getuid === 'function' ? process.getuid() : undefined };
    await preparePrivateDir(dir, ctx);
    const journal = new PerformJournal(path.join(dir, PERFORM_JOURNAL_FILE), ctx, options.now ?? Date.now);
    const data = await readJournalFile(journal.file, ctx, fileSchema, PERFORM_JOURNAL_FILE);
    if (data === undefined) return journal;
    for (const entry of data.entries) journal.entries.set(keyOf(entry.origin, entry.operation_id), entry);
    return journal;
  }

  /** Every entry (copies). */
  all(): PerformEntry[] {
    return [...this.entries.values()].map((e) => structuredClone(e));
  }

  get(origin: string, operationId: string): PerformEntry | undefined {
    const entry = this.entries.get(keyOf(origin, operationId));
    return entry === undefined ? undefined : structuredClone(entry);
  }

  /** The open entry of an operation (section 7: its outcome is not known yet). */
  openByOperation(origin: string, operationId: string): PerformEntry | undefined {
    const entry = this.get(origin, operationId);
    return entry !== undefined && isOpen(entry) ? entry : undefined;
  }

  /** The open entry of the same request at the same Company, if any (the same action asked again, e.g. after a restart). */
  openByFingerprint(origin: string, fingerprint: string): PerformEntry | undefined {
    for (const entry of this.entries.values()) {
      if (entry.origin === origin && entry.fingerprint === fingerprint && isOpen(entry)) return structuredClone(entry);
    }
    return undefined;
  }

  /** Write an entry (new or changed); resolves once it is on disk. */
  put(entry: PerformEntry): Promise<void> {
    const copy = entrySchema.parse({ ...entry, updated_at: this.now() });
    this.entries.set(keyOf(copy.origin, copy.operation_id), copy);
    return this.persist();
  }

  /** Forget an entry (the User didn't approve: nothing was sent, nothing to resume). */
  remove(origin: string, operationId: string): Promise<void> {
    if (!this.entries.delete(keyOf(origin, operationId))) return Promise.resolve();
    return this.persist();
  }

  /**
   * Run `fn` while holding the named in-process lock: two performs of the same action (or the
   * same operation) in one agent never interleave, so one of them cannot ask the User while the
   * other's approval is on its way (section 7).
   */
  async exclusive<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const before = this.locks.get(name) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    const chained = before.then(() => mine);
    this.locks.set(name, chained);
    await before;
    try {
      return await fn();
    } finally {
      release();
      if (this.locks.get(name) === chained) this.locks.delete(name);
    }
  }

  /** Resolves once every write started so far has finished. */
  flush(): Promise<void> {
    return this.tail;
  }

  private prune(): void {
    const now = this.now();
    const settled = [...this.entries.entries()].filter(([, e]) => !isOpen(e)).sort((a, b) => b[1].updated_at - a[1].updated_at);
    settled.forEach(([key, entry], index) => {
      if (index >= MAX_SETTLED || entry.updated_at + KEEP_SETTLED_MS < now) this.entries.delete(key);
    });
  }

  /** Writes are chained: each writes the whole state as it is when its turn comes. */
  private persist(): Promise<void> {
    const run = this.tail.then(() => {
      this.prune();
      const body: z.input<typeof fileSchema> = { v: 1, kind: 'countersign-perform-journal', entries: [...this.entries.values()] };
      return writePrivateFileAtomic(this.file, `${JSON.stringify(body, null, 1)}\n`, this.ctx);
    });
    this.tail = run.catch(() => undefined);
    return run;
  }
}

const shared = new Map<string, Promise<PerformJournal>>();

/**
 * The process's one PerformJournal for `dir`: concurrent performs in one process share it, so
 * their writes never undo each other (the file is rewritten whole).
 */
export function sharedPerformJournal(dir: string): Promise<PerformJournal> {
  const resolved = path.resolve(dir);
  let journal = shared.get(resolved);
  if (journal === undefined) {
    journal = PerformJournal.open(resolved);
    shared.set(resolved, journal);
    journal.catch(() => shared.delete(resolved));
  }
  return journal;
}

/** A fresh random Idempotency-Key for the request with the approval (section 6: "has its own, or none"). */
export function freshIdempotencyKey(): string {
  return randomBytes(16).toString('hex').replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');
}

/** A fresh message ID for a conversation message (core 8.2 characters). */
export function freshMessageId(): string {
  return `msg_${randomBytes(12).toString('base64url')}`;
}

export type { Approval, Operation };
