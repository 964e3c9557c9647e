import type { IncomingHttpHeaders } from 'node:http';
import { isCountersignError, isOperationsV2Version, OPERATIONS_EXTENSION, OPERATIONS_VERSION, parseExtensionsHeader, parseListField, Token } from '../protocol/index';
import type { SpecBreak } from './faults';

/**
 * Just enough of the core specification (0.4) to tell a signed-out Session from a signed-in
 * account, which section 3 ("Who can approve it") and section 6 (check 1) need.
 *
 * THIS IS A SIMPLIFICATION (docs/reference-company.md, "Sessions"). A real Company verifies the
 * `Poppy-Session` JWT on every request (core 5.3: signature with the Personal Agent's key, `typ`
 * `poppy-session+jwt`, audience, freshness) and the access token in `Authorization` (core 7).
 * The core text isn't available to us (docs/core-assumptions.md, "Request headers"),
 * so here:
 * - `Poppy-Version` must be `0.4`;
 * - `Poppy-Session` gets a structural check only (JWT/ID characters, at most 4096). If it has the
 *   shape of a JWT whose payload has a string `sid` claim, that claim is the Session's identity
 *   (so a Personal Agent that signs a new JWT per request keeps one Session); otherwise the whole
 *   value is. Nothing is verified;
 * - `Authorization: Bearer <token>` is looked up in a fixed table of tokens → accounts. No
 *   header: signed out. An unknown token: 401 `invalid_token`.
 */

export const POPPY_VERSION = '0.4';

/** Bearer tokens of the seed's two accounts (docs/reference-company.md). */
export const DEFAULT_TOKENS: Readonly<Record<string, string>> = { tok_alex: 'acct_alex', tok_sam: 'acct_sam' };

export interface Caller {
  /** The Session's identity (see above). */
  sessionId: string;
  /** The account the Session is signed in to, or null when it is signed out. */
  accountId: string | null;
}

/**
 * Who an operation belongs to (section 3, "Who can approve it"): "An operation returned in a
 * signed-out Session can be approved only in that Session. One returned in a signed-in Session
 * belongs to the account". Written `session:<id>` or `account:<id>`.
 */
export type Scope = `session:${string}` | `account:${string}`;

export function primaryScope(caller: Caller): Scope {
  return caller.accountId !== null ? `account:${caller.accountId}` : `session:${caller.sessionId}`;
}

/**
 * The scopes whose operations this caller can approve: its own Session's (also after signing
 * in: the operation was returned in this very Session) and, when signed in, its account's.
 */
export function approvableScopes(caller: Caller): Scope[] {
  const own: Scope = `session:${caller.sessionId}`;
  return caller.accountId !== null ? [`account:${caller.accountId}`, own] : [own];
}

/** An HTTP refusal before any operation logic runs: the core checks (5.3, 7) or a malformed header. */
export interface Refusal {
  status: number;
  body: { error: string; error_description?: string; [member: string]: unknown };
  headers?: Record<string, string>;
}

export type CallerResult = { ok: true; caller: Caller } | { ok: false; refusal: Refusal };

const SESSION_SHAPE = /^[A-Za-z0-9_.-]{1,4096}$/;
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.([A-Za-z0-9_-]+)\.[A-Za-z0-9_-]*$/;

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

function sessionIdentity(value: string): string {
  const jwt = JWT_SHAPE.exec(value);
  if (jwt !== null) {
    try {
      const payload: unknown = JSON.parse(Buffer.from(jwt[1] as string, 'base64url').toString('utf8'));
      if (typeof payload === 'object' && payload !== null && 'sid' in payload && typeof payload.sid === 'string' && payload.sid !== '') {
        return `sid:${payload.sid}`;
      }
    } catch {
      // Not JSON: the whole value is the identity.
    }
  }
  return value;
}

/** The core Session and token checks (simplified, see above), in the order core 5.3 then core 7. */
export function identifyCaller(headers: IncomingHttpHeaders, tokens: ReadonlyMap<string, string>): CallerResult {
  const version = header(headers, 'poppy-version');
  if (version?.trim() !== POPPY_VERSION) {
    return {
      ok: false,
      refusal: {
        status: 400,
        body: { error: 'unsupported_version', error_description: `Poppy-Version must be ${POPPY_VERSION}`, supported_versions: [POPPY_VERSION] },
      },
    };
  }
  const session = header(headers, 'poppy-session')?.trim();
  if (session === undefined || !SESSION_SHAPE.test(session)) {
    // "like invalid_session (spec 7)": a 403 with a JSON body (section 4, "APIs").
    return { ok: false, refusal: { status: 403, body: { error: 'invalid_session', error_description: 'missing or malformed Poppy-Session' } } };
  }
  const authorization = header(headers, 'authorization');
  if (authorization === undefined) return { ok: true, caller: { sessionId: sessionIdentity(session), accountId: null } };
  const bearer = /^Bearer +([A-Za-z0-9._~+/-]+=*) *$/i.exec(authorization);
  const account = bearer === null ? undefined : tokens.get(bearer[1] as string);
  if (account === undefined) {
    return {
      ok: false,
      refusal: {
        status: 401,
        body: { error: 'invalid_token', error_description: 'the access token is not valid' },
        headers: { 'WWW-Authenticate': 'Bearer realm="stormline", error="invalid_token"' },
      },
    };
  }
  return { ok: true, caller: { sessionId: sessionIdentity(session), accountId: account } };
}

/** The challenge for the account (core 7), e.g. a signed-out Session acting on an account's order. */
export function signInChallenge(description: string): Refusal {
  return {
    status: 401,
    body: { error: 'sign_in_required', error_description: description },
    headers: { 'WWW-Authenticate': 'Bearer realm="stormline"' },
  };
}

/**
 * SpecBreak `exact-version-only` and `lenient-declaration` only (faults.ts): a Company that reads
 * `Poppy-Extensions` wrong. The first takes only `v="2"` for the declaration, so `v="2.1"` (the
 * same major version) gets no operations (breaks section 2, "Support means that the Company can
 * return operations"); the second takes the name alone, a Token or a String, whatever `v` is unless
 * it is a String of another major version (breaks section 2, "MUST NOT return operations in
 * response to a request that doesn't declare it"). Undefined: read it right.
 */
function misreadDeclaration(value: string, breaks: ReadonlySet<SpecBreak>): boolean | undefined {
  const exact = breaks.has('exact-version-only');
  const lenient = breaks.has('lenient-declaration');
  if (!exact && !lenient) return undefined;
  return parseListField(value, { field: 'Poppy-Extensions', code: 'ERR_EXTENSIONS_HEADER_INVALID' }).some(([name, parameters]) => {
    const version = parameters.get('v');
    if (exact) return name === OPERATIONS_EXTENSION && version === OPERATIONS_VERSION;
    const named = name === OPERATIONS_EXTENSION || (name instanceof Token && name.toString() === OPERATIONS_EXTENSION);
    return named && (typeof version !== 'string' || isOperationsV2Version(version));
  });
}

export type DeclaredResult = { ok: true; declared: boolean } | { ok: false; refusal: Refusal };

/**
 * Whether the request declares operations v2 in `Poppy-Extensions` (section 2). A malformed
 * field is a 400: it is the Personal Agent's bug, and guessing could return operations to a
 * request that didn't declare them.
 */
export function declaresOperations(headers: IncomingHttpHeaders, breaks: ReadonlySet<SpecBreak> = new Set()): DeclaredResult {
  const value = header(headers, 'poppy-extensions');
  if (value === undefined) return { ok: true, declared: false };
  try {
    return { ok: true, declared: misreadDeclaration(value, breaks) ?? parseExtensionsHeader(value) };
  } catch (cause) {
    if (!isCountersignError(cause)) throw cause;
    return { ok: false, refusal: { status: 400, body: { error: 'invalid_request', error_description: cause.message } } };
  }
}
