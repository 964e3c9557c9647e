import { formatApprovalHeader } from '../../protocol/approval-header';
import { operationFromApiResponse } from '../../protocol/asking-for-approval';
import { isCountersignError } from '../../protocol/errors';
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
 * APIs (spec sections 4 and 6, "APIs"): the operation comes back as HTTP 403 with
 * `error: "approval_required"` and `operation`; the approval goes back as the same request (same
 * method, URL and body) with the `Poppy-Approval` header, and an Idempotency-Key of its own or
 * none ("An Idempotency-Key ... sent with the first request doesn't carry over").
 */

export type StoredApiRequest = Extract<StoredRequest, { interface: 'api' }>;

/** What the Company answered, as read. */
export interface ApiResponse {
  status: number;
  headers: Headers;
  /** The body parsed as JSON, or undefined when it isn't JSON. */
  body: unknown;
  text: string;
}

/** Methods that RFC 9110 section 9.2.2 calls idempotent: their first request may be sent again. */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'TRACE']);

function encodeBody(stored: StoredApiRequest): { body: string | undefined; contentType: string | undefined } {
  if (stored.body === undefined) return { body: undefined, contentType: stored.content_type };
  // A string body is sent as given (the caller's own encoding); JSON data as JSON. The same bytes every time.
  if (typeof stored.body === 'string') return { body: stored.body, contentType: stored.content_type };
  return { body: JSON.stringify(stored.body), contentType: stored.content_type ?? 'application/json' };
}

export function apiAdapter(stored: StoredApiRequest, live: Live): Adapter<ApiResponse> {
  const { body, contentType } = encodeBody(stored);

  async function attempt(headers: Record<string, string>): Promise<{ ok: true; response: ApiResponse } | { ok: false; detail: string }> {
    try {
      const response = await live.fetch(stored.url, { method: stored.method, headers, body: body ?? null, redirect: 'manual', signal: attemptSignal(live) });
      const { body: parsed, text } = await readResponse(response);
      return { ok: true, response: { status: response.status, headers: response.headers, body: parsed, text } };
    } catch (error) {
      throwIfCallerAborted(live);
      return { ok: false, detail: describeError(error) };
    }
  }

  return {
    stored,
    firstIsRetryable: live.firstIdempotencyKey !== undefined || IDEMPOTENT.has(stored.method.toUpperCase()),

    requestContext(): RequestContext {
      return { interface: 'api', method: stored.method, url: stored.url, ...(stored.body === undefined ? {} : { body: stored.body }) };
    },

    async first(): Promise<FirstAnswer<ApiResponse>> {
      const result = await attempt(requestHeaders(live, { 'Content-Type': contentType, 'Idempotency-Key': live.firstIdempotencyKey }));
      if (!result.ok) return { kind: 'retry', detail: result.detail };
      const { response } = result;
      if (response.status === 503) return { kind: 'retry', detail: 'HTTP 503', retryAfterMs: retryAfterMs(response.headers.get('retry-after')) };
      // Section 4, "APIs": 403 approval_required with the operation.
      const found = operationFromApiResponse(response.status, response.body);
      if (found.kind === 'operation') return { kind: 'operation', operation: found.operation, response };
      return { kind: 'answer', response };
    },

    async send(approval, entry: PerformEntry): Promise<SendAnswer<ApiResponse>> {
      // Section 6, "APIs": the same method, URL and body, and the approval in Poppy-Approval; the
      // Idempotency-Key is this request's own (kept in the journal so every retry carries it) or none.
      const headers = requestHeaders(live, { 'Content-Type': contentType, 'Idempotency-Key': entry.idempotency_key, 'Poppy-Approval': formatApprovalHeader(approval) });
      const result = await attempt(headers);
      if (!result.ok) return { kind: 'retry', detail: result.detail };
      const { response } = result;
      // Section 7: "An API or MCP server responds with HTTP 503 and a Retry-After header" while it
      // performs or doesn't know: not a failure, send the same approval again.
      if (isRetryableStatus(response.status)) return { kind: 'retry', detail: `HTTP ${response.status}`, retryAfterMs: retryAfterMs(response.headers.get('retry-after')) };
      // Section 6: "If every check passes, the Company performs the action and responds as it would have without operations."
      if (response.status >= 200 && response.status < 300) return { kind: 'performed', response };
      let found;
      try {
        found = operationFromApiResponse(response.status, response.body);
      } catch (error) {
        if (!isCountersignError(error)) throw error;
        return { kind: 'refused', response, detail: `HTTP ${response.status}: ${error.message}` };
      }
      if (found.kind === 'operation') return { kind: 'operation', operation: found.operation, response };
      const code = typeof (response.body as { error?: unknown } | undefined)?.error === 'string' ? ` ${(response.body as { error: string }).error}` : '';
      return { kind: 'refused', response, detail: `HTTP ${response.status}${code}` };
    },
  };
}
