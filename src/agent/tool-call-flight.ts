import { BRIDGE_PROTOCOL_VERSION, parseBridgeMessage, randomNonce, toolCallRequestMessage } from '../protocol/bridge';
import { CountersignError, isCountersignError } from '../protocol/errors';
import { deadlineOf } from '../protocol/rfc3339';
import { toolCallRevision } from '../protocol/tool-call-revision';
import { verifyToolCallDecision, type ToolCallClaims } from '../protocol/tool-call-decision';
import { sendAcked } from './acknowledgements';
import { inFlight } from './approval-flight';
import { inputError, unavailable, type CompanionState, type Decision } from './companion-state';
import type { RequestToolCallApprovalInput, ToolCallApprovalResult, ToolCallFlight } from './companion-types';
import type { PinnedKey } from './keys';

/**
 * Approvals of tool calls (docs/bridge-protocol.md, "tool_call_request"): what countersign-mcp
 * asks before it calls a tool of an MCP server that does not speak operations v2. The same round
 * trip as an operation's approval (approval-flight.ts), with a tool-call decision verified against
 * the exact call, and nothing in the decision journal: a tool-call approval is used at once or
 * never (the gateway keeps its own history of calls).
 */

export async function requestToolCallApproval(state: CompanionState, input: RequestToolCallApprovalInput): Promise<ToolCallApprovalResult> {
  input.signal?.throwIfAborted();
  const id = state.newId('t');
  const nonce = randomNonce();
  const expiresAt = input.expiresAt instanceof Date && Number.isFinite(input.expiresAt.getTime()) ? input.expiresAt.toISOString().replace(/\.\d{3}Z$/, 'Z') : undefined;
  const parsed = parseBridgeMessage(
    toolCallRequestMessage,
    {
      type: 'tool_call_request',
      v: BRIDGE_PROTOCOL_VERSION,
      id,
      nonce,
      tool_call: {
        call_id: state.newId('call'),
        server: input.server,
        tool: input.tool,
        ...(input.description === undefined ? {} : { description: input.description }),
        ...(input.annotations === undefined ? {} : { annotations: input.annotations }),
        arguments: input.arguments,
        expires_at: expiresAt,
      },
    },
    'requestToolCallApproval',
  );
  if (!parsed.ok) throw inputError(parsed.error);
  const call = parsed.message.tool_call;
  const revision = await toolCallRevision(call);
  if (state.pin === undefined) throw new CountersignError('ERR_AGENT_NOT_PAIRED', 'this agent has not paired with Countersign: pair it first (countersign-mcp pair)');
  if (!(deadlineOf(call.expires_at) > Date.now())) return { status: 'expired', callId: call.call_id, revision };
  if (!state.connected) return { status: 'unavailable', callId: call.call_id, revision };
  const base = { callId: call.call_id, revision };
  // The extension expires the prompt itself and says so; the deadline is the backstop for one that stopped answering.
  return inFlight<ToolCallApprovalResult>(
    state,
    { id, message: parsed.message, signal: input.signal, deadlineMs: deadlineOf(call.expires_at) + 30_000, expired: { status: 'expired', ...base }, unavailable: { status: 'unavailable', ...base } },
    (finish) => ({ kind: 'tool_call', flight: { id, nonce, call, revision, finish } }),
  );
}

/** The `decision` answering a tool_call_request: approved only when it verifies against the exact call. */
export async function onToolCallDecision(state: CompanionState, flight: ToolCallFlight, m: Decision): Promise<void> {
  const base = { callId: flight.call.call_id, revision: flight.revision };
  if (m.status === 'cancelled') return flight.finish({ status: 'unavailable', ...base });
  if (m.status === 'expired' || m.status === 'superseded' || m.status === 'withdrawn') return flight.finish({ status: m.status, ...base });
  let claims: ToolCallClaims;
  try {
    claims = await verifyToolCallDecision(m.jws as string, { pinnedKey: (state.pin as PinnedKey).key, expected: { call: flight.call, audience: state.key.thumbprint, nonce: flight.nonce } });
    if (claims.status !== m.status) throw new CountersignError('ERR_DECISION_MISMATCH', 'decision.status: the message and the signed decision disagree');
    // While the person requires their passkey for every approval of this agent, a tool call too
    // is approved only with an assertion over exactly these claims (docs/agent-sdk.md).
    if (claims.status === 'approved' && (state.passkey.current?.required === true || m.passkey_assertion !== undefined)) await state.passkey.verify(claims, m.passkey_assertion);
  } catch (error) {
    if (isCountersignError(error, 'ERR_DECISION_EXPIRED')) return flight.finish({ status: 'expired', ...base });
    const e = isCountersignError(error) ? error : new CountersignError('ERR_DECISION_INVALID', 'decision: could not be verified', { cause: error });
    state.send({ type: 'error', v: BRIDGE_PROTOCOL_VERSION, id: m.id, code: e.code, message: e.message.slice(0, 1000), source: 'agent' });
    return flight.finish(e);
  }
  if (claims.status === 'declined') return flight.finish({ status: 'declined', ...base, decision: claims, jws: m.jws as string });
  state.toolCalls.set(flight.call.call_id, { revision: flight.revision, state: 'approved' });
  flight.finish({ status: 'approved', ...base, decision: claims, jws: m.jws as string });
}

/** A `withdrawn` naming a tool call: the approval is taken away (only ever the safe direction). */
export function onToolCallWithdrawn(state: CompanionState, callId: string, revision: string): boolean {
  const entry = state.toolCalls.get(callId);
  if (entry === undefined || entry.revision !== revision) return false;
  if (entry.state === 'approved') entry.state = 'withdrawn';
  return true;
}

/**
 * Tell the extension the approved call is about to run (from then on it cannot be withdrawn).
 * True: run it now. False: the person withdrew it; do not run.
 */
export async function markToolCallSent(state: CompanionState, approved: { callId: string; revision: string }): Promise<boolean> {
  const entry = state.toolCalls.get(approved.callId);
  if (entry === undefined || entry.revision !== approved.revision) {
    throw new CountersignError('ERR_ARGUMENT_INVALID', `approved: expected a tool call this agent verified, got ${String(approved.callId).slice(0, 80)}`);
  }
  if (entry.state === 'withdrawn') return false;
  if (entry.state === 'sent') return true;
  if (!state.connected) throw unavailable('not connected to the Countersign extension: it cannot be told, so the tool must not run yet');
  const result = await sendAcked(state, { type: 'approval_sent', v: BRIDGE_PROTOCOL_VERSION, id: state.newId('s'), operation_id: approved.callId, revision: approved.revision }, { operationId: approved.callId, revision: approved.revision });
  if (result.kind === 'ok' && entry.state === 'approved') {
    entry.state = 'sent';
    return true;
  }
  if (result.kind === 'unavailable') throw unavailable('the Countersign extension went away before it accepted approval_sent: do not run the tool');
  entry.state = 'withdrawn';
  return false;
}

/**
 * What the tool did with an approved call, for the extension's history. True when acknowledged.
 * `unknown` (the gateway's client left while it ran) may be followed by the real outcome.
 */
export async function reportToolCallOutcome(state: CompanionState, report: { callId: string; revision: string; outcome: 'performed' | 'failed' | 'unknown'; detail?: string }): Promise<boolean> {
  const entry = state.toolCalls.get(report.callId);
  if (entry === undefined || entry.revision !== report.revision) throw new CountersignError('ERR_ARGUMENT_INVALID', `report: expected a tool call this agent verified, got ${String(report.callId).slice(0, 80)}`);
  if (report.outcome !== 'unknown') state.toolCalls.delete(report.callId);
  const result = await sendAcked(state, {
    type: 'outcome',
    v: BRIDGE_PROTOCOL_VERSION,
    id: state.newId('o'),
    operation_id: report.callId,
    revision: report.revision,
    outcome: report.outcome,
    ...(report.detail === undefined ? {} : { detail: report.detail.slice(0, 2000) }),
  });
  if (result.kind === 'refused') throw result.error;
  return result.kind === 'ok';
}
