import * as z from 'zod';
import { B64U_64_PATTERN } from './base64url';
import { base64url32Schema } from './text-schemas';
import { describeZodError } from './describe-zod-error';
import { CountersignError, type ErrorCode } from './errors';
import { idSchema } from './id';
import { isObject } from './issues';
import { isWellFormedText } from './json';
import { publicJwkSchema } from './jwk';
import { MAX_COMPANY_NAME_LENGTH, MAX_JSON_DEPTH } from './limits';
import { isSummaryTooLongIssue, operationSchema } from './operation';
import { passkeyAssertionSchema } from './passkey';
import { displayNameSchema, freeTextSchema, jsonObjectSchema, jsonValueSchema, originSchema, requestUrlSchema } from './text-schemas';
import { isToolCallTooLargeIssue, toolCallSchema } from './tool-call';

/**
 * The bridge protocol's messages: every message that crosses the native-messaging link
 * (extension ↔ bridge) and the agent socket (agent ↔ bridge), and how a frame is checked against
 * them. docs/bridge-protocol.md is the language-neutral description; this file is its executable
 * form, and the two must agree (test/bridge/protocol-doc.test.ts parses every example of the
 * document with these schemas). The bytes that get signed or hashed are in agent-auth.ts and
 * pairing-code.ts, the socket's name in socket-path.ts, keys in jwk.ts.
 *
 * Isomorphic (browser + Node): zod and other src/protocol modules only.
 *
 * Shape rules that hold for every message:
 * - a JSON object with `type` (the discriminator) and `v` (the protocol major version,
 *   BRIDGE_PROTOCOL_VERSION);
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

export { NATIVE_HOST_NAME } from './native-host-name';

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

/** A connection id: chosen by the bridge, opaque to everyone else. */
export const CONN_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** An RFC 7638 JWK thumbprint (SHA-256), base64url: names keys and the agent socket. */
export const thumbprintSchema = base64url32Schema;

/** 32 random bytes, base64url. Challenges, pairing and approval requests each use a fresh one. */
export const nonceSchema = base64url32Schema;

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

/** Short version strings ("0.1.0"): printable ASCII. */
const versionStringSchema = z.string({ error: 'expected a version string' }).regex(/^[\x21-\x7E]{1,64}$/, { error: 'expected 1-64 printable ASCII characters' });

export const MAX_AGENT_NAME_LENGTH = 64;
export const MAX_ERROR_MESSAGE_LENGTH = 1000;
export const MAX_OUTCOME_DETAIL_LENGTH = 2000;
/** The longest decision JWS read, here and in decision.ts (which imports it: this file stays free of jose for the bridge bundle). */
export const MAX_DECISION_JWS_LENGTH = 16 * 1024;

// ---------------------------------------------------------------------------------------------
// Approval request parts

/** The Company as the agent resolved it: `organization.name` of its poppy.json and the origin (company.ts). */
export const companySchema = z.object(
  {
    name: z
      .string({ error: `expected a string of 1-${MAX_COMPANY_NAME_LENGTH} characters` })
      .min(1)
      .max(MAX_COMPANY_NAME_LENGTH, { error: `expected at most ${MAX_COMPANY_NAME_LENGTH} characters` })
      .refine((s) => s.trim() !== '', { error: 'expected more than blanks' })
      .refine(isWellFormedText, { error: 'expected well-formed Unicode text, got an unpaired surrogate' }),
    origin: originSchema,
  },
  { error: 'expected { name, origin }' },
);

/** HTTP method token (RFC 9110 section 9.1): case-sensitive, so sent exactly as the agent sends it. */
const methodSchema = z.string({ error: 'expected an HTTP method' }).regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,32}$/, { error: 'expected an HTTP method token' });


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
      body: jsonValueSchema.optional(),
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
  agent_key: publicJwkSchema,
  agent_version: versionStringSchema.optional(),
});
export const authMessage = message('auth', { id: requestIdSchema, signature: signatureSchema });
export const versionQueryMessage = message('version_query', { id: requestIdSchema });
export const pairRequestMessage = message('pair_request', {
  id: requestIdSchema,
  agent_name: displayNameSchema(MAX_AGENT_NAME_LENGTH),
  agent_key: publicJwkSchema,
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
  /**
   * "required": the person confirms with their passkey after Approve, and the decision carries the
   * assertion (docs/bridge-protocol.md, "Passkey-verified decisions"). Absent: the agent's setting decides.
   */
  user_verification: z.literal('required', { error: 'expected "required"' }).optional(),
});
/**
 * A tool call to approve (tool-call.ts), from countersign-mcp: answered by a `decision` whose
 * `jws` is a tool-call decision (tool-call-decision.ts). Cancelled, marked sent and reported like
 * an approval: `approval_cancel`, then `approval_sent` and `outcome` with `operation_id` = the
 * `call_id` and `revision` = toolCallRevision, without `company_origin`.
 */
export const toolCallRequestMessage = message('tool_call_request', {
  id: requestIdSchema,
  nonce: nonceSchema,
  tool_call: toolCallSchema,
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
export const welcomeMessage = message('welcome', {
  id: requestIdSchema,
  paired: z.boolean({ error: 'expected true or false' }),
  extension_key: publicJwkSchema,
  /** A paired agent's current passkey announcement (passkey-announcement.ts), when a passkey was ever registered. */
  passkey: compactJwsSchema.optional(),
});
/** The person registered, replaced or removed their passkey: the new announcement, to every connected paired agent. */
export const passkeyChangedMessage = message('passkey_changed', { jws: compactJwsSchema });
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
export const pairOfferMessage = message('pair_offer', { id: requestIdSchema, extension_key: publicJwkSchema, extension_nonce: nonceSchema });
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
  /** The person's passkey assertion over this decision's claims (passkey.ts), with "approved" only. */
  passkey_assertion: passkeyAssertionSchema.optional(),
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
  toolCallRequestMessage,
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
  passkeyChangedMessage,
  ackMessage,
  errorMessage,
] as const;

export const extensionToAgentMessage = z.discriminatedUnion('type', [...EXTENSION_TO_AGENT]);
export type ExtensionToAgentMessage = z.output<typeof extensionToAgentMessage>;

/**
 * Extension → agent messages of the types `T`, without `v`: what code that answers an agent
 * builds, so the one place that sends stamps the version (extension/agent-sessions.ts).
 */
export type UnversionedExtensionToAgentMessage<T extends ExtensionToAgentMessage['type'] = ExtensionToAgentMessage['type']> =
  Extract<ExtensionToAgentMessage, { type: T }> extends infer M ? (M extends unknown ? Omit<M, 'v'> : never) : never;

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
  // Two parallel stacks rather than a pair per value: this runs on every message the bridge relays.
  const items: unknown[] = [value];
  const depths: number[] = [1];
  while (items.length > 0) {
    const item = items.pop();
    const depth = depths.pop() as number;
    if (typeof item !== 'object' || item === null) continue;
    if (depth > max) return true;
    const children = Array.isArray(item) ? item : Object.values(item);
    for (const child of children) {
      if (typeof child !== 'object' || child === null) continue;
      items.push(child);
      depths.push(depth + 1);
    }
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
  // Likewise a tool call too large to show whole: the caller learns it is too large, not malformed.
  if (isToolCallTooLargeIssue(issues[0])) return 'ERR_TOOL_CALL_TOO_LARGE';
  return 'ERR_BRIDGE_MESSAGE_INVALID';
}

/**
 * Validate one decoded frame with `schema`. Never throws: the result carries a CountersignError
 * (ERR_BRIDGE_MESSAGE_INVALID, ERR_PROTOCOL_VERSION, ERR_OPERATION_INVALID,
 * ERR_SUMMARY_TOO_LONG or ERR_TOOL_CALL_TOO_LARGE) whose message names the failing members, never their values.
 */
export function parseBridgeMessage<S extends z.ZodType>(schema: S, value: unknown, root = 'message'): ParseResult<z.output<S>> {
  if (exceedsDepth(value, MAX_MESSAGE_DEPTH)) {
    return { ok: false, error: new CountersignError('ERR_BRIDGE_MESSAGE_INVALID', `${root}: expected at most ${MAX_MESSAGE_DEPTH} levels of nesting, got more`) };
  }
  let result: z.ZodSafeParseResult<z.output<S>>;
  try {
    result = schema.safeParse(value, { reportInput: true });
  } catch (cause) {
    return { ok: false, error: new CountersignError('ERR_BRIDGE_MESSAGE_INVALID', `${root}: expected JSON data, got a value that cannot be read`, { cause }) };
  }
  if (result.success) return { ok: true, message: result.data };
  const text = describeZodError(result.error, root).slice(0, MAX_ERROR_MESSAGE_LENGTH);
  return { ok: false, error: new CountersignError(codeFor(value, result.error.issues), text, { cause: result.error }) };
}

/** The request `id` of a (possibly invalid) message, when it has a valid one: errors then name the request. */
export function requestIdOf(value: unknown): string | undefined {
  if (!isObject(value)) return undefined;
  const id = value['id'];
  return requestIdSchema.safeParse(id).success ? (id as string) : undefined;
}
