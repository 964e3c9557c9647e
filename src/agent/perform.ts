// Longer than 500 lines on purpose: the perform loop is one state machine (spec sections 5-7, from
// the first request to the reported outcome), and each step's rule reads next to the others it
// depends on. The interfaces (interfaces/) and the journal (perform-journal.ts) live apart.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { parseExtensionsHeader, formatExtensionsHeader, supportsOperationsV2 } from '../protocol/advertising-support';
import type { Approval } from '../protocol/approval';
import { companyFromPoppyJson, type Company } from '../protocol/company';
import { CountersignError, isCountersignError } from '../protocol/errors';
import { ID_RULE, isId } from '../protocol/id';
import { describeNumber, describeValue } from '../protocol/issues';
import { isPlainObject, toJsonValue } from '../protocol/json';
import type { Operation } from '../protocol/operation';
import type { ApprovalResult, Companion, RequestContext, SessionContext } from './companion';
import type { Outcome } from './journal';
import { apiAdapter, type ApiResponse } from './interfaces/api';
import { describeError, readResponse, throwIfCallerAborted, type Adapter, type FetchLike, type Live, type SendAnswer } from './interfaces/common';
import { conversationAdapter, type ConversationOptions, type ConversationResponse } from './interfaces/conversation';
import { mcpAdapter, type McpOptions } from './interfaces/mcp';
import {
  freshIdempotencyKey,
  freshMessageId,
  requestFingerprint,
  sharedPerformJournal,
  type PerformEntry,
  type PerformJournal,
  type PerformState,
  type StoredRequest,
} from './perform-journal';

/**
 * `performWithApproval` for each interface: performApi, performTool, performConversation.
 *
 * The whole of the Personal Agent's side of the `operations` extension v2 for one action:
 *
 * 1. Section 2: read the Company's poppy.json (or take it) and declare `Poppy-Extensions:
 *    "operations";v="2"` only when it lists version 2. Otherwise the request goes without the
 *    extension and the Company handles approval itself (`answered`, `extension: false`).
 * 2. Section 4: make the request. An operation in the answer is not the action done (section 5).
 * 3. Section 5: ask the User through the companion (the Countersign extension's own window).
 *    Only a signed, verified approval goes on; a decline, an expiry, a withdrawal stop here.
 * 4. Section 5/6: `markSent` right before sending (false: the User withdrew it, nothing is sent),
 *    then send the SAME request with the approval through the same interface.
 * 5. Section 7: after a network error, a timeout or a 503 send the same approval again (bounded,
 *    honouring Retry-After up to a cap). A new operation in answer to a retry doesn't say whether
 *    the first one was performed: the caller's `findOutcome` is asked. While the outcome is not
 *    known the User is never asked about this action again: the journal (perform-journal.ts)
 *    keeps the approval in flight, also across a crash, and the next call resumes it.
 * 6. The outcome goes to the extension (`reportOutcome`): performed, failed, new_revision, unknown.
 */

// ---------------------------------------------------------------------------------------------
// Public types

/** What perform needs of a Companion (so tests and other transports can stand in for it). */
export type ApprovalCompanion = Pick<Companion, 'requestApproval' | 'markSent' | 'reportOutcome' | 'isWithdrawn'> & { readonly configDir?: string };

export interface FindOutcomeQuery {
  operation: Operation;
  approval: Approval;
  /** The request the approval was sent with. */
  request: StoredRequest;
  signal?: AbortSignal | undefined;
}

/**
 * What the caller learned about an operation some other way (section 7: "such as from the order
 * in the Company's API"). `undefined`: it could not tell.
 */
export type FoundOutcome = { performed: boolean; evidence?: unknown } | undefined;
export type FindOutcome = (query: FindOutcomeQuery) => Promise<FoundOutcome>;

export interface RetryOptions {
  /** Attempts per call for one request (the first request, or the one with the approval). Default 6. */
  attempts?: number;
  /** Limit of one attempt, in ms. Default 30 000. */
  timeoutMs?: number;
  /** First backoff after a failure without Retry-After, in ms; doubled each time, with jitter. Default 200. */
  backoffMs?: number;
  /** Largest backoff, in ms. Default 5 000. */
  maxBackoffMs?: number;
  /** Largest wait a Retry-After can ask for, in ms. Default 30 000. */
  maxRetryAfterMs?: number;
}

export type PerformStep = 'poppy_json' | 'request' | 'operation' | 'resume' | 'journal' | 'attempt' | 'retry' | 'find_outcome' | 'outcome';

export interface PerformProgress {
  step: PerformStep;
  operation_id?: string;
  revision?: string;
  state?: PerformState;
  attempt?: number;
  detail?: string;
}

export interface PerformCommon {
  companion: ApprovalCompanion;
  /** The Company: its origin, and its name unless poppy.json's `organization.name` is to be used (section 5: shown to the User). */
  company: { origin: string; name?: string };
  /** The Company's poppy.json, when the caller has it; otherwise it is fetched from the origin. */
  poppyJson?: unknown;
  /** The Session the request is made in (section 3, "Who can approve it"), as the User is shown it. */
  session: SessionContext;
  /** Poppy headers for every request: Poppy-Session, Poppy-Version, Authorization... */
  headers?: Record<string, string>;
  /** How to learn whether an operation was performed when the Company's answers don't say (section 7). */
  findOutcome?: FindOutcome;
  /** The journal, or its folder; default the companion's config folder. */
  journal?: PerformJournal;
  journalDir?: string;
  signal?: AbortSignal;
  /** Default globalThis.fetch. */
  fetch?: FetchLike;
  retry?: RetryOptions;
  onProgress?: (event: PerformProgress) => void;
}

export interface PerformApiInput extends PerformCommon {
  request: { method: string; url: string; body?: unknown; headers?: Record<string, string> };
  /**
   * The Idempotency-Key of the request with the approval: `fresh` (default) gives it its own,
   * `none` sends none. The first request's key never carries over (section 6).
   */
  approvalIdempotencyKey?: 'fresh' | 'none';
}

export interface PerformToolInput extends PerformCommon, McpOptions {
  /** The MCP server (Streamable HTTP). Default poppy.json `interfaces.mcp`, else `<origin>/mcp`. */
  serverUrl?: string;
  tool: string;
  arguments: Record<string, unknown>;
}

export interface PerformConversationInput extends PerformCommon, Pick<ConversationOptions, 'approvalText'> {
  /** Required: the Company Agent says how it went in words only (section 6). */
  findOutcome: FindOutcome;
  /** The conversations endpoint. Default poppy.json `interfaces.conversations`, else `<origin>/conversations`. */
  conversationsUrl?: string;
  conversationId: string;
  /** The message asking for the action. Give it an `id` so that a restarted agent resumes the same action. */
  message: { id?: string; text: string };
  /** How long to wait for the Company Agent's reply to a message. Default 10 000 ms. */
  replyTimeoutMs?: number;
}

interface Base {
  /** True when this result comes from an approval sent earlier (a retry after a restart, or of the same action). */
  resumed: boolean;
}

export type NotApprovedStatus = 'declined' | 'expired' | 'superseded' | 'withdrawn' | 'unavailable';

export type PerformResult<R> =
  /** Performed: the Company's response to the approval, or what findOutcome found (`confirmedBy`). */
  | (Base & { status: 'performed'; operation: Operation; approval: Approval; response?: R | undefined; evidence?: unknown; confirmedBy: 'response' | 'find_outcome'; reported: boolean })
  /** The Company answered the approval with a new revision (check 3 failed): not performed. Ask about `operation` (call again). */
  | (Base & { status: 'new_revision'; operation: Operation; previous: Operation; approval: Approval; response?: R | undefined; reported: boolean })
  /** The Company refused the approved request (a tool error, a 4xx, an error in words): not performed. */
  | (Base & { status: 'not_performed'; operation: Operation; approval: Approval; response?: R | undefined; detail: string; reported: boolean })
  /** Not known whether it was performed: the approval stays in the journal and the next call for this action resumes it. */
  | (Base & { status: 'unknown'; operation?: Operation | undefined; approval?: Approval | undefined; detail: string; reported: boolean })
  /** The User didn't approve (or couldn't be asked): nothing was sent. */
  | (Base & { status: NotApprovedStatus; operation: Operation })
  /** No operation came back: the Company answered the request itself. `extension` says whether it was declared (section 2). */
  | (Base & { status: 'answered'; response: R; extension: boolean });

// ---------------------------------------------------------------------------------------------
// Internals

const DEFAULT_RETRY: Required<RetryOptions> = { attempts: 6, timeoutMs: 30_000, backoffMs: 200, maxBackoffMs: 5_000, maxRetryAfterMs: 30_000 };
const DEFAULT_REPLY_TIMEOUT_MS = 10_000;
const MAX_DETAIL = 500;

interface Ctx {
  companion: ApprovalCompanion;
  journal: PerformJournal;
  company: Company;
  session: SessionContext;
  findOutcome: FindOutcome | undefined;
  live: Live;
  retry: Required<RetryOptions>;
  progress: (event: PerformProgress) => void;
  approvalIdempotencyKey: 'fresh' | 'none';
  /** An adapter for any stored request, with this call's live context (resumed entries may be another interface's). */
  adapterFor(stored: StoredRequest): Adapter<unknown>;
  /** The interface of this call: results of other interfaces' entries carry their response as `evidence`. */
  iface: StoredRequest['interface'];
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function backoff(retry: Required<RetryOptions>, attempt: number, retryAfterMs: number | undefined): number {
  // Section 7 (503 "with a Retry-After header"): honoured, up to the cap.
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, retry.maxRetryAfterMs);
  const ceiling = Math.min(retry.maxBackoffMs, retry.backoffMs * 2 ** (attempt - 1));
  return Math.round(ceiling * (0.5 + Math.random() / 2));
}

function short(text: string): string {
  return text.length > MAX_DETAIL ? `${text.slice(0, MAX_DETAIL - 1)}…` : text;
}

function contextOf(stored: StoredRequest): RequestContext {
  switch (stored.interface) {
    case 'api':
      return { interface: 'api', method: stored.method, url: stored.url, ...(stored.body === undefined ? {} : { body: stored.body }) };
    case 'mcp':
      return { interface: 'mcp', server_url: stored.server_url, tool: stored.tool, arguments: stored.arguments };
    case 'conversation':
      return { interface: 'conversation', conversation_id: stored.conversation_id };
  }
}

function approvalOf(entry: PerformEntry): Approval {
  // The journal writes an approval with every state that needs one: without it, the file is damaged.
  if (entry.approval === undefined) throw new CountersignError('ERR_STORAGE_FAILED', `journal: operation ${entry.operation_id} in state ${entry.state}: expected its approval, got none`);
  return entry.approval;
}

/** Tell the extension the outcome, for its history. Never fails the perform: the Company's answer is what counts. */
async function report(ctx: Ctx, entry: PerformEntry, outcome: Outcome, detail: string): Promise<boolean> {
  ctx.progress({ step: 'outcome', operation_id: entry.operation_id, revision: entry.revision, detail: outcome });
  try {
    return await ctx.companion.reportOutcome({ operation_id: entry.operation_id, revision: entry.revision, outcome, detail: short(detail) });
  } catch {
    return false;
  }
}

async function put(ctx: Ctx, entry: PerformEntry, state: PerformState, detail?: string): Promise<void> {
  entry.state = state;
  if (detail !== undefined) entry.detail = short(detail);
  await ctx.journal.put(entry);
  ctx.progress({ step: 'journal', operation_id: entry.operation_id, revision: entry.revision, state });
}

/** A response of this call's interface goes in `response`; another interface's (a resumed entry) in `evidence`. */
function responseFields<R>(ctx: Ctx, entry: PerformEntry, response: unknown): { response?: R | undefined; evidence?: unknown } {
  if (response === undefined) return {};
  return entry.interface === ctx.iface ? { response: response as R } : { evidence: response };
}

// ---------------------------------------------------------------------------------------------
// The steps

/** Section 5: ask the User about one revision. */
async function ask(ctx: Ctx, entry: PerformEntry): Promise<ApprovalResult> {
  return ctx.companion.requestApproval({
    company: ctx.company,
    operation: entry.operation,
    request: contextOf(entry.request),
    session: ctx.session,
    ...(ctx.live.signal === undefined ? {} : { signal: ctx.live.signal }),
  });
}

/**
 * Drive one open entry to an answer: ask (state `asked`), mark sent and send (`approved`), or
 * send the same approval again (`sent`, `unknown`). The operation's lock is held by the caller.
 */
async function drive<R>(ctx: Ctx, entry: PerformEntry, resumed: boolean): Promise<PerformResult<R>> {
  if (entry.state === 'asked') {
    const result = await ask(ctx, entry);
    if (result.status !== 'approved') {
      // Nothing approved, nothing sent: nothing to resume.
      await ctx.journal.remove(entry.origin, entry.operation_id);
      return { status: result.status, operation: entry.operation, resumed };
    }
    // Not journaled yet: until `sent`, a restart re-asks, and the Companion answers a decided
    // revision from its own journal without a prompt. It is journaled below if it stops here.
    entry.approval = result.approval;
    entry.state = 'approved';
    ctx.progress({ step: 'journal', operation_id: entry.operation_id, revision: entry.revision, state: 'approved' });
  }
  if (entry.state === 'approved') {
    const approval = approvalOf(entry);
    // Section 5: "If the User withdraws their approval before the Personal Agent has sent it, the
    // Personal Agent doesn't send it." markSent is the last word: after it, no withdrawal.
    let sending: boolean;
    if (ctx.companion.isWithdrawn(approval.operation_id, approval.revision)) {
      sending = false;
    } else {
      try {
        sending = await ctx.companion.markSent(approval);
      } catch (error) {
        if (isCountersignError(error, 'ERR_COMPANION_UNAVAILABLE')) {
          // It cannot be told, so it is not sent yet (agent-sdk.md "markSent"); the entry stays `approved`.
          await put(ctx, entry, 'approved');
          return { status: 'unavailable', operation: entry.operation, resumed };
        }
        throw error;
      }
    }
    if (!sending) {
      await ctx.journal.remove(entry.origin, entry.operation_id);
      return { status: 'withdrawn', operation: entry.operation, resumed };
    }
    // Journaled before the first byte goes out: from here on a restart resumes the same approval.
    if (entry.request.interface === 'api' && ctx.approvalIdempotencyKey === 'fresh') entry.idempotency_key = freshIdempotencyKey();
    if (entry.request.interface === 'conversation') entry.message_id = freshMessageId();
    await put(ctx, entry, 'sent');
    return sendLoop(ctx, entry, false, resumed);
  }
  // `sent` or `unknown`: it may have reached the Company already.
  return sendLoop(ctx, entry, true, resumed);
}

/**
 * Section 6 and 7: send the approval, and again after a network error, a timeout or a 503, with
 * the same approval; never a new approval. `ambiguous`: an earlier attempt may have reached the
 * Company, so a new operation in answer doesn't say whether it was performed.
 */
async function sendLoop<R>(ctx: Ctx, entry: PerformEntry, ambiguous: boolean, resumed: boolean): Promise<PerformResult<R>> {
  const approval = approvalOf(entry);
  const adapter = ctx.adapterFor(entry.request);
  let last: SendAnswer<unknown> | undefined;
  for (let attempt = 1; attempt <= ctx.retry.attempts; attempt++) {
    ctx.progress({ step: 'attempt', operation_id: entry.operation_id, revision: entry.revision, attempt });
    const answer = await adapter.send(approval, entry);
    last = answer;
    switch (answer.kind) {
      case 'retry': {
        ambiguous = true;
        if (attempt === ctx.retry.attempts) break;
        const delay = backoff(ctx.retry, attempt, answer.retryAfterMs);
        ctx.progress({ step: 'retry', operation_id: entry.operation_id, revision: entry.revision, attempt, detail: `${answer.detail}; again in ${delay} ms` });
        await sleep(delay, ctx.live.signal);
        continue;
      }
      case 'performed':
        return settlePerformed(ctx, entry, 'response', responseFields<R>(ctx, entry, answer.response), resumed);
      case 'operation': {
        if (answer.operation.operation_id !== entry.operation_id) {
          const detail = `the Company answered with another operation (${answer.operation.operation_id})`;
          if (!ambiguous) return settleNotPerformed(ctx, entry, detail, answer.response, resumed);
          return resolve(ctx, entry, { kind: 'failed', detail, response: answer.response }, resumed);
        }
        // Check 3 failed: "it performs nothing and returns the operation with a revision for what
        // the request asks". Unless an earlier attempt may have been performed and forgotten
        // (section 7: "A new operation in answer to a retry doesn't say").
        if (!ambiguous) return settleNewRevision(ctx, entry, answer.operation, answer.response, resumed);
        return resolve(ctx, entry, { kind: 'new_revision', operation: answer.operation, response: answer.response }, resumed);
      }
      case 'refused':
        if (!ambiguous) return settleNotPerformed(ctx, entry, answer.detail, answer.response, resumed);
        return resolve(ctx, entry, { kind: 'failed', detail: answer.detail, response: answer.response }, resumed);
      case 'check':
        return resolve(ctx, entry, { kind: 'failed', detail: answer.detail, response: answer.response }, resumed);
    }
  }
  const detail = last?.kind === 'retry' ? last.detail : 'no answer';
  return resolve(ctx, entry, { kind: 'exhausted', detail: `${ctx.retry.attempts} attempts: ${detail}` }, resumed);
}

type Unresolved =
  /** A new operation came back after an attempt that may have been performed. */
  | { kind: 'new_revision'; operation: Operation; response: unknown }
  /** An answer that isn't performance, after an attempt that may have been, or one in words only. */
  | { kind: 'failed'; detail: string; response: unknown }
  /** Every attempt failed or timed out: one may still be on its way. */
  | { kind: 'exhausted'; detail: string };

/** Section 7: "the Personal Agent finds out another way, such as from the order in the Company's API". */
async function resolve<R>(ctx: Ctx, entry: PerformEntry, what: Unresolved, resumed: boolean): Promise<PerformResult<R>> {
  const approval = approvalOf(entry);
  let found: FoundOutcome;
  let note = '';
  if (ctx.findOutcome !== undefined) {
    try {
      found = await ctx.findOutcome({ operation: entry.operation, approval, request: entry.request, signal: ctx.live.signal });
    } catch (error) {
      throwIfCallerAborted(ctx.live);
      found = undefined;
      note = `; findOutcome failed: ${describeError(error)}`;
    }
    ctx.progress({ step: 'find_outcome', operation_id: entry.operation_id, revision: entry.revision, detail: found === undefined ? 'unknown' : found.performed ? 'performed' : 'not performed' });
  } else {
    note = '; no findOutcome to ask';
  }
  const response = what.kind === 'exhausted' ? undefined : what.response;
  if (found?.performed === true) {
    return settlePerformed(ctx, entry, 'find_outcome', { ...responseFields<R>(ctx, entry, response), ...(found.evidence === undefined ? {} : { evidence: found.evidence }) }, resumed);
  }
  if (found?.performed === false) {
    if (what.kind === 'new_revision') return settleNewRevision(ctx, entry, what.operation, response, resumed);
    // The Company gave a definite answer and the action isn't there: not performed.
    if (what.kind === 'failed') return settleNotPerformed(ctx, entry, what.detail, response, resumed);
    // Exhausted: not there *yet*; an attempt may still arrive. It stays open.
  }
  const detail = `${what.kind === 'new_revision' ? `a new revision (${what.operation.revision}) came back after an attempt that may have been performed` : what.detail}${note}`;
  await put(ctx, entry, 'unknown', detail);
  const reported = await report(ctx, entry, 'unknown', detail);
  return { status: 'unknown', operation: entry.operation, approval, detail: short(detail), reported, resumed };
}

async function settlePerformed<R>(ctx: Ctx, entry: PerformEntry, confirmedBy: 'response' | 'find_outcome', fields: { response?: R | undefined; evidence?: unknown }, resumed: boolean): Promise<PerformResult<R>> {
  const detail = confirmedBy === 'response' ? `performed (${entry.request.interface})` : 'performed (found out with findOutcome)';
  await put(ctx, entry, 'performed', detail);
  const reported = await report(ctx, entry, 'performed', detail);
  return { status: 'performed', operation: entry.operation, approval: approvalOf(entry), confirmedBy, reported, resumed, ...fields };
}

async function settleNewRevision<R>(ctx: Ctx, entry: PerformEntry, next: Operation, response: unknown, resumed: boolean): Promise<PerformResult<R>> {
  const detail = `not performed: the Company answered with revision ${next.revision}`;
  await put(ctx, entry, 'new_revision', detail);
  const reported = await report(ctx, entry, 'new_revision', detail);
  return { status: 'new_revision', operation: next, previous: entry.operation, approval: approvalOf(entry), reported, resumed, ...responseFields<R>(ctx, entry, response) };
}

async function settleNotPerformed<R>(ctx: Ctx, entry: PerformEntry, detail: string, response: unknown, resumed: boolean): Promise<PerformResult<R>> {
  const text = `not performed: ${detail}`;
  await put(ctx, entry, 'failed', text);
  const reported = await report(ctx, entry, 'failed', text);
  return { status: 'not_performed', operation: entry.operation, approval: approvalOf(entry), detail: short(detail), reported, resumed, ...responseFields<R>(ctx, entry, response) };
}

/**
 * An earlier open entry of the same action, found when this call's request came back with
 * `next` (or before any request, `next` undefined). Section 7: what was sent is resolved before
 * anything new is asked. Returns a result to hand back, or undefined to go on with `next`.
 */
async function settleEarlier<R>(ctx: Ctx, earlier: PerformEntry, next: Operation | undefined): Promise<PerformResult<R> | undefined> {
  ctx.progress({ step: 'resume', operation_id: earlier.operation_id, revision: earlier.revision, state: earlier.state });
  if (earlier.state === 'sent' || earlier.state === 'unknown') {
    const result = await drive<R>(ctx, earlier, true);
    // Performed, or still not known: the User is not asked about this action (section 7).
    if (result.status === 'not_performed' || result.status === 'new_revision') return undefined;
    return result;
  }
  if (next === undefined || next.revision === earlier.revision) {
    // Never sent, and the same revision as now: it is this very action; go on with it.
    const result = await drive<R>(ctx, earlier, true);
    if (result.status === 'not_performed' || result.status === 'new_revision' || result.status === 'expired' || result.status === 'superseded') return undefined;
    return result;
  }
  // Never sent, and the terms have moved on: that approval will never be sent.
  if (earlier.state === 'approved') {
    await put(ctx, earlier, 'failed', `not sent: the Company returned revision ${next.revision} first`);
    await report(ctx, earlier, 'failed', `not sent: superseded by revision ${next.revision} before it was sent`);
  } else {
    await ctx.journal.remove(earlier.origin, earlier.operation_id);
  }
  return undefined;
}

/**
 * Ask about `entry` (state `asked`). The Companion refuses a new revision while an approved one
 * of the same operation has no known outcome (ERR_OUTCOME_PENDING). When that one is a revision
 * this journal knows was never sent (`neverSent`), it is settled as failed first.
 */
async function askNew<R>(ctx: Ctx, entry: PerformEntry, neverSent: Operation | undefined): Promise<PerformResult<R>> {
  try {
    return await drive<R>(ctx, entry, false);
  } catch (error) {
    if (!isCountersignError(error, 'ERR_OUTCOME_PENDING') || neverSent === undefined || entry.state !== 'asked') throw error;
    // A crash between the User's approval and our journal: the Companion has it, we never sent it.
    // A decided revision is answered from the Companion's journal at once; anything that would
    // wait for the person instead is cut short, and the refusal stands.
    let stored: ApprovalResult;
    try {
      stored = await ctx.companion.requestApproval({ company: ctx.company, operation: neverSent, request: contextOf(entry.request), session: ctx.session, signal: AbortSignal.timeout(2_000) });
    } catch {
      throw error;
    }
    if (stored.status === 'approved') {
      await ctx.companion.reportOutcome({ operation_id: neverSent.operation_id, revision: neverSent.revision, outcome: 'failed', detail: 'not sent: superseded before it was sent' });
    }
    return drive<R>(ctx, entry, false);
  }
}

async function perform<R>(ctx: Ctx, adapter: Adapter<R>, declared: boolean): Promise<PerformResult<R>> {
  const origin = ctx.company.origin;
  const fingerprint = requestFingerprint(origin, adapter.stored);
  return ctx.journal.exclusive(`request ${fingerprint}`, async () => {
    // The same request with an approval in flight (a restarted agent, a caller retrying): resume it.
    const same = ctx.journal.openByFingerprint(origin, fingerprint);
    if (same !== undefined) {
      const result = await ctx.journal.exclusive(`operation ${origin} ${same.operation_id}`, async () => {
        const current = ctx.journal.openByOperation(origin, same.operation_id);
        return current === undefined ? undefined : settleEarlier<R>(ctx, current, undefined);
      });
      if (result !== undefined) return result;
    }

    // Sections 2 and 4: the request, declared only when the Company lists v2.
    const first = await firstRequest(ctx, adapter);
    if (first.kind === 'retry') {
      return { status: 'unknown', detail: short(`the request got no answer: ${first.detail}`), reported: false, resumed: false };
    }
    if (first.kind === 'answer' || !declared) {
      // No operation (or no extension: then the Company handles approval itself, section 2).
      return { status: 'answered', response: first.response, extension: declared, resumed: false };
    }
    const operation = first.operation;
    ctx.progress({ step: 'operation', operation_id: operation.operation_id, revision: operation.revision });

    return ctx.journal.exclusive(`operation ${origin} ${operation.operation_id}`, async () => {
      // Section 7: an earlier approval of this action whose outcome is open is resolved first.
      let neverSent: Operation | undefined;
      const earlier = ctx.journal.openByOperation(origin, operation.operation_id);
      if (earlier !== undefined) {
        if (earlier.state === 'asked' && earlier.revision !== operation.revision) neverSent = earlier.operation;
        const result = await settleEarlier<R>(ctx, earlier, operation);
        if (result !== undefined) return result;
      }
      const now = Date.now();
      const entry: PerformEntry = {
        origin,
        company_name: ctx.company.name,
        interface: adapter.stored.interface,
        fingerprint,
        request: adapter.stored,
        operation_id: operation.operation_id,
        revision: operation.revision,
        operation,
        state: 'asked',
        created_at: now,
        updated_at: now,
      };
      await put(ctx, entry, 'asked');
      return askNew<R>(ctx, entry, neverSent);
    });
  });
}

/** The request without an approval, sent again after a failure only when that is safe. */
async function firstRequest<R>(ctx: Ctx, adapter: Adapter<R>): ReturnType<Adapter<R>['first']> {
  const attempts = adapter.firstIsRetryable ? ctx.retry.attempts : 1;
  let answer: Awaited<ReturnType<Adapter<R>['first']>> | undefined;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    ctx.progress({ step: 'request', attempt });
    answer = await adapter.first();
    if (answer.kind !== 'retry' || attempt === attempts) return answer;
    await sleep(backoff(ctx.retry, attempt, answer.retryAfterMs), ctx.live.signal);
  }
  return answer as Awaited<ReturnType<Adapter<R>['first']>>;
}

// ---------------------------------------------------------------------------------------------
// Setting up a call

const MANAGED = new Set(['poppy-approval', 'poppy-extensions', 'idempotency-key', 'content-length', 'host', 'content-type']);

interface Prepared {
  ctx: Omit<Ctx, 'adapterFor' | 'iface'>;
  poppyJson: unknown;
  declared: boolean;
  headers: Record<string, string>;
  contentType: string | undefined;
}

function lower(headers: Record<string, string> | undefined): Map<string, [string, string]> {
  const map = new Map<string, [string, string]>();
  for (const [name, value] of Object.entries(headers ?? {})) map.set(name.toLowerCase(), [name, value]);
  return map;
}

async function fetchPoppyJson(origin: string, fetcher: FetchLike, retry: Required<RetryOptions>, signal: AbortSignal | undefined): Promise<unknown> {
  let problem = 'no answer';
  for (let attempt = 1; attempt <= retry.attempts; attempt++) {
    try {
      const timeout = AbortSignal.timeout(retry.timeoutMs);
      const response = await fetcher(`${origin}/.well-known/poppy.json`, { headers: { Accept: 'application/json' }, signal: signal === undefined ? timeout : AbortSignal.any([signal, timeout]) });
      const { body } = await readResponse(response);
      if (response.status === 200 && body !== undefined) return body;
      problem = `HTTP ${response.status}`;
      if (response.status < 500) break;
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      problem = describeError(error);
    }
    if (attempt < retry.attempts) await sleep(backoff(retry, attempt, undefined), signal);
  }
  throw new CountersignError('ERR_POPPY_JSON_INVALID', `${origin}/.well-known/poppy.json could not be read (${problem})`);
}

async function prepare(input: PerformCommon & { approvalIdempotencyKey?: 'fresh' | 'none'; replyTimeoutMs?: number }, extraHeaders?: Record<string, string>): Promise<Prepared & { firstIdempotencyKey: string | undefined }> {
  if (input.companion === undefined || typeof input.companion.requestApproval !== 'function') {
    throw new CountersignError('ERR_ARGUMENT_INVALID', `companion: expected a Companion, got ${describeValue(input.companion)}`);
  }
  const retry: Required<RetryOptions> = { ...DEFAULT_RETRY, ...(input.retry ?? {}) };
  for (const [key, value] of Object.entries(retry)) {
    if (!Number.isFinite(value) || value < 0 || (key === 'attempts' && (!Number.isInteger(value) || value < 1))) {
      const wanted = key === 'attempts' ? 'a whole number ≥ 1' : 'a number ≥ 0';
      throw new CountersignError('ERR_ARGUMENT_INVALID', `retry.${key}: expected ${wanted}, got ${describeNumber(value)}`);
    }
  }
  input.signal?.throwIfAborted();
  const fetcher: FetchLike = input.fetch ?? ((url, init) => fetch(url, init));
  const origin = input.company?.origin;
  if (typeof origin !== 'string') throw new CountersignError('ERR_ARGUMENT_INVALID', `company.origin: expected a serialized origin such as https://shop.example, got ${describeValue(origin)}`);
  const poppyJson = input.poppyJson ?? (await fetchPoppyJson(origin, fetcher, retry, input.signal));
  // Section 2: "The extension is used only when the Company lists operations with version "2"".
  const declared = supportsOperationsV2(poppyJson);
  // Section 5: the Company's name as the agent resolved it (organization.name), with its origin.
  const company = companyFromPoppyJson(input.company.name === undefined ? poppyJson : { organization: { name: input.company.name } }, origin);

  const all = lower({ ...(input.headers ?? {}), ...(extraHeaders ?? {}) });
  if (all.has('poppy-approval')) {
    throw new CountersignError('ERR_ARGUMENT_INVALID', 'headers: expected no Poppy-Approval (perform sends it, with the approval the User gave), got one');
  }
  const headers: Record<string, string> = {};
  for (const [key, [name, value]] of all) if (!MANAGED.has(key)) headers[name] = value;
  // Other extensions the caller declares stay; operations v2 is declared by us, and only when the Company lists it.
  let extensionsHeader = declared ? formatExtensionsHeader() : undefined;
  const theirs = all.get('poppy-extensions')?.[1];
  if (theirs !== undefined && theirs.trim() !== '') {
    if (parseExtensionsHeader(theirs)) {
      throw new CountersignError(
        'ERR_ARGUMENT_INVALID',
        'headers: expected a Poppy-Extensions without the operations extension (perform declares it when the Company lists it, section 2), got one with it',
      );
    }
    extensionsHeader = extensionsHeader === undefined ? theirs : `${theirs}, ${extensionsHeader}`;
  }

  const journal = input.journal ?? (await sharedPerformJournal(input.journalDir ?? input.companion.configDir ?? failNoJournal()));
  const live: Live = {
    headers,
    firstIdempotencyKey: all.get('idempotency-key')?.[1],
    extensionsHeader,
    fetch: fetcher,
    signal: input.signal,
    timeoutMs: retry.timeoutMs,
    replyTimeoutMs: input.replyTimeoutMs ?? DEFAULT_REPLY_TIMEOUT_MS,
  };
  const onProgress = input.onProgress;
  return {
    ctx: {
      companion: input.companion,
      journal,
      company,
      session: input.session,
      findOutcome: input.findOutcome,
      live,
      retry,
      progress: (event) => {
        try {
          onProgress?.(event);
        } catch {
          // A listener's error is not the perform's.
        }
      },
      approvalIdempotencyKey: input.approvalIdempotencyKey ?? 'fresh',
    },
    poppyJson,
    declared,
    headers,
    contentType: all.get('content-type')?.[1],
    firstIdempotencyKey: all.get('idempotency-key')?.[1],
  };
}

function failNoJournal(): never {
  throw new CountersignError('ERR_ARGUMENT_INVALID', 'journalDir: expected a folder, since the companion has no configDir, got nothing');
}

/** An interface URL from poppy.json's `interfaces` (the reference Company's member), else under the origin. */
function interfaceUrl(poppyJson: unknown, name: 'mcp' | 'conversations', origin: string): string {
  const interfaces = isPlainObject(poppyJson) ? poppyJson.interfaces : undefined;
  const value = isPlainObject(interfaces) ? interfaces[name] : undefined;
  return typeof value === 'string' && /^https?:\/\//.test(value) ? value : `${origin}/${name}`;
}

function withAdapters(prepared: Prepared, iface: StoredRequest['interface'], options: { mcp?: McpOptions; conversation?: ConversationOptions }): Ctx {
  const ctx: Ctx = {
    ...prepared.ctx,
    iface,
    adapterFor(stored: StoredRequest): Adapter<unknown> {
      // Resumed entries are sent with this call's Session headers (never journaled) and the
      // declaration: the approval goes back through the interface that returned the operation.
      const live = { ...ctx.live, extensionsHeader: ctx.live.extensionsHeader ?? formatExtensionsHeader() };
      switch (stored.interface) {
        case 'api':
          return apiAdapter(stored, live);
        case 'mcp':
          return mcpAdapter(stored, live, stored.interface === iface ? options.mcp : {});
        case 'conversation':
          return conversationAdapter(stored, live, stored.interface === iface ? options.conversation : {});
      }
    },
  };
  return ctx;
}

// ---------------------------------------------------------------------------------------------
// Entry points

/**
 * Perform an API request that may need the User's approval (sections 4 and 6, "APIs").
 *
 * Throws CountersignError for bad input (ERR_ARGUMENT_INVALID), an unreadable poppy.json
 * (ERR_POPPY_JSON_INVALID), an unusable operation (ERR_OPERATION_INVALID), and the companion's
 * errors (ERR_AGENT_NOT_PAIRED, ERR_DECISION_*...); rejects with the signal's reason when aborted
 * (the journal keeps any approval in flight: call again to resume).
 */
export async function performApi(input: PerformApiInput): Promise<PerformResult<ApiResponse>> {
  const request = input.request;
  if (!isPlainObject(request)) throw new CountersignError('ERR_ARGUMENT_INVALID', `request: expected { method, url, body?, headers? }, got ${describeValue(request)}`);
  if (typeof request.method !== 'string') throw new CountersignError('ERR_ARGUMENT_INVALID', `request.method: expected an HTTP method, got ${describeValue(request.method)}`);
  const url = absoluteUrl(request.url, 'request.url');
  const prepared = await prepare(input, request.headers);
  if (request.body !== undefined) jsonCheck(request.body, 'request.body');
  const stored: StoredRequest = {
    interface: 'api',
    method: request.method,
    url,
    ...(request.body === undefined ? {} : { body: request.body as never }),
    ...(prepared.contentType === undefined ? {} : { content_type: prepared.contentType }),
  };
  const ctx = withAdapters(prepared, 'api', {});
  const adapter = apiAdapter(stored, ctx.live);
  return perform<ApiResponse>(ctx, adapter, prepared.declared);
}

/** Call an MCP tool that may need the User's approval (sections 4 and 6, "MCP"). Throws as performApi. */
export async function performTool(input: PerformToolInput): Promise<PerformResult<CallToolResult>> {
  if (typeof input.tool !== 'string' || input.tool === '') throw new CountersignError('ERR_ARGUMENT_INVALID', `tool: expected a tool name, got ${describeValue(input.tool)}`);
  if (!isPlainObject(input.arguments)) throw new CountersignError('ERR_ARGUMENT_INVALID', `arguments: expected an object, got ${describeValue(input.arguments)}`);
  jsonCheck(input.arguments, 'arguments');
  const prepared = await prepare(input);
  const serverUrl = absoluteUrl(input.serverUrl ?? interfaceUrl(prepared.poppyJson, 'mcp', prepared.ctx.company.origin), 'serverUrl');
  const stored: StoredRequest = { interface: 'mcp', server_url: serverUrl, tool: input.tool, arguments: input.arguments as never };
  const mcp: McpOptions = { ...(input.clientInfo === undefined ? {} : { clientInfo: input.clientInfo }), ...(input.meta === undefined ? {} : { meta: input.meta }) };
  const ctx = withAdapters(prepared, 'mcp', { mcp });
  const adapter = mcpAdapter(stored, ctx.live, mcp);
  return perform<CallToolResult>(ctx, adapter, prepared.declared);
}

/**
 * Send a message in a conversation and, when the Company Agent answers with an operation, get
 * the User's approval and send it in a message of its own (sections 4 and 6, "Conversations").
 * Throws as performApi.
 */
export async function performConversation(input: PerformConversationInput): Promise<PerformResult<ConversationResponse>> {
  if (typeof input.findOutcome !== 'function') {
    throw new CountersignError('ERR_ARGUMENT_INVALID', `findOutcome: expected a function (the Company Agent reports in words), got ${describeValue(input.findOutcome)}`);
  }
  if (!isId(input.conversationId)) throw new CountersignError('ERR_ARGUMENT_INVALID', `conversationId: expected ${ID_RULE}, got ${describeValue(input.conversationId)}`);
  if (!isPlainObject(input.message)) throw new CountersignError('ERR_ARGUMENT_INVALID', `message: expected { id?, text }, got ${describeValue(input.message)}`);
  if (typeof input.message.text !== 'string') throw new CountersignError('ERR_ARGUMENT_INVALID', `message.text: expected a string, got ${describeValue(input.message.text)}`);
  if (input.message.id !== undefined && !isId(input.message.id)) throw new CountersignError('ERR_ARGUMENT_INVALID', `message.id: expected ${ID_RULE}, got ${describeValue(input.message.id)}`);
  const prepared = await prepare(input);
  const endpoint = absoluteUrl(input.conversationsUrl ?? interfaceUrl(prepared.poppyJson, 'conversations', prepared.ctx.company.origin), 'conversationsUrl').replace(/\/+$/, '');
  const stored: StoredRequest = { interface: 'conversation', endpoint, conversation_id: input.conversationId, message_id: input.message.id ?? freshMessageId() };
  const conversation: ConversationOptions = { text: input.message.text, approvalText: input.approvalText };
  const ctx = withAdapters(prepared, 'conversation', { conversation });
  const adapter = conversationAdapter(stored, ctx.live, conversation);
  return perform<ConversationResponse>(ctx, adapter, prepared.declared);
}

/** One of the three, chosen by `interface`: the interface the action goes through (sections 4 and 6). */
export type PerformInput = ({ interface: 'api' } & PerformApiInput) | ({ interface: 'mcp' } & PerformToolInput) | ({ interface: 'conversation' } & PerformConversationInput);

/** performApi, performTool or performConversation, by `input.interface`. */
export function performWithApproval(input: PerformInput): Promise<PerformResult<ApiResponse | CallToolResult | ConversationResponse>> {
  switch (input?.interface) {
    case 'api':
      return performApi(input);
    case 'mcp':
      return performTool(input);
    case 'conversation':
      return performConversation(input);
    default:
      return Promise.reject(new CountersignError('ERR_ARGUMENT_INVALID', `interface: expected "api", "mcp" or "conversation", got ${describeValue((input as { interface?: unknown } | undefined)?.interface)}`));
  }
}

/** `value` is JSON data the journal can store and the request can carry; the message names the member that is not. */
function jsonCheck(value: unknown, name: string): void {
  toJsonValue(value, 'ERR_ARGUMENT_INVALID', name);
}

/** `value` as an absolute URL (href), or the caller's error: `new URL` would throw a bare TypeError. */
function absoluteUrl(value: unknown, name: string): string {
  if (typeof value !== 'string') throw new CountersignError('ERR_ARGUMENT_INVALID', `${name}: expected an absolute URL, got ${describeValue(value)}`);
  try {
    return new URL(value).href;
  } catch (cause) {
    throw new CountersignError('ERR_ARGUMENT_INVALID', `${name}: expected an absolute URL, got a string that is not one`, { cause });
  }
}
