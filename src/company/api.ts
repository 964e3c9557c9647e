import type { IncomingMessage, ServerResponse } from 'node:http';
import * as z from 'zod';
import { describeZodError } from '../protocol/describe-zod-error';
import { isCountersignError, parseApprovalHeader, type Approval } from '../protocol/index';
import { cancelPlan, exchangePlan, orderAccess, orderView, subscriptionAccess, subscriptionView, type Access } from './actions';
import { apiAnswer, dropConnection, readJson, sendJson, sendRefusal, type CompanyContext } from './http';
import type { ActionPlan, CheckContext } from './operations';
import { declaresOperations, identifyCaller, signInChallenge, type Caller, type Refusal } from './session';

/**
 * The reference Company's API (section 4 and 6, "APIs"):
 *
 * - `POST /orders/:id/exchanges` `{ item_id, replacement_sku }`: the seed's jacket exchange;
 * - `POST /subscriptions/:id/cancel` `{ at_period_end?: boolean }` (default true);
 * - `GET /orders/:id`, `GET /subscriptions/:id`: how a Personal Agent finds out whether an
 *   action was performed (section 7: "such as from the order in the Company's API").
 *
 * Each request passes, in this order: the Session and token checks (core 5.3 and 7, simplified:
 * session.ts), access to the order or subscription, the body, `Poppy-Extensions`, and then the
 * operations engine (operations.ts) with the approval from `Poppy-Approval` when the request
 * declares operations v2. `Idempotency-Key` is not used: "The operation ID identifies its
 * retries (7)", and a key sent with the first request doesn't carry over to the approval.
 */

const exchangeBodySchema = z.strictObject({ item_id: z.string(), replacement_sku: z.string() });
const cancelBodySchema = z.strictObject({ at_period_end: z.boolean().optional() }).optional();

const ORDER = /^\/orders\/([^/]+)$/;
const EXCHANGES = /^\/orders\/([^/]+)\/exchanges$/;
const SUBSCRIPTION = /^\/subscriptions\/([^/]+)$/;
const CANCEL = /^\/subscriptions\/([^/]+)\/cancel$/;

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function accessRefusal<T>(access: Access<T> & { ok: false }): Refusal {
  if (access.challenge) return signInChallenge(access.error.description);
  return { status: access.error.status, body: { error: access.error.error, error_description: access.error.description } };
}

function invalidBody(error: z.ZodError): Refusal {
  return { status: 400, body: { error: 'invalid_request', error_description: describeZodError(error, 'body') } };
}

type ApprovalResult = { ok: true; approval: Approval | undefined } | { ok: false; refusal: Refusal };

/** `Poppy-Approval` (section 6, "APIs"); members the Company doesn't recognise are ignored by the parser. */
function approvalFrom(req: IncomingMessage): ApprovalResult {
  const raw = req.headers['poppy-approval'];
  if (raw === undefined) return { ok: true, approval: undefined };
  try {
    return { ok: true, approval: parseApprovalHeader(Array.isArray(raw) ? raw.join(', ') : raw) };
  } catch (cause) {
    if (!isCountersignError(cause)) throw cause;
    return { ok: false, refusal: { status: 400, body: { error: 'invalid_approval', error_description: cause.message } } };
  }
}

const ROUTES = [
  ['POST', EXCHANGES, 'exchange'],
  ['POST', CANCEL, 'cancel'],
  ['GET', ORDER, 'order'],
  ['GET', SUBSCRIPTION, 'subscription'],
] as const;

type Route = { kind: (typeof ROUTES)[number][2]; id: string };

function routeOf(method: string, path: string): Route | undefined {
  for (const [routeMethod, pattern, kind] of ROUTES) {
    const m = method === routeMethod ? pattern.exec(path) : null;
    if (m !== null) return { kind, id: decodeSegment(m[1] ?? '') };
  }
  return undefined;
}

/** Decide and answer one request for an action that needs approval. */
async function act(context: CompanyContext, req: IncomingMessage, res: ServerResponse, caller: Caller, plan: ActionPlan, binding: string): Promise<void> {
  const declared = declaresOperations(req.headers);
  if (!declared.ok) return sendRefusal(context, res, declared.refusal);
  let approval: Approval | undefined;
  if (declared.declared) {
    // Without the declaration the extension isn't used (section 2), approval header included.
    const parsed = approvalFrom(req);
    if (!parsed.ok) return sendRefusal(context, res, parsed.refusal);
    approval = parsed.approval;
  }
  const check: CheckContext = { binding, caller, declared: declared.declared, approval };
  const decision = context.operations.decide(check, plan);
  if (decision.kind !== 'perform') return sendRefusal(context, res, apiAnswer(decision));
  // Section 6: "If every check passes, the Company performs the action and responds as it would
  // have without operations."
  const performed = await context.operations.perform(decision);
  if (dropConnection(res, performed.connection)) return;
  return sendJson(context, res, 200, performed.record.outcome.data);
}

/** Handle an API request; false when the path isn't one of the API's. */
export async function handleApi(context: CompanyContext, req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> {
  const route = routeOf(req.method ?? 'GET', path);
  if (route === undefined) return false;

  const identified = identifyCaller(req.headers, context.tokens);
  if (!identified.ok) {
    await sendRefusal(context, res, identified.refusal);
    return true;
  }
  const caller = identified.caller;

  if (route.kind === 'order' || route.kind === 'exchange') {
    const access = orderAccess(context, caller, route.id);
    if (!access.ok) {
      await sendRefusal(context, res, accessRefusal(access));
      return true;
    }
    if (route.kind === 'order') {
      await sendJson(context, res, 200, orderView(context, access.value));
      return true;
    }
    const body = await readJson(req);
    if (!body.ok) {
      await sendRefusal(context, res, body.refusal);
      return true;
    }
    const parsed = exchangeBodySchema.safeParse(body.value, { reportInput: true });
    if (!parsed.success) {
      await sendRefusal(context, res, invalidBody(parsed.error));
      return true;
    }
    const plan = exchangePlan(context, access.value, { orderId: access.value.id, itemId: parsed.data.item_id, replacementSku: parsed.data.replacement_sku });
    await act(context, req, res, caller, plan, `api POST /orders/${access.value.id}/exchanges`);
    return true;
  }

  const access = subscriptionAccess(context, caller, route.id);
  if (!access.ok) {
    await sendRefusal(context, res, accessRefusal(access));
    return true;
  }
  if (route.kind === 'subscription') {
    await sendJson(context, res, 200, subscriptionView(access.value));
    return true;
  }
  const body = await readJson(req);
  if (!body.ok) {
    await sendRefusal(context, res, body.refusal);
    return true;
  }
  const parsed = cancelBodySchema.safeParse(body.value, { reportInput: true });
  if (!parsed.success) {
    await sendRefusal(context, res, invalidBody(parsed.error));
    return true;
  }
  const plan = cancelPlan(context, access.value, { atPeriodEnd: parsed.data?.at_period_end ?? true });
  await act(context, req, res, caller, plan, `api POST /subscriptions/${access.value.id}/cancel`);
  return true;
}
