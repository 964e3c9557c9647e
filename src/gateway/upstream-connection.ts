import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { formatExtensionsHeader, supportsOperationsV2 } from '../protocol/advertising-support';
import { companyFromPoppyJson, type Company } from '../protocol/company';
import { CountersignError } from '../protocol/errors';
import { isStdioUpstream, type HttpUpstreamSpec, type UpstreamSpec } from './upstream-spec';

/**
 * One upstream MCP server, connected: its MCP client, what it says about itself, and whether it
 * is a Company that speaks operations v2 (its poppy.json says so: spec section 2). The gateway's
 * own client declares no capabilities (no roots, sampling or elicitation): requests from the
 * upstream to the client are not relayed (docs/mcp-gateway.md, "What passes through").
 */

export interface OperationsUpstream {
  company: Company;
  poppyJson: unknown;
}

export interface Upstream {
  spec: UpstreamSpec;
  client: Client;
  /** As the server introduces itself in `initialize` (title, else name), or the upstream's name. */
  serverName: string;
  capabilities: ServerCapabilities;
  instructions: string | undefined;
  /** Set for a Company whose poppy.json lists operations v2: its tool calls go through the SDK's perform loop. */
  operations: OperationsUpstream | undefined;
}

export interface ConnectOptions {
  clientInfo: { name: string; version: string };
  fetch?: typeof fetch;
  /** How long to wait for poppy.json and for `initialize`. */
  timeoutMs?: number;
}

export async function connectUpstream(spec: UpstreamSpec, options: ConnectOptions): Promise<Upstream> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const operations = isStdioUpstream(spec) ? undefined : await findOperations(spec, options.fetch ?? fetch, timeoutMs);
  const client = new Client(options.clientInfo, { capabilities: {} });
  const transport = isStdioUpstream(spec)
    ? new StdioClientTransport({
        command: spec.command,
        args: spec.args ?? [],
        // Only what the config names, over the SDK's minimal defaults (HOME, PATH, USER, ...).
        env: { ...getDefaultEnvironment(), ...(spec.env ?? {}) },
        ...(spec.cwd === undefined ? {} : { cwd: spec.cwd }),
        stderr: 'inherit',
      })
    : new StreamableHTTPClientTransport(new URL(spec.url), {
        // Declaring the extension on every request (spec section 2) lets the Company return operations.
        requestInit: { headers: { ...(spec.headers ?? {}), ...(operations ? { 'Poppy-Extensions': formatExtensionsHeader() } : {}) } },
      });
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
    serverName: (info?.title ?? info?.name ?? spec.name).slice(0, 128),
    capabilities: client.getServerCapabilities() ?? {},
    instructions: client.getInstructions(),
    operations,
  };
}

/** The Company's poppy.json, from the upstream URL's origin; undefined when it does not list operations v2. */
async function findOperations(spec: HttpUpstreamSpec, fetchImpl: typeof fetch, timeoutMs: number): Promise<OperationsUpstream | undefined> {
  const origin = new URL(spec.url).origin;
  let poppyJson: unknown;
  try {
    const response = await fetchImpl(`${origin}/.well-known/poppy.json`, { signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
    if (!response.ok) return undefined;
    poppyJson = await response.json();
  } catch {
    // No poppy.json (or not JSON): a plain MCP server.
    return undefined;
  }
  if (!supportsOperationsV2(poppyJson)) return undefined;
  return { company: companyFromPoppyJson(poppyJson, origin), poppyJson };
}
