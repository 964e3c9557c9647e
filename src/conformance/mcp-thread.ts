import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { APPROVAL_META_KEY } from '../protocol/index';
import { approvalOf, readOperation, type Answer, type AskOptions, type Thread, type Variant } from './answer';
import { isObject } from '../protocol/issues';
import type { Caller } from './caller';
import { send, type Exchange } from './company-http';
import { expand, type ToolCallTemplate, type Variables } from './scenario';
import { PACKAGE_VERSION } from '../protocol/package-version';

/**
 * Section 4 and 6, "MCP", spoken as JSON-RPC over Streamable HTTP by hand rather than through
 * the MCP SDK's client: the kit must see what the SDK hides, the HTTP status and `Retry-After`
 * of a tool call (section 7: "An API or MCP server responds with HTTP 503 and a Retry-After
 * header"), and keep every exchange as evidence. Each tool call runs in its own MCP session
 * (initialize, initialized, tools/call), with the Session's Poppy headers on each HTTP request.
 */

const ACCEPT = 'application/json, text/event-stream';

/** The JSON-RPC response with `id` from a JSON body or a text/event-stream body. */
function rpcResponse(exchange: Exchange & { rawText?: string }, id: number): Record<string, unknown> | undefined {
  const body = exchange.response?.body;
  if (isObject(body) && body.id === id) return body;
  const text = exchange.rawText ?? '';
  for (const line of text.split(/\r?\n/)) {
    if (!line.startsWith('data:')) continue;
    try {
      const message: unknown = JSON.parse(line.slice(5));
      if (isObject(message) && message.id === id) return message;
    } catch {
      // Not JSON: not the response.
    }
  }
  return undefined;
}

/**
 * An operation where a server that gets section 4 wrong may put it: a JSON-RPC error's `data`
 * (`data.operation`, `data.structuredContent.operation`), or an API-style `approval_required` body.
 */
export function operationInError(error: unknown): unknown {
  if (!isObject(error)) return undefined;
  if (error.error === 'approval_required' && 'operation' in error) return error.operation;
  const data = error.data;
  if (!isObject(data)) return undefined;
  if ('operation' in data) return data.operation;
  return isObject(data.structuredContent) && 'operation' in data.structuredContent ? data.structuredContent.operation : undefined;
}

export class McpThread implements Thread {
  readonly interface = 'mcp' as const;
  readonly #caller: Caller;
  readonly #path: string;
  readonly #calls: Partial<Record<Variant, ToolCallTemplate>>;
  readonly #variables: Variables;

  constructor(caller: Caller, path: string, calls: Partial<Record<Variant, ToolCallTemplate>>, variables: Variables) {
    this.#caller = caller;
    this.#path = path;
    this.#calls = calls;
    this.#variables = variables;
  }

  async #post(body: unknown, declare: string | false | undefined, session: string | undefined): Promise<Exchange & { rawText?: string }> {
    const headers: Record<string, string> = { ...(await this.#caller.headers(declare)), Accept: ACCEPT, 'MCP-Protocol-Version': LATEST_PROTOCOL_VERSION };
    if (session !== undefined) headers['Mcp-Session-Id'] = session;
    return send({ method: 'POST', url: this.#caller.url(this.#path), headers, body });
  }

  /** initialize + notifications/initialized: the MCP session ID, if the server gives one. */
  async #initialize(declare: string | false | undefined): Promise<{ session: string | undefined; failed?: Exchange }> {
    const init = await this.#post(
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'countersign-conformance', version: PACKAGE_VERSION } } },
      declare,
      undefined,
    );
    const response = rpcResponse(init, 1);
    if (response === undefined || !('result' in response)) return { session: undefined, failed: init };
    const session = init.response?.headers['mcp-session-id'];
    await this.#post({ jsonrpc: '2.0', method: 'notifications/initialized' }, declare, session);
    return { session };
  }

  async ask(variant: Variant, options: AskOptions = {}): Promise<Answer> {
    const template = this.#calls[variant];
    if (template === undefined) throw new Error(`the scenario has no mcp.${variant}`);
    const call = expand(template, this.#variables);
    const init = await this.#initialize(options.declare);
    if (init.failed !== undefined) return this.#read(init.failed, 1);
    const approval = approvalOf(options);
    const params = { name: call.tool, arguments: call.arguments, ...(approval === undefined ? {} : { _meta: { [APPROVAL_META_KEY]: approval } }) };
    return this.#read(await this.#post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params }, options.declare, init.session), 2);
  }

  #read(exchange: Exchange & { rawText?: string }, id: number): Answer {
    const base: Answer = { interface: 'mcp', kind: 'silent', exchanges: [exchange] };
    const status = exchange.response?.status;
    if (status === undefined) return base;
    if (status === 503) return { ...base, kind: 'busy', status };
    const message = rpcResponse(exchange, id);
    if (message === undefined || !isObject(message.result)) {
      const error = message?.error ?? exchange.response?.body;
      // Read leniently (answer.ts): an operation in a JSON-RPC error or an HTTP error body is still
      // the operation, so that the envelope breaks section 4's sentence, not every check after it.
      const carried = operationInError(error);
      if (carried !== undefined) return { ...base, kind: 'operation', status, rpcError: error, ...readOperation(carried) };
      const kind = isObject(error) && (error.error === 'extension_required' || error.message === 'extension_required') ? 'extension_required' : 'refused';
      return { ...base, kind, status, rpcError: error };
    }
    const result = message.result;
    const structured = result.structuredContent;
    if (isObject(structured) && 'operation' in structured) return { ...base, kind: 'operation', status, result, ...readOperation(structured.operation) };
    return { ...base, kind: result.isError === true ? 'refused' : 'done', status, result };
  }
}
