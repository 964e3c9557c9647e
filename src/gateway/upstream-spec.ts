import * as z from 'zod';

/**
 * What the gateway needs to know about one upstream MCP server, however it was given (the command
 * line or a config file): how to reach it, what it may see, and which of its tools ask the person.
 * docs/mcp-gateway.md explains each member.
 */

/** A policy: `allow` runs the call, `ask` asks the person in Countersign first, `deny` hides the tool. */
export const TOOL_POLICIES = ['allow', 'ask', 'deny'] as const;
export type ToolPolicy = (typeof TOOL_POLICIES)[number];

/**
 * Upstream names become tool-name prefixes (`<upstream>__<tool>`): short, no `__` inside, and no
 * `_` at either end, so the first `__` of an exposed name always ends the upstream's name (`a_`
 * and `a` would otherwise both expose `a___b`).
 */
export const UPSTREAM_NAME_PATTERN = /^[A-Za-z0-9](?:(?:[A-Za-z0-9-]|_(?!_)){0,30}[A-Za-z0-9-])?$/;

/** `*` matches any run of characters, `?` one; nothing else is special (tool names have no paths). */
export const TOOL_GLOB_PATTERN = /^[A-Za-z0-9_.\-*?/:]{1,128}$/;

const upstreamName = z.string().regex(UPSTREAM_NAME_PATTERN, {
  error: 'expected 1-32 letters, digits, "-" or single "_", starting with a letter or digit and not ending with "_"',
});
const toolGlob = z.string().regex(TOOL_GLOB_PATTERN, { error: 'expected a tool name or a glob with * and ? (1-128 characters)' });
const headerName = z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/, { error: 'expected an HTTP header name' });
// Header values: visible ASCII and spaces (RFC 9110 section 5.5), no line breaks that would start another header.
const headerValue = z.string().regex(/^[\x20-\x7E\t]{0,8192}$/, { error: 'expected printable ASCII without line breaks' });
const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, { error: 'expected an environment variable name' });

/** Policies by tool-name glob; the first list that matches wins, in the order deny, ask, allow. */
export const toolPoliciesSchema = z.strictObject({
  deny: z.array(toolGlob).max(256).optional(),
  ask: z.array(toolGlob).max(256).optional(),
  allow: z.array(toolGlob).max(256).optional(),
});
export type ToolPolicies = z.output<typeof toolPoliciesSchema>;

/** How the Company's Session is shown to the person for an operations v2 upstream (spec section 3, "Who can approve it"). */
export const sessionOptionSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('signed_in'), account: z.string().min(1).max(256).optional() }),
  z.strictObject({ kind: z.literal('this_session') }),
]);

const common = {
  name: upstreamName,
  tools: toolPoliciesSchema.optional(),
  /** Every tool of this upstream asks, whatever its annotations say. */
  ask_all: z.boolean().optional(),
};

export const stdioUpstreamSchema = z.strictObject({
  ...common,
  command: z.string().min(1).max(4096),
  args: z.array(z.string().max(4096)).max(256).optional(),
  /**
   * The whole environment the upstream gets, beyond the MCP SDK's minimal defaults (HOME, PATH,
   * USER...): never the gateway's own, which may hold the client's secrets.
   */
  env: z.record(envName, z.string().max(32_768)).optional(),
  cwd: z.string().min(1).max(4096).optional(),
});

export const httpUpstreamSchema = z.strictObject({
  ...common,
  url: z.url({ protocol: /^https?$/, error: 'expected an http or https URL' }).max(8192),
  headers: z.record(headerName, headerValue).optional(),
  /**
   * This upstream is an operations v2 Company: its poppy.json is read and its tool calls go
   * through the SDK's perform loop. Only the config says so: a poppy.json alone changes nothing.
   */
  company: z.boolean().optional(),
  session: sessionOptionSchema.optional(),
});

export const upstreamSchema = z.union([stdioUpstreamSchema, httpUpstreamSchema], { error: 'expected an upstream with "command" (stdio) or "url" (Streamable HTTP)' });
export type UpstreamSpec = z.output<typeof upstreamSchema>;
export type StdioUpstreamSpec = z.output<typeof stdioUpstreamSchema>;
export type HttpUpstreamSpec = z.output<typeof httpUpstreamSchema>;

export function isStdioUpstream(spec: UpstreamSpec): spec is StdioUpstreamSpec {
  return 'command' in spec;
}

/** How the person is told the server is reached: the command line, or the URL. */
export function reachedBy(spec: UpstreamSpec): { transport: 'stdio'; command: string; args: string[] } | { transport: 'http'; url: string } {
  return isStdioUpstream(spec) ? { transport: 'stdio', command: spec.command, args: [...(spec.args ?? [])] } : { transport: 'http', url: spec.url };
}

/**
 * Two upstream names whose prefixed tool names can be the same string, or undefined. `x` and `y`
 * collide when `x__` and `y__` are a prefix of one another: `a` and `a_` both expose `a___b` (the
 * tool `_b` of one, `b` of the other), and a name given twice is the same prefix.
 */
export function ambiguousUpstreamNames(names: readonly string[]): [string, string] | undefined {
  for (const [i, x] of names.entries()) {
    for (const y of names.slice(i + 1)) {
      const [px, py] = [`${x}__`, `${y}__`];
      if (px.startsWith(py) || py.startsWith(px)) return [x, y];
    }
  }
  return undefined;
}
