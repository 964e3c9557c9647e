import type * as z from 'zod';
import { BRIDGE_PROTOCOL_VERSION, approvalSentMessage, outcomeMessage, parseBridgeMessage, type AgentToExtensionMessage } from '../protocol/bridge';
import type { Approval } from '../protocol/approval';
import { CountersignError, isCountersignError } from '../protocol/errors';
import type { OutcomeReport } from './companion-types';
import { inputError, unavailable, type AckResult, type CompanionState } from './companion-state';

/**
 * The two messages the extension acknowledges (docs/bridge-protocol.md section 2.1 and 9.5):
 * `approval_sent` (markSent, spec section 5: from then on the approval cannot be withdrawn) and
 * `outcome` (reportOutcome, spec section 7), and the delivery of outcomes the extension could not
 * be told when they were reported.
 */

/**
 * Send an `approval_sent` or `outcome` and wait for its one answer (protocol v2): an `ack`, an
 * `error` with its id, or nothing within `timeoutMs` / the link closing (unavailable).
 */
export function sendAcked(state: CompanionState, message: AgentToExtensionMessage & { id: string }, sent?: { operationId: string; revision: string }): Promise<AckResult> {
  return new Promise<AckResult>((resolve) => {
    const id = message.id;
    const timer = setTimeout(() => done({ kind: 'unavailable' }), state.timeoutMs);
    const done = (result: AckResult) => {
      clearTimeout(timer);
      if (state.waiters.get(id)?.kind === 'ack') state.waiters.delete(id);
      resolve(result);
    };
    if (!state.connected) return done({ kind: 'unavailable' });
    state.waiters.set(id, { kind: 'ack', ...(sent === undefined ? {} : { sent }), done });
    if (!state.send(message)) done({ kind: 'unavailable' });
  });
}

/** Companion.markSent: true only when the extension accepted `approval_sent` (or did before). */
export async function markSent(state: CompanionState, approval: Approval): Promise<boolean> {
  const parsed = parseBridgeMessage(
    approvalSentMessage,
    { type: 'approval_sent', v: BRIDGE_PROTOCOL_VERSION, id: state.newId('s'), operation_id: approval?.operation_id, revision: approval?.revision },
    'approval',
  );
  if (!parsed.ok) throw inputError(parsed.error);
  const { operation_id, revision } = parsed.message;
  const journal = state.journal;
  const entry = journal.get(operation_id, revision);
  if (entry === undefined || entry.status !== 'approved') {
    throw new CountersignError('ERR_ARGUMENT_INVALID', `approval: expected an approval this agent verified, got ${operation_id} revision ${revision}, which its journal does not hold as approved`);
  }
  if (journal.isWithdrawn(operation_id, revision)) return false;
  if (entry.sent) return true;
  if (!state.connected) throw unavailable('not connected to the Countersign extension: it cannot be told, so the approval must not be sent yet');
  // The Company's origin makes the extension's match exact (operation IDs are per Company).
  const result = await sendAcked(state, { ...parsed.message, company_origin: entry.company.origin }, { operationId: operation_id, revision });
  switch (result.kind) {
    case 'ok':
      if (journal.isWithdrawn(operation_id, revision)) return false;
      await journal.markSent(operation_id, revision);
      return true;
    case 'withdrawn':
      return false;
    case 'refused':
      // ERR_TOO_LATE: the User withdrew first (arrival order at the extension decides); remember it.
      if ((result.error.code === 'ERR_TOO_LATE' || result.error.code === 'ERR_NOT_ALLOWED') && !journal.isWithdrawn(operation_id, revision) && (await journal.markWithdrawn(operation_id, revision))) {
        state.events.emit('withdrawn', { operation_id, revision });
      }
      return false;
    case 'unavailable':
      throw unavailable('the Countersign extension went away before it accepted approval_sent: do not send yet');
  }
}

/** Companion.reportOutcome: journaled, and sent at once; true when the extension acknowledged it. */
export async function reportOutcome(state: CompanionState, report: OutcomeReport): Promise<boolean> {
  const parsed = parseBridgeMessage(
    outcomeMessage,
    {
      type: 'outcome',
      v: BRIDGE_PROTOCOL_VERSION,
      id: state.newId('o'),
      operation_id: report?.operation_id,
      revision: report?.revision,
      outcome: report?.outcome,
      ...(report?.detail === undefined ? {} : { detail: report.detail }),
    },
    'outcome',
  );
  if (!parsed.ok) throw inputError(parsed.error);
  const origin = state.journal.get(parsed.message.operation_id, parsed.message.revision)?.company.origin;
  const m = origin === undefined ? parsed.message : { ...parsed.message, company_origin: origin };
  // Sent at once, in call order: the extension handles this connection's messages in the order
  // they arrive (section 2.1), so an outcome reported before the next requestApproval() must reach
  // it first (spec section 7: the next revision may be asked once the outcome is known). The
  // journal write runs alongside; were the process to die before it lands, the outcome would
  // count as unknown after a restart, the safe side.
  const written = state.journal.setOutcome(m.operation_id, m.revision, m.outcome, m.detail, false);
  const delivered = deliverOutcome(state, m);
  await written;
  return delivered;
}

async function deliverOutcome(state: CompanionState, m: z.output<typeof outcomeMessage>): Promise<boolean> {
  // A fresh id per delivery: a redelivery on a new connection is a new message.
  const result = await sendAcked(state, { ...m, id: state.newId('o') });
  if (result.kind === 'unavailable') return false;
  await state.journal.setOutcome(m.operation_id, m.revision, m.outcome, m.detail, true);
  if (result.kind === 'refused') throw result.error;
  return true;
}

/** Outcomes recorded while the extension could not be told (spec section 7 history), delivered one at a time. */
export async function deliverOutcomes(state: CompanionState): Promise<void> {
  for (const entry of state.journal.undelivered()) {
    if (!state.connected || entry.outcome === undefined) return;
    const m = {
      type: 'outcome' as const,
      v: BRIDGE_PROTOCOL_VERSION as typeof BRIDGE_PROTOCOL_VERSION,
      id: state.newId('o'),
      operation_id: entry.operation_id,
      revision: entry.revision,
      company_origin: entry.company.origin,
      outcome: entry.outcome,
      ...(entry.outcome_detail === undefined ? {} : { detail: entry.outcome_detail }),
    };
    try {
      await deliverOutcome(state, m);
    } catch (error) {
      // What can fail here besides the extension's answer (a CountersignError already) is the journal write.
      state.events.emit('protocolError', isCountersignError(error) ? error : new CountersignError('ERR_STORAGE_FAILED', 'outcome could not be delivered', { cause: error }));
    }
  }
}
