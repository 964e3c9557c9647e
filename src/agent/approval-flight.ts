import type * as z from 'zod';
import { BRIDGE_PROTOCOL_VERSION, type AgentToExtensionMessage, type approvalRequestMessage } from '../protocol/bridge';
import { verifyDecision, type DecisionClaims } from '../protocol/decision';
import { CountersignError, isCountersignError } from '../protocol/errors';
import { deadlineOf } from '../protocol/rfc3339';
import type { ApprovalResult } from './companion-types';
import { abortReason, type Company, type CompanionState, type Decision, type InFlightOperation, type Waiter } from './companion-state';
import type { JournalEntry } from './journal';
import type { PinnedKey } from './keys';

/**
 * One approval request in flight (docs/bridge-protocol.md section 9): sending it, its deadline
 * and cancellation, verifying the decision that answers it (section 10) and journaling it, and
 * the answers that come from the journal instead (section 9.4) or take permission away
 * (`withdrawn`, spec section 5).
 */

/**
 * The extension expires a pending prompt itself and says so (approval-queue.ts expireDue, every
 * few seconds); this local deadline is the backstop for an extension that stopped answering, so a
 * caller is never left waiting past the revision's `expires_at` (spec section 3, "Expiry").
 */
const EXPIRY_GRACE_MS = 30_000;
/** setTimeout's largest delay; longer waits are re-armed. */
const MAX_TIMER_MS = 2_147_483_647;

/** The one clock (protocol/rfc3339.ts), failing closed: a deadline that names no instant has passed. */
export const epochMs = deadlineOf;

/**
 * Send the checked `approval_request` and wait for its one answer: a verified decision, a status
 * from the extension, `unavailable` when the link goes, `expired` past the local deadline. Aborting
 * `signal` cancels the prompt (approval_cancel) and rejects with the signal's reason.
 */
export function fly(state: CompanionState, id: string, nonce: string, message: z.output<typeof approvalRequestMessage>, signal: AbortSignal | undefined): Promise<ApprovalResult> {
  const { operation, company } = message;
  return inFlight<ApprovalResult>(state, { id, message, signal, deadlineMs: epochMs(operation.expires_at) + EXPIRY_GRACE_MS, expired: { status: 'expired' }, unavailable: { status: 'unavailable' } }, (finish) => ({
    kind: 'approval',
    flight: { id, nonce, operation, company, finish, userVerification: message.user_verification === 'required' },
  }));
}

/**
 * One request a person answers (an approval, a tool call), in flight until its one answer: the
 * waiter `register` makes receives it through `finish`; aborting `signal` cancels the prompt
 * (approval_cancel) and rejects with the signal's reason; past `deadlineMs` the prompt is
 * cancelled and the request answers `expired`; a link that cannot send answers `unavailable`.
 */
export function inFlight<R>(
  state: CompanionState,
  request: { id: string; message: AgentToExtensionMessage; signal: AbortSignal | undefined; deadlineMs: number; expired: R; unavailable: R },
  register: (finish: (result: R | Error) => void) => Waiter,
): Promise<R> {
  const { id, signal, deadlineMs } = request;
  return new Promise<R>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    let settled = false;
    const settle = () => {
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (state.waiters.get(id) === waiter) state.waiters.delete(id);
    };
    const finish = (result: R | Error) => {
      if (settled) return;
      settle();
      if (result instanceof Error) reject(result);
      else resolve(result);
    };
    const onAbort = () => {
      if (settled) return;
      sendCancel(state, id);
      settle();
      reject(abortReason(signal as AbortSignal));
    };
    const arm = () => {
      timer = setTimeout(() => {
        if (Date.now() < deadlineMs) return arm();
        sendCancel(state, id);
        finish(request.expired);
      }, Math.min(Math.max(deadlineMs - Date.now(), 0), MAX_TIMER_MS));
      timer.unref();
    };
    const waiter = register(finish);
    arm();
    signal?.addEventListener('abort', onAbort, { once: true });
    state.waiters.set(id, waiter);
    if (!state.send(request.message)) finish(request.unavailable);
  });
}

/** Withdraw a waiting request's prompt (`approval_cancel`): an approval's or a tool call's. */
export function sendCancel(state: CompanionState, requestId: string): void {
  // Its answers (the request's `cancelled` decision, the cancel's ack) are expected, not strays.
  const cancelId = state.newId('c');
  state.cancelledIds.add(requestId).add(cancelId);
  state.send({ type: 'approval_cancel', v: BRIDGE_PROTOCOL_VERSION, id: cancelId, request_id: requestId });
}

/** A revision decided before: the stored decision, re-verified against what is asked now. */
export async function fromJournal(state: CompanionState, entry: JournalEntry, operation: InFlightOperation, company: Company, userVerification = false): Promise<ApprovalResult> {
  let claims: DecisionClaims;
  try {
    // The same checks as a fresh decision (without the seen-nonce set: this nonce was accepted
    // once, by us). A Company that reuses a revision for other terms (section 3 forbids it) or
    // another Company's name gets an error here, never the old approval.
    claims = await verifyDecision(entry.jws, {
      pinnedKey: (state.pin as PinnedKey).key,
      expected: { operation, company, audience: state.key.thumbprint, nonce: entry.nonce },
    });
  } catch (error) {
    if (isCountersignError(error, 'ERR_DECISION_EXPIRED')) return { status: 'expired' };
    throw error;
  }
  if (claims.status !== entry.status) throw new CountersignError('ERR_DECISION_MISMATCH', 'journal: the stored status does not match the signed decision');
  if (claims.status === 'declined') return { status: 'declined', decision: claims, jws: entry.jws, stored: true };
  // A stored approval without the person's passkey does not answer a request that requires it.
  if ((userVerification || state.passkey.current?.required === true) && entry.user_verified !== true) throw new CountersignError('ERR_PASSKEY_INVALID', 'journal: this revision was approved without the person\'s passkey; it cannot answer a request that requires one');
  return { status: 'approved', approval: { operation_id: claims.operation_id, revision: claims.revision }, decision: claims, jws: entry.jws, stored: true, userVerified: entry.user_verified === true };
}

/** The `decision` answering an approval_request: only a decision that verifies (section 10) and is journaled becomes an approval. */
export async function onDecision(state: CompanionState, m: Decision): Promise<void> {
  const waiter = state.waiters.get(m.id);
  if (waiter?.kind !== 'approval') {
    if (state.cancelledIds.delete(m.id)) return; // the answer to a request this agent cancelled
    return state.unexpected('decision');
  }
  const flight = waiter.flight;
  const { operation_id, revision } = flight.operation;
  if (m.status === 'cancelled') return flight.finish({ status: 'unavailable' });
  if (m.status === 'expired' || m.status === 'superseded') return flight.finish({ status: m.status });
  if (m.status === 'withdrawn') {
    await state.journal.markWithdrawn(operation_id, revision);
    return flight.finish({ status: 'withdrawn' });
  }

  let claims: DecisionClaims;
  try {
    claims = await verifyDecision(m.jws as string, {
      pinnedKey: (state.pin as PinnedKey).key,
      expected: { operation: flight.operation, company: flight.company, audience: state.key.thumbprint, nonce: flight.nonce },
      seenNonces: state.journal.nonces,
    });
    if (claims.status !== m.status) throw new CountersignError('ERR_DECISION_MISMATCH', 'decision.status: the message and the signed decision disagree');
    // A request that asked for the passkey, or any while the person requires it for this agent, is
    // approved only with an assertion that verifies; an assertion that came unasked is checked
    // too, so `userVerified` never claims what did not verify.
    const needed = flight.userVerification || state.passkey.current?.required === true;
    if (claims.status === 'approved' && (needed || m.passkey_assertion !== undefined)) await state.passkey.verify(claims, m.passkey_assertion);
  } catch (error) {
    // A signed decision that arrived after the revision expired: the Company would refuse it (section 3).
    if (isCountersignError(error, 'ERR_DECISION_EXPIRED')) return flight.finish({ status: 'expired' });
    const e = isCountersignError(error) ? error : new CountersignError('ERR_DECISION_INVALID', 'decision: could not be verified', { cause: error });
    // Tell the extension (it records agent errors); the caller gets the error, never an approval.
    state.send({ type: 'error', v: BRIDGE_PROTOCOL_VERSION, id: m.id, code: e.code, message: e.message.slice(0, 1000), source: 'agent' });
    return flight.finish(e);
  }

  try {
    // Journaled even if the caller aborted while it was being verified: the User did decide, and
    // asking again must return this decision rather than prompt again.
    await state.journal.record({
      operation_id,
      revision,
      status: claims.status,
      jws: m.jws as string,
      nonce: flight.nonce,
      company: flight.company,
      expires_at: flight.operation.expires_at,
      recorded_at: new Date().toISOString(),
      ...(m.passkey_assertion === undefined || claims.status !== 'approved' ? {} : { user_verified: true }),
    });
  } catch (error) {
    // Unrecorded, the approval could be asked for again or a withdrawal lost: fail closed.
    return flight.finish(isCountersignError(error) ? error : new CountersignError('ERR_STORAGE_FAILED', 'journal: could not record the decision', { cause: error }));
  }
  if (state.journal.isWithdrawn(operation_id, revision)) return flight.finish({ status: 'withdrawn' });
  if (claims.status === 'declined') return flight.finish({ status: 'declined', decision: claims, jws: m.jws as string, stored: false });
  const verified = m.passkey_assertion === undefined ? {} : { userVerified: true, passkeyAssertion: m.passkey_assertion };
  flight.finish({ status: 'approved', approval: { operation_id, revision }, decision: claims, jws: m.jws as string, stored: false, ...verified });
}

export async function onWithdrawn(state: CompanionState, operationId: string, revision: string): Promise<void> {
  // Section 5. Unsigned, so anything on the socket could send it: it only ever takes permission
  // away, which is the safe direction.
  const already = state.journal.isWithdrawn(operationId, revision);
  if (!(await state.journal.markWithdrawn(operationId, revision))) return;
  for (const waiter of state.waiters.values()) {
    if (waiter.kind === 'approval' && waiter.flight.operation.operation_id === operationId && waiter.flight.operation.revision === revision) {
      waiter.flight.finish({ status: 'withdrawn' });
    }
  }
  // An approval_sent still waiting for its ack will not be accepted now: its markSent says false.
  for (const waiter of state.waiters.values()) {
    if (waiter.kind === 'ack' && waiter.sent?.operationId === operationId && waiter.sent.revision === revision) waiter.done({ kind: 'withdrawn' });
  }
  if (!already) state.events.emit('withdrawn', { operation_id: operationId, revision });
}
