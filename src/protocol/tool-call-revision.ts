import { canonicalJson } from './canonical-json';
import { sha256Base64url } from './webcrypto';

/**
 * The hashes that bind a tool call (docs/bridge-protocol.md, "The signed tool-call decision").
 * No schema here, on purpose: the approval window recomputes the revision of the call it shows
 * before Approve arms, and its bundle carries no zod (README, "Benchmarks"). Callers pass a call
 * that tool-call.ts's schema already accepted.
 */

/** What a tool call's revision covers. */
export interface ToolCallIdentity {
  server: unknown;
  tool: string;
  description?: string | undefined;
  annotations?: object | undefined;
  arguments: Record<string, unknown>;
}

/**
 * The revision of a tool call: base64url(SHA-256(canonical JSON of server, tool, the tool's
 * description and annotations when the call has them, and arguments)). Computed by the extension
 * and by the agent alike, so one approval covers exactly one call as it was shown. A call without
 * description and annotations hashes as it always did, so older requests keep their revision.
 */
export async function toolCallRevision(call: ToolCallIdentity): Promise<string> {
  const shown = {
    server: call.server,
    tool: call.tool,
    ...(call.description === undefined ? {} : { description: call.description }),
    ...(call.annotations === undefined ? {} : { annotations: call.annotations }),
    arguments: call.arguments,
  };
  return sha256Base64url(new TextEncoder().encode(canonicalJson(shown)));
}

/** base64url(SHA-256(canonical JSON of the arguments)): the `arguments_sha256` of a tool-call decision. */
export async function digestToolArguments(args: Record<string, unknown>): Promise<string> {
  return sha256Base64url(new TextEncoder().encode(canonicalJson(args)));
}
