import { approvalMessage } from '../../protocol/approval';
import { operationFromEvent } from '../../protocol/asking-for-approval';
import { isCountersignError } from '../../protocol/errors';
import { isPlainObject } from '../../protocol/json';
import type { Operation } from '../../protocol/operation';
import type { RequestContext } from '../companion';
import type { PerformEntry, StoredRequest } from '../perform-journal';
import {
  attemptSignal,
  describeError,
  isRetryableStatus,
  readResponse,
  requestHeaders,
  retryAfterMs,
  throwIfCallerAborted,
  type Adapter,
  type FirstAnswer,
  type Live,
  type SendAnswer,
} from './common';

/**
 * Conversations (spec sections 4 and 6, "Conversations"), over the reference Company's endpoints
 * (docs/reference-company.md; the core 0.4 conversation text is not available to us):
 * `POST {endpoint}/{id}/messages` and `GET {endpoint}/{id}/events?after=…&wait=…`.
 *
 * - The operation comes back in a Company message, in `extensions.operations.operation`.
 * - The approval goes back in a message of its own, in `extensions.operations.approval`. Its
 *   `text` is only for people: "The message's text doesn't approve anything, whatever it says.
 *   Only the approval does." The default text states no approval at all.
 * - The message ID is kept in the journal: a retry is the same message, and "a message retried
 *   with the same ID gets the original response" (section 7, core 8.3).
 * - "The Company Agent performs the action and says how it went in a later message": in words.
 *   A reply that carries no new operation is therefore checked with the caller's findOutcome.
 */

export type StoredConversationRequest = Extract<StoredRequest, { interface: 'conversation' }>;

export interface ConversationEvent {
  id: string;
  type: string;
  created_at?: string;
  message?: { id: string; role: string; author?: unknown; text?: string; extensions?: Record<string, unknown> };
}

/** What the Company answered: the HTTP answer to our message, and the Company's messages after it. */
export interface ConversationResponse {
  status: number;
  body: unknown;
  /** Company message events after ours, oldest first. */
  replies: ConversationEvent[];
}

/** Default text of the approval message: it approves nothing, the approval does (section 6). */
export const APPROVAL_MESSAGE_TEXT = 'Attached: an approval (operations extension).';

export interface ConversationOptions {
  /** The text of the first message (the request that may lead to an operation). */
  text?: string | undefined;
  /** The text of the approval message; it approves nothing (section 6). */
  approvalText?: string | undefined;
}

function companyReplies(events: unknown): ConversationEvent[] {
  if (!Array.isArray(events)) return [];
  return events.filter(
    (e): e is ConversationEvent => isPlainObject(e) && e.type === 'message' && typeof e.id === 'string' && isPlainObject(e.message) && e.message.role === 'company',
  );
}

/** The last operation of `operationId` (or any, when undefined) in the replies. */
function lastOperation(replies: ConversationEvent[], operationId?: string): Operation | undefined {
  let found: Operation | undefined;
  for (const event of replies) {
    let result;
    try {
      result = operationFromEvent(event);
    } catch (error) {
      if (!isCountersignError(error)) throw error;
      continue;
    }
    if (result.kind === 'operation' && (operationId === undefined || result.operation.operation_id === operationId)) found = result.operation;
  }
  return found;
}

type Posted = { ok: true; status: number; body: unknown; eventId: string | undefined } | { ok: false; detail: string; retryAfterMs?: number | undefined };

/** Posts one message to the conversation; a network failure or a retryable status is `ok: false`. */
async function postMessage(base: string, live: Live, message: unknown): Promise<Posted> {
  try {
    const response = await live.fetch(`${base}/messages`, {
      method: 'POST',
      headers: requestHeaders(live, { 'Content-Type': 'application/json' }),
      body: JSON.stringify(message),
      signal: attemptSignal(live),
    });
    const { body } = await readResponse(response);
    if (isRetryableStatus(response.status)) return { ok: false, detail: `HTTP ${response.status}`, retryAfterMs: retryAfterMs(response.headers.get('retry-after')) };
    const event = isPlainObject(body) && isPlainObject(body.event) && typeof body.event.id === 'string' ? body.event.id : undefined;
    return { ok: true, status: response.status, body, eventId: event };
  } catch (error) {
    throwIfCallerAborted(live);
    return { ok: false, detail: describeError(error) };
  }
}

export function conversationAdapter(stored: StoredConversationRequest, live: Live, options: ConversationOptions = {}): Adapter<ConversationResponse> {
  const base = `${stored.endpoint.replace(/\/+$/, '')}/${encodeURIComponent(stored.conversation_id)}`;

  /** The Company's messages after `after`, waiting up to replyTimeoutMs for the first one. Undefined when the events could not be read. */
  async function replies(after: string): Promise<ConversationEvent[] | undefined> {
    const deadline = Date.now() + live.replyTimeoutMs;
    let cursor = after;
    const found: ConversationEvent[] = [];
    for (;;) {
      const remaining = deadline - Date.now();
      const wait = Math.max(0, Math.min(remaining, 10_000)) / 1000;
      let events: unknown;
      try {
        const response = await live.fetch(`${base}/events?after=${encodeURIComponent(cursor)}&wait=${wait.toFixed(2)}`, {
          headers: requestHeaders(live, {}),
          signal: attemptSignal(live, live.timeoutMs + wait * 1000),
        });
        const { body } = await readResponse(response);
        if (response.status !== 200 || !isPlainObject(body)) return undefined;
        events = body.events;
      } catch {
        throwIfCallerAborted(live);
        return undefined;
      }
      if (Array.isArray(events) && events.length > 0) {
        const last: unknown = events[events.length - 1];
        if (isPlainObject(last) && typeof last.id === 'string') cursor = last.id;
        found.push(...companyReplies(events));
      }
      if (found.length > 0 || Date.now() >= deadline) return found;
    }
  }

  return {
    stored,
    // The message has an ID: sent again, it is the same message (core 8.3).
    firstIsRetryable: true,

    requestContext(): RequestContext {
      return { interface: 'conversation', conversation_id: stored.conversation_id };
    },

    async first(): Promise<FirstAnswer<ConversationResponse>> {
      const posted = await postMessage(base, live, { id: stored.message_id, author: { type: 'agent' }, text: options.text ?? '' });
      if (!posted.ok) return { kind: 'retry', detail: posted.detail, retryAfterMs: posted.retryAfterMs };
      if (posted.status < 200 || posted.status >= 300 || posted.eventId === undefined) {
        return { kind: 'answer', response: { status: posted.status, body: posted.body, replies: [] } };
      }
      const read = await replies(posted.eventId);
      if (read === undefined) return { kind: 'retry', detail: 'the conversation events could not be read' };
      const response = { status: posted.status, body: posted.body, replies: read };
      // Section 4, "Conversations": the operation is in a Company message.
      const operation = lastOperation(read);
      return operation === undefined ? { kind: 'answer', response } : { kind: 'operation', operation, response };
    },

    async send(approval, entry: PerformEntry): Promise<SendAnswer<ConversationResponse>> {
      // Section 6, "Conversations": the approval in extensions.operations.approval of a message
      // whose ID is the same on every retry.
      const message = approvalMessage({ id: entry.message_id as string, text: options.approvalText ?? APPROVAL_MESSAGE_TEXT, approval });
      const posted = await postMessage(base, live, message);
      if (!posted.ok) return { kind: 'retry', detail: posted.detail, retryAfterMs: posted.retryAfterMs };
      if (posted.status < 200 || posted.status >= 300 || posted.eventId === undefined) {
        return { kind: 'refused', response: { status: posted.status, body: posted.body, replies: [] }, detail: `HTTP ${posted.status}` };
      }
      const read = await replies(posted.eventId);
      if (read === undefined) return { kind: 'retry', detail: 'the conversation events could not be read' };
      const response = { status: posted.status, body: posted.body, replies: read };
      // "If check 3 fails, it performs nothing and returns the operation with a revision for what the request asks."
      const operation = lastOperation(read, approval.operation_id);
      if (operation !== undefined) return { kind: 'operation', operation, response };
      // No reply yet: the Company may still be performing ("says how it went in a later message").
      if (read.length === 0) return { kind: 'retry', detail: 'no reply from the Company Agent yet' };
      return { kind: 'check', response, detail: 'the Company Agent answered in words' };
    },
  };
}
