import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ActionDeps } from './actions';
import type { CompanyPasskeys } from './passkeys';
import type { Connection, Decision } from './operations';
import type { Refusal } from './session';

/** What every part of the reference Company shares. */
export interface CompanyContext extends ActionDeps {
  tokens: ReadonlyMap<string, string>;
  /** Accounts whose approvals need a passkey proof (passkeys.ts); undefined: none do. */
  passkeys?: CompanyPasskeys | undefined;
  /** `http://127.0.0.1:PORT`, known once the server listens. */
  baseUrl: () => string;
  log: (line: string) => void;
}

export const MAX_BODY_BYTES = 64 * 1024;

export type BodyResult = { ok: true; text: string } | { ok: false; refusal: Refusal };

export async function readBody(req: IncomingMessage): Promise<BodyResult> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += buffer.length;
    if (size > MAX_BODY_BYTES) return { ok: false, refusal: { status: 413, body: { error: 'invalid_request', error_description: `the body is larger than ${MAX_BODY_BYTES} bytes` } } };
    chunks.push(buffer);
  }
  return { ok: true, text: Buffer.concat(chunks).toString('utf8') };
}

export type JsonResult = { ok: true; value: unknown } | { ok: false; refusal: Refusal };

/** The body as JSON; an empty body is `undefined` (the cancel request's body is optional). */
export async function readJson(req: IncomingMessage): Promise<JsonResult> {
  const body = await readBody(req);
  if (!body.ok) return body;
  if (body.text.trim() === '') return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(body.text) as unknown };
  } catch {
    return { ok: false, refusal: { status: 400, body: { error: 'invalid_request', error_description: 'the body is not JSON' } } };
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Wait as the delay fault says (a slow Company). */
export async function delay(context: CompanyContext): Promise<void> {
  if (context.faults.delayMs > 0) await sleep(context.faults.delayMs);
}

export async function sendJson(context: CompanyContext, res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): Promise<void> {
  await delay(context);
  if (res.destroyed || res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** A whole HTTP answer: a Refusal, or the 200 of a performed operation. */
export interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string> | undefined;
}

export function sendRefusal(context: CompanyContext, res: ServerResponse, answer: Answer | Refusal): Promise<void> {
  return sendJson(context, res, answer.status, answer.body, answer.headers);
}

/** Close the connection without an answer: the drop and crash faults. */
export function dropConnection(res: ServerResponse, connection: Connection): boolean {
  if (connection === 'answer') return false;
  res.socket?.destroy();
  res.destroy();
  return true;
}

/** The core `extension_required` error (section 2, core 3.3): HTTP 400, `extension: "operations"`. */
export const EXTENSION_REQUIRED_STATUS = 400;

/**
 * How an API answers a decision that isn't "perform" (sections 2, 4, 6, 7): a refusal, or for an
 * operation performed already the response it got the first time (section 7).
 */
export function apiAnswer(decision: Exclude<Decision, { kind: 'perform' }>): Answer {
  switch (decision.kind) {
    case 'extension_required':
      return {
        status: EXTENSION_REQUIRED_STATUS,
        body: {
          error: 'extension_required',
          extension: 'operations',
          error_description: 'this action needs the User\'s approval: declare Poppy-Extensions: "operations";v="2", or do it on our website',
        },
      };
    case 'challenge':
      return {
        status: 401,
        body: { error: 'sign_in_required', error_description: 'this operation belongs to an account: sign in to approve it' },
        headers: { 'WWW-Authenticate': 'Bearer realm="stormline"' },
      };
    case 'busy':
      return {
        status: 503,
        body: {
          error: 'operation_in_progress',
          operation_id: decision.record.operationId,
          error_description: 'the operation is being performed; retry with the same approval',
        },
        headers: { 'Retry-After': String(decision.retryAfterSeconds) },
      };
    case 'performed':
      return { status: 200, body: decision.record.outcome.data };
    case 'refused':
      return { status: decision.error.status, body: { error: decision.error.error, error_description: decision.error.description } };
    case 'operation':
      // Section 4, "APIs": "HTTP 403 and a JSON body with error set to approval_required and the
      // operation in operation". Not an authorization error: no WWW-Authenticate.
      return { status: 403, body: { error: 'approval_required', operation: decision.operation } };
  }
}
