import { z } from 'zod';
import { CountersignError, type ErrorCode } from './errors';
import { idSchema } from './id';
import { formatIssues, isObject } from './issues';
import { isWellFormedText } from './json';
import { MAX_COMPANY_NAME_LENGTH, MAX_JSON_DEPTH } from './limits';
import { isSummaryTooLongIssue, operationSchema } from './operation';

/**
 * The bridge protocol, version 1: every message that crosses the native-messaging link
 * (extension ↔ bridge) and the agent socket (agent ↔ bridge). docs/bridge-protocol.md is the
 * language-neutral description; this file is its executable form, and the two must agree
 * (test/bridge/protocol-doc.test.ts parses every example of the document with these schemas).
 *
 * Isomorphic (browser + Node): zod, WebCrypto (`crypto.subtle`, `crypto.getRandomValues`) and
 * other src/protocol modules only.
 *
 * Shape rules that hold for every message:
 * - a JSON object with `type` (the discriminator) and `v` (the protocol major version, 1);
 * - members a receiver does not know are ignored (parsing drops them), so later minor revisions
 *   can add optional members without breaking older peers; a new `type` or a required member is
 *   a new major version;
 * - identifiers and nonces have one spelling (canonical base64url), so string equality is value
 *   equality.
 */

/**
 * Version 2: every agent message carries an `id` and gets exactly one answer with it (an `ack`,
 * a `decision`, a handshake or pairing message, or an `error`), and an agent's messages are
 * handled in the order they were sent (docs/bridge-protocol.md, "Answers and order").
 */
export const BRIDGE_PROTOCOL_VERSION = 2;
/** Major versions this implementation speaks, in order of preference (highest first). */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly number[] = [2];

/** The native-messaging host name, in one place for the host manifests and `connectNative`. */
export const NATIVE_HOST_NAME = 'dev.countersign.bridge';

/**
 * Depth limit for a whole message. `terms` alone may nest MAX_JSON_DEPTH levels (limits.ts); the
 * envelope (relay → message → operation → terms) adds a few. Checked before zod sees the value, so
 * that no validator recursion can run out of stack on hostile input.
 */
export const MAX_MESSAGE_DEPTH = MAX_JSON_DEPTH + 8;

/** At most this many agent connections at once; more are refused with ERR_THROTTLED. */
export const MAX_AGENT_CONNECTIONS = 64;

// ---------------------------------------------------------------------------------------------
// Scalars

/** Unpadded base64url of exactly 32 bytes, canonical (the last character's 2 unused bits are 0). */
export const B64U_32_PATTERN = /^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/;
/** Unpadded base64url of exactly 64 bytes, canonical (the last character's 4 unused bits are 0). */
export const B64U_64_PATTERN = /^[A-Za-z0-9_-]{85}[AQgw]$/;
/** A connection id: chosen by the bridge, opaque to everyone else. */
export const CONN_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

const B64U_32_RULE = 'unpadded canonical base64url of 32 bytes (43 characters)';

/** An RFC 7638 JWK thumbprint (SHA-256), base64url: names keys and the agent socket. */
export const thumbprintSchema = z.string({ error: `expected ${B64U_32_RULE}` }).regex(B64U_32_PATTERN, { error: `expected ${B64U_32_RULE}` });

/** 32 random bytes, base64url. Challenges, pairing and approval requests each use a fresh one. */
export const nonceSchema = z.string({ error: `expected ${B64U_32_RULE}` }).regex(B64U_32_PATTERN, { error: `expected ${B64U_32_RULE}` });

/** An Ed25519 or ECDSA P-256 signature: 64 bytes (P-256 as r‖s, the JWS form, never DER). */
export const signatureSchema = z
  .string({ error: 'expected unpadded canonical base64url of a 64-byte signature (86 characters)' })
  .regex(B64U_64_PATTERN, { error: 'expected unpadded canonical base64url of a 64-byte signature (86 characters)' });

export const connSchema = z.string({ error: 'expected a connection id' }).regex(CONN_PATTERN, { error: 'expected a connection id (1-64 characters of A-Z a-z 0-9 _ -)' });

/** Request ids (`id`) follow the core ID rule, like operation ids (id.ts). */
export const requestIdSchema = idSchema;

const protocolVersionSchema = z.number({ error: 'expected a protocol version number' }).int().min(1).max(1000);
const protocolVersionsSchema = z
  .array(protocolVersionSchema, { error: 'expected an array of protocol versions' })
  .min(1)
  .max(16)
  .refine((list) => new Set(list).size === list.length, { error: 'expected each version once' });

/** C0/C1 controls and the bidi controls: text shown as a name must be one plain line. */
const CONTROL_OR_BIDI = /[\u0000-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;

/** A name a person reads in the extension (agent names): untrusted, so one plain, short line. */
function displayNameSchema(max: number): z.ZodType<string> {
  return z
    .string({ error: `expected a string of 1-${max} characters` })
    .min(1, { error: `expected a string of 1-${max} characters` })
    .max(max, { error: `expected at most ${max} characters` })
    .refine((s) => s.trim() !== '', { error: 'expected more than blanks' })
    .refine(isWellFormedText, { error: 'expected well-formed Unicode text (it has an unpaired surrogate)' })
    .refine((s) => !CONTROL_OR_BIDI.test(s), { error: 'expected no control or bidi-control characters' });
}

/** Free text for logs and history (error messages, outcome details): bounded, well-formed. */
function freeTextSchema(max: number): z.ZodType<string> {
  return z
    .string({ error: 'expected a string' })
    .max(max, { error: `expected at most ${max} characters` })
    .refine(isWellFormedText, { error: 'expected well-formed Unicode text (it has an unpaired surrogate)' });
}

/** Short version strings ("0.1.0"): printable ASCII. */
const versionStringSchema = z.string({ error: 'expected a version string' }).regex(/^[\x21-\x7E]{1,64}$/, { error: 'expected 1-64 printable ASCII characters' });

export const MAX_AGENT_NAME_LENGTH = 64;
export const MAX_ERROR_MESSAGE_LENGTH = 1000;
export const MAX_OUTCOME_DETAIL_LENGTH = 2000;
/** The same cap as decision.ts MAX_DECISION_JWS_LENGTH (kept apart so the bridge bundle stays free of jose). */
export const MAX_DECISION_JWS_LENGTH = 16 * 1024;

// ---------------------------------------------------------------------------------------------
// Keys

/**
 * Members that make a JWK private or symmetric (RFC 7517/7518 section 6). A public key that
 * carries one is refused: an agent that leaks its private key in `hello` must fail loudly, and
 * the relay must not carry the secret further.
 */
const noPrivate = z.undefined({ error: 'private key material is never accepted where a public key is expected' }).optional();
const noPrivateMembers = { d: noPrivate, p: noPrivate, q: noPrivate, dp: noPrivate, dq: noPrivate, qi: noPrivate, oth: noPrivate, k: noPrivate };

const coordinateSchema = z.string({ error: `expected ${B64U_32_RULE}` }).regex(B64U_32_PATTERN, { error: `expected ${B64U_32_RULE}` });

/**
 * A public key of an agent or of the extension: Ed25519 (RFC 8037), or ECDSA P-256 as the
 * fallback (RFC 7518 section 6.2). Same rule as decision.ts `publicJwkSchema`: metadata members
 * are dropped; an `alg`, when present, must be the key type's one algorithm.
 */
export const bridgePublicJwkSchema = z
  .discriminatedUnion(
    'kty',
    [
      z.object({
        kty: z.literal('OKP'),
        crv: z.literal('Ed25519', { error: 'expected "Ed25519"' }),
        x: coordinateSchema,
        alg: z.literal('EdDSA', { error: 'expected "EdDSA" for an Ed25519 key, or no alg' }).optional(),
        ...noPrivateMembers,
      }),
      z.object({
        kty: z.literal('EC'),
        crv: z.literal('P-256', { error: 'expected "P-256"' }),
        x: coordinateSchema,
        y: coordinateSchema,
        alg: z.literal('ES256', { error: 'expected "ES256" for a P-256 key, or no alg' }).optional(),
        ...noPrivateMembers,
      }),
    ],
    { error: 'expected an Ed25519 ("OKP") or P-256 ("EC") public JWK' },
  )
  .transform((jwk): BridgePublicJwk => (jwk.kty === 'OKP' ? { kty: 'OKP', crv: 'Ed25519', x: jwk.x } : { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y }));

export type BridgePublicJwk = { kty: 'OKP'; crv: 'Ed25519'; x: string } | { kty: 'EC'; crv: 'P-256'; x: string; y: string };

// ---------------------------------------------------------------------------------------------
// Approval request parts

/** Hosts where plain http is acceptable: this machine (the reference Company in tests and demos). Same rule as company.ts. */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

function urlIsSecure(url: URL): boolean {
  return url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname));
}

/** A serialized origin, as the agent resolved the Company (company.ts): https, or http on loopback. */
const originSchema = z
  .string({ error: 'expected a serialized origin such as https://shop.example' })
  .max(2048)
  .refine(
    (s) => {
      try {
        const url = new URL(s);
        return urlIsSecure(url) && url.origin === s;
      } catch {
        return false;
      }
    },
    { error: 'expected a serialized origin such as https://shop.example (https, or http on localhost; scheme, host and port only)' },
  );

/** An absolute https URL (http on loopback), at most 8 KiB: what an API request or MCP server is at. */
const requestUrlSchema = z
  .string({ error: 'expected an absolute https URL' })
  .max(8192, { error: 'expected at most 8192 characters' })
  .refine(
    (s) => {
      try {
        return urlIsSecure(new URL(s));
      } catch {
        return false;
      }
    },
    { error: 'expected an absolute https URL (http only on localhost)' },
  );

/** The Company as the agent resolved it: `organization.name` of its poppy.json and the origin (company.ts). */
export const companySchema = z.object(
  {
    name: z
      .string({ error: `expected a string of 1-${MAX_COMPANY_NAME_LENGTH} characters` })
      .min(1)
      .max(MAX_COMPANY_NAME_LENGTH, { error: `expected at most ${MAX_COMPANY_NAME_LENGTH} characters` })
      .refine((s) => s.trim() !== '', { error: 'expected more than blanks' })
      .refine(isWellFormedText, { error: 'expected well-formed Unicode text (it has an unpaired surrogate)' }),
    origin: originSchema,
  },
  { error: 'expected { name, origin }' },
);

/** HTTP method token (RFC 9110 section 9.1): case-sensitive, so sent exactly as the agent sends it. */
const methodSchema = z.string({ error: 'expected an HTTP method' }).regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,32}$/, { error: 'expected an HTTP method token' });

const jsonObjectSchema = z.record(z.string(), z.json(), { error: 'expected a JSON object' });

/**
 * The request that returned the operation (spec section 6: the approval goes back through the same
 * interface, with the same request). Shown to the User and checked against the terms (section 5).
 */
export const requestContextSchema = z.discriminatedUnion(
  'interface',
  [
    z.object({
      interface: z.literal('api'),
      method: methodSchema,
      url: requestUrlSchema,
      /** The body the agent will send again: JSON when the body is JSON, otherwise a string. */
      body: z.json().optional(),
    }),
    z.object({
      interface: z.literal('mcp'),
      /** Absent for a server the agent runs locally over stdio. */
      server_url: requestUrlSchema.optional(),
      tool: displayNameSchema(256),
      arguments: jsonObjectSchema,
    }),
    z.object({
      interface: z.literal('conversation'),
      conversation_id: idSchema,
    }),
  ],
  { error: 'expected interface "api", "mcp" or "conversation"' },
);

/** The Session the operation was returned in (spec section 3, "Who can approve it"). */
export const sessionSchema = z.discriminatedUnion(
  'kind',
  [
    z.object({ kind: z.literal('signed_in'), account: displayNameSchema(256).optional() }),
    z.object({ kind: z.literal('this_session') }),
  ],
  { error: 'expected kind "signed_in" or "this_session"' },
);

const compactJwsSchema = z
  .string({ error: 'expected a compact JWS' })
  .max(MAX_DECISION_JWS_LENGTH, { error: `expected at most ${MAX_DECISION_JWS_LENGTH} characters` })
  .regex(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/, { error: 'expected a compact JWS (three base64url parts separated by ".")' });

/** Error codes travel as strings: a receiver must accept codes it does not know (a later version's). */
const errorCodeSchema = z.string({ error: 'expected an error code' }).regex(/^ERR_[A-Z0-9_]{1,60}$/, { error: 'expected an error code such as ERR_AUTH_FAILED' });

// ---------------------------------------------------------------------------------------------
// Messages

const V = z.literal(BRIDGE_PROTOCOL_VERSION, { error: `expected protocol version ${BRIDGE_PROTOCOL_VERSION}` });

function message<T extends string, S extends z.ZodRawShape>(type: T, shape: S) {
  return z.object({ type: z.literal(type), v: V, ...shape });
}

// -- agent → extension (inside relay)

export const helloMessage = message('hello', {
  id: requestIdSchema,
  versions: protocolVersionsSchema,
  agent_name: displayNameSchema(MAX_AGENT_NAME_LENGTH),
  agent_key: bridgePublicJwkSchema,
  agent_version: versionStringSchema.optional(),
});
export const authMessage = message('auth', { id: requestIdSchema, signature: signatureSchema });
export const versionQueryMessage = message('version_query', { id: requestIdSchema });
export const pairRequestMessage = message('pair_request', {
  id: requestIdSchema,
  agent_name: displayNameSchema(MAX_AGENT_NAME_LENGTH),
  agent_key: bridgePublicJwkSchema,
  /** base64url(SHA-256(ASCII agent_nonce)): the agent commits to its nonce before it sees the extension's. */
  agent_nonce_sha256: thumbprintSchema,
});
/** Its own `id`, answered by `pair_result` once the person has answered; `pairing_id` is the `pair_request`'s id. */
export const pairRevealMessage = message('pair_reveal', { id: requestIdSchema, pairing_id: requestIdSchema, agent_nonce: nonceSchema });
export const approvalRequestMessage = message('approval_request', {
  id: requestIdSchema,
  nonce: nonceSchema,
  company: companySchema,
  operation: operationSchema,
  request: requestContextSchema,
  session: sessionSchema,
});
/** Answered by an `ack` (`cancelled`: whether a waiting prompt was closed); the cancelled request gets `decision` `cancelled`. */
export const approvalCancelMessage = message('approval_cancel', { id: requestIdSchema, request_id: requestIdSchema });
/**
 * `company_origin` names the Company of the approval: operation IDs are each Company's own, so
 * two Companies' approvals may share an ID and revision. Optional for agents written before it;
 * without it, the extension answers ERR_APPROVAL_AMBIGUOUS when two Companies' approvals match.
 */
export const approvalSentMessage = message('approval_sent', { id: requestIdSchema, operation_id: idSchema, revision: idSchema, company_origin: originSchema.optional() });
export const outcomeMessage = message('outcome', {
  id: requestIdSchema,
  operation_id: idSchema,
  revision: idSchema,
  company_origin: originSchema.optional(),
  outcome: z.enum(['performed', 'failed', 'unknown', 'new_revision'], { error: 'expected "performed", "failed", "unknown" or "new_revision"' }),
  detail: freeTextSchema(MAX_OUTCOME_DETAIL_LENGTH).optional(),
});
/** Both directions (and from the bridge to an agent, with `source: "bridge"`). */
export const errorMessage = message('error', {
  id: requestIdSchema.optional(),
  code: errorCodeSchema,
  message: freeTextSchema(MAX_ERROR_MESSAGE_LENGTH),
  source: z.enum(['bridge', 'extension', 'agent']).optional(),
  /** With ERR_PROTOCOL_VERSION: the versions the sender speaks. */
  supported_versions: z.array(protocolVersionSchema).max(16).optional(),
});

// -- extension → agent (inside relay)

export const challengeMessage = message('challenge', { id: requestIdSchema, nonce: nonceSchema, version: protocolVersionSchema });
export const welcomeMessage = message('welcome', { id: requestIdSchema, paired: z.boolean({ error: 'expected true or false' }), extension_key: bridgePublicJwkSchema });
/**
 * The answer to an `approval_sent`, `outcome` or `approval_cancel` that was accepted. With
 * `approval_sent`, `sent: true` means the User can no longer withdraw it: send the approval now.
 */
export const ackMessage = message('ack', {
  id: requestIdSchema,
  sent: z.literal(true).optional(),
  cancelled: z.boolean({ error: 'expected true or false' }).optional(),
});
export const versionMessage = message('version', {
  id: requestIdSchema,
  product: z.literal('Countersign'),
  extension_version: versionStringSchema,
  protocol_versions: protocolVersionsSchema,
});
export const pairOfferMessage = message('pair_offer', { id: requestIdSchema, extension_key: bridgePublicJwkSchema, extension_nonce: nonceSchema });
export const pairResultMessage = message('pair_result', {
  id: requestIdSchema,
  status: z.enum(['confirmed', 'rejected'], { error: 'expected "confirmed" or "rejected"' }),
});
/**
 * The answer to an approval_request. `jws` (decision.ts) is required with "approved": without it
 * the agent must not send an approval. A decline may carry one (a signed "no" cannot be forged by
 * whatever sits between); the other statuses are not the User's decision and carry none.
 */
export const decisionMessage = message('decision', {
  id: requestIdSchema,
  status: z.enum(['approved', 'declined', 'expired', 'superseded', 'withdrawn', 'cancelled'], {
    error: 'expected "approved", "declined", "expired", "superseded", "withdrawn" or "cancelled"',
  }),
  jws: compactJwsSchema.optional(),
}).refine((m) => (m.status === 'approved' ? m.jws !== undefined : m.status === 'declined' || m.jws === undefined), {
  error: 'expected jws with "approved" (optional with "declined", absent otherwise)',
  path: ['jws'],
});
export const withdrawnMessage = message('withdrawn', { operation_id: idSchema, revision: idSchema });

// -- bridge → agent (the bridge's own messages on the socket)

export const bridgeInfoMessage = message('bridge_info', {
  conn: connSchema,
  extension_key_thumbprint: thumbprintSchema,
  bridge_version: versionStringSchema,
  protocol_versions: protocolVersionsSchema,
  browser: z.enum(['chromium', 'firefox']),
});
export const companionUnavailableMessage = message('companion_unavailable', {});

// -- what an agent sends, and what it receives

export const agentToExtensionMessage = z.discriminatedUnion('type', [
  helloMessage,
  authMessage,
  versionQueryMessage,
  pairRequestMessage,
  pairRevealMessage,
  approvalRequestMessage,
  approvalCancelMessage,
  approvalSentMessage,
  outcomeMessage,
  errorMessage,
]);
export type AgentToExtensionMessage = z.output<typeof agentToExtensionMessage>;

/** What the extension sends an agent (inside relay); an agent also reads the bridge's own two messages. */
const EXTENSION_TO_AGENT = [
  challengeMessage,
  welcomeMessage,
  versionMessage,
  pairOfferMessage,
  pairResultMessage,
  decisionMessage,
  withdrawnMessage,
  ackMessage,
  errorMessage,
] as const;

export const extensionToAgentMessage = z.discriminatedUnion('type', [...EXTENSION_TO_AGENT]);
export type ExtensionToAgentMessage = z.output<typeof extensionToAgentMessage>;

/** Everything an agent can read from its socket. */
export const agentInboundMessage = z.discriminatedUnion('type', [...EXTENSION_TO_AGENT, bridgeInfoMessage, companionUnavailableMessage]);
export type AgentInboundMessage = z.output<typeof agentInboundMessage>;

// -- extension ↔ bridge (stdio, top level)

export const bridgeHelloMessage = message('bridge_hello', {
  extension_key_thumbprint: thumbprintSchema,
  extension_version: versionStringSchema.optional(),
});
export const relayFromExtensionMessage = message('relay', { conn: connSchema, message: extensionToAgentMessage });
export const agentCloseMessage = message('agent_close', { conn: connSchema });

export const bridgeReadyMessage = message('bridge_ready', {
  bridge_version: versionStringSchema,
  protocol_versions: protocolVersionsSchema,
  /** Where agents connect: a Unix socket path or a Windows pipe name. Informational (diagnostics). */
  socket_path: z.string().min(1).max(4096),
});
export const agentConnectedMessage = message('agent_connected', { conn: connSchema });
export const AGENT_DISCONNECT_REASONS = ['closed', 'error', 'frame_error', 'not_reading', 'agent_close'] as const;
export const agentDisconnectedMessage = message('agent_disconnected', { conn: connSchema, reason: z.enum(AGENT_DISCONNECT_REASONS) });
export const relayToExtensionMessage = message('relay', { conn: connSchema, message: agentToExtensionMessage });
export const bridgeErrorMessage = message('bridge_error', {
  code: errorCodeSchema,
  message: freeTextSchema(MAX_ERROR_MESSAGE_LENGTH),
  conn: connSchema.optional(),
  id: requestIdSchema.optional(),
});

export const extensionToBridgeMessage = z.discriminatedUnion('type', [bridgeHelloMessage, relayFromExtensionMessage, agentCloseMessage]);
export type ExtensionToBridgeMessage = z.output<typeof extensionToBridgeMessage>;

export const bridgeToExtensionMessage = z.discriminatedUnion('type', [
  bridgeReadyMessage,
  agentConnectedMessage,
  agentDisconnectedMessage,
  relayToExtensionMessage,
  bridgeErrorMessage,
]);
export type BridgeToExtensionMessage = z.output<typeof bridgeToExtensionMessage>;

// ---------------------------------------------------------------------------------------------
// Parsing

/** True when `value` nests deeper than `max` arrays/objects. Iterative: hostile depth cannot overflow the stack. */
export function exceedsDepth(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop() as [unknown, number];
    if (typeof item !== 'object' || item === null) continue;
    if (depth > max) return true;
    const children = Array.isArray(item) ? item : Object.values(item);
    for (const child of children) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}

export type ParseResult<T> = { ok: true; message: T } | { ok: false; error: CountersignError };

/** Which code a failed parse gets: a foreign `v` is a version problem, a bad operation is the operation's. */
function codeFor(value: unknown, issues: readonly z.core.$ZodIssue[]): ErrorCode {
  const inner = isObject(value) && value['type'] === 'relay' && isObject(value['message']) ? value['message'] : undefined;
  const v = isObject(value) ? value['v'] : undefined;
  if ((typeof v === 'number' && v !== BRIDGE_PROTOCOL_VERSION) || (inner !== undefined && typeof inner['v'] === 'number' && inner['v'] !== BRIDGE_PROTOCOL_VERSION)) {
    return 'ERR_PROTOCOL_VERSION';
  }
  const first = issues[0]?.path ?? [];
  if (first[0] === 'operation' || (first[0] === 'message' && first[1] === 'operation')) {
    // The one size rule of an operation has its own code: the SDK, the bridge and the extension
    // refuse a too-long summary alike, and the extension tells the person about it.
    return isSummaryTooLongIssue(issues[0]) ? 'ERR_SUMMARY_TOO_LONG' : 'ERR_OPERATION_INVALID';
  }
  return 'ERR_BRIDGE_MESSAGE_INVALID';
}

/**
 * Validate one decoded frame with `schema`. Never throws: the result carries a CountersignError
 * (ERR_BRIDGE_MESSAGE_INVALID, ERR_PROTOCOL_VERSION, ERR_OPERATION_INVALID or
 * ERR_SUMMARY_TOO_LONG) whose message names the failing members, never their values.
 */
export function parseBridgeMessage<S extends z.ZodType>(schema: S, value: unknown, root = 'message'): ParseResult<z.output<S>> {
  if (exceedsDepth(value, MAX_MESSAGE_DEPTH)) {
    return { ok: false, error: new CountersignError('ERR_BRIDGE_MESSAGE_INVALID', `${root}: nested deeper than ${MAX_MESSAGE_DEPTH} levels`) };
  }
  let result: z.ZodSafeParseResult<z.output<S>>;
  try {
    result = schema.safeParse(value) as z.ZodSafeParseResult<z.output<S>>;
  } catch (cause) {
    return { ok: false, error: new CountersignError('ERR_BRIDGE_MESSAGE_INVALID', `${root}: could not be read`, { cause }) };
  }
  if (result.success) return { ok: true, message: result.data };
  const text = formatIssues(root, result.error.issues).slice(0, MAX_ERROR_MESSAGE_LENGTH);
  return { ok: false, error: new CountersignError(codeFor(value, result.error.issues), text, { cause: result.error }) };
}

/** The request `id` of a (possibly invalid) message, when it has a valid one: errors then name the request. */
export function requestIdOf(value: unknown): string | undefined {
  if (!isObject(value)) return undefined;
  const id = value['id'];
  return requestIdSchema.safeParse(id).success ? (id as string) : undefined;
}

// ---------------------------------------------------------------------------------------------
// Socket path (docs/bridge-protocol.md, "Where agents connect")

/** sun_path holds 108 bytes on Linux and 104 on macOS, both including the final NUL: 103 is safe on both. */
export const MAX_UNIX_SOCKET_PATH_BYTES = 103;

export interface SocketPathInput {
  platform: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Numeric user id (Unix). */
  uid: number;
  /** Account name (Windows). */
  username: string;
  thumbprint: string;
}

function utf8Length(s: string): number {
  return new TextEncoder().encode(s).length;
}

/** The Windows account name as it appears in a pipe name: lower case, [a-z0-9._-], others become "_". */
export function pipeUserName(username: string): string {
  const cleaned = username.toLowerCase().replace(/[^a-z0-9._-]/g, '_');
  return cleaned === '' ? 'user' : cleaned;
}

/**
 * Every place the agent socket for `thumbprint` may be, in order. The bridge listens on the first;
 * an agent connects to the first that exists (its environment may lack XDG_RUNTIME_DIR or TMPDIR
 * when the browser's had them). Pure: the platform, environment and ids are parameters.
 *
 * Unix:  1. $XDG_RUNTIME_DIR/countersign/<thumbprint>.sock   (when XDG_RUNTIME_DIR is absolute)
 *        2. $TMPDIR/countersign-<uid>/<thumbprint>.sock       (when TMPDIR is absolute)
 *        3. /tmp/countersign-<uid>/<thumbprint>.sock
 *        each only when at most 103 bytes long (sun_path); 3 always is.
 * Windows: \\.\pipe\countersign-<user>-<thumbprint>
 */
export function agentSocketCandidates(input: SocketPathInput): string[] {
  if (!B64U_32_PATTERN.test(input.thumbprint)) {
    throw new CountersignError('ERR_INPUT_INVALID', `thumbprint: expected ${B64U_32_RULE}`);
  }
  const file = `${input.thumbprint}.sock`;
  if (input.platform === 'win32') return [`\\\\.\\pipe\\countersign-${pipeUserName(input.username)}-${input.thumbprint}`];
  if (!Number.isInteger(input.uid) || input.uid < 0) throw new CountersignError('ERR_INPUT_INVALID', 'uid: expected a non-negative integer');
  const out: string[] = [];
  const runtime = input.env['XDG_RUNTIME_DIR'];
  if (runtime !== undefined && runtime.startsWith('/')) out.push(`${runtime.replace(/\/+$/, '')}/countersign/${file}`);
  const tmp = input.env['TMPDIR'];
  if (tmp !== undefined && tmp.startsWith('/')) out.push(`${tmp.replace(/\/+$/, '')}/countersign-${input.uid}/${file}`);
  out.push(`/tmp/countersign-${input.uid}/${file}`);
  return [...new Set(out)].filter((p) => utf8Length(p) <= MAX_UNIX_SOCKET_PATH_BYTES);
}

/** Where the bridge listens: the first candidate. */
export function agentSocketPath(input: SocketPathInput): string {
  const first = agentSocketCandidates(input)[0];
  // Unreachable: candidate 3 is at most 76 bytes. Kept so the type is string, not string | undefined.
  if (first === undefined) throw new CountersignError('ERR_INPUT_INVALID', 'no usable agent socket path');
  return first;
}

// ---------------------------------------------------------------------------------------------
// Bytes that get signed or hashed (docs/bridge-protocol.md, "Handshake" and "Pairing")

/** The context strings: a signature or hash made for one purpose is never valid for another. */
export const AGENT_AUTH_CONTEXT = 'countersign/agent-auth/v1';
export const PAIRING_CODE_CONTEXT = 'countersign/pairing-code/v1';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** Unpadded base64url (RFC 4648 section 5). */
export function base64urlEncode(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8) | (bytes[i + 2] as number);
    out += ALPHABET[(n >> 18) & 63]! + ALPHABET[(n >> 12) & 63]! + ALPHABET[(n >> 6) & 63]! + ALPHABET[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = (bytes[i] as number) << 16;
    out += ALPHABET[(n >> 18) & 63]! + ALPHABET[(n >> 12) & 63]!;
  } else if (rest === 2) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8);
    out += ALPHABET[(n >> 18) & 63]! + ALPHABET[(n >> 12) & 63]! + ALPHABET[(n >> 6) & 63]!;
  }
  return out;
}

/** Decode canonical unpadded base64url; throws ERR_INPUT_INVALID otherwise (so one value has one spelling). */
export function base64urlDecode(text: string): Uint8Array {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) throw new CountersignError('ERR_INPUT_INVALID', 'expected unpadded base64url');
  const out = new Uint8Array(Math.floor((text.length * 3) / 4));
  let bits = 0;
  let acc = 0;
  let o = 0;
  for (const ch of text) {
    acc = (acc << 6) | ALPHABET.indexOf(ch);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
  }
  if (base64urlEncode(out) !== text) throw new CountersignError('ERR_INPUT_INVALID', 'expected canonical base64url (unused bits must be zero)');
  return out;
}

function subtle(): SubtleCrypto {
  const s = globalThis.crypto?.subtle;
  if (s === undefined) throw new CountersignError('ERR_KEY_INVALID', 'WebCrypto (crypto.subtle) is not available in this context');
  return s;
}

async function sha256(bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await subtle().digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
}

/** A fresh nonce: 32 bytes from the platform's CSPRNG, base64url (43 characters). */
export function randomNonce(): string {
  return base64urlEncode(globalThis.crypto.getRandomValues(new Uint8Array(32)));
}

function parseKey(jwk: unknown): BridgePublicJwk {
  const parsed = bridgePublicJwkSchema.safeParse(jwk);
  if (!parsed.success) throw new CountersignError('ERR_KEY_INVALID', formatIssues('key', parsed.error.issues), { cause: parsed.error });
  return parsed.data;
}

/** RFC 7638 section 3.2: the required members only, sorted, no whitespace. */
export function thumbprintInput(jwk: unknown): string {
  const key = parseKey(jwk);
  return key.kty === 'OKP'
    ? `{"crv":"Ed25519","kty":"OKP","x":"${key.x}"}`
    : `{"crv":"P-256","kty":"EC","x":"${key.x}","y":"${key.y}"}`;
}

/** The RFC 7638 JWK thumbprint (SHA-256, base64url) of an Ed25519 or P-256 public key. */
export async function jwkThumbprint(jwk: unknown): Promise<string> {
  return base64urlEncode(await sha256(new TextEncoder().encode(thumbprintInput(jwk))));
}

function requireMatch(name: string, value: string, pattern: RegExp): void {
  if (typeof value !== 'string' || !pattern.test(value)) throw new CountersignError('ERR_INPUT_INVALID', `${name}: not in the format the protocol requires`);
}

export interface AgentAuthFields {
  extensionKeyThumbprint: string;
  agentKeyThumbprint: string;
  conn: string;
  nonce: string;
}

/**
 * The bytes an agent signs in `auth`: UTF-8 (all ASCII) of
 *   "countersign/agent-auth/v1" LF extension_key_thumbprint LF agent_key_thumbprint LF conn LF nonce
 * with LF = 0x0A and no trailing LF. Each field's alphabet excludes LF, so the join is unambiguous.
 * It binds the proof to this extension (one browser profile), this agent key, this connection
 * and this challenge: it is worth nothing anywhere else.
 */
export function agentAuthInput(fields: AgentAuthFields): Uint8Array {
  requireMatch('extensionKeyThumbprint', fields.extensionKeyThumbprint, B64U_32_PATTERN);
  requireMatch('agentKeyThumbprint', fields.agentKeyThumbprint, B64U_32_PATTERN);
  requireMatch('conn', fields.conn, CONN_PATTERN);
  requireMatch('nonce', fields.nonce, B64U_32_PATTERN);
  return new TextEncoder().encode([AGENT_AUTH_CONTEXT, fields.extensionKeyThumbprint, fields.agentKeyThumbprint, fields.conn, fields.nonce].join('\n'));
}

/**
 * Check an `auth` signature against the agent key from `hello`: Ed25519 (pure, RFC 8032) or ECDSA
 * P-256 with SHA-256 and r‖s encoding. False for a wrong signature; ERR_KEY_INVALID for a key
 * WebCrypto refuses (a P-256 point off the curve, an engine without Ed25519).
 */
export async function verifyAgentAuth(agentKey: unknown, fields: AgentAuthFields, signature: string): Promise<boolean> {
  const key = parseKey(agentKey);
  requireMatch('signature', signature, B64U_64_PATTERN);
  const data = agentAuthInput(fields) as Uint8Array<ArrayBuffer>;
  const sig = base64urlDecode(signature) as Uint8Array<ArrayBuffer>;
  let cryptoKey: CryptoKey;
  try {
    cryptoKey =
      key.kty === 'OKP'
        ? await subtle().importKey('jwk', key, { name: 'Ed25519' }, false, ['verify'])
        : await subtle().importKey('jwk', key, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify']);
  } catch (cause) {
    throw new CountersignError('ERR_KEY_INVALID', 'agent key: not a usable public key', { cause });
  }
  try {
    return key.kty === 'OKP'
      ? await subtle().verify({ name: 'Ed25519' }, cryptoKey, sig, data)
      : await subtle().verify({ name: 'ECDSA', hash: 'SHA-256' }, cryptoKey, sig, data);
  } catch {
    return false;
  }
}

/** base64url(SHA-256(ASCII agent_nonce)): the commitment in `pair_request`. */
export async function pairingCommitment(agentNonce: string): Promise<string> {
  requireMatch('agentNonce', agentNonce, B64U_32_PATTERN);
  return base64urlEncode(await sha256(new TextEncoder().encode(agentNonce)));
}

export interface PairingCodeFields {
  extensionKeyThumbprint: string;
  agentKeyThumbprint: string;
  extensionNonce: string;
  agentNonce: string;
}

/**
 * The 6-digit code both sides show while pairing:
 *   h = SHA-256(UTF-8 of "countersign/pairing-code/v1" LF ext_thumbprint LF agent_thumbprint LF
 *               extension_nonce LF agent_nonce)
 *   code = (big-endian uint32 of h[0..3]) mod 1 000 000, as 6 decimal digits with leading zeros.
 * Any substituted key or nonce changes it; the commitment in pair_request stops a man in the
 * middle from choosing a nonce that makes the two codes equal.
 */
export async function pairingCode(fields: PairingCodeFields): Promise<string> {
  requireMatch('extensionKeyThumbprint', fields.extensionKeyThumbprint, B64U_32_PATTERN);
  requireMatch('agentKeyThumbprint', fields.agentKeyThumbprint, B64U_32_PATTERN);
  requireMatch('extensionNonce', fields.extensionNonce, B64U_32_PATTERN);
  requireMatch('agentNonce', fields.agentNonce, B64U_32_PATTERN);
  const input = [PAIRING_CODE_CONTEXT, fields.extensionKeyThumbprint, fields.agentKeyThumbprint, fields.extensionNonce, fields.agentNonce].join('\n');
  const h = await sha256(new TextEncoder().encode(input));
  const n = new DataView(h.buffer, h.byteOffset, 4).getUint32(0, false);
  return String(n % 1_000_000).padStart(6, '0');
}
