import * as z from 'zod';
import { base64url32Schema } from './text-schemas';
import { canonicalJson } from './canonical-json';
import { checkClaims, type ClaimChecks } from './claim-checks';
import { DECISION_VERSION, checkDecisionTime, decisionClaimsSchema, openDecision, signClaims, type DecisionAlg } from './decision';
import { CountersignError, isCountersignError } from './errors';
import { idSchema } from './id';
import { parsePublicJwk } from './jwk';
import { parseWith } from './parse-with';
import { toolServerSchema, type ToolCall } from './tool-call';
import { digestToolArguments, toolCallRevision } from './tool-call-revision';

/**
 * Signed decisions about a tool call (docs/bridge-protocol.md, "The signed tool-call decision"):
 * what countersign-mcp runs a tool with. The same compact JWS as a Company approval's decision
 * (decision.ts), but a different `typ` and a `kind` claim, and no `company`: a tool-call decision
 * fails `verifyDecision` at its header and its schema, and a Company decision fails
 * `verifyToolCallDecision` the same way. Neither can pass for the other.
 *
 *   protected header: { "alg", "typ": "countersign-tool-call+jwt", "kid" }
 *   payload, in this order:
 *     { "v": 1, "kind": "tool_call", "status": "approved" | "declined", "call_id", "revision",
 *       "server": { "name", "reached_by" }, "tool", "arguments_sha256", "aud", "nonce", "iat",
 *       "expires_at" }
 *
 * `revision` is toolCallRevision (server, tool and arguments together) and `arguments_sha256`
 * the arguments' own digest, so a verifier holding the call checks both without the summary:
 * the summary is a function of them (toolCallSummary), written by the extension.
 */

export const TOOL_CALL_DECISION_TYP = 'countersign-tool-call+jwt';

/** The members a tool-call decision shares with an operation's take their rule from decisionClaimsSchema. */
const shared = decisionClaimsSchema.shape;

export const toolCallClaimsSchema = z.strictObject({
  v: shared.v,
  kind: z.literal('tool_call', { error: 'expected "tool_call"' }),
  status: shared.status,
  call_id: idSchema,
  revision: base64url32Schema,
  server: toolServerSchema,
  tool: z.string({ error: 'expected a string' }).min(1).max(256),
  arguments_sha256: base64url32Schema,
  aud: shared.aud,
  nonce: shared.nonce,
  iat: shared.iat,
  expires_at: shared.expires_at,
});
export type ToolCallClaims = z.output<typeof toolCallClaimsSchema>;

const CLAIM_ORDER = Object.keys(toolCallClaimsSchema.shape) as Array<keyof ToolCallClaims>;

/** The claims of a tool-call decision: exactly the call the window showed, for the agent that asked. */
export async function toolCallDecisionClaims(
  subject: { call: ToolCall; agent: string; nonce: string },
  status: 'approved' | 'declined',
  now = Date.now(),
): Promise<ToolCallClaims> {
  const { call } = subject;
  return {
    v: DECISION_VERSION,
    kind: 'tool_call',
    status,
    call_id: call.call_id,
    revision: await toolCallRevision(call),
    server: { name: call.server.name, reached_by: call.server.reached_by },
    tool: call.tool,
    arguments_sha256: await digestToolArguments(call.arguments),
    aud: subject.agent,
    nonce: subject.nonce,
    iat: Math.floor(now / 1000),
    expires_at: call.expires_at,
  };
}

/** Sign a tool-call decision as the extension's key (the same key and rules as signDecision). */
export async function signToolCallDecision(claims: ToolCallClaims, privateKey: CryptoKey, alg: DecisionAlg, kid: string): Promise<string> {
  const checked = parseWith(toolCallClaimsSchema, claims, 'ERR_DECISION_INVALID', 'decision');
  const ordered: Record<string, unknown> = {};
  for (const name of CLAIM_ORDER) ordered[name] = checked[name];
  return signClaims(TOOL_CALL_DECISION_TYP, checked, new TextEncoder().encode(JSON.stringify(ordered)), { privateKey, alg, kid }, 'tool call');
}

export interface VerifyToolCallDecisionOptions {
  /** The extension's public key, pinned at pairing. */
  pinnedKey: unknown;
  expected: { call: ToolCall; audience: string; nonce: string };
  now?: Date;
}

/**
 * How `verifyToolCallDecision` checks each claim (claim-checks.ts): one entry per member of
 * toolCallClaimsSchema, so a new claim without its check does not compile.
 */
export const TOOL_CALL_CHECKS: ClaimChecks<ToolCallClaims, VerifyToolCallDecisionOptions['expected']> = {
  v: { settledBy: 'schema', why: `exactly ${DECISION_VERSION}: a verifier refuses any other format` },
  kind: { settledBy: 'schema', why: 'exactly "tool_call": with the typ, what keeps a Company decision from passing for one' },
  status: { settledBy: 'caller', why: 'returned: the tool runs only when it is "approved"' },
  call_id: { against: 'the tool call asked about', differs: (c, e) => c.call_id !== e.call.call_id && 'call_id' },
  revision: { against: 'the server, tool and arguments asked about', differs: async (c, e) => c.revision !== (await toolCallRevision(e.call)) && 'revision' },
  server: { against: 'the server asked about', differs: (c, e) => canonicalJson(c.server) !== canonicalJson(e.call.server) && 'server' },
  tool: { against: 'the tool asked about', differs: (c, e) => c.tool !== e.call.tool && 'tool' },
  arguments_sha256: { against: 'the SHA-256 of the canonical arguments', differs: async (c, e) => c.arguments_sha256 !== (await digestToolArguments(e.call.arguments)) && 'arguments_sha256' },
  aud: { against: "this agent's key thumbprint", differs: (c, e) => c.aud !== e.audience && 'aud' },
  nonce: { against: 'the nonce of this request', differs: (c, e) => c.nonce !== e.nonce && 'nonce' },
  iat: { settledBy: 'time', why: "not after expires_at, nor in the future of the verifier's clock (checkDecisionTime)" },
  expires_at: { against: "the tool call's expires_at", differs: (c, e) => c.expires_at !== e.call.expires_at && 'expires_at' },
};

/**
 * Verify a tool-call decision the way countersign-mcp must before it runs the tool: signature
 * with the pinned key, every claim equal to the call it asked about, and time (the steps and
 * errors of verifyDecision). Returns the claims; run the tool only when `status` is "approved".
 */
export async function verifyToolCallDecision(jws: string, options: VerifyToolCallDecisionOptions): Promise<ToolCallClaims> {
  try {
    const pinned = parsePublicJwk(options.pinnedKey, 'pinnedKey');
    const nowMs = (options.now ?? new Date()).getTime();
    const claims = parseWith(toolCallClaimsSchema, await openDecision(jws, pinned, TOOL_CALL_DECISION_TYP), 'ERR_DECISION_INVALID', 'decision');
    await checkClaims(TOOL_CALL_CHECKS, claims, options.expected);
    checkDecisionTime(claims, nowMs, 'tool call');
    return claims;
  } catch (cause) {
    if (isCountersignError(cause)) throw cause;
    throw new CountersignError('ERR_ARGUMENT_INVALID', 'options: expected values that can be read, got one that threw, so the decision was not verified', { cause });
  }
}
