import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, type JSONRPCMessage, type MessageExtraInfo, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';

/**
 * The fast path of an `allow` call (docs/mcp-gateway.md, "Policies"): a `tools/call` of a tool the
 * local policy lets through unasked goes to its upstream as the JSON-RPC message it is, with its
 * id, its progress token and the upstream's own tool name put in, and the upstream's answer comes
 * back the same way, with the client's id and token put back. Nothing else changes: both messages
 * were checked by the MCP SDK's transports on the way in (JSON-RPC, MCP's message schema), the
 * call's params are checked here, and every other message, and every call this cannot route (a
 * tool that asks, a Company's, one not listed yet, a task), goes through the gateway's MCP server
 * as before. What it saves, per call: the SDK's request machinery on both sides (a second schema
 * check of the call and of its result, an abort controller and a day-long timer each), which made
 * an `allow` call cost half as much again as a byte-copying relay (bench/gateway.bench.ts).
 */

/** A transport whose messages `tap` sees first, each as parsed JSON, before any schema: true for one it took (the SDK never sees it). */
export interface Tappable extends Transport {
  tap: ((message: Record<string, unknown>) => boolean) | undefined;
}

/** Any transport as a Tappable: the MCP SDK's (HTTP, in memory, stdio on Windows) with the tap put before it, after its own checks. */
export class TappedTransport implements Tappable {
  tap: ((message: Record<string, unknown>) => boolean) | undefined;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  constructor(readonly inner: Transport) {}

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }

  async start(): Promise<void> {
    this.inner.onmessage = (message, extra) => {
      if (this.tap?.(message) === true) return;
      this.onmessage?.(message, extra);
    };
    this.inner.onclose = () => this.onclose?.();
    this.inner.onerror = (error) => this.onerror?.(error);
    await this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** `transport` itself when it has a tap (stdio-lines.ts), else the SDK's wrapped. */
export function tappable(transport: Transport): Tappable {
  return 'tap' in transport ? (transport as Tappable) : new TappedTransport(transport);
}

/** Where an `allow` call goes: its upstream's transport and the upstream's own name of the tool. Undefined: not this path. */
export type PassThroughRoute = (exposedName: string) => { transport: Tappable; name: string } | undefined;

/*
 * What this path checks of the messages it takes (the tap sees them before any other check): the
 * JSON-RPC envelope and what it relies on, as MCP's message schema would; anything else a message
 * carries passes on untouched. A client's message that fails goes the SDK's way, to its error.
 */
const requestIdSchema = z.union([z.string(), z.number().int()]);
const callSchema = z.looseObject({
  jsonrpc: z.literal('2.0'),
  id: requestIdSchema,
  method: z.literal('tools/call'),
  params: z.looseObject({
    name: z.string(),
    arguments: z.record(z.string(), z.unknown()).optional(),
    _meta: z.looseObject({ progressToken: z.union([z.string(), z.number()]).optional() }).optional(),
  }),
});
const cancelSchema = z.looseObject({ jsonrpc: z.literal('2.0'), method: z.literal('notifications/cancelled'), params: z.looseObject({ requestId: requestIdSchema, reason: z.string().optional() }) });
const resultSchema = z.looseObject({ jsonrpc: z.literal('2.0'), id: z.string(), result: z.looseObject({}) });
const errorSchema = z.looseObject({ jsonrpc: z.literal('2.0'), id: z.string(), error: z.looseObject({ code: z.number().int(), message: z.string() }) });
const progressSchema = z.looseObject({
  jsonrpc: z.literal('2.0'),
  method: z.literal('notifications/progress'),
  params: z.looseObject({ progressToken: z.string(), progress: z.number(), total: z.number().optional(), message: z.string().optional() }),
});

/**
 * An upstream's error text as the client should get it: once. A server built on the MCP SDK sends
 * its McpError's message, "MCP error N: " included, and the client's SDK puts its own before it.
 */
export function withoutMcpPrefix(text: string): string {
  return text.replace(/^(?:MCP error -?\d+: )+/, '');
}

/** Ids and tokens of this path's messages to upstreams: strings, so never one of the SDK client's numbers. */
const ID_PREFIX = 'countersign-pass-';

interface InFlight {
  clientId: RequestId;
  clientToken: string | number | undefined;
  upstream: Tappable;
}

type Message = Record<string, unknown>;

export class PassThroughCalls {
  #next = 0;
  readonly #inFlight = new Map<string, InFlight>();
  readonly #byClientId = new Map<RequestId, string>();

  constructor(
    readonly client: Tappable,
    upstreams: readonly Tappable[],
    readonly route: PassThroughRoute,
  ) {
    client.tap = (message) => this.#fromClient(message);
    for (const u of upstreams) u.tap = (message) => this.#fromUpstream(message);
  }

  #fromClient(m: Message): boolean {
    if (m['method'] === 'tools/call' && 'id' in m) return this.#call(m);
    if (m['method'] === 'notifications/cancelled' && !('id' in m)) return this.#cancel(m);
    return false;
  }

  #call(m: Message): boolean {
    const parsed = callSchema.safeParse(m);
    // A task-augmented call is the SDK's to refuse (tasks are not proxied).
    if (!parsed.success || parsed.data.params['task'] !== undefined) return false;
    const { id: clientId, params } = parsed.data;
    const route = this.route(params.name);
    if (route === undefined || this.#byClientId.has(clientId)) return false;
    const id = `${ID_PREFIX}${++this.#next}`;
    const clientToken = params._meta?.progressToken;
    // The client's token could equal one the SDK client uses upstream for a call of its own: ours is the call's id.
    const meta = params._meta === undefined ? undefined : { ...params._meta, ...(clientToken === undefined ? {} : { progressToken: id }) };
    this.#inFlight.set(id, { clientId, clientToken, upstream: route.transport });
    this.#byClientId.set(clientId, id);
    const message = { jsonrpc: '2.0' as const, id, method: 'tools/call', params: { ...params, name: route.name, ...(meta === undefined ? {} : { _meta: meta }) } };
    route.transport.send(message).catch((error: unknown) => {
      if (this.#settle(id)) this.#answerError(clientId, `could not reach the upstream: ${error instanceof Error ? error.message : String(error)}`);
    });
    return true;
  }

  #cancel(m: Message): boolean {
    const parsed = cancelSchema.safeParse(m);
    const id = parsed.success ? this.#byClientId.get(parsed.data.params.requestId) : undefined;
    if (id === undefined || !parsed.success) return false;
    const flight = this.#inFlight.get(id)!;
    this.#settle(id);
    // The client has stopped listening for it; the upstream is told, and its answer, if any, is dropped.
    void flight.upstream.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { ...parsed.data.params, requestId: id } }).catch(() => undefined);
    return true;
  }

  #fromUpstream(m: Message): boolean {
    const id = m['id'];
    if (typeof id === 'string' && id.startsWith(ID_PREFIX) && !('method' in m)) {
      const flight = this.#inFlight.get(id);
      // An answer to a call the client cancelled: nobody waits for it.
      if (flight === undefined || !this.#settle(id)) return true;
      const failed = 'error' in m ? errorSchema.safeParse(m) : undefined;
      const answered = failed === undefined ? resultSchema.safeParse(m) : undefined;
      if (failed?.success === true) {
        const { error } = failed.data;
        void this.client.send({ ...failed.data, id: flight.clientId, error: { ...error, message: withoutMcpPrefix(error.message) } }).catch(() => undefined);
      } else if (answered?.success === true) {
        void this.client.send({ ...answered.data, id: flight.clientId }).catch(() => undefined);
      } else {
        this.#answerError(flight.clientId, 'the upstream answered with a message that is not a JSON-RPC response');
      }
      return true;
    }
    if (m['method'] === 'notifications/progress') {
      const progress = progressSchema.safeParse(m);
      if (!progress.success || !progress.data.params.progressToken.startsWith(ID_PREFIX)) return false;
      const flight = this.#inFlight.get(progress.data.params.progressToken);
      if (flight?.clientToken !== undefined) void this.client.send({ ...progress.data, params: { ...progress.data.params, progressToken: flight.clientToken } }).catch(() => undefined);
      return true;
    }
    return false;
  }

  #answerError(clientId: RequestId, message: string): void {
    void this.client.send({ jsonrpc: '2.0', id: clientId, error: { code: ErrorCode.InternalError, message } }).catch(() => undefined);
  }

  /** True when the call was still in flight (and is not from now on). */
  #settle(id: string): boolean {
    const flight = this.#inFlight.get(id);
    if (flight === undefined) return false;
    this.#inFlight.delete(id);
    this.#byClientId.delete(flight.clientId);
    return true;
  }
}
