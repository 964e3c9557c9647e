import type { AgentInboundMessage } from '../protocol/bridge';
import { CountersignError, isCountersignError } from '../protocol/errors';
import { CompanionError } from './companion-types';
import { unavailable, type CompanionState, type ErrorMessage } from './companion-state';
import { onDecision, onWithdrawn } from './approval-flight';
import { onToolCallDecision, onToolCallWithdrawn } from './tool-call-flight';
import { onHandshake } from './handshake';
import type { LinkHandlers } from './link';

/**
 * Everything the link delivers, routed to what it answers. Inbound messages are handled one at a
 * time, in the order they arrived (docs/bridge-protocol.md section 2.1): a decision is verified
 * and journaled before a later `withdrawn` for it is applied.
 */

/** The link's handlers: messages, invalid frames and the close, all through one ordered chain. */
export function linkHandlers(state: CompanionState): LinkHandlers {
  return {
    message: (m) => enqueue(state, m),
    // Through the same chain as messages: reports come in the order the frames arrived.
    invalid: (e) => {
      state.inbound = state.inbound.then(() => void state.events.emit('protocolError', e));
    },
    closed: (e) => enqueueGone(state, e),
  };
}

function enqueue(state: CompanionState, message: AgentInboundMessage): void {
  state.inbound = state.inbound
    .then(() => dispatch(state, message))
    .catch((error: unknown) => {
      // The handlers' own refusals are CountersignErrors already; what else fails under them is
      // the journal or a key file on disk.
      state.events.emit('protocolError', isCountersignError(error) ? error : new CountersignError('ERR_STORAGE_FAILED', 'an inbound message could not be handled', { cause: error }));
    });
}

function enqueueGone(state: CompanionState, error: CountersignError): void {
  state.inbound = state.inbound.then(() => state.goneAway(error));
}

async function dispatch(state: CompanionState, m: AgentInboundMessage): Promise<void> {
  if (state.handshake !== undefined) return onHandshake(state, state.handshake, m);
  switch (m.type) {
    case 'decision': {
      const waiter = state.waiters.get(m.id);
      if (waiter?.kind === 'tool_call') return onToolCallDecision(state, waiter.flight, m);
      return onDecision(state, m);
    }
    case 'withdrawn':
      // A tool call's approval (this connection's own) or an operation's (the journal's).
      if (onToolCallWithdrawn(state, m.operation_id, m.revision)) return;
      return onWithdrawn(state, m.operation_id, m.revision);
    case 'ack': {
      const waiter = state.waiters.get(m.id);
      if (waiter?.kind === 'ack') return waiter.done({ kind: 'ok' });
      if (state.cancelledIds.delete(m.id)) return; // the answer to an approval_cancel
      return state.unexpected('ack');
    }
    case 'pair_offer': {
      const waiter = state.waiters.get(m.id);
      if (waiter?.kind !== 'pair_offer') return state.unexpected(m.type);
      state.waiters.delete(m.id);
      waiter.resolve(m);
      return;
    }
    case 'pair_result': {
      const waiter = state.waiters.get(m.id);
      if (waiter?.kind !== 'pair_result') return state.unexpected(m.type);
      state.waiters.delete(m.id);
      waiter.resolve(m.status);
      return;
    }
    case 'passkey_changed':
      return state.acceptPasskey(m.jws);
    case 'error':
      return onError(state, m);
    case 'companion_unavailable':
      return state.goneAway(unavailable('the Countersign extension went away (its browser closed or restarted it)'));
    default:
      // bridge_info, challenge and welcome belong to the handshake; version answers a query we never send.
      return state.unexpected(m.type);
  }
}

/** An `error` with an id is the one answer to the question with that id (section 2.1); without one, it is reported. */
function onError(state: CompanionState, m: ErrorMessage): void {
  const error = new CompanionError(m);
  if (m.id !== undefined) {
    const waiter = state.waiters.get(m.id);
    if (waiter === undefined) return void state.events.emit('protocolError', error);
    state.waiters.delete(m.id);
    if (waiter.kind === 'approval' || waiter.kind === 'tool_call') waiter.flight.finish(error);
    else if (waiter.kind === 'ack') waiter.done({ kind: 'refused', error });
    else waiter.reject(error);
    return;
  }
  state.events.emit('protocolError', error);
}
