// Longer than 500 lines on purpose: the reference Company's one operations engine. Section 3's
// identifiers, section 6's checks and section 7's at-most-once share the same records and the
// same spec-breaking switches, and all three interfaces call it.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { CountersignError, canonicalJson, type Approval, type JsonObject, type Operation } from '../protocol/index';
import type { CompanyFaults, SpecBreak } from './faults';
import { approvableScopes, primaryScope, type Caller, type Scope } from './session';

/**
 * The operations engine of the reference Company: one place for section 3's identifiers, section
 * 6's checks and section 7's at-most-once, used by all three interfaces (API, MCP, conversation).
 *
 * Nothing is stored for an operation that hasn't been performed (section 3, "New terms": "A
 * Company doesn't have to store operations that haven't been performed"):
 * - `operation_id` is an HMAC of the action's identity (the order and item being exchanged, the
 *   subscription being cancelled), so the same action always gets the same ID and another action
 *   never does (section 3: "Identifies the action, not a kind of action ... the Company MUST NOT
 *   use it for another action");
 * - `revision` is `<expiry, epoch seconds>-<a|s><16 characters of HMAC>` over the interface and
 *   request it answers, who may approve it, the operation ID, summary, terms and expires_at. So
 *   it changes whenever summary, terms or expires_at change (section 3, `revision`), two sets of
 *   terms never share one (section 3, "MUST NOT give two different sets of terms the same
 *   revision"), and check 3 is a recomputation: the revision is one we returned for this
 *   operation, this request and this Session or account exactly when the HMAC matches. `a`/`s`
 *   says whether an account or a Session may approve it, so that a signed-out Session can be
 *   challenged for the account (section 3, "Who can approve it");
 * - expires_at is rounded up to a window (a minute by default), so the same request within the
 *   window gets the same revision.
 *
 * What is stored is the record of an operation once its approval has passed every check: from
 * that moment it is being performed, then performed, and it is kept for the life of the process,
 * which is longer than any `expires_at` it approved (section 7: "MUST remember that it performed
 * an operation at least until the approved revision's expires_at, and while it is being
 * performed").
 */

/** The result of an action, rendered by each interface: `data` is the API body and MCP structuredContent, `text` a sentence. */
export interface Outcome {
  data: JsonObject;
  text: string;
}

/** An ordinary refusal of the request (404, 409...): no operation, nothing performed. */
export interface ActionError {
  status: number;
  error: string;
  description: string;
}

/** What a request asks for, as the Company's records say now (section 3: summary and terms). */
export interface Description {
  summary: string;
  terms: JsonObject;
  /** Performs exactly what summary and terms describe and returns the outcome. Called at most once per operation. */
  perform: () => Outcome;
  /**
   * SpecBreak `start-before-approval` only (faults.ts): what starting the action before its
   * approval writes. Never called otherwise (section 3: "MUST NOT start the action before it
   * receives an approval for it").
   */
  startEarly?: () => void;
  /** SpecBreak `hold-before-approval` only (faults.ts): the card hold placed before the approval. Never called otherwise. */
  holdEarly?: () => void;
}

export type Described = { ok: true; description: Description } | { ok: false; error: ActionError };

/**
 * An action that needs approval, computed from a request. Its operation ID comes from its
 * identity and who it is for (Operations.operationId); `describe` gets it, for the records the
 * action writes.
 */
export interface ActionPlan {
  /** `exc`, `can`: the operation ID's prefix. */
  prefix: string;
  /** What makes it this action (section 3, "New terms"): the order and item, the subscription. */
  identity: JsonObject;
  describe(nowMs: number, operationId: string): Described;
}

/** One request with or without an approval, through one interface. */
export interface CheckContext {
  /**
   * The interface and request the operation is returned for (section 6, check 3: "The API request
   * or tool call is the one that returned the operation, and in a conversation, the operation is
   * the conversation's"): `api POST /orders/ord_7Hk2/exchanges`, `mcp exchange_item`,
   * `conversation cnv_...`. Part of the revision's HMAC.
   */
  binding: string;
  caller: Caller;
  /** The request declares operations v2 (section 2). */
  declared: boolean;
  approval?: Approval | undefined;
  /** A further condition of check 3 (a conversation accepts only the revision it offered last). */
  acceptRevision?: ((revision: string) => boolean) | undefined;
}

export interface OperationRecord {
  operationId: string;
  /** Who approved it (section 3, "Who can approve it"); check 1 for later requests. */
  scope: Scope;
  revision: string;
  expiresAt: string;
  /** `unknown`: performed, but the Company doesn't know yet whether it took effect (section 7; the crash fault). */
  status: 'performing' | 'unknown' | 'performed';
  /** Real time (ms) until which a retry should expect no news; drives Retry-After. */
  busyUntil: number;
  /** The Company clock when the perform started (SpecBreak `forget-early` forgets from it). */
  startedAt: number;
  outcome?: Outcome;
  /** Resolves when the record becomes `performed`, or when a failed perform removed it. */
  settled: Promise<void>;
}

export type PerformDecision = { kind: 'perform'; context: CheckContext; operationId: string; scope: Scope; approval: Approval; expiresAt: string; description: Description };

/** What the Company answers, whatever the interface (section 2, 4, 6, 7). */
export type Decision =
  /** Section 2: the request doesn't declare operations v2 and the action needs approval. */
  | { kind: 'extension_required' }
  /** Section 3, "Who can approve it": a signed-out Session and an account's operation: the challenge for the account (core 7). */
  | { kind: 'challenge' }
  /** Section 7: being performed, or not known yet whether it took effect: 503 with Retry-After. */
  | { kind: 'busy'; record: OperationRecord; retryAfterSeconds: number }
  /** Section 6 check 2 and section 7: the response the Company gave the first time. */
  | { kind: 'performed'; record: OperationRecord & { outcome: Outcome } }
  /** An ordinary refusal, before or without any operation. */
  | { kind: 'refused'; error: ActionError }
  /** Section 4: no approval (or check 1 or 3 failed): refuse and return the operation. */
  | { kind: 'operation'; operation: Operation }
  /** Section 6: every check passed. Call `perform` in the same turn, before any await. */
  | PerformDecision;

export type Connection = 'answer' | 'drop' | 'crash';

export interface Performed {
  record: OperationRecord & { outcome: Outcome };
  /** What to do with the connection that carried the approval (the drop and crash faults). */
  connection: Connection;
}

export interface OperationsOptions {
  secret: Uint8Array;
  now: () => number;
  /** How long an approval of a new revision is accepted (section 3, "Expiry"). */
  approvalTtlMs: number;
  /** The same request within this window gets the same revision. Whole seconds. */
  revisionWindowMs: number;
  faults: CompanyFaults;
  /** How many times each operation was performed (tests read it: never more than 1). */
  performed: Map<string, number>;
}

const REVISION = /^([0-9]{1,12})-([as])([A-Za-z0-9_-]{16})$/;

/**
 * SpecBreak `perform-twice-concurrently`: how long the "slow database" read before a perform takes.
 * Long enough that approvals sent at once still arrive inside it on a loaded machine (an MCP call
 * is three HTTP requests), so the race this switch stands for is always lost.
 */
export const SLOW_DATABASE_MS = 400;

/** SpecBreak `forget-early`: a performed operation is forgotten this long (Company clock) after its perform. */
export const FORGET_EARLY_MS = 2 * 60_000;

/** SpecBreak `any-session-approves`: the one scope every signed-out Session shares (`*` is never a Session's identity). */
const ANY_SESSION: Scope = 'session:*';

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** An ordinary refusal (ActionError) as a decision. */
function refusal(status: number, error: string, description: string): Decision {
  return { kind: 'refused', error: { status, error, description } };
}

/**
 * SpecBreak `echo-named-revision`: the operation with the revision an approval named, and that
 * revision's own expires_at when it has one, so the revision still goes with one expires_at.
 */
function withRevision(operation: Operation, revision: string): Operation {
  const epochSeconds = REVISION.exec(revision)?.[1];
  return { ...operation, revision, expires_at: epochSeconds === undefined ? operation.expires_at : rfc3339(Number(epochSeconds)) };
}

/** `2026-10-08T19:20:00Z` for epoch seconds: RFC 3339 in UTC (section 3, `expires_at`). */
function rfc3339(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString().replace(/\.000Z$/, 'Z');
}

export class Operations {
  readonly #secret: Uint8Array;
  readonly #now: () => number;
  readonly #ttlMs: number;
  readonly #windowSeconds: number;
  readonly #faults: CompanyFaults;
  readonly #performed: Map<string, number>;
  readonly #records = new Map<string, OperationRecord>();
  readonly #timers = new Set<NodeJS.Timeout>();
  /** SpecBreak `lock-per-revision` only: the perform under way per operation ID and revision. */
  readonly #revisionLocks = new Map<string, Promise<Performed>>();

  constructor(options: OperationsOptions) {
    this.#secret = options.secret;
    this.#now = options.now;
    this.#ttlMs = options.approvalTtlMs;
    this.#windowSeconds = Math.max(1, Math.round(options.revisionWindowMs / 1000));
    this.#faults = options.faults;
    this.#performed = options.performed;
  }

  #breaks(name: SpecBreak): boolean {
    return this.#faults.breaks.has(name);
  }

  /**
   * The scopes whose operations this caller can approve (session.ts). SpecBreak
   * `any-session-approves` maps every Session to one shared scope, so a signed-out Session's
   * operation is another signed-out Session's too (breaks section 3, "Who can approve it").
   */
  #scopes(caller: Caller): Scope[] {
    const scopes = approvableScopes(caller);
    return this.#breaks('any-session-approves') ? scopes.map((s) => (s.startsWith('session:') ? ANY_SESSION : s)) : scopes;
  }

  #primary(caller: Caller): Scope {
    const scope = primaryScope(caller);
    return this.#breaks('any-session-approves') && scope.startsWith('session:') ? ANY_SESSION : scope;
  }

  #hmac(value: JsonObject): string {
    return createHmac('sha256', this.#secret).update(canonicalJson(value)).digest('base64url');
  }

  /**
   * The operation ID of an action for one scope (section 3, `operation_id`, and "Who can approve
   * it"): `<prefix>_` + 6 characters of HMAC over the action's identity + 10 over the identity and
   * the scope. Each signed-out Session and each account has its own operation for the same action,
   * so an operation is returned in one Session (or account) only, and the approval of another
   * Session never meets the first one's record (docs/reference-company.md, "How operations are
   * computed"). The shared first part says "the same action" where the Company must recognise it
   * without the scope: a signed-out Session holding an account's approval gets a challenge.
   * The identity names one action: an item is exchanged at most once (the replacement is a new
   * item), a subscription is cancelled at most once.
   */
  operationId(prefix: string, identity: JsonObject, scope: Scope): string {
    const owner = this.#hmac({ purpose: 'operation_id', ...identity, scope }).slice(0, 10);
    return `${this.#actionPart(prefix, identity)}${owner}`;
  }

  /** `<prefix>_` and the action's 6 characters: what every scope's operation ID of it starts with. */
  #actionPart(prefix: string, identity: JsonObject): string {
    return `${prefix}_${this.#hmac({ purpose: 'operation_id', ...identity }).slice(0, 6)}`;
  }

  /** Whether an operation ID names this plan's action, whichever scope it was made for. */
  #sameAction(plan: ActionPlan, operationId: string): boolean {
    const action = this.#actionPart(plan.prefix, plan.identity);
    return operationId.length === action.length + 10 && operationId.startsWith(action);
  }

  #revision(context: CheckContext, scope: Scope, operationId: string, description: Description, expiresAt: string, epochSeconds: number): string {
    const mac = this.#hmac({
      purpose: 'revision',
      // SpecBreak `accept-other-interface-revision` leaves out the interface and request (breaks section 6, check 3).
      ...(this.#breaks('accept-other-interface-revision') ? {} : { binding: context.binding }),
      scope,
      operation_id: operationId,
      // SpecBreak `same-revision-for-new-terms` leaves out the terms (breaks section 3, "New terms").
      ...(this.#breaks('same-revision-for-new-terms') ? {} : { summary: description.summary, terms: description.terms }),
      expires_at: expiresAt,
    }).slice(0, 16);
    return `${epochSeconds}-${scope.startsWith('account:') ? 'a' : 's'}${mac}`;
  }

  /**
   * A revision for what the request asks (section 4, and section 6 when check 3 fails). Never
   * `avoid`, the revision the request's approval named: "A Company MUST NOT answer an approval
   * with the revision it names, so a Personal Agent never retries the same approval in a loop."
   */
  #issue(context: CheckContext, operationId: string, description: Description, avoid: string | undefined): Operation {
    const scope = this.#primary(context.caller);
    const earliest = (this.#now() + this.#ttlMs) / 1000;
    let epochSeconds = Math.ceil(earliest / this.#windowSeconds) * this.#windowSeconds;
    let expiresAt = rfc3339(epochSeconds);
    let revision = this.#revision(context, scope, operationId, description, expiresAt, epochSeconds);
    if (revision === avoid) {
      // Only reachable when the named revision was valid but not acceptable (e.g. a conversation's
      // superseded offer): the next window gives a different expires_at, so a different revision.
      epochSeconds += this.#windowSeconds;
      expiresAt = rfc3339(epochSeconds);
      revision = this.#revision(context, scope, operationId, description, expiresAt, epochSeconds);
    }
    return { operation_id: operationId, revision, summary: description.summary, terms: description.terms, expires_at: expiresAt };
  }

  /**
   * Check 3 of section 6, with check 1 for an operation not performed yet: "The revision is one
   * the Company returned for this operation, it hasn't expired, and the request asks for exactly
   * what it describes." Returns the scope the revision belongs to, or null.
   */
  #verify(context: CheckContext, operationId: string, description: Description, revision: string): Scope | null {
    const m = REVISION.exec(revision);
    if (m === null) return null;
    const epochSeconds = Number(m[1]);
    const now = this.#now();
    // Section 3, `expires_at`: "The last time an approval of this revision is accepted".
    // SpecBreak `accept-expired-revision` skips it (breaks section 6, check 3: "it hasn't expired").
    if (now > epochSeconds * 1000 && !this.#breaks('accept-expired-revision')) return null;
    // Never an expiry we could not have returned: on a window, and not beyond the longest TTL. That
    // is two windows past the TTL: #issue rounds up to a window, and moves one window further when
    // the rounded revision is the one the approval named (section 6: "MUST NOT answer an approval
    // with the revision it names"), and that revision must be accepted in its turn.
    if (epochSeconds % this.#windowSeconds !== 0 || epochSeconds * 1000 > now + this.#ttlMs + 2 * this.#windowSeconds * 1000) return null;
    const expiresAt = rfc3339(epochSeconds);
    for (const scope of this.#scopes(context.caller)) {
      const candidate = this.#revision(context, scope, operationId, description, expiresAt, epochSeconds);
      if (candidate.length === revision.length && timingSafeEqual(Buffer.from(candidate), Buffer.from(revision))) return scope;
    }
    return null;
  }

  /** The record of an operation that passed every check, if it is still remembered. */
  record(operationId: string): OperationRecord | undefined {
    const record = this.#records.get(operationId);
    // SpecBreak `forget-early`: forgotten long before expires_at (breaks section 7, "MUST remember
    // that it performed an operation at least until the approved revision's expires_at").
    if (record?.status === 'performed' && this.#breaks('forget-early') && this.#now() >= record.startedAt + FORGET_EARLY_MS) {
      this.#records.delete(operationId);
      return undefined;
    }
    return record;
  }

  #busy(record: OperationRecord): Decision {
    return { kind: 'busy', record, retryAfterSeconds: Math.max(1, Math.ceil((record.busyUntil - Date.now()) / 1000)) };
  }

  /**
   * Decide a request. Pure: nothing changes until `perform` is called with a `perform` decision
   * (only SpecBreak `start-before-approval` writes something here, on purpose).
   *
   * Order (section 6, "respond as the first one that fails says"): the extension is declared
   * (section 2); check 1, the Session can approve the operation (section 3), else the request is
   * handled as if it had no approval; check 2, not performed already, else section 7; then the
   * ordinary checks of the request against the records (the item still exists...); check 3.
   *
   * An approval that names another operation than the one this request is for is not an
   * approval of this request's operation: it fails check 3 ("one the Company returned for this
   * operation") and the request gets its own operation.
   */
  decide(context: CheckContext, plan: ActionPlan): Decision {
    const now = this.#now();
    // The operation for this caller, or, when the approval names one of this action for another of
    // the caller's scopes (its own Session's, from before it signed in), that one.
    const scopes = this.#scopes(context.caller);
    const ids = scopes.map((scope) => this.operationId(plan.prefix, plan.identity, scope));
    const named = context.approval === undefined ? -1 : ids.indexOf(context.approval.operation_id);
    const operationId = ids[named === -1 ? scopes.indexOf(this.#primary(context.caller)) : named]!;
    // SpecBreak `operations-without-declaration` treats every request as declared (breaks section 2).
    if (!context.declared && !this.#breaks('operations-without-declaration')) {
      // Section 2: "A Company MUST NOT return operations in response to a request that doesn't declare it."
      const described = plan.describe(now, operationId);
      return described.ok ? { kind: 'extension_required' } : { kind: 'refused', error: described.error };
    }
    const approval = named === -1 ? undefined : context.approval;
    const record = this.record(operationId);
    // Check 1 (section 3, "Who can approve it"): "A signed-out Session of the same Personal Agent and
    // User gets a challenge for the account." An account's operation of this action, held by a
    // Session that is signed out: its revision says it was returned signed in.
    if (approval === undefined && context.approval !== undefined && context.caller.accountId === null && this.#sameAction(plan, context.approval.operation_id)) {
      const accountRecord = this.#records.get(context.approval.operation_id);
      const accountOwned = accountRecord !== undefined ? accountRecord.scope.startsWith('account:') : REVISION.exec(context.approval.revision)?.[2] === 'a';
      if (accountOwned) return { kind: 'challenge' };
    }
    // Otherwise an approval for another Session's or account's operation is handled as if the
    // request had none ("If it can't, the Company handles the request as if it had no approval"):
    // it named no operation of this caller's.
    const remembered = record === undefined ? undefined : this.#remembered(record, approval);
    if (remembered !== undefined) return remembered;
    const described = plan.describe(now, operationId);
    if (!described.ok) return { kind: 'refused', error: described.error };
    if (approval !== undefined) {
      const scope = this.#verify(context, operationId, described.description, approval.revision);
      if (scope !== null && (context.acceptRevision?.(approval.revision) ?? true)) {
        const epochSeconds = Number(REVISION.exec(approval.revision)?.[1]);
        return { kind: 'perform', context, operationId, scope, approval, expiresAt: rfc3339(epochSeconds), description: described.description };
      }
    }
    return this.#operation(context, operationId, described.description, approval);
  }

  /** Check 2 for an operation that passed every check before: section 7, or undefined to go on. */
  #remembered(record: OperationRecord, approval: Approval | undefined): Decision | undefined {
    if (record.status !== 'performed') {
      // SpecBreak `fail-while-performing` says it failed (breaks section 7, "MUST NOT respond as if it failed").
      if (this.#breaks('fail-while-performing')) return refusal(409, 'operation_failed', `operation ${record.operationId} failed`);
      // Section 7: "While an operation is being performed, or the Company doesn't know whether it
      // took effect ... the Company MUST NOT respond as if it failed." Also for a request without
      // an approval: the action is under way, and a new operation for it would invite a second
      // approval.
      return this.#busy(record);
    }
    if (approval === undefined) return undefined;
    // SpecBreak `replay-error` refuses the replay (breaks section 7, "gets the response the Company gave the first time").
    if (this.#breaks('replay-error')) return refusal(409, 'already_performed', `operation ${record.operationId} was already done`);
    // Check 2: "A request with the approval of an operation already performed gets the response
    // the Company gave the first time".
    return { kind: 'performed', record: record as OperationRecord & { outcome: Outcome } };
  }

  /**
   * Section 4 without an approval; section 6 "If check 3 fails, it performs nothing and returns
   * the operation with a revision for what the request asks".
   */
  #operation(context: CheckContext, operationId: string, description: Description, approval: Approval | undefined): Decision {
    // SpecBreak `start-before-approval` starts the action now (breaks section 3, "MUST NOT start the action before it receives an approval for it").
    if (context.approval === undefined && this.#breaks('start-before-approval')) description.startEarly?.();
    // SpecBreak `hold-before-approval` places the card hold now (breaks the same sentence, seen on the payments only).
    if (context.approval === undefined && this.#breaks('hold-before-approval')) description.holdEarly?.();
    const operation = this.#issue(context, operationId, description, context.approval?.revision);
    // SpecBreak `echo-named-revision` answers with the revision named (breaks section 6, "MUST NOT answer an approval with the revision it names").
    if (approval !== undefined && this.#breaks('echo-named-revision')) return { kind: 'operation', operation: withRevision(operation, approval.revision) };
    // SpecBreak `echo-expired-revision` does so for an expired revision only: the operation the approval named, unchanged (breaks the same sentence).
    if (approval !== undefined && this.#breaks('echo-expired-revision') && this.#expired(approval.revision)) return { kind: 'operation', operation: withRevision(operation, approval.revision) };
    return { kind: 'operation', operation };
  }

  /** Whether a revision's expires_at (its epoch seconds) has passed. */
  #expired(revision: string): boolean {
    const epochSeconds = REVISION.exec(revision)?.[1];
    return epochSeconds !== undefined && this.#now() > Number(epochSeconds) * 1000;
  }

  #take(fault: 'dropAfterPerform' | 'crashAfterPerform'): boolean {
    if (this.#faults[fault] <= 0) return false;
    this.#faults[fault] -= 1;
    return true;
  }

  /**
   * Perform an approved operation: at most once (section 7). The record exists from the first
   * synchronous step, so every later request for the operation sees it (JavaScript runs this
   * turn to its first await before any other request).
   */
  perform(decision: PerformDecision): Promise<Performed> {
    // SpecBreak `perform-twice-concurrently`: check-then-act around a slow read, and an existing
    // record isn't refused, so approvals that arrive meanwhile all perform (breaks section 7, "The
    // Company MUST perform each operation at most once").
    if (this.#breaks('perform-twice-concurrently')) return sleep(SLOW_DATABASE_MS).then(() => this.#start(decision));
    // SpecBreak `lock-per-revision`: the same slow read, behind a lock keyed by the approval, so
    // approvals of one revision wait for each other and two revisions approved at once both
    // perform (breaks section 3, "Whichever revision is approved, the Company MUST perform each
    // operation at most once").
    if (this.#breaks('lock-per-revision')) return this.#lockedByRevision(decision);
    // Section 7, at most once: the callers check first, so this is the last guard, typed like every refusal.
    if (this.#records.has(decision.operationId)) throw new CountersignError('ERR_NOT_ALLOWED', `operation ${decision.operationId}: already recorded, so never performed again`);
    return this.#start(decision);
  }

  #lockedByRevision(decision: PerformDecision): Promise<Performed> {
    const key = `${decision.operationId} ${decision.approval.revision}`;
    const held = this.#revisionLocks.get(key);
    if (held !== undefined) return held;
    const performing = sleep(SLOW_DATABASE_MS).then(() => this.#start(decision));
    this.#revisionLocks.set(key, performing);
    return performing;
  }

  #start(decision: PerformDecision): Promise<Performed> {
    let settle!: () => void;
    const hold = Math.max(0, this.#faults.holdPerformMs);
    const record: OperationRecord = {
      operationId: decision.operationId,
      scope: decision.scope,
      revision: decision.approval.revision,
      expiresAt: decision.expiresAt,
      status: 'performing',
      busyUntil: Date.now() + hold,
      startedAt: this.#now(),
      settled: new Promise<void>((resolve) => {
        settle = resolve;
      }),
    };
    this.#records.set(decision.operationId, record);
    return this.#run(record, decision.description, hold, settle);
  }

  async #run(record: OperationRecord, description: Description, hold: number, settle: () => void): Promise<Performed> {
    if (hold > 0) await sleep(hold);
    let outcome: Outcome;
    try {
      outcome = description.perform();
    } catch (cause) {
      // Nothing took effect: forget the record, so the operation can still be performed once.
      this.#records.delete(record.operationId);
      settle();
      throw cause;
    }
    this.#performed.set(record.operationId, (this.#performed.get(record.operationId) ?? 0) + 1);
    record.outcome = outcome;
    const crash = this.#take('crashAfterPerform');
    const drop = !crash && this.#take('dropAfterPerform');
    const unknownMs = crash ? Math.max(0, this.#faults.crashUnknownMs) : 0;
    if (unknownMs > 0) {
      // After the simulated crash the Company doesn't know for a while whether the action took
      // effect (section 7): retries get 503 until it has found out.
      record.status = 'unknown';
      record.busyUntil = Date.now() + unknownMs;
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        record.status = 'performed';
        settle();
      }, unknownMs);
      timer.unref();
      this.#timers.add(timer);
    } else {
      record.status = 'performed';
      settle();
    }
    return { record: record as OperationRecord & { outcome: Outcome }, connection: crash ? 'crash' : drop ? 'drop' : 'answer' };
  }

  /** Stop the timers of the crash fault (the Company is closing). */
  close(): void {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }
}
