import * as z from 'zod';
import { canonicalJson } from './canonical-json';
import { idSchema } from './id';
import { checkRfc3339, RFC3339_RULE } from './rfc3339';
import { isWellFormedText } from './json';
import { CONTROL_OR_BIDI, displayNameSchema, jsonObjectSchema, requestUrlSchema } from './text-schemas';

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

/*
 * What the approval window can show of a call's arguments in full (docs/bridge-protocol.md
 * section 9.7). The card shows every argument whole, one row per argument and per member or
 * element inside one (src/extension/ui/tool-call-arguments.ts); a call beyond any of these limits
 * is refused at intake with ERR_TOOL_CALL_TOO_LARGE (the SDK before sending, the bridge and the
 * extension alike), never shown cut.
 */

/** The longest arguments, in characters of their canonical JSON (RFC 8785). */
export const MAX_TOOL_ARGUMENTS_LENGTH = 256 * 1024;
/** Arguments (top-level members) of one call. */
export const MAX_TOOL_ARGUMENTS = 256;
/** Values in all: each argument, and each member and element inside one, at any depth. */
export const MAX_TOOL_ARGUMENT_VALUES = 4096;
/** Levels of objects and lists inside one argument's value: each level is one indent on the card. */
export const MAX_TOOL_ARGUMENT_DEPTH = 8;
/** The longest name of an argument or of a member inside one, in UTF-16 code units. */
export const MAX_TOOL_ARGUMENT_NAME_LENGTH = 1024;

/**
 * Marks the issues of those limits, so a message refused for one gets ERR_TOOL_CALL_TOO_LARGE
 * (bridge-messages.ts) rather than the general code: the caller learns the call is too large to
 * be shown, not that it is malformed.
 */
const TOO_LARGE = 'tool-call-too-large';

/** True for an issue raised by one of the limits above. */
export function isToolCallTooLargeIssue(issue: z.core.$ZodIssue | undefined): boolean {
  return issue?.code === 'custom' && issue.params?.['rule'] === TOO_LARGE;
}

/** How big the arguments are, walked without recursion (hostile nesting cannot overflow the stack). */
function measure(args: Record<string, unknown>): { values: number; depth: number; longestName: number } {
  let values = 0;
  let depth = 0;
  let longestName = 0;
  const stack: Array<[unknown, number]> = Object.entries(args).map(([name, value]) => {
    longestName = Math.max(longestName, name.length);
    return [value, 0];
  });
  while (stack.length > 0) {
    const [value, level] = stack.pop()!;
    values += 1;
    if (typeof value !== 'object' || value === null) continue;
    depth = Math.max(depth, level + 1);
    for (const [name, child] of Object.entries(value)) {
      if (!Array.isArray(value)) longestName = Math.max(longestName, name.length);
      stack.push([child, level + 1]);
    }
  }
  return { values, depth, longestName };
}

const argumentsSchema = jsonObjectSchema.superRefine((args, ctx) => {
  const tooLarge = (message: string) => ctx.addIssue({ code: 'custom', message: `${message}, more than the approval window shows in full`, params: { rule: TOO_LARGE } });
  const count = Object.keys(args).length;
  if (count > MAX_TOOL_ARGUMENTS) return tooLarge(`expected at most ${MAX_TOOL_ARGUMENTS} arguments, got ${count}`);
  const length = canonicalJson(args).length;
  if (length > MAX_TOOL_ARGUMENTS_LENGTH) return tooLarge(`expected at most ${MAX_TOOL_ARGUMENTS_LENGTH} characters of canonical JSON, got ${length}`);
  const size = measure(args);
  if (size.values > MAX_TOOL_ARGUMENT_VALUES) return tooLarge(`expected at most ${MAX_TOOL_ARGUMENT_VALUES} values in all, got ${size.values}`);
  if (size.depth > MAX_TOOL_ARGUMENT_DEPTH) return tooLarge(`expected at most ${MAX_TOOL_ARGUMENT_DEPTH} levels of nesting in an argument, got ${size.depth}`);
  if (size.longestName > MAX_TOOL_ARGUMENT_NAME_LENGTH) return tooLarge(`expected names of at most ${MAX_TOOL_ARGUMENT_NAME_LENGTH} characters, got one of ${size.longestName}`);
});

/** The longest description of a tool the card shows, in UTF-16 code units. */
export const MAX_TOOL_DESCRIPTION_LENGTH = 2048;

/**
 * The tool's description as its server lists it (MCP `Tool.description`): plain text, never
 * rendered as markup. Untrusted, so without control or bidi-control characters (a line break too:
 * the gateway folds those into spaces before it asks, docs/mcp-gateway.md).
 */
export const toolDescriptionSchema = z
  .string({ error: 'expected a string' })
  .max(MAX_TOOL_DESCRIPTION_LENGTH, { error: `expected at most ${MAX_TOOL_DESCRIPTION_LENGTH} characters` })
  .refine(isWellFormedText, { error: 'expected well-formed Unicode text, got an unpaired surrogate' })
  .refine((s) => !CONTROL_OR_BIDI.test(s), { error: 'expected no control or bidi-control characters' });

/**
 * The tool's annotations as its server lists them (MCP `ToolAnnotations`), only the known members.
 * They are the server's claims: the card may raise its caution for them (a destructive tool) and
 * never lowers it (a "read-only" one still asks as any other).
 */
export const toolAnnotationsSchema = z.strictObject({
  title: displayNameSchema(256).optional(),
  readOnlyHint: z.boolean().optional(),
  destructiveHint: z.boolean().optional(),
  idempotentHint: z.boolean().optional(),
  openWorldHint: z.boolean().optional(),
});
export type ToolAnnotations = z.output<typeof toolAnnotationsSchema>;

export const toolCallSchema = z.strictObject({
  /** The gateway's id of this call, fresh for every prompt. */
  call_id: idSchema,
  server: toolServerSchema,
  tool: displayNameSchema(256),
  /** The tool's own words, from the server's tools/list (optional: older gateways send none). */
  description: toolDescriptionSchema.optional(),
  annotations: toolAnnotationsSchema.optional(),
  arguments: argumentsSchema,
  /** When the prompt closes, chosen by the gateway (five minutes by default for countersign-mcp). */
  expires_at: z.string({ error: `expected ${RFC3339_RULE}` }).refine((s) => checkRfc3339(s).ok, { error: `expected ${RFC3339_RULE}` }),
});
export type ToolCall = z.output<typeof toolCallSchema>;

/**
 * The summary Countersign writes for a tool call, kept with the item for the lists and the
 * history (CommonMark, rendered by the summary pipeline like any other): the tool, the server and
 * how many arguments, never their values. The approval card does not show it: it shows every
 * argument whole, from the call's data (src/extension/ui/tool-call-arguments.ts), so nothing
 * here is ever cut.
 */
export function toolCallSummary(call: Pick<ToolCall, 'server' | 'tool' | 'arguments'>): string {
  const count = Object.keys(call.arguments).length;
  const args = count === 0 ? 'with no arguments' : count === 1 ? 'with 1 argument' : `with ${count} arguments`;
  return `Call the tool **${literal(call.tool)}** of the MCP server **${literal(call.server.name)}**, ${args}.`;
}

/** `text` as CommonMark that renders to exactly `text`: every ASCII punctuation character backslash-escaped (CommonMark section 2.4). */
function literal(text: string): string {
  return text.replace(/[!-/:-@[-`{-~]/g, '\\$&');
}
