import path from 'node:path';
import { z } from 'zod';
import { companySchema, nonceSchema } from '../protocol/bridge';
import { idSchema } from '../protocol/id';
import { checkRfc3339, deadlineOf } from '../protocol/rfc3339';
import { readJournalFile, writePrivateFileAtomic, type PrivacyContext } from './files';

/**
 * The agent's decision journal: what the SDK has verified and done, kept in the config folder so
 * that a restarted agent keeps its promises.
 *
 * - Decisions (signed approvals and declines, after verification). DESIGN "Rules": "the same
 *   (operation_id, revision) never produces a second prompt once decided", so asking again is
 *   answered from here without a round trip.
 * - Withdrawn approvals (spec section 5: "If the User withdraws their approval before the
 *   Personal Agent has sent it, the Personal Agent doesn't send it"), remembered across restarts.
 * - Sent marks and outcomes (section 7: no new approval for the same action while an approved
 *   one's outcome is unknown; an outcome not yet delivered is re-sent on the next connection).
 * - Nonces of accepted decisions, so a decision is accepted once, even after a restart.
 *
 * The file is rewritten whole and atomically on every change (files.ts); one Companion per folder
 * (files.ts lockConfigDir) keeps writers from undoing each other.
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

const rfc3339 = z.string().refine((s) => checkRfc3339(s).ok, { error: 'expected an RFC 3339 date-time' });

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
  sent: z.boolean().optional(),
  outcome: z.enum(OUTCOMES).optional(),
  outcome_detail: z.string().max(2000).optional(),
  /** False while an outcome is recorded here but not yet delivered to the extension. */
  outcome_reported: z.boolean().optional(),
});
export type JournalEntry = z.output<typeof entrySchema>;

const fileSchema = z.object({
  v: z.literal(1),
  kind: z.literal('countersign-decision-journal'),
  decisions: z.array(entrySchema),
  /** "<operation_id> <revision>" → when the withdrawal was learned (ms). */
  withdrawn: z.record(z.string(), z.number()),
  /** nonce → the expiry (ms) of the revision its decision was for. */
  seen_nonces: z.record(z.string(), z.number()),
});

function keyOf(operationId: string, revision: string): string {
  // Ids never contain a space (id.ts), so the join is unambiguous. The extension keys the same way
  // (store.ts approvalKey, without the agent): one revision, one decision, whichever Company.
  return `${operationId} ${revision}`;
}

function expiresMs(entry: Pick<JournalEntry, 'expires_at'>): number {
  return Math.max(0, deadlineOf(entry.expires_at));
}

export class Journal {
  private readonly decisions = new Map<string, JournalEntry>();
  private readonly withdrawnMarks = new Map<string, number>();
  private readonly seen = new Map<string, number>();
  private tail: Promise<void> = Promise.resolve();

  private constructor(
    private readonly file: string,
    private readonly ctx: PrivacyContext,
    private readonly now: () => number,
  ) {}

  /** Open the journal in `dir`. A damaged file is an error, not an empty journal: forgetting withdrawals or seen nonces fails open. */
  static async open(dir: string, ctx: PrivacyContext, now: () => number = Date.now): Promise<Journal> {
    const journal = new Journal(path.join(dir, JOURNAL_FILE), ctx, now);
    const data = await readJournalFile(journal.file, ctx, fileSchema, JOURNAL_FILE);
    if (data === undefined) return journal;
    for (const entry of data.decisions) journal.decisions.set(keyOf(entry.operation_id, entry.revision), entry);
    for (const [key, at] of Object.entries(data.withdrawn)) journal.withdrawnMarks.set(key, at);
    for (const [nonce, until] of Object.entries(data.seen_nonces)) journal.seen.set(nonce, until);
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
      this.seen.set(nonce, expiresAtMs);
    },
  };

  /** Record a verified decision. Memory first (synchronously), then the file. */
  record(entry: JournalEntry): Promise<void> {
    this.decisions.set(keyOf(entry.operation_id, entry.revision), entry);
    this.seen.set(entry.nonce, expiresMs(entry));
    return this.persist();
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
    this.withdrawnMarks.set(keyOf(operationId, revision), this.now());
    await this.persist();
    return true;
  }

  async markSent(operationId: string, revision: string): Promise<void> {
    const entry = this.get(operationId, revision);
    if (!entry || entry.sent) return;
    entry.sent = true;
    await this.persist();
  }

  async setOutcome(operationId: string, revision: string, outcome: Outcome, detail: string | undefined, reported: boolean): Promise<void> {
    const entry = this.get(operationId, revision);
    if (!entry) return;
    entry.outcome = outcome;
    if (detail === undefined) delete entry.outcome_detail;
    else entry.outcome_detail = detail;
    entry.outcome_reported = reported;
    await this.persist();
  }

  /** Outcomes recorded while the extension could not be told. */
  undelivered(): JournalEntry[] {
    return this.entries().filter((e) => e.outcome !== undefined && e.outcome_reported === false);
  }

  /** Resolves once every write started so far has finished. */
  flush(): Promise<void> {
    return this.tail;
  }

  private prune(): void {
    const now = this.now();
    for (const [nonce, until] of this.seen) if (until + NONCE_KEEP_AFTER_EXPIRY_MS < now) this.seen.delete(nonce);
    for (const [key, at] of this.withdrawnMarks) if (at + WITHDRAWN_KEEP_MS < now) this.withdrawnMarks.delete(key);
    for (const [key, entry] of this.decisions) {
      const open = entry.status === 'approved' && !this.isWithdrawn(entry.operation_id, entry.revision) && (entry.outcome === undefined || entry.outcome === 'unknown');
      const undelivered = entry.outcome !== undefined && entry.outcome_reported === false;
      if (!open && !undelivered && expiresMs(entry) + KEEP_AFTER_EXPIRY_MS < now) this.decisions.delete(key);
    }
  }

  /** Writes are chained: each writes the whole state as it is when its turn comes. */
  private persist(): Promise<void> {
    const run = this.tail.then(() => {
      this.prune();
      const body: z.input<typeof fileSchema> = {
        v: 1,
        kind: 'countersign-decision-journal',
        decisions: [...this.decisions.values()],
        withdrawn: Object.fromEntries(this.withdrawnMarks),
        seen_nonces: Object.fromEntries(this.seen),
      };
      return writePrivateFileAtomic(this.file, `${JSON.stringify(body, null, 1)}\n`, this.ctx);
    });
    this.tail = run.catch(() => undefined);
    return run;
  }
}
