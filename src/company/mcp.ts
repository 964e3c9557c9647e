import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { approvalFromMeta, isCountersignError, isPlainObject, type Approval } from '../protocol/index';
import { passkeyProofFromMeta, type PasskeyProof } from '../protocol/passkey-proof';
import { cancelPlan, exchangePlan, orderAccess, subscriptionAccess, type Access } from './actions';
import { apiAnswer, delay, dropConnection, readBody, sendJson, sendRefusal, type CompanyContext } from './http';
import type { ActionPlan, CheckContext, Decision } from './operations';
import { declaresOperations, identifyCaller, signInChallenge, type Caller } from './session';

/**
 * The reference Company's MCP server (Streamable HTTP at `/mcp`, @modelcontextprotocol/sdk),
 * with the API's two actions as tools: `exchange_item` and `cancel_subscription`.
 *
 * - Stateless: each HTTP request gets its own McpServer and transport (the SDK's stateless
 *   pattern), so the Session, account and `Poppy-Extensions` are those of the HTTP request that
 *   carries the tool call (core 5.3 and 7, simplified in session.ts).
 * - Section 4, "MCP": an operation is a tool result with `isError: true`, the summary as text
 *   and the operation in `structuredContent.operation`.
 * - Section 6, "MCP": the approval is read from `_meta["personalagentprotocol.org/approval"]`.
 * - Section 2: a call that doesn't declare the extension gets an ordinary tool error ("An MCP
 *   server returns that error only to refuse the Personal Agent entirely. A tool that needs the
 *   extension returns an ordinary tool error instead").
 * - Section 7: a tool call for an operation being performed gets HTTP 503 with Retry-After. That
 *   is decided before the SDK sees the request (the SDK answers with JSON-RPC, not HTTP status);
 *   a call that finds the operation busy later, inside the tool, waits for the perform to finish
 *   and answers with its result ("or as it does for work that hasn't finished").
 */

export const TOOL_NAMES = ['exchange_item', 'cancel_subscription'] as const;

const exchangeArgs = { order_id: z.string(), item_id: z.string(), replacement_sku: z.string() };
const cancelArgs = { subscription_id: z.string(), at_period_end: z.boolean().optional() };
const exchangeArgsSchema = z.object(exchangeArgs);
const cancelArgsSchema = z.object(cancelArgs);

interface CallContext {
  context: CompanyContext;
  caller: Caller;
  declared: boolean;
  res: ServerResponse;
}

function text(value: string): CallToolResult['content'] {
  return [{ type: 'text', text: value }];
}

function toolError(message: string): CallToolResult {
  return { isError: true, content: text(message) };
}

type Planned = { ok: true; plan: ActionPlan; binding: string } | { ok: false; access: Access<unknown> & { ok: false } };

function planExchange(call: Pick<CallContext, 'context' | 'caller'>, args: z.infer<typeof exchangeArgsSchema>): Planned {
  const access = orderAccess(call.context, call.caller, args.order_id);
  if (!access.ok) return { ok: false, access };
  const plan = exchangePlan(call.context, access.value, { orderId: access.value.id, itemId: args.item_id, replacementSku: args.replacement_sku });
  return { ok: true, plan, binding: 'mcp exchange_item' };
}

function planCancel(call: Pick<CallContext, 'context' | 'caller'>, args: z.infer<typeof cancelArgsSchema>): Planned {
  const access = subscriptionAccess(call.context, call.caller, args.subscription_id);
  if (!access.ok) return { ok: false, access };
  return { ok: true, plan: cancelPlan(call.context, access.value, { atPeriodEnd: args.at_period_end ?? true }), binding: 'mcp cancel_subscription' };
}

/** The tool result for a decision that isn't "perform" or "busy". */
function toolAnswer(call: CallContext, decision: Exclude<Decision, { kind: 'perform' } | { kind: 'busy' }>): CallToolResult {
  switch (decision.kind) {
    case 'extension_required':
      return toolError(
        `This needs the approval of the person you act for, and this client didn't declare the operations extension (Poppy-Extensions: "operations";v="2"). ` +
          `Nothing was done. They can do it on our website: ${call.context.baseUrl()}.`,
      );
    case 'challenge':
      return toolError('This operation belongs to an account: sign in to approve it. Nothing was done.');
    case 'performed':
      return { content: text(decision.record.outcome.text), structuredContent: decision.record.outcome.data };
    case 'refused':
      return toolError(`${decision.error.description}. Nothing was done.`);
    case 'operation':
      // Section 4, "MCP": isError, the summary as text, the operation in structuredContent.
      return {
        isError: true,
        content: text(`Not done yet. This needs the user's approval: ${decision.operation.summary}`),
        structuredContent: { operation: decision.operation },
      };
  }
}

/** The passkey proof in `_meta` (passkey-proof.ts); an unreadable one is the reason to refuse. */
function passkeyProofInMeta(meta: unknown): PasskeyProof | Error | undefined {
  try {
    return passkeyProofFromMeta(meta);
  } catch (cause) {
    if (!isCountersignError(cause)) throw cause;
    return cause;
  }
}

async function runTool(call: CallContext, planned: Planned, meta: unknown): Promise<CallToolResult> {
  if (!planned.ok) return toolError(`${planned.access.error.description}. Nothing was done.`);
  let approval: Approval | undefined;
  if (call.declared) {
    try {
      approval = approvalFromMeta(meta);
    } catch (cause) {
      if (!isCountersignError(cause)) throw cause;
      return toolError(`Invalid approval: ${cause.message}. Nothing was done.`);
    }
  }
  const check: CheckContext = { binding: planned.binding, caller: call.caller, declared: call.declared, approval };
  for (;;) {
    // Checked before deciding: a decision to perform is carried out in the same turn (operations.ts).
    const passkeys = call.context.passkeys;
    const passkey = passkeys?.requires(call.caller) === true ? await passkeys.check(call.caller, approval, passkeyProofInMeta(meta), planned.plan, call.context.now()) : undefined;
    const decision = call.context.operations.decide(check, planned.plan);
    if (decision.kind === 'busy') {
      // Work that hasn't finished: wait for it, then answer as check 2 says.
      await decision.record.settled;
      continue;
    }
    if (decision.kind !== 'perform') {
      await delay(call.context);
      return toolAnswer(call, decision);
    }
    if (passkey !== undefined) return toolError(passkey.description);
    const performed = await call.context.operations.perform(decision);
    dropConnection(call.res, performed.connection);
    await delay(call.context);
    return { content: text(performed.record.outcome.text), structuredContent: performed.record.outcome.data };
  }
}

function buildServer(call: CallContext): McpServer {
  const server = new McpServer({ name: 'stormline-outfitters', version: '0.1.0' });
  server.registerTool(
    'exchange_item',
    {
      title: 'Exchange an item',
      description: 'Exchange an item of an order for another product (for example another size). Needs the approval of the person you act for.',
      inputSchema: exchangeArgs,
    },
    (args, extra) => runTool(call, planExchange(call, args), extra._meta),
  );
  server.registerTool(
    'cancel_subscription',
    {
      title: 'Cancel a subscription',
      description: 'Cancel a subscription, at the end of the current period (default) or now. Needs the approval of the person you act for.',
      inputSchema: cancelArgs,
    },
    (args, extra) => runTool(call, planCancel(call, args), extra._meta),
  );
  return server;
}

/**
 * Before the SDK: a single `tools/call` for an operation that is being performed gets HTTP 503
 * and Retry-After (section 7), and one that the Session may approve only after signing in gets
 * the challenge (section 3). Everything else goes to the SDK (an undeclared call too, unless
 * SpecBreak `mcp-error-without-declaration` is on).
 */
function precheck(call: CallContext, message: unknown): Decision | undefined {
  if (!isPlainObject(message) || message.method !== 'tools/call' || !isPlainObject(message.params)) return undefined;
  const { name, arguments: args, _meta: meta } = message.params;
  let planned: Planned;
  if (name === 'exchange_item') {
    const parsed = exchangeArgsSchema.safeParse(args);
    if (!parsed.success) return undefined;
    planned = planExchange(call, parsed.data);
  } else if (name === 'cancel_subscription') {
    const parsed = cancelArgsSchema.safeParse(args);
    if (!parsed.success) return undefined;
    planned = planCancel(call, parsed.data);
  } else {
    return undefined;
  }
  if (!planned.ok) return planned.access.challenge ? { kind: 'challenge' } : undefined;
  let approval: Approval | undefined;
  try {
    approval = call.declared ? approvalFromMeta(meta) : undefined;
  } catch {
    return undefined;
  }
  const decision = call.context.operations.decide({ binding: planned.binding, caller: call.caller, declared: call.declared, approval }, planned.plan);
  if (decision.kind === 'operation' && call.context.faults.breaks.has('mcp-approval-as-rpc-error')) return decision;
  return decision.kind === 'busy' || decision.kind === 'challenge' || decision.kind === 'extension_required' ? decision : undefined;
}

function jsonRpcError(code: number, message: string, id: unknown = null, data?: unknown): unknown {
  return { jsonrpc: '2.0', error: data === undefined ? { code, message } : { code, message, data }, id };
}

/**
 * SpecBreak `mcp-error-without-declaration` only: the undeclared tool call refused with a JSON-RPC
 * error, as if the Personal Agent were refused entirely (breaks section 2, "A tool that needs the
 * extension returns an ordinary tool error instead").
 */
function extensionRequiredRpcError(message: unknown): unknown {
  return jsonRpcError(-32600, 'extension_required', rpcId(message), { extension: 'operations' });
}

/** The JSON-RPC request's id, for an error answered before the SDK sees it. */
function rpcId(message: unknown): string | number | null {
  return isPlainObject(message) && (typeof message.id === 'string' || typeof message.id === 'number') ? message.id : null;
}

/** Handle a request to `/mcp`. */
export async function handleMcp(context: CompanyContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== 'POST') {
    // Stateless: no server-initiated stream (GET) and no session to end (DELETE).
    return sendJson(context, res, 405, jsonRpcError(-32000, 'Method not allowed.'), { Allow: 'POST' });
  }
  const identified = identifyCaller(req.headers, context.tokens);
  if (!identified.ok) return sendRefusal(context, res, identified.refusal);
  const declared = declaresOperations(req.headers, context.faults.breaks);
  if (!declared.ok) return sendRefusal(context, res, declared.refusal);
  const body = await readBody(req);
  if (!body.ok) return sendRefusal(context, res, body.refusal);
  let message: unknown;
  try {
    message = JSON.parse(body.text);
  } catch {
    return sendJson(context, res, 400, jsonRpcError(-32700, 'Parse error'));
  }
  const call: CallContext = { context, caller: identified.caller, declared: declared.declared, res };
  const early = precheck(call, message);
  if (early !== undefined && early.kind === 'challenge') return sendRefusal(context, res, signInChallenge('sign in to the account this belongs to'));
  if (early !== undefined && early.kind === 'busy') return sendRefusal(context, res, apiAnswer(early));
  if (early?.kind === 'extension_required' && context.faults.breaks.has('mcp-error-without-declaration')) return sendJson(context, res, 200, extensionRequiredRpcError(message));
  // SpecBreak `mcp-approval-as-rpc-error` refuses with a JSON-RPC error instead of the tool's error result (breaks section 4, "The tool returns an error result, with isError set to true").
  if (early?.kind === 'operation') return sendJson(context, res, 200, jsonRpcError(-32001, 'approval_required', rpcId(message), { operation: early.operation }));

  const server = buildServer(call);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, message);
}
