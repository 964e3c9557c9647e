import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { approvalMeta } from '../../protocol/approval';
import { operationFromToolResult } from '../../protocol/asking-for-approval';
import { isCountersignError } from '../../protocol/errors';
import type { RequestContext } from '../companion';
import type { PerformEntry, StoredRequest } from '../perform-journal';
import {
  attemptSignal,
  describeError,
  isRetryableStatus,
  requestHeaders,
  retryAfterMs,
  throwIfCallerAborted,
  type Adapter,
  type FetchLike,
  type FirstAnswer,
  type Live,
  type SendAnswer,
} from './common';

/**
 * MCP (spec sections 4 and 6, "MCP"), over Streamable HTTP with the SDK's own Client: the
 * operation comes back as a tool result with `isError: true` and `structuredContent.operation`;
 * the approval goes back as the same tool with the same arguments and the approval in
 * `_meta["personalagentprotocol.org/approval"]`.
 *
 * Each attempt uses a new Client and transport (initialize, then tools/call): a retry after a
 * dropped connection never depends on the state of the one that failed. The Poppy headers travel
 * on every HTTP request of the attempt (`requestInit.headers`). A 503 (section 7) reaches us as
 * the transport's StreamableHTTPError; its Retry-After is read by the fetch we hand the transport.
 */

export type StoredMcpRequest = Extract<StoredRequest, { interface: 'mcp' }>;

export interface McpOptions {
  /** Sent in `initialize`. Default `{ name: 'countersign-agent', version: '0.1.0' }`. */
  clientInfo?: { name: string; version: string };
  /** Other `_meta` members of the tool call; the approval is merged in (section 6). */
  meta?: Record<string, unknown>;
}

function toolCallError(error: unknown, lastStatus: { status?: number; retryAfter?: string | null }): { kind: 'retry'; detail: string; retryAfterMs?: number | undefined } | { kind: 'refused'; detail: string } {
  if (error instanceof StreamableHTTPError) {
    const status = error.code ?? lastStatus.status;
    if (typeof status === 'number' && isRetryableStatus(status)) {
      return { kind: 'retry', detail: `HTTP ${status}`, retryAfterMs: retryAfterMs(lastStatus.retryAfter) };
    }
    // -1 (an unexpected content type) says nothing about the Company's work either.
    if (status === -1) return { kind: 'retry', detail: describeError(error) };
    return { kind: 'refused', detail: `HTTP ${status}: ${describeError(error)}` };
  }
  if (error instanceof McpError) {
    // The SDK's own: no answer in time, or the connection closed. Anything else is the server's JSON-RPC error: an answer.
    if (SDK_NO_ANSWER.includes(error.code)) return { kind: 'retry', detail: describeError(error) };
    return { kind: 'refused', detail: describeError(error) };
  }
  // fetch failed, the attempt timed out, a socket closed mid-answer.
  return { kind: 'retry', detail: describeError(error) };
}

/** The SDK's error codes for "no answer": the request timed out, or the connection closed. */
const SDK_NO_ANSWER: readonly number[] = [ErrorCode.RequestTimeout, ErrorCode.ConnectionClosed];

/** A promise that rejects with the signal's reason when it aborts (already handled, so never unhandled). */
function rejectedOnAbort(signal: AbortSignal): Promise<never> {
  const aborted = new Promise<never>((_, reject) => {
    if (signal.aborted) return reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
  aborted.catch(() => undefined);
  return aborted;
}

export function mcpAdapter(stored: StoredMcpRequest, live: Live, options: McpOptions = {}): Adapter<CallToolResult> {
  const clientInfo = options.clientInfo ?? { name: 'countersign-agent', version: '0.1.0' };

  /** One attempt: connect, call, close; every HTTP request of it ends with the attempt's deadline. */
  async function call(meta: Record<string, unknown> | undefined): Promise<{ ok: true; result: CallToolResult } | { ok: false; error: unknown; last: { status?: number; retryAfter?: string | null } }> {
    const last: { status?: number; retryAfter?: string | null } = {};
    const signal = attemptSignal(live);
    const bounded: FetchLike = async (input, init) => {
      // The transport's own signal ends only when it is closed: the attempt's deadline bounds every request, notifications included.
      const response = await live.fetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, signal]) : signal });
      if (!response.ok) {
        last.status = response.status;
        last.retryAfter = response.headers.get('retry-after');
      }
      return response;
    };
    const transport = new StreamableHTTPClientTransport(new URL(stored.server_url), {
      requestInit: { headers: requestHeaders(live, {}) },
      fetch: bounded,
    });
    const client = new Client(clientInfo);
    // Whatever the SDK awaits internally, the attempt is over at the deadline.
    const deadline = rejectedOnAbort(signal);
    try {
      const result = await Promise.race([
        (async () => {
          await client.connect(transport, { signal, timeout: live.timeoutMs });
          const params = meta === undefined ? { name: stored.tool, arguments: stored.arguments } : { name: stored.tool, arguments: stored.arguments, _meta: meta };
          return (await client.callTool(params, undefined, { signal, timeout: live.timeoutMs })) as CallToolResult;
        })(),
        deadline,
      ]);
      return { ok: true, result };
    } catch (error) {
      throwIfCallerAborted(live);
      return { ok: false, error, last };
    } finally {
      await client.close().catch(() => undefined);
    }
  }

  return {
    stored,
    // Section 3: the Company "MUST NOT start the action before it receives an approval for it",
    // and a tool call is not performed twice by being asked about twice: sent again after a failure.
    firstIsRetryable: true,

    requestContext(): RequestContext {
      return { interface: 'mcp', server_url: stored.server_url, tool: stored.tool, arguments: stored.arguments };
    },

    async first(): Promise<FirstAnswer<CallToolResult>> {
      const outcome = await call(options.meta);
      if (!outcome.ok) {
        const failure = toolCallError(outcome.error, outcome.last);
        if (failure.kind === 'retry') return failure;
        // An HTTP or JSON-RPC error: the server's answer, passed on as a tool error.
        return { kind: 'answer', response: { isError: true, content: [{ type: 'text', text: failure.detail }] } };
      }
      const found = operationFromToolResult(outcome.result);
      if (found.kind === 'operation') return { kind: 'operation', operation: found.operation, response: outcome.result };
      return { kind: 'answer', response: outcome.result };
    },

    async send(approval, _entry: PerformEntry): Promise<SendAnswer<CallToolResult>> {
      // Section 6, "MCP": the same tool, the same arguments, the approval in _meta.
      const outcome = await call({ ...(options.meta ?? {}), ...approvalMeta(approval) });
      if (!outcome.ok) {
        const failure = toolCallError(outcome.error, outcome.last);
        if (failure.kind === 'retry') return failure;
        return { kind: 'refused', response: { isError: true, content: [{ type: 'text', text: failure.detail }] }, detail: failure.detail };
      }
      const result = outcome.result;
      let found;
      try {
        found = operationFromToolResult(result);
      } catch (error) {
        if (!isCountersignError(error)) throw error;
        return { kind: 'refused', response: result, detail: error.message };
      }
      if (found.kind === 'operation') return { kind: 'operation', operation: found.operation, response: result };
      if (result.isError === true) {
        const text = result.content?.find((c) => c.type === 'text');
        return { kind: 'refused', response: result, detail: `tool error${text !== undefined && 'text' in text ? `: ${String(text.text).slice(0, 300)}` : ''}` };
      }
      return { kind: 'performed', response: result };
    },
  };
}
