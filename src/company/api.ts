import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseDictionary } from 'structured-headers';
import * as z from 'zod';
import { describeZodError } from '../protocol/describe-zod-error';
import { passkeyProofFromHeader, type PasskeyProof } from '../protocol/passkey-proof';
import {
  Token,
  dictionaryMemberNames,
  isCountersignError,
  parseApprovalHeader,
  parseDictionaryField,
  serializeDictionaryField,
  type Approval,
  type Dictionary,
} from '../protocol/index';
import { cancelPlan, exchangePlan, orderAccess, orderView, subscriptionAccess, subscriptionView, type Access } from './actions';
import { apiAnswer, dropConnection, readJson, sendJson, sendRefusal, type Answer, type CompanyContext } from './http';
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

const APPROVAL_MEMBERS: readonly string[] = ['operation_id', 'revision'];

function invalidApproval(description: string): ApprovalResult {
  return { ok: false, refusal: { status: 400, body: { error: 'invalid_approval', error_description: description } } };
}

/**
 * SpecBreak `token-as-string` only: the field value with Token `operation_id` and `revision`
 * members rewritten as Strings, for the strict parser (src/protocol/approval-header.ts) to read as
 * if they had been Strings (breaks section 6, "with operation_id and revision as Strings"). A
 * value it can't read, or with those members repeated, is left as it is for the parser to refuse.
 */
function tokensAsStrings(value: string): string {
  try {
    const names = dictionaryMemberNames(value);
    if (APPROVAL_MEMBERS.some((name) => names.filter((n) => n === name).length > 1)) return value;
    const dictionary: Dictionary = parseDictionaryField(value);
    for (const name of APPROVAL_MEMBERS) {
      const member = dictionary.get(name);
      if (member !== undefined && member[0] instanceof Token) dictionary.set(name, [member[0].toString(), member[1]]);
    }
    return serializeDictionaryField(dictionary);
  } catch (cause) {
    if (!isCountersignError(cause)) throw cause;
    return value;
  }
}

/**
 * SpecBreak `refuse-unknown-approval-members` only: the first member other than operation_id and
 * revision (breaks section 6, "Companies MUST ignore members of Poppy-Approval they don't
 * recognize"). Parameters on members are not members, and dictionaryMemberNames doesn't list them.
 */
function unknownApprovalMember(value: string): string | undefined {
  return dictionaryMemberNames(value).find((name) => !APPROVAL_MEMBERS.includes(name));
}

/** `Poppy-Approval` (section 6, "APIs"); members the Company doesn't recognise are ignored by the parser. */
function approvalFrom(context: CompanyContext, req: IncomingMessage): ApprovalResult {
  const raw = req.headers['poppy-approval'];
  if (raw === undefined) return { ok: true, approval: undefined };
  const breaks = context.faults.breaks;
  const value = Array.isArray(raw) ? raw.join(', ') : raw;
  try {
    // SpecBreak `date-member-only-last` parses it with structured-headers 2.1.0 as is, which refuses a Date anywhere but at the end of a field (breaks section 6, "MUST ignore members of Poppy-Approval they don't recognize").
    if (breaks.has('date-member-only-last')) parseDictionary(value);
    const approval = parseApprovalHeader(breaks.has('token-as-string') ? tokensAsStrings(value) : value);
    const unknown = breaks.has('refuse-unknown-approval-members') ? unknownApprovalMember(value) : undefined;
    if (unknown !== undefined) return invalidApproval(`Poppy-Approval: unknown member ${unknown}`);
    return { ok: true, approval };
  } catch (cause) {
    if (cause instanceof Error && !isCountersignError(cause) && breaks.has('date-member-only-last')) return invalidApproval(`Poppy-Approval: ${cause.message}`);
    if (!isCountersignError(cause)) throw cause;
    return invalidApproval(cause.message);
  }
}

/**
 * SpecBreak `approval-required-401` only: approval_required as an authorization error (breaks
 * section 4, "The API responds with HTTP 403 ... It isn't an authorization error, so it doesn't go
 * in WWW-Authenticate").
 */
function asAuthorizationError(answer: Answer): Answer {
  return { ...answer, status: 401, headers: { ...answer.headers, 'WWW-Authenticate': 'Bearer error="approval_required"' } };
}

/** The passkey proof member of Poppy-Approval, if any (passkey-proof.ts); an unreadable one is the reason to refuse. */
function passkeyProofIn(req: IncomingMessage): PasskeyProof | Error | undefined {
  const raw = req.headers['poppy-approval'];
  if (raw === undefined) return undefined;
  try {
    return passkeyProofFromHeader(Array.isArray(raw) ? raw.join(', ') : raw);
  } catch (cause) {
    if (!isCountersignError(cause)) throw cause;
    return cause;
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
  const declared = declaresOperations(req.headers, context.faults.breaks);
  if (!declared.ok) return sendRefusal(context, res, declared.refusal);
  let approval: Approval | undefined;
  if (declared.declared) {
    // Without the declaration the extension isn't used (section 2), approval header included.
    const parsed = approvalFrom(context, req);
    if (!parsed.ok) return sendRefusal(context, res, parsed.refusal);
    approval = parsed.approval;
  }
  const check: CheckContext = { binding, caller, declared: declared.declared, approval };
  // Checked before deciding: a decision to perform is carried out in the same turn (operations.ts).
  const passkey = context.passkeys?.requires(caller) === true ? await context.passkeys.check(caller, approval, passkeyProofIn(req), plan, context.now()) : undefined;
  const decision = context.operations.decide(check, plan);
  if (decision.kind === 'operation' && context.faults.breaks.has('approval-required-401')) return sendRefusal(context, res, asAuthorizationError(apiAnswer(decision)));
  if (decision.kind !== 'perform') return sendRefusal(context, res, apiAnswer(decision));
  if (passkey !== undefined) return sendRefusal(context, res, { status: passkey.status, body: { error: passkey.error, error_description: passkey.description } });
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
