import * as z from 'zod';
import { canonicalJson } from './canonical-json';
import { idSchema } from './id';
import { MAX_SUMMARY_LENGTH } from './limits';
import { checkRfc3339, RFC3339_RULE } from './rfc3339';
import { displayNameSchema, jsonObjectSchema, requestUrlSchema } from './text-schemas';
import { sha256Base64url } from './webcrypto';

/**
 * A tool call as an approval item (docs/bridge-protocol.md, "tool_call_request"): what
 * countersign-mcp asks about before it calls a tool of an MCP server that does not speak
 * operations v2. It is not a Company's operation: no Company wrote a summary or terms, so
 * Countersign writes the summary itself (toolCallSummary) from the tool's name and its arguments
 * as literal data, and the decision's claims say `kind: "tool_call"` (decision.ts), so a
 * tool-call decision can never pass for a Company's approval, or the reverse.
 */

/** How the gateway reaches the server: the command it runs, or the URL it posts to. */
export const reachedBySchema = z.discriminatedUnion(
  'transport',
  [
    z.strictObject({
      transport: z.literal('stdio'),
      command: z.string({ error: 'expected a command' }).min(1).max(4096),
      args: z.array(z.string({ error: 'expected a string' }).max(4096)).max(256),
    }),
    z.strictObject({ transport: z.literal('http'), url: requestUrlSchema }),
  ],
  { error: 'expected transport "stdio" (command, args) or "http" (url)' },
);

/** The server as it introduces itself in MCP `initialize`, and how it is reached. Untrusted text. */
export const toolServerSchema = z.strictObject({
  name: displayNameSchema(128),
  reached_by: reachedBySchema,
});
export type ToolServer = z.output<typeof toolServerSchema>;

/** The longest arguments (canonical JSON, in characters) a tool call may carry for approval. */
export const MAX_TOOL_ARGUMENTS_LENGTH = 256 * 1024;

export const toolCallSchema = z.strictObject({
  /** The gateway's id of this call, fresh for every prompt. */
  call_id: idSchema,
  server: toolServerSchema,
  tool: displayNameSchema(256),
  arguments: jsonObjectSchema.refine((args) => canonicalJson(args).length <= MAX_TOOL_ARGUMENTS_LENGTH, {
    error: `expected at most ${MAX_TOOL_ARGUMENTS_LENGTH} characters of canonical JSON`,
  }),
  /** When the prompt closes, chosen by the gateway (two minutes by default). */
  expires_at: z.string({ error: `expected ${RFC3339_RULE}` }).refine((s) => checkRfc3339(s).ok, { error: `expected ${RFC3339_RULE}` }),
});
export type ToolCall = z.output<typeof toolCallSchema>;

/**
 * The revision of a tool call: base64url(SHA-256(canonical JSON of server, tool and arguments)).
 * Computed by the extension and by the agent alike, so one approval covers exactly one call.
 */
export async function toolCallRevision(call: Pick<ToolCall, 'server' | 'tool' | 'arguments'>): Promise<string> {
  return sha256Base64url(new TextEncoder().encode(canonicalJson({ server: call.server, tool: call.tool, arguments: call.arguments })));
}

/** base64url(SHA-256(canonical JSON of the arguments)): the `arguments_sha256` of a tool-call decision. */
export async function digestToolArguments(args: Record<string, unknown>): Promise<string> {
  return sha256Base64url(new TextEncoder().encode(canonicalJson(args)));
}

/** At most this many arguments are listed in the summary; the rest are counted. */
const MAX_LISTED_ARGUMENTS = 40;
/** Room left for the arguments once the first line is written (the summary is capped at MAX_SUMMARY_LENGTH). */
const ARGUMENT_BUDGET = MAX_SUMMARY_LENGTH - 1500;

/**
 * The summary Countersign writes for a tool call (CommonMark, rendered by the extension's summary
 * pipeline like any other, which keeps only emphasis, lists and escapes): the tool and the server,
 * then each argument's name and JSON value, with every ASCII punctuation character escaped so
 * nothing in them is read as formatting. A value too long to show is cut, and the summary says
 * how much is missing; the decision still covers every byte (`arguments_sha256`).
 */
export function toolCallSummary(call: Pick<ToolCall, 'server' | 'tool' | 'arguments'>): string {
  const entries = Object.entries(call.arguments);
  const listed = entries.slice(0, MAX_LISTED_ARGUMENTS);
  const perValue = Math.max(120, Math.floor(ARGUMENT_BUDGET / Math.max(1, listed.length)) - 40);
  const lines = [`Call the tool **${literal(call.tool)}** of the MCP server **${literal(call.server.name)}**${entries.length === 0 ? ', with no arguments.' : ', with these arguments:'}`];
  if (entries.length > 0) lines.push('');
  for (const [name, value] of listed) {
    const json = JSON.stringify(value);
    const shown = json.length > perValue ? `${json.slice(0, perValue)}…` : json;
    const missing = json.length > perValue ? ` (${json.length - perValue} more characters not shown)` : '';
    lines.push(`- **${literal(name.slice(0, 200))}**: ${literal(shown)}${missing}`);
  }
  if (entries.length > listed.length) lines.push('', `and ${entries.length - listed.length} more arguments not shown.`);
  return lines.join('\n');
}

/**
 * `text` as CommonMark that renders to exactly `text`: every ASCII punctuation character
 * backslash-escaped (CommonMark section 2.4), and line breaks written as ⏎, which a list item
 * would otherwise swallow or turn into new blocks.
 */
function literal(text: string): string {
  return text.replace(/\r\n|\r|\n/g, '⏎').replace(/[!-/:-@[-`{-~]/g, '\\$&');
}
