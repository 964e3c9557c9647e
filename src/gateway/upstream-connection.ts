import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema, type ClientCapabilities, type ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { formatExtensionsHeader, supportsOperationsV2 } from '../protocol/advertising-support';
import { companyFromPoppyJson, type Company } from '../protocol/company';
import { CountersignError } from '../protocol/errors';
import { CONTROL_OR_BIDI } from '../protocol/text-schemas';
import { TappedTransport, type Tappable } from './pass-through';
import { StdioUpstreamLines } from './stdio-lines';
import { isStdioUpstream, type HttpUpstreamSpec, type UpstreamSpec } from './upstream-spec';

/**
 * One upstream MCP server, connected: its MCP client, what it says about itself, and whether it
 * is a Company that speaks operations v2. Only an upstream the config names a Company
 * (`"company": true`, `--company`) is one, and only when its poppy.json lists operations v2 (spec
 * section 2): a poppy.json alone never changes how the gateway treats a server, and a Company
 * whose poppy.json cannot be read is a warning, not a quiet change (docs/mcp-gateway.md,
 * "Operations v2 Companies"). Requests from the upstream to the client (elicitation, sampling,
 * roots) go to the MCP client through `relay`, and the client answers them (docs/mcp-gateway.md,
 * "What passes through").
 */

/**
 * What of the MCP client's capabilities the gateway's client declares to every upstream: the ones
 * it relays (roots, sampling, elicitation), each exactly as the MCP client declared it and only
 * when it did, so an upstream offers through the gateway what it would offer that client directly
 * (server-everything lists its sampling tool only to a client that samples). The rest (tasks,
 * experimental) is not relayed, so not declared.
 */
export function relayedCapabilities(client: ClientCapabilities | undefined): ClientCapabilities {
  const out: ClientCapabilities = {};
  if (client?.roots !== undefined) out.roots = client.roots;
  if (client?.sampling !== undefined) out.sampling = client.sampling;
  if (client?.elicitation !== undefined) out.elicitation = client.elicitation;
  return out;
}

/** The server-to-client requests relayed, by method. */
export type RelayedMethod = 'elicitation/create' | 'sampling/createMessage' | 'roots/list';
export type RelayRequest = (method: RelayedMethod, params: Record<string, unknown> | undefined, signal: AbortSignal) => Promise<Record<string, unknown>>;

/**
 * Where an upstream's requests to the client go: to whatever the gateway binds (the MCP client),
 * and until it binds, they wait (an upstream may ask for roots right after `initialize`).
 */
export class ClientRelay {
  #bind!: (to: RelayRequest) => void;
  readonly #bound = new Promise<RelayRequest>((resolve) => (this.#bind = resolve));

  bind(to: RelayRequest): void {
    this.#bind(to);
  }

  async request(method: RelayedMethod, params: Record<string, unknown> | undefined, signal: AbortSignal): Promise<Record<string, unknown>> {
    const to = await this.#bound;
    return to(method, params, signal);
  }
}

export interface OperationsUpstream {
  company: Company;
  poppyJson: unknown;
}

export interface Upstream {
  spec: UpstreamSpec;
  client: Client;
  /**
   * As the server introduces itself in `initialize` (title, else name), or the upstream's name:
   * its claim, one line, at most MAX_SERVER_NAME characters with a mark where it was cut.
   */
  serverName: string;
  capabilities: ServerCapabilities;
  instructions: string | undefined;
  /** Set for a Company (named so by the config) whose poppy.json lists operations v2: its tool calls go through the SDK's perform loop. */
  operations: OperationsUpstream | undefined;
  /** Why a Company named by the config is not treated as one (its poppy.json could not be read or lists no operations v2). */
  warning: string | undefined;
  /** The upstream's requests to the MCP client. */
  relay: ClientRelay;
  /** The transport its client speaks over, where allow calls pass through as messages (pass-through.ts). */
  transport: Tappable;
}

/** The longest server name Countersign shows (tool-call.ts, toolServerSchema). */
export const MAX_SERVER_NAME = 128;

export interface ConnectOptions {
  clientInfo: { name: string; version: string };
  /** What the MCP client declared in its `initialize` (none: a client that relays nothing). */
  clientCapabilities?: ClientCapabilities;
  fetch?: typeof fetch;
  /** How long to wait for poppy.json and for `initialize`. */
  timeoutMs?: number;
}

export async function connectUpstream(spec: UpstreamSpec, options: ConnectOptions): Promise<Upstream> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const found = isStdioUpstream(spec) || spec.company !== true ? undefined : await findOperations(spec, options.fetch ?? fetch, timeoutMs);
  const operations = found?.operations;
  const capabilities = relayedCapabilities(options.clientCapabilities);
  const client = new Client(options.clientInfo, { capabilities });
  const relay = new ClientRelay();
  // Before connecting: a server may ask the moment it is initialized. Only what is declared (the SDK refuses the rest).
  if (capabilities.elicitation) client.setRequestHandler(ElicitRequestSchema, async (req, extra) => (await relay.request('elicitation/create', req.params, extra.signal)) as never);
  if (capabilities.sampling) client.setRequestHandler(CreateMessageRequestSchema, async (req, extra) => (await relay.request('sampling/createMessage', req.params, extra.signal)) as never);
  if (capabilities.roots) client.setRequestHandler(ListRootsRequestSchema, async (req, extra) => (await relay.request('roots/list', req.params, extra.signal)) as never);
  const env = { ...getDefaultEnvironment(), ...(isStdioUpstream(spec) ? (spec.env ?? {}) : {}) };
  // Tapped, so that allow calls can pass through as messages (pass-through.ts). Windows runs
  // commands through the SDK's transport, whose cross-spawn finds .cmd shims such as npx.cmd.
  const transport: Tappable = !isStdioUpstream(spec)
    ? new TappedTransport(
        new StreamableHTTPClientTransport(new URL(spec.url), {
          // Declaring the extension on every request (spec section 2) lets the Company return operations.
          requestInit: { headers: { ...(spec.headers ?? {}), ...(operations ? { 'Poppy-Extensions': formatExtensionsHeader() } : {}) } },
        }),
      )
    : process.platform === 'win32'
      ? new TappedTransport(new StdioClientTransport({ command: spec.command, args: spec.args ?? [], env, ...(spec.cwd === undefined ? {} : { cwd: spec.cwd }), stderr: 'inherit' }))
      : // Only what the config names, over the SDK's minimal defaults (HOME, PATH, USER, ...).
        new StdioUpstreamLines({ command: spec.command, args: spec.args ?? [], env, ...(spec.cwd === undefined ? {} : { cwd: spec.cwd }) });
  try {
    await client.connect(transport, { timeout: timeoutMs });
  } catch (error) {
    await client.close().catch(() => undefined);
    throw new CountersignError('ERR_REMOTE', `upstream "${spec.name}": could not start or initialize it: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const info = client.getServerVersion();
  return {
    spec,
    client,
    serverName: claimedName(info?.title ?? info?.name ?? spec.name, spec.name),
    capabilities: client.getServerCapabilities() ?? {},
    instructions: client.getInstructions(),
    operations,
    warning: found?.warning,
    relay,
    transport,
  };
}

/**
 * The Company's poppy.json, from the upstream URL's origin. Anything but a poppy.json that lists
 * operations v2 is a warning that says why: the upstream is then a plain MCP server, under the
 * same local policy as any other.
 */
async function findOperations(spec: HttpUpstreamSpec, fetchImpl: typeof fetch, timeoutMs: number): Promise<{ operations?: OperationsUpstream; warning?: string }> {
  const origin = new URL(spec.url).origin;
  const where = `${origin}/.well-known/poppy.json`;
  const notACompany = (why: string) => ({ warning: `named a Company, but ${where} ${why}: its tools are treated as a plain MCP server's, and no operation of it is shown as the Company's` });
  try {
    const response = await fetchImpl(where, { signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
    if (!response.ok) return notACompany(`answered HTTP ${response.status}`);
    const poppyJson: unknown = await response.json();
    if (!supportsOperationsV2(poppyJson)) return notACompany('does not list the operations extension v2');
    return { operations: { company: companyFromPoppyJson(poppyJson, origin), poppyJson } };
  } catch (error) {
    return notACompany(`could not be read (${error instanceof Error ? error.message.slice(0, 200) : String(error).slice(0, 200)})`);
  }
}

/**
 * A server's name for itself, as a claim Countersign can show: one line (control and bidi
 * characters become spaces), never empty, and cut at a code point with "…" so a cut is visible.
 */
export function claimedName(name: string, fallback: string): string {
  const line = name.replace(new RegExp(CONTROL_OR_BIDI.source, 'g'), ' ').trim();
  const text = line === '' ? fallback : line;
  return text.length <= MAX_SERVER_NAME ? text : `${cutAt([...text], MAX_SERVER_NAME - 1)}…`;
}

/** The first code points of `points` that fit in `max` UTF-16 code units. */
function cutAt(points: string[], max: number): string {
  let out = '';
  for (const p of points) {
    if (out.length + p.length > max) break;
    out += p;
  }
  return out.trimEnd();
}
