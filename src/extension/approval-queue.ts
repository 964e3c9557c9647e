// Longer than 500 lines on purpose: the approval state machine's one driver (intake's batches, the
// person's answers, expiry, re-attach, disconnects), whose steps share the order of their writes.
import type { PasskeyAssertion } from '../protocol/passkey';
import type { UnversionedExtensionToAgentMessage } from '../protocol/bridge';
import { canonicalJson } from '../protocol/canonical-json';
import { CountersignError } from '../protocol/errors';
import { deadlineOf } from '../protocol/rfc3339';
import { isOutcomeOpen, type ApprovalEvent } from './approval-state';
import { approvalKey, type ApprovalRecord, type CompanyRef, type IntakeView, type PairedAgent, type Store, type Transition, type TransitionResult } from './store';

/**
 * The extension's decisions about approvals, apart from any browser API so it can be tested
 * against a real IndexedDB implementation. Entry points wire it to the native port, the
 * approval window, the badge and notifications.
 */

export interface IncomingApprovalRequest {
  id: string;
  nonce: string;
  company: CompanyRef;
  operation: ApprovalRecord['operation'];
  request: ApprovalRecord['request'];
  session: ApprovalRecord['session'];
  /** A tool call (tool-call-request.ts): the operation above was written from it by Countersign. */
  toolCall?: ApprovalRecord['toolCall'];
  /** The agent asks for the person's passkey too (`approval_request.user_verification`). */
  userVerification?: 'required';
}

/** A passkey assertion the background checked against this decision's claims, stamped `now` (their `iat`). */
export interface UserVerification {
  now: number;
  assertion: PasskeyAssertion;
}

export type DecisionStatus = 'approved' | 'declined' | 'expired' | 'superseded' | 'withdrawn' | 'cancelled';

/** What the queue sends to an agent (inside the bridge's relay envelope); AgentSessions adds `v`. */
export type AgentReply = UnversionedExtensionToAgentMessage<'decision' | 'withdrawn' | 'ack' | 'error'>;

export interface QueueDeps {
  store: Store;
  /**
   * Signs the User's decision over exactly what was shown (docs/bridge-protocol.md "Decision"),
   * stamped `now`: the instant the queue checked the expiry against, so the two never disagree.
   */
  sign(record: ApprovalRecord, status: 'approved' | 'declined', now: number): Promise<string>;
  /** Sends to one agent connection; false when that connection is gone. */
  send(conn: string, reply: AgentReply): boolean;
  /**
   * Something changed that the badge, window or popup should show. 'new': a prompt to announce,
   * `record`; 'reask': the agent waits again on a prompt (show it, no second notification).
   */
  changed(reason: 'new' | 'reask' | 'update', record?: ApprovalRecord): void;
  now?: () => number;
}

/** Open prompts one agent may have at once; more get ERR_THROTTLED, so one agent cannot bury the window. */
export const MAX_PENDING_PER_AGENT = 20;

const DECIDED_REPLY: Partial<Record<ApprovalRecord['state'], DecisionStatus>> = {
  declined: 'declined',
  expired: 'expired',
  superseded: 'superseded',
  withdrawn: 'withdrawn',
};

/** One ask waiting to be taken in, and how to answer its caller. */
interface Ask {
  agent: PairedAgent;
  conn: string;
  req: IncomingApprovalRequest;
  answer(reply: AgentReply | null): void;
  fail(error: unknown): void;
}

/** One ask as decided inside the intake transaction, and what is left to do once it is stored. */
interface Taken {
  reply: AgentReply | null;
  /** What the pages are told; 'new' with the prompt to announce. */
  changed?: 'new' | 'reask' | 'update';
  record?: ApprovalRecord;
  /** The earlier request this ask replaced: told `superseded`. */
  superseded?: { conn: string; requestId: string };
  /** An approved revision asked again: its decision is signed for this request, which it answers. */
  reissue?: ApprovalRecord;
}

export class ApprovalQueue {
  private readonly now: () => number;
  /** Asks not yet taken in (receive), and the batches taking them in while there are any. */
  private readonly asks: Ask[] = [];
  private intaking: Promise<void> | null = null;
  /** Requests refused for flooding, per agent, reported in the snapshot (memory only: a report, not state). */
  readonly throttled = new Map<string, number>();

  constructor(private readonly deps: QueueDeps) {
    this.now = deps.now ?? Date.now;
  }

  /**
   * An agent asks for approval of one revision. Resolves with the immediate reply, or null when
   * the User is being asked (the decision is sent later). Asks arriving while the store writes the
   * ones before are taken in together, in one transaction, in the order they arrived: a burst of a
   * thousand is a few writes, not a thousand one after another, and its refusals come as soon as
   * the write before them is done. Asks of one batch resolve in the order they were made.
   */
  receive(agent: PairedAgent, conn: string, req: IncomingApprovalRequest): Promise<AgentReply | null> {
    return new Promise((answer, fail) => {
      this.asks.push({ agent, conn, req, answer, fail });
      this.intaking ??= this.takeIn();
    });
  }

  /** Takes in the waiting asks, a batch at a time, until none wait. */
  private async takeIn(): Promise<void> {
    // Asks made in this same turn (several connections' messages of one task) join the first batch.
    await Promise.resolve();
    try {
      while (this.asks.length > 0) await this.takeBatch(this.asks.splice(0));
    } finally {
      this.intaking = null;
    }
  }

  /**
   * One batch: decided and stored in one transaction; then, in the order of the asks, the earlier
   * requests they replaced are told and each ask is answered. When the write fails, every ask of
   * the batch fails with its error and nothing of it is stored.
   */
  private async takeBatch(batch: Ask[]): Promise<void> {
    const { store } = this.deps;
    const looks = batch.map(({ agent, req }) => ({
      key: approvalKey(agent.thumbprint, req.company.origin, req.operation.operation_id, req.operation.revision),
      agent: agent.thumbprint,
      origin: req.company.origin,
      operationId: req.operation.operation_id,
    }));
    const refused = new Map<string, number>();
    let taken: Taken[];
    try {
      taken = await store.intake(looks, (view) => batch.map((ask, i) => this.take(view, ask, looks[i]!.key, refused)));
    } catch (error) {
      for (const ask of batch) ask.fail(error);
      return;
    }
    for (const [agent, count] of refused) this.throttled.set(agent, (this.throttled.get(agent) ?? 0) + count);
    // The pages repaint once for the batch; the newest new prompt is the one announced.
    const announced = taken.findLast((t) => t.changed === 'new')?.record;
    if (announced) this.deps.changed('new', announced);
    if (taken.some((t) => t.changed === 'reask')) this.deps.changed('reask');
    if (taken.some((t) => t.changed === 'update')) this.deps.changed('update');
    for (const [i, t] of taken.entries()) {
      const ask = batch[i]!;
      if (t.superseded) this.deps.send(t.superseded.conn, { type: 'decision', id: t.superseded.requestId, status: 'superseded' });
      if (!t.reissue) {
        ask.answer(t.reply);
        continue;
      }
      // Approved (and perhaps sent): the User's decision stands for this revision. It is signed
      // afresh for the new request nonce, because the agent verifies the nonce it sent. The asks
      // after it wait: a batch answers in order.
      try {
        const jws = await this.deps.sign(t.reissue, 'approved', this.now());
        await store.audit('reissued', { key: t.reissue.key, agent: t.reissue.agent });
        ask.answer({ type: 'decision', id: ask.req.id, status: 'approved', jws });
      } catch (error) {
        ask.fail(error);
      }
    }
  }

  /**
   * One ask, decided inside the intake transaction against the store as the asks before it in the
   * batch left it. Writes through `view` only; what must wait for the write is in the result.
   * `refused` counts this batch's refusals per agent (one audit line for an agent's first).
   */
  private take(view: IntakeView, { agent, conn, req }: Ask, key: string, refused: Map<string, number>): Taken {
    const op = req.operation;
    const existing = view.get(key);
    if (existing) return this.takeAgain(view, existing, conn, req);

    const base: ApprovalRecord = {
      key,
      agent: agent.thumbprint,
      agentName: agent.name,
      operationId: op.operation_id,
      revision: op.revision,
      requestId: req.id,
      conn,
      nonce: req.nonce,
      company: req.company,
      operation: op,
      request: req.request,
      session: req.session,
      ...(req.toolCall ? { toolCall: req.toolCall } : {}),
      ...(req.userVerification === 'required' || agent.requireUserVerification === true ? { userVerification: 'required' as const } : {}),
      state: 'pending',
      createdAt: this.now(),
      updatedAt: this.now(),
      agentConnected: true,
    };

    if (this.expired(op)) {
      // Section 3 "Expiry": nothing to ask about; recorded so the history shows it.
      view.insert({ ...base, state: 'expired' }, { kind: 'received-expired', key, agent: agent.thumbprint });
      return { reply: { type: 'decision', id: req.id, status: 'expired' } };
    }

    // Section 7: no new approval for the same action until the first one's outcome is known. The
    // refusal is the request's one answer: nothing is kept, so it never prompts later.
    const siblings = view.byOperation(agent.thumbprint, req.company.origin, op.operation_id);
    const open = siblings.find((s) => isOutcomeOpen(s.state));
    if (open) {
      return {
        reply: {
          type: 'error',
          id: req.id,
          code: 'ERR_OUTCOME_PENDING',
          message: `operation ${op.operation_id}: revision ${open.revision} was approved and its outcome is not known yet; report it before asking again (section 7)`,
        },
      };
    }

    // Section 3 "New terms" and 5: a new revision replaces the pending one and needs its own
    // decision; it adds no prompt, so the limit does not apply to it. The count includes the asks
    // before this one in the batch, and nothing else writes meanwhile: the limit holds exactly.
    const previousPending = siblings.find((s) => s.state === 'pending' || s.state === 'held' || s.state === 'cancelled');
    if (!previousPending && view.waiting(agent.thumbprint) >= MAX_PENDING_PER_AGENT) {
      const count = (refused.get(agent.thumbprint) ?? 0) + 1;
      refused.set(agent.thumbprint, count);
      if (count === 1 && !this.throttled.has(agent.thumbprint)) view.audit('throttled', { agent: agent.thumbprint, detail: `more than ${MAX_PENDING_PER_AGENT} open approvals` });
      return { reply: { type: 'error', id: req.id, code: 'ERR_THROTTLED', message: `agent has ${MAX_PENDING_PER_AGENT} approvals waiting; decide those first` }, changed: 'update' };
    }
    const record = previousPending ? { ...base, previousKey: previousPending.key } : base;
    view.insert(record, { kind: 'received', key, agent: agent.thumbprint, detail: req.company.origin });
    if (!previousPending) return { reply: null, changed: 'new', record };
    const replaced = view.transition(previousPending.key, 'supersede', {}, `replaced by ${op.revision}`);
    const superseded = replaced.conn && previousPending.state === 'pending' ? { conn: replaced.conn, requestId: replaced.requestId } : undefined;
    return { reply: null, changed: 'new', record, ...(superseded ? { superseded } : {}) };
  }

  /**
   * The same revision asked again (a reconnect, a restarted agent): never a second prompt. Only
   * an identical one, though: a revision's terms can't change (spec section 3, "New terms"), so
   * the same key with another Company name, summary, terms or expiry is not a re-ask but a
   * Company (or agent) breaking that rule. It is refused, and never answered with a decision
   * signed over what the person saw, which would read as approval of text they never saw.
   */
  private takeAgain(view: IntakeView, existing: ApprovalRecord, conn: string, req: IncomingApprovalRequest): Taken {
    const differs = differences(existing, req);
    if (differs.length > 0) {
      view.audit('revision-conflict', { key: existing.key, agent: existing.agent, detail: differs.join(', ') });
      return {
        reply: {
          type: 'error',
          id: req.id,
          code: 'ERR_REVISION_CONFLICT',
          message: `operation ${existing.operationId} revision ${existing.revision}: asked before with another ${differs.join(', ')}; a revision's terms can't change (spec section 3), so this is refused`,
        },
      };
    }
    const link = { conn, requestId: req.id, nonce: req.nonce };
    if (existing.state === 'cancelled') {
      // The agent cancelled its earlier request before the person decided: asking again asks again.
      if (this.expired(existing.operation)) {
        view.transition(existing.key, 'expire');
        return { reply: { type: 'decision', id: req.id, status: 'expired' } };
      }
      const reopened = view.transition(existing.key, 'reopen', { ...link, agentConnected: true }, 'asked again after a cancel');
      return { reply: null, changed: 'new', record: reopened };
    }
    if (existing.state === 'pending' || existing.state === 'held') {
      // Whoever waited on this prompt before is answered: its request is replaced by this one.
      const replaced = existing.state === 'pending' && existing.conn !== null && (existing.conn !== conn || existing.requestId !== req.id);
      view.reattach(existing.key, link);
      return {
        reply: existing.state === 'held' ? { type: 'error', id: req.id, code: 'ERR_OUTCOME_PENDING', message: `operation ${existing.operationId}: an earlier approval has no known outcome yet` } : null,
        changed: existing.state === 'pending' ? 'reask' : 'update',
        ...(replaced && existing.conn !== null ? { superseded: { conn: existing.conn, requestId: existing.requestId } } : {}),
      };
    }
    const decided = DECIDED_REPLY[existing.state];
    if (decided) return { reply: { type: 'decision', id: req.id, status: decided } };
    return { reply: null, reissue: view.reattach(existing.key, link) };
  }

  /**
   * The User's decision, from a trusted click in the approval window.
   *
   * Approve is refused (ERR_DECISION_EXPIRED) once the revision has expired, and the item moves
   * to expired. Decline always ends a waiting item: past its expiry it becomes expired (nothing
   * can be approved any more, which is what the person asked for); if signing the "no" fails, it
   * is recorded and sent unsigned, since an agent never acts on a decline. An item that is no
   * longer waiting (decided, expired, withdrawn) is returned as it is.
   */
  async decide(key: string, decision: 'approve' | 'decline', verified?: UserVerification): Promise<ApprovalRecord> {
    const { store } = this.deps;
    const record = await store.get(key);
    if (!record) throw new CountersignError('ERR_ARGUMENT_INVALID', `key: expected the key of an approval, got ${key}, which names none`);
    if (decision === 'decline') return this.decline(record);
    if (record.userVerification === 'required' && verified === undefined && record.state === 'pending') {
      throw new CountersignError('ERR_NOT_ALLOWED', 'approve: this approval needs the person to confirm with their passkey');
    }
    const now = this.now();
    if (this.expired(record.operation, now)) {
      if (record.state === 'pending') await this.expire(record);
      this.deps.changed('update');
      throw new CountersignError('ERR_DECISION_EXPIRED', `operation ${record.operationId} revision ${record.revision}: expired at ${record.operation.expires_at}`);
    }
    // Signed before the state changes: a failed signature leaves the approval pending. With a
    // passkey, the claims are stamped with the instant the assertion covers.
    const jws = await this.deps.sign(record, 'approved', verified?.now ?? now);
    const updated = await store.transition(key, 'approve', { decision: jws });
    const assertion = verified === undefined ? {} : { passkey_assertion: verified.assertion };
    if (updated.conn) this.deps.send(updated.conn, { type: 'decision', id: updated.requestId, status: 'approved', jws, ...assertion });
    this.deps.changed('update');
    return updated;
  }

  private async decline(record: ApprovalRecord): Promise<ApprovalRecord> {
    const { store } = this.deps;
    if (record.state !== 'pending' && record.state !== 'held') return record;
    const now = this.now();
    if (this.expired(record.operation, now)) {
      const updated = await this.expire(record);
      this.deps.changed('update');
      return updated;
    }
    const patch = await this.signedDecline(record, now);
    const updated = await store.transition(record.key, 'decline', patch);
    if (updated.conn) this.deps.send(updated.conn, { type: 'decision', id: updated.requestId, status: 'declined', ...(patch.decision === undefined ? {} : { jws: patch.decision }) });
    this.deps.changed('update');
    return updated;
  }

  /** The decline's signature, or none when signing fails: that is recorded, and the decline stands (an agent never acts on one). */
  private async signedDecline(record: ApprovalRecord, now: number): Promise<{ decision?: string }> {
    try {
      return { decision: await this.deps.sign(record, 'declined', now) };
    } catch (error) {
      await this.deps.store.audit('decline-unsigned', { key: record.key, agent: record.agent, detail: error instanceof Error ? error.message.slice(0, 300) : String(error) });
      return {};
    }
  }

  /**
   * "Decline all": every waiting item, each on its own, so one that fails does not stop the
   * rest. Returns how many were declined (or expired) and which could not be, with why. Each
   * decline is signed as Decline signs it, then all are written in one transaction and the pages
   * repaint once: a hundred waiting prompts are one write, not a hundred writes and repaints.
   */
  async declineAll(): Promise<{ declined: number; failed: Array<{ key: string; message: string }> }> {
    const { store } = this.deps;
    const waiting = await store.inStates(['pending', 'held']);
    if (waiting.length === 0) return { declined: 0, failed: [] };
    const now = this.now();
    const changes = await Promise.all(
      waiting.map(async (record): Promise<Transition> => {
        if (this.expired(record.operation, now)) return { key: record.key, event: 'expire' };
        return { key: record.key, event: 'decline', patch: await this.signedDecline(record, now) };
      }),
    );
    const failed: Array<{ key: string; message: string }> = [];
    let declined = 0;
    let results: TransitionResult[];
    try {
      results = await store.transitionAll(changes);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return { declined: 0, failed: waiting.map((r) => ({ key: r.key, message })) };
    }
    for (const result of results) {
      if ('error' in result) {
        failed.push({ key: result.key, message: result.error.message });
        continue;
      }
      declined++;
      const { record } = result;
      if (record.conn) this.deps.send(record.conn, { type: 'decision', id: record.requestId, status: record.state === 'expired' ? 'expired' : 'declined', ...(record.decision === undefined ? {} : { jws: record.decision }) });
    }
    this.deps.changed('update');
    return { declined, failed };
  }

  /**
   * Section 5: "If the User withdraws their approval before the Personal Agent has sent it, the
   * Personal Agent doesn't send it." Which came first is decided by arrival order here: once the
   * agent's `approval_sent` was accepted, a withdrawal is too late; it is recorded, and the window
   * says so, and the item keeps its state so the outcome is recorded too.
   */
  async withdraw(key: string): Promise<{ record: ApprovalRecord; tooLate: boolean }> {
    const { store } = this.deps;
    const record = await store.get(key);
    if (!record) throw new CountersignError('ERR_ARGUMENT_INVALID', `key: expected the key of an approval, got ${key}, which names none`);
    if (record.state === 'sent' || record.state === 'unknown' || record.state === 'performed' || record.state === 'failed') {
      await store.audit('withdraw-too-late', { key, agent: record.agent, detail: `the agent had already sent it (${record.state})` });
      this.deps.changed('update');
      return { record, tooLate: true };
    }
    const updated = await store.transition(key, 'withdraw');
    if (updated.conn) this.deps.send(updated.conn, { type: 'withdrawn', operation_id: updated.operationId, revision: updated.revision });
    this.deps.changed('update');
    return { record: updated, tooLate: false };
  }

  /**
   * The agent says it is about to send the approval (`approval_sent`, answered with one `ack` or
   * `error`). Accepted while approved: from then on it cannot be withdrawn. Refused with
   * ERR_TOO_LATE when the User withdrew first: then the agent must not send it.
   */
  async sent(agent: string, id: string, operationId: string, revision: string, origin?: string): Promise<AgentReply> {
    const found = await this.find(agent, id, operationId, revision, origin);
    if ('type' in found) return found;
    const { record } = found;
    if (record.state === 'sent' || record.state === 'unknown' || record.state === 'performed' || record.state === 'failed') return { type: 'ack', id, sent: true };
    if (record.state === 'withdrawn') {
      await this.deps.store.audit('sent-after-withdraw', { key: record.key, agent, detail: 'the User withdrew first; the agent was told not to send' });
      return { type: 'error', id, code: 'ERR_TOO_LATE', message: `approval of ${operationId} revision ${revision} was withdrawn by the User: do not send it` };
    }
    if (record.state !== 'approved') {
      return { type: 'error', id, code: 'ERR_NOT_ALLOWED', message: `approval of ${operationId} revision ${revision} is ${record.state}: do not send it` };
    }
    await this.deps.store.transition(record.key, 'sent');
    this.deps.changed('update');
    return { type: 'ack', id, sent: true };
  }

  /** The agent reports what the Company did. A `new_revision` outcome counts as not performed. */
  async outcome(
    agent: string,
    id: string,
    operationId: string,
    revision: string,
    outcome: 'performed' | 'failed' | 'unknown' | 'new_revision',
    detail?: string,
    origin?: string,
  ): Promise<AgentReply> {
    const { store } = this.deps;
    const found = await this.find(agent, id, operationId, revision, origin);
    if ('type' in found) return found;
    const { record } = found;
    const key = record.key;
    const event: ApprovalEvent = outcome === 'new_revision' ? 'failed' : outcome;
    if (record.state === event) return { type: 'ack', id }; // a repeated report
    try {
      await store.transition(key, event, detail === undefined ? {} : { outcomeDetail: detail }, detail);
    } catch (error) {
      return { type: 'error', id, code: 'ERR_NOT_ALLOWED', message: error instanceof Error ? error.message : String(error) };
    }
    // Section 7: once the outcome is known, a held revision of the same action may be asked about,
    // unless the action was performed: then it can never be performed again.
    if (event === 'performed' || event === 'failed') {
      for (const held of (await store.byOperation(agent, record.company.origin, operationId)).filter((r) => r.state === 'held')) {
        // Stores written before protocol v2 may hold one; its request was answered long ago.
        await store.transition(held.key, 'supersede', {}, `earlier revision ${event}`);
      }
    }
    this.deps.changed('update');
    return { type: 'ack', id };
  }

  /**
   * The agent no longer wants an answer to a request it is still waiting on (its abort signal).
   * The request gets its one answer, `cancelled`; the prompt closes, and asking for the same
   * revision again asks the person again (nothing was decided). True when a prompt was closed.
   */
  async cancel(conn: string, requestId: string): Promise<boolean> {
    for (const record of await this.deps.store.byState('pending')) {
      if (record.conn === conn && record.requestId === requestId) {
        await this.deps.store.transition(record.key, 'cancel', {}, 'cancelled by the agent');
        this.deps.send(conn, { type: 'decision', id: requestId, status: 'cancelled' });
        this.deps.changed('update');
        return true;
      }
    }
    return false;
  }

  /** Marks every pending revision past its `expires_at` as expired and tells its agent. */
  async expireDue(): Promise<number> {
    let count = 0;
    for (const state of ['pending', 'held'] as const) {
      for (const record of await this.deps.store.byState(state)) {
        if (this.expired(record.operation)) {
          await this.expire(record);
          count++;
        }
      }
    }
    if (count) this.deps.changed('update');
    return count;
  }

  private async expire(record: ApprovalRecord): Promise<ApprovalRecord> {
    const updated = await this.deps.store.transition(record.key, 'expire');
    if (updated.conn) this.deps.send(updated.conn, { type: 'decision', id: updated.requestId, status: 'expired' });
    return updated;
  }

  /** Section 3 "Expiry", read with the one clock (protocol/rfc3339.ts); a time that names no instant has passed. */
  private expired(operation: Pick<ApprovalRecord['operation'], 'expires_at'>, now = this.now()): boolean {
    return deadlineOf(operation.expires_at) <= now;
  }

  /**
   * The record an agent's `approval_sent` or `outcome` names. With the Company's origin it is
   * exact; without it (an agent written before the origin was sent) it must be the only one.
   */
  private async find(agent: string, id: string, operationId: string, revision: string, origin?: string): Promise<{ record: ApprovalRecord } | AgentReply> {
    const candidates = (await this.deps.store.byRevision(agent, operationId, revision)).filter((r) => origin === undefined || r.company.origin === origin);
    if (candidates.length === 0) {
      return { type: 'error', id, code: 'ERR_ARGUMENT_INVALID', message: `operation_id, revision: expected an approval this agent asked for, got ${operationId} revision ${revision}${origin ? ` from ${origin}` : ''}, which names none` };
    }
    if (candidates.length > 1) {
      return { type: 'error', id, code: 'ERR_APPROVAL_AMBIGUOUS', message: `operation ${operationId} revision ${revision}: asked of ${candidates.length} Companies; name company_origin` };
    }
    return { record: candidates[0]! };
  }

  /** An agent connection went away: its prompts stay, marked, and wait for it to come back. */
  async disconnected(conn: string): Promise<void> {
    let changed = false;
    for (const record of await this.deps.store.withConnection()) {
      if (record.conn !== conn) continue;
      await this.deps.store.patch(record.key, { conn: null, agentConnected: false });
      changed = true;
    }
    // Only when an item changed: connections that never asked anything come and go by the dozen
    // in a flood (docs/bridge-protocol.md section 5), and each update repaints every open page.
    if (changed) this.deps.changed('update');
  }

  /** The bridge restarted: every connection id it gave is void. */
  async allDisconnected(): Promise<void> {
    const keys = (await this.deps.store.withConnection()).map((r) => r.key);
    await this.deps.store.patchAll(keys, { conn: null, agentConnected: false });
    this.deps.changed('update');
  }
}

/** What makes a re-ask of the same key not the same revision (spec section 3: a revision's terms can't change). */
function differences(existing: ApprovalRecord, req: IncomingApprovalRequest): string[] {
  const out: string[] = [];
  if (existing.company.name !== req.company.name) out.push('Company name');
  if (existing.operation.summary !== req.operation.summary) out.push('summary');
  if (canonicalOrNull(existing.operation.terms) !== canonicalOrNull(req.operation.terms)) out.push('terms');
  if (existing.operation.expires_at !== req.operation.expires_at) out.push('expires_at');
  return out;
}

function canonicalOrNull(terms: Record<string, unknown> | undefined): string | null {
  return terms === undefined ? null : canonicalJson(terms);
}
