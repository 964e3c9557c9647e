import { findNodeAtLocation, getNodeValue, parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import * as z from 'zod';
import { CountersignError } from '../protocol/errors';
import { upstreamSchema } from './upstream-spec';

/**
 * The `--config <file>` of countersign-mcp: several upstreams, their policies and the gateway's
 * own settings, in plain JSON (no comments, no trailing commas: a file an editor and `JSON.parse`
 * agree on). Every error names the line and the field, because the person fixing it has the file
 * open, not our schema. The format, with an example: docs/mcp-gateway.md, "Config file".
 */

export const gatewayConfigSchema = z.strictObject({
  /** What the person sees in Countersign as the asking agent. */
  agent_name: z.string().min(1).max(64).optional(),
  /** Where the pairing keys and journals live. Default: the agent SDK's folder. */
  config_dir: z.string().min(1).max(4096).optional(),
  /** Every tool of every upstream asks. */
  ask_all: z.boolean().optional(),
  /** How long a tool-call prompt stays open, 10 s to 1 hour. */
  expiry_seconds: z.number().int().min(10).max(3600).optional(),
  upstreams: z
    .array(upstreamSchema)
    .min(1, { error: 'expected at least one upstream' })
    .max(32)
    .refine((list) => new Set(list.map((u) => u.name)).size === list.length, { error: 'expected each upstream name once' }),
});
export type GatewayConfig = z.output<typeof gatewayConfigSchema>;

/** Reads a config file's text; `file` is only for the messages. */
export function parseGatewayConfig(text: string, file: string): GatewayConfig {
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  if (errors.length > 0 || tree === undefined) {
    const first = errors[0];
    const where = first === undefined ? '' : `:${lineOf(text, first.offset)}`;
    throw new CountersignError('ERR_ARGUMENT_INVALID', `${file}${where}: expected JSON, got a syntax error (${first === undefined ? 'empty file' : printParseErrorCode(first.error)})`);
  }
  const parsed = gatewayConfigSchema.safeParse(getNodeValue(tree));
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.slice(0, 5).map((issue) => {
    const node = nearestNode(tree, issue.path);
    const field = issue.path.length === 0 ? '(top level)' : issue.path.map(String).join('.');
    return `${file}:${lineOf(text, node.offset)}: ${field}: ${issue.message}`;
  });
  throw new CountersignError('ERR_ARGUMENT_INVALID', lines.join('\n'), { cause: parsed.error });
}

/** The node at `path`, or the deepest ancestor that exists (a missing member is reported where its object starts). */
function nearestNode(tree: Node, path: readonly PropertyKey[]): Node {
  for (let n = path.length; n >= 0; n--) {
    const segments = path.slice(0, n).map((p) => (typeof p === 'number' ? p : String(p)));
    const node = findNodeAtLocation(tree, segments);
    // For a property, point at its key's line: that is the line a person looks for.
    if (node) return node.parent?.type === 'property' ? node.parent : node;
  }
  return tree;
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}
