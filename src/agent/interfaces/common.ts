import type { Approval } from '../../protocol/approval';
import type { Operation } from '../../protocol/operation';
import type { RequestContext } from '../companion';
import type { PerformEntry, StoredRequest } from '../perform-journal';

/**
 * What the perform engine (../perform.ts) needs from an interface (spec section 4: how an
 * operation comes back; section 6: how the approval goes back). One adapter per request; each
 * call is ONE attempt, and the engine owns retries, the journal and the companion.
 */

export type FetchLike = (input: string | URL, init?: RequestInit) => Promise<Response>;

/** What is taken from the caller on every call and never written to the journal. */
export interface Live {
  /** The caller's headers: Poppy-Session, Poppy-Version, Authorization... (Poppy-Extensions, Poppy-Approval and Idempotency-Key removed). */
  headers: Record<string, string>;
  /** The caller's first-request Idempotency-Key, if any: never sent with the approval (section 6). */
  firstIdempotencyKey: string | undefined;
  /** The Poppy-Extensions value to send, or undefined when nothing is declared (section 2). */
  extensionsHeader: string | undefined;
  fetch: FetchLike;
  /** The caller's signal: aborting stops the perform (its journal entry stays, to be resumed). */
  signal: AbortSignal | undefined;
  /** Limit of one attempt (a request and its answer). */
  timeoutMs: number;
  /** Conversation: how long to wait for the Company Agent's reply after a message. */
  replyTimeoutMs: number;
}

/** An answer to the request without an approval (section 4). */
export type FirstAnswer<R> =
  | { kind: 'operation'; operation: Operation; response: R }
  /** No operation: the Company answered the request some other way. */
  | { kind: 'answer'; response: R }
  /** A network error, a timeout or a 503: nothing is known. */
  | { kind: 'retry'; detail: string; retryAfterMs?: number | undefined };

/** An answer to the request with the approval (sections 6 and 7). */
export type SendAnswer<R> =
  /** The Company performed it and responded as it would have without operations (section 6). */
  | { kind: 'performed'; response: R }
  /** An operation came back: check 3 failed (or the Company forgot a performed one, section 7). */
  | { kind: 'operation'; operation: Operation; response: R }
  /** A definite answer that is not performance: a tool error, a 4xx, an error message. */
  | { kind: 'refused'; response: R; detail: string }
  /** The Company answered, but only in words (a conversation): find out whether it was performed. */
  | { kind: 'check'; response: R; detail: string }
  /** A network error, a timeout, a 503 (section 7: being performed or not known): send again. */
  | { kind: 'retry'; detail: string; retryAfterMs?: number | undefined };

export interface Adapter<R> {
  readonly stored: StoredRequest;
  /** For the companion: the request the operation came back through (it is shown and checked, section 5). */
  requestContext(): RequestContext;
  /** Whether the request without an approval may be sent again after a failure. */
  readonly firstIsRetryable: boolean;
  first(): Promise<FirstAnswer<R>>;
  send(approval: Approval, entry: PerformEntry): Promise<SendAnswer<R>>;
}

/** A signal that aborts with the caller's signal or after `ms`. */
export function attemptSignal(live: Pick<Live, 'signal' | 'timeoutMs'>, ms = live.timeoutMs): AbortSignal {
  const timeout = AbortSignal.timeout(ms);
  return live.signal === undefined ? timeout : AbortSignal.any([live.signal, timeout]);
}

/** Rethrow when the caller aborted: that stops the perform; anything else is one failed attempt. */
export function throwIfCallerAborted(live: Pick<Live, 'signal'>): void {
  if (live.signal?.aborted) throw live.signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/** One line about an error, for `detail`. */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return `${error.name === 'TimeoutError' ? 'timed out' : error.message}${cause}`.slice(0, 500);
  }
  return String(error).slice(0, 500);
}

/**
 * `Retry-After` (RFC 9110 section 10.2.3): delay-seconds or an HTTP-date, in ms; undefined when
 * absent or unreadable.
 */
export function retryAfterMs(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value === null || value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d{1,10}$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Statuses after which a request is sent again: 503 (section 7), and the gateway errors that say nothing about the Company's work. */
export function isRetryableStatus(status: number): boolean {
  return status === 503 || status === 502 || status === 504 || status === 500 || status === 408 || status === 429;
}

/** The body of a response as JSON when it is JSON, otherwise undefined; the text always. */
export async function readResponse(response: Response): Promise<{ body: unknown; text: string }> {
  const text = await response.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { body, text };
}

/** Headers for one request: the caller's, the declaration (section 2), and the extra ones given. */
export function requestHeaders(live: Live, extra: Record<string, string | undefined>): Record<string, string> {
  const headers: Record<string, string> = { ...live.headers };
  if (live.extensionsHeader !== undefined) headers['Poppy-Extensions'] = live.extensionsHeader;
  for (const [name, value] of Object.entries(extra)) if (value !== undefined) headers[name] = value;
  return headers;
}
