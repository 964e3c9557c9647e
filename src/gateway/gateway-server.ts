import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type CallToolResult,
  type ServerCapabilities,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { canonicalJson } from '../protocol/canonical-json';
import { CountersignError } from '../protocol/errors';
import { HeldCalls } from './held-calls';
import { PassThroughCalls, tappable, withoutMcpPrefix, type Tappable } from './pass-through';
import type { ToolCallEntry, ToolCallJournal } from './tool-call-journal';
import type { ApprovedCall, ToolCallApprover } from './tool-call-approver';
import { toolPolicy } from './tool-policy';
import { toolWords, type ToolWords } from './tool-words';
import type { RelayedMethod, Upstream } from './upstream-connection';
import { ambiguousUpstreamNames, reachedBy, type ToolPolicy } from './upstream-spec';

/**
 * The MCP server the client talks to (docs/mcp-gateway.md). Everything passes through to the
 * upstreams as they said it, except tool calls that ask: those wait for the person's signed
 * decision in Countersign, and run once per approval. The local policy (tool-policy.ts) decides
 * first for every upstream; a Company the config names, that speaks operations v2, then gets its
 * own loop (the spec's: ask, approve, send the approval back, at most once), through
 * `operations`.
 */

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** What a listed tool looks like here: the upstream's object, kept whole (unknown members included). */
type ListedTool = { name: string; annotations?: { readOnlyHint?: unknown }; execution?: { taskSupport?: unknown } } & Record<string, unknown>;

/** Loose result schemas: the upstream's answers pass through as they are (the SDK's strict ones drop members). */
const anyResult = z.looseObject({});
const toolsPage = z.looseObject({ tools: z.array(z.looseObject({ name: z.string() })), nextCursor: z.string().optional() });
const promptsPage = z.looseObject({ prompts: z.array(z.looseObject({ name: z.string() })), nextCursor: z.string().optional() });
const resourcesPage = z.looseObject({ resources: z.array(z.looseObject({ uri: z.string() })), nextCursor: z.string().optional() });
const templatesPage = z.looseObject({ resourceTemplates: z.array(z.looseObject({})), nextCursor: z.string().optional() });

/** No upstream call is cut short by the gateway: the client's own time-out and cancellation decide. */
const UPSTREAM_TIMEOUT_MS = 24 * 60 * 60_000;
/** While a call waits for the person, a progress notification this often (when the client asked for progress). */
export const HOLD_PROGRESS_MS = 5_000;
/** Separates an upstream's name from its tool's or prompt's name when there are several upstreams. */
export const NAMESPACE_SEPARATOR = '__';
/** How long closing waits for approved calls that are running, so their outcome is recorded. */
export const CLOSE_WAIT_MS = 30_000;
/** Errors of our own MCP client that mean the server never answered: what the call did is not known. */
const NOT_ANSWERED: readonly number[] = [ErrorCode.ConnectionClosed, ErrorCode.RequestTimeout];
/** The `_meta` member of a listed tool that says why its upstream is not what the config says it is. */
export const WARNING_META_KEY = 'countersign.dev/warning';

export interface OperationsCaller {
  /** An operations v2 Company's tool, called through the SDK's perform loop. */
  call(upstream: Upstream, tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult>;
}

export interface GatewayOptions {
  upstreams: Upstream[];
  approver: ToolCallApprover;
  operations: OperationsCaller;
  journal: ToolCallJournal;
  serverInfo: { name: string; version: string };
  askAll: boolean;
  /** How long a tool-call prompt stays open. */
  expiryMs: number;
  holdProgressMs?: number;
  /** How long held work outlives its last caller (held-calls.ts). */
  graceMs?: number;
  /** How long `close` waits for approved calls that run (CLOSE_WAIT_MS). */
  closeWaitMs?: number;
  now?: () => number;
}

interface ToolEntry {
  upstream: Upstream;
  tool: ListedTool;
  policy: ToolPolicy;
}

export class Gateway {
  readonly server: Server;
  readonly #o: GatewayOptions;
  readonly #held: HeldCalls<CallToolResult>;
  #tools = new Map<string, ToolEntry>();
  readonly #resourceOwners = new Map<string, Upstream>();
  /** Approved calls running now, each until its outcome is recorded. */
  readonly #running = new Set<Promise<unknown>>();

  constructor(options: GatewayOptions) {
    // Guard: two upstreams whose prefixed names can be equal would hide one tool behind another's.
    const ambiguous = ambiguousUpstreamNames(options.upstreams.map((u) => u.spec.name));
    if (ambiguous !== undefined) {
      throw new CountersignError('ERR_ARGUMENT_INVALID', `upstreams "${ambiguous[0]}" and "${ambiguous[1]}": expected names that cannot expose the same tool name (<upstream>__<tool>); rename one`);
    }
    this.#o = options;
    this.#held = new HeldCalls<CallToolResult>(options.graceMs);
    const capabilities = mergeCapabilities(options.upstreams);
    const instructions = options.upstreams.map((u) => u.instructions).filter((i): i is string => typeof i === 'string' && i !== '');
    this.server = new Server(options.serverInfo, { capabilities, ...(instructions.length > 0 ? { instructions: instructions.join('\n\n') } : {}) });
    this.#wire(capabilities);
  }

  get #several(): boolean {
    return this.#o.upstreams.length > 1;
  }

  #exposed(upstream: Upstream, name: string): string {
    return this.#several ? `${upstream.spec.name}${NAMESPACE_SEPARATOR}${name}` : name;
  }

  /**
   * Serve the MCP client on `transport`, with the fast path of allow calls (pass-through.ts):
   * everything else reaches `server` as it would without it.
   */
  async connect(transport: Transport): Promise<void> {
    const tapped = tappable(transport);
    new PassThroughCalls(tapped, this.#o.upstreams.map((u) => u.transport), (name) => this.#passThrough(name));
    await this.server.connect(tapped);
  }

  /** Where an allow call of a plain MCP server's listed tool goes as a message; undefined for every other call. */
  #passThrough(name: string): { transport: Tappable; name: string } | undefined {
    const entry = this.#tools.get(name);
    if (entry === undefined || entry.policy !== 'allow' || entry.upstream.operations !== undefined) return undefined;
    return { transport: entry.upstream.transport, name: entry.tool.name };
  }

  /** The upstream and the upstream's own name for an exposed (possibly namespaced) name. */
  #route(name: string): { upstream: Upstream; name: string } | undefined {
    if (!this.#several) return { upstream: this.#o.upstreams[0]!, name };
    const at = name.indexOf(NAMESPACE_SEPARATOR);
    if (at <= 0) return undefined;
    const upstream = this.#o.upstreams.find((u) => u.spec.name === name.slice(0, at));
    return upstream === undefined ? undefined : { upstream, name: name.slice(at + NAMESPACE_SEPARATOR.length) };
  }

  #wire(capabilities: ServerCapabilities): void {
    const s = this.server;
    // Requests from the client's side: relay notifications the upstreams care about.
    s.fallbackNotificationHandler = async (n) => {
      await Promise.all(this.#o.upstreams.map((u) => u.client.notification(n as never).catch(() => undefined)));
    };
    for (const u of this.#o.upstreams) {
      u.client.fallbackNotificationHandler = async (n) => {
        // A changed tool list must be listed again before its policies apply.
        if (n.method === 'notifications/tools/list_changed') this.#tools = new Map();
        await s.notification(n as ServerNotification).catch(() => undefined);
      };
      u.client.onerror = () => undefined;
    }
    s.onerror = () => undefined;
    // The upstreams' requests to the client: the client answers, once it has said what it supports.
    const initialized = new Promise<void>((resolve) => (s.oninitialized = () => resolve()));
    for (const u of this.#o.upstreams) u.relay.bind(async (method, params, signal) => this.#toClient(initialized, method, params, signal));

    if (capabilities.tools) {
      s.setRequestHandler(ListToolsRequestSchema, async (_req, extra) => ({ tools: (await this.#listTools(extra.signal)).map((e) => this.#listed(e)) }));
      s.setRequestHandler(CallToolRequestSchema, (req, extra) => this.#callTool(req.params, extra));
    }
    if (capabilities.prompts) {
      s.setRequestHandler(ListPromptsRequestSchema, async (_req, extra) => ({
        prompts: (await this.#all(extra.signal, (u) => u.capabilities.prompts !== undefined, 'prompts/list', promptsPage, (p) => p.prompts)).map(({ upstream, item }) => ({ ...item, name: this.#exposed(upstream, item.name) })),
      }));
      s.setRequestHandler(GetPromptRequestSchema, async (req, extra) => {
        const route = this.#route(req.params.name);
        if (!route) throw rpcError(ErrorCode.InvalidParams, `Unknown prompt: ${req.params.name}`);
        return this.#forward(route.upstream, 'prompts/get', { ...req.params, name: route.name }, extra);
      });
    }
    if (capabilities.resources) {
      s.setRequestHandler(ListResourcesRequestSchema, async (_req, extra) => {
        const found = await this.#all(extra.signal, (u) => u.capabilities.resources !== undefined, 'resources/list', resourcesPage, (p) => p.resources);
        for (const { upstream, item } of found) this.#resourceOwners.set(item.uri, upstream);
        return { resources: found.map(({ item }) => item) };
      });
      s.setRequestHandler(ListResourceTemplatesRequestSchema, async (_req, extra) => ({
        resourceTemplates: (await this.#all(extra.signal, (u) => u.capabilities.resources !== undefined, 'resources/templates/list', templatesPage, (p) => p.resourceTemplates)).map(({ item }) => item),
      }));
      s.setRequestHandler(ReadResourceRequestSchema, (req, extra) => this.#byResource(req.params.uri, 'resources/read', req.params, extra));
      if (capabilities.resources.subscribe) {
        s.setRequestHandler(SubscribeRequestSchema, (req, extra) => this.#byResource(req.params.uri, 'resources/subscribe', req.params, extra));
        s.setRequestHandler(UnsubscribeRequestSchema, (req, extra) => this.#byResource(req.params.uri, 'resources/unsubscribe', req.params, extra));
      }
    }
    if (capabilities.completions) {
      s.setRequestHandler(CompleteRequestSchema, async (req, extra) => {
        const ref = req.params.ref;
        if (ref.type === 'ref/prompt') {
          const route = this.#route(ref.name);
          if (!route) throw rpcError(ErrorCode.InvalidParams, `Unknown prompt: ${ref.name}`);
          return this.#forward(route.upstream, 'completion/complete', { ...req.params, ref: { ...ref, name: route.name } }, extra);
        }
        return this.#byResource(ref.uri, 'completion/complete', req.params, extra);
      });
    }
    if (capabilities.logging) {
      s.setRequestHandler(SetLevelRequestSchema, async (req, extra) => {
        await Promise.all(this.#o.upstreams.filter((u) => u.capabilities.logging).map((u) => this.#forward(u, 'logging/setLevel', req.params, extra)));
        return {};
      });
    }
  }

  /**
   * An upstream's elicitation, sampling or roots request, sent to the MCP client as it came. A
   * client that does not support it is told so in the upstream's answer (-32601), as the upstream
   * would have heard it talking to that client directly.
   */
  async #toClient(initialized: Promise<void>, method: RelayedMethod, params: Record<string, unknown> | undefined, signal: AbortSignal): Promise<Record<string, unknown>> {
    await Promise.race([initialized, new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }))]);
    const caps = this.server.getClientCapabilities() ?? {};
    const supported = method === 'roots/list' ? caps.roots : method === 'sampling/createMessage' ? caps.sampling : caps.elicitation;
    if (supported === undefined) {
      const client = this.server.getClientVersion()?.name ?? 'the MCP client';
      throw rpcError(ErrorCode.MethodNotFound, `${client} does not support ${method} (it did not declare ${method.split('/')[0]} when it connected to countersign-mcp)`);
    }
    try {
      return await this.server.request({ method, ...(params === undefined ? {} : { params }) }, anyResult, { signal, timeout: UPSTREAM_TIMEOUT_MS });
    } catch (error) {
      throw upstreamError(error);
    }
  }

  /** Every page of a list from every upstream that has the capability. */
  async #all<P, T>(signal: AbortSignal, has: (u: Upstream) => boolean, method: string, schema: z.ZodType<P>, items: (page: P) => T[]): Promise<Array<{ upstream: Upstream; item: T }>> {
    const out: Array<{ upstream: Upstream; item: T }> = [];
    for (const upstream of this.#o.upstreams.filter(has)) {
      let cursor: string | undefined;
      // Every page, however many: a list cut short would hide tools without a word. Only a
      // server that hands back a cursor it gave before (it would never end) is refused, loudly.
      const seen = new Set<string>();
      for (;;) {
        const result = (await upstream.client.request({ method, params: cursor === undefined ? {} : { cursor } }, schema as never, { signal, timeout: UPSTREAM_TIMEOUT_MS })) as P & { nextCursor?: string };
        for (const item of items(result)) out.push({ upstream, item });
        cursor = result.nextCursor;
        if (cursor === undefined) break;
        if (seen.has(cursor)) throw rpcError(ErrorCode.InternalError, `upstream "${upstream.spec.name}": ${method} returned the cursor ${JSON.stringify(cursor.slice(0, 80))} twice, so its list never ends`);
        seen.add(cursor);
      }
    }
    return out;
  }

  /** A tool as the client sees it: the upstream's, its exposed name, and the upstream's warning in `_meta` when it has one. */
  #listed(entry: ToolEntry): ListedTool {
    const tool = { ...entry.tool, name: this.#exposed(entry.upstream, entry.tool.name) };
    const warning = entry.upstream.warning;
    if (warning === undefined) return tool;
    const own: unknown = (entry.tool as Record<string, unknown>)['_meta'];
    const meta = typeof own === 'object' && own !== null ? own : {};
    return { ...tool, _meta: { ...meta, [WARNING_META_KEY]: warning } };
  }

  async #listTools(signal: AbortSignal): Promise<ToolEntry[]> {
    const found = await this.#all(signal, (u) => u.capabilities.tools !== undefined, 'tools/list', toolsPage, (p) => p.tools as ListedTool[]);
    const tools = new Map<string, ToolEntry>();
    for (const { upstream, item } of found) {
      // Tasks are not proxied: a tool that can only run as a task cannot be called through us.
      if (item.execution?.taskSupport === 'required') continue;
      // One policy for every upstream: being a Company never lifts a deny, an ask or ask_all.
      const policy = toolPolicy(item, upstream.spec.tools, this.#o.askAll || upstream.spec.ask_all === true, upstream.operations !== undefined);
      if (policy === 'deny') continue;
      tools.set(this.#exposed(upstream, item.name), { upstream, tool: item, policy });
    }
    this.#tools = tools;
    return [...tools.values()];
  }

  async #toolFor(name: string, signal: AbortSignal): Promise<ToolEntry | undefined> {
    // A client may call without listing first (or after list_changed): list, so the policy is the current one.
    if (!this.#tools.has(name)) await this.#listTools(signal);
    return this.#tools.get(name);
  }

  async #callTool(params: { name: string; arguments?: Record<string, unknown> | undefined; _meta?: Record<string, unknown> | undefined }, extra: Extra): Promise<CallToolResult> {
    const entry = await this.#toolFor(params.name, extra.signal);
    // A denied tool is not listed, and calling it is calling a tool that does not exist.
    if (entry === undefined) throw rpcError(ErrorCode.InvalidParams, `Tool ${params.name} not found`);
    const args = params.arguments ?? {};
    if (entry.policy === 'ask') return this.#askThenCall(entry, args, params._meta, extra);
    if (entry.upstream.operations) return this.#o.operations.call(entry.upstream, entry.tool.name, args, extra.signal);
    return this.#forward(entry.upstream, 'tools/call', { ...params, name: entry.tool.name }, extra) as Promise<CallToolResult>;
  }

  async #askThenCall(entry: ToolEntry, args: Record<string, unknown>, meta: Record<string, unknown> | undefined, extra: Extra): Promise<CallToolResult> {
    const now = this.#o.now ?? Date.now;
    const expiresAt = now() + this.#o.expiryMs;
    const words = toolWords(entry.tool);
    // Calls join only when the card would be the same: a tool whose description changed asks again.
    const key = canonicalJson({ upstream: entry.upstream.spec.name, tool: entry.tool.name, ...words, arguments: args });
    const stop = this.#holdProgress(meta, extra);
    try {
      return await this.#held.run(key, expiresAt, (signal) => this.#approved(entry, words, args, new Date(expiresAt), signal), extra.signal);
    } finally {
      stop();
    }
  }

  /** The work shared by identical calls: ask once, and run once if approved. */
  async #approved(entry: ToolEntry, words: ToolWords, args: Record<string, unknown>, expiresAt: Date, signal: AbortSignal): Promise<CallToolResult> {
    const server = { name: entry.upstream.serverName, reached_by: reachedBy(entry.upstream.spec) };
    const answer = await this.#o.approver.ask({ server, tool: entry.tool.name, ...words, arguments: args, expiresAt, signal });
    const base = { upstream: entry.upstream.spec.name, tool: entry.tool.name, arguments: args };
    if (answer.status !== 'approved') {
      await this.#o.journal.append({ ...base, callId: answer.status === 'unavailable' ? undefined : answer.callId, status: answer.status });
      return notRun(answer.status === 'unavailable' ? unavailableText(answer.reason) : NOT_APPROVED[answer.status]);
    }
    await this.#o.journal.append({ ...base, callId: answer.callId, status: 'approved', jws: answer.jws });
    const approved = { callId: answer.callId, revision: answer.revision };
    let running: boolean;
    try {
      running = await this.#o.approver.markRunning(approved);
    } catch (error) {
      await this.#o.journal.append({ ...base, callId: answer.callId, status: 'unavailable', detail: error instanceof Error ? error.message : String(error) });
      return notRun(unavailableText('Countersign went away before it could be told the tool runs'));
    }
    if (!running) {
      await this.#o.journal.append({ ...base, callId: answer.callId, status: 'withdrawn' });
      return notRun(NOT_APPROVED.withdrawn);
    }
    const recorded = this.#runApproved(entry, args, { ...base, callId: answer.callId }, approved, signal);
    this.#running.add(recorded);
    void recorded.finally(() => this.#running.delete(recorded)).catch(() => undefined);
    return recorded;
  }

  /**
   * Runs an approved call once and records its outcome. Once sent, it is not cancelled: a client
   * that leaves (its cancel, or its disconnect after the grace of held-calls.ts) cannot know what
   * a half-run tool did, so the journal and Countersign say `unknown` then, and the real outcome
   * when the upstream answers.
   */
  async #runApproved(entry: ToolEntry, args: Record<string, unknown>, base: Omit<ToolCallEntry, 'status'>, approved: ApprovedCall, signal: AbortSignal): Promise<CallToolResult> {
    let left: Promise<void> | undefined;
    const onLeave = () => {
      left = (async () => {
        await this.#o.journal.append({ ...base, status: 'unknown', detail: 'the client went away while the tool ran; its outcome follows when the server answers' });
        await this.#o.approver.reportRan(approved, 'unknown', 'the client went away while the tool ran').catch(() => undefined);
      })();
    };
    if (signal.aborted) onLeave();
    else signal.addEventListener('abort', onLeave, { once: true });
    let result: CallToolResult;
    try {
      // The approval was for exactly these arguments: _meta from the client is not forwarded with
      // them. A Company's own loop keeps the signal: leaving withdraws its prompt (the SDK journals the rest).
      result = entry.upstream.operations
        ? await this.#o.operations.call(entry.upstream, entry.tool.name, args, signal)
        : ((await entry.upstream.client.request({ method: 'tools/call', params: { name: entry.tool.name, arguments: args } }, anyResult, { timeout: UPSTREAM_TIMEOUT_MS })) as CallToolResult);
    } catch (error) {
      signal.removeEventListener('abort', onLeave);
      await left;
      const detail = error instanceof Error ? error.message : String(error);
      const outcome = error instanceof McpError && !NOT_ANSWERED.includes(error.code) ? 'failed' : 'unknown';
      await this.#o.journal.append({ ...base, status: outcome, detail });
      await this.#o.approver.reportRan(approved, outcome, detail).catch(() => undefined);
      throw upstreamError(error);
    }
    signal.removeEventListener('abort', onLeave);
    await left;
    const failed = result.isError === true;
    await this.#o.journal.append({ ...base, status: failed ? 'failed' : 'performed', result });
    await this.#o.approver.reportRan(approved, failed ? 'failed' : 'performed').catch(() => undefined);
    return result;
  }

  /** Progress notifications while the person decides, for a client that asked for progress (so its time-out restarts). */
  #holdProgress(meta: Record<string, unknown> | undefined, extra: Extra): () => void {
    const token = meta?.['progressToken'];
    if (typeof token !== 'string' && typeof token !== 'number') return () => undefined;
    let step = 0;
    const tick = () => {
      step += 1;
      void extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: step, message: 'Waiting for your approval in Countersign' } }).catch(() => undefined);
    };
    const timer = setInterval(tick, this.#o.holdProgressMs ?? HOLD_PROGRESS_MS);
    return () => clearInterval(timer);
  }

  async #byResource(uri: string, method: string, params: Record<string, unknown>, extra: Extra): Promise<Record<string, unknown>> {
    const owner = this.#resourceOwners.get(uri);
    if (owner !== undefined || !this.#several) return this.#forward(owner ?? this.#o.upstreams[0]!, method, params, extra);
    // Not listed (a template's URI): the first upstream with resources that knows it.
    let last: Error = rpcError(ErrorCode.InvalidParams, `Resource ${uri} not found`);
    for (const u of this.#o.upstreams.filter((x) => x.capabilities.resources)) {
      try {
        return await this.#forward(u, method, params, extra);
      } catch (error) {
        if (error instanceof Error) last = error;
      }
    }
    throw last;
  }

  /** One request to an upstream, with the client's cancellation and progress relayed. */
  async #forward(upstream: Upstream, method: string, params: Record<string, unknown>, extra: Extra): Promise<Record<string, unknown>> {
    const meta = params['_meta'] as Record<string, unknown> | undefined;
    const token = meta?.['progressToken'];
    const onprogress =
      typeof token === 'string' || typeof token === 'number'
        ? (p: { progress: number; total?: number; message?: string }) => void extra.sendNotification({ method: 'notifications/progress', params: { ...p, progressToken: token } }).catch(() => undefined)
        : undefined;
    try {
      return await upstream.client.request({ method, params }, anyResult, {
        signal: extra.signal,
        timeout: UPSTREAM_TIMEOUT_MS,
        ...(onprogress ? { onprogress, resetTimeoutOnProgress: true } : {}),
      });
    } catch (error) {
      throw upstreamError(error);
    }
  }

  /** Stops serving; approved calls that run are waited for (up to `closeWaitMs`), so their outcome is recorded. */
  async close(): Promise<void> {
    this.#held.close();
    if (this.#running.size > 0) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.#o.closeWaitMs ?? CLOSE_WAIT_MS)));
      await Promise.race([Promise.allSettled([...this.#running]), waited]);
      clearTimeout(timer);
    }
    await this.server.close().catch(() => undefined);
    await Promise.all(this.#o.upstreams.map((u) => u.client.close().catch(() => undefined)));
  }
}

const NOT_APPROVED = {
  declined: 'You declined this tool call in Countersign. Nothing was done: the tool was not called.',
  expired: 'Nobody approved this tool call in Countersign before it expired. Nothing was done: the tool was not called.',
  withdrawn: 'The approval of this tool call was withdrawn in Countersign. Nothing was done: the tool was not called.',
  cancelled: 'The tool call was cancelled before it was approved. Nothing was done: the tool was not called.',
} as const;

export function unavailableText(reason: string): string {
  return (
    `Countersign could not ask you to approve this tool call (${reason}), so the tool was not called. ` +
    'Pair this gateway once with "countersign-mcp pair", and check the browser side with "countersign-bridge doctor".'
  );
}

function notRun(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

/**
 * An upstream's JSON-RPC error as the client gets it: its code, data and text, once. An McpError's
 * message carries the SDK's "MCP error N: " prefix, and the client's SDK adds its own: so the
 * answer is an error whose message is the upstream's text alone (the SDK's protocol answers with
 * `code`, `message` and `data` of whatever a handler throws).
 */
export function upstreamError(error: unknown): Error {
  if (!(error instanceof McpError)) return error instanceof Error ? error : new Error(String(error));
  return rpcError(error.code, withoutMcpPrefix(error.message), error.data);
}

/** A JSON-RPC error answered with exactly `text` (an McpError would put its "MCP error N: " before it). */
function rpcError(code: number, text: string, data?: unknown): Error {
  return Object.assign(new Error(text), { code, ...(data === undefined ? {} : { data }) });
}

/** What the gateway offers: what the upstreams offer, except tasks (not proxied) and experimental members. */
function mergeCapabilities(upstreams: Upstream[]): ServerCapabilities {
  const out: ServerCapabilities = {};
  for (const { capabilities: c } of upstreams) {
    if (c.tools) out.tools = { listChanged: true };
    if (c.prompts) out.prompts = { listChanged: Boolean(out.prompts?.listChanged || c.prompts.listChanged) };
    if (c.resources) out.resources = { listChanged: Boolean(out.resources?.listChanged || c.resources.listChanged), subscribe: Boolean(out.resources?.subscribe || c.resources.subscribe) };
    if (c.logging) out.logging = {};
    if (c.completions) out.completions = {};
  }
  return out;
}
