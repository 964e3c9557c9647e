import { parseArgs } from 'node:util';
import { CountersignError } from '../protocol/errors';
import { upstreamSchema, type UpstreamSpec } from './upstream-spec';

/**
 * The command line of countersign-mcp (docs/mcp-gateway.md, "Command line"). Parsed by hand only
 * where `node:util` parseArgs cannot help: everything after `--` is the upstream's own command and
 * is kept exactly as typed. Some MCP clients take `--` for themselves (the MCP Inspector's CLI
 * splits its own command line there), so `--upstream-command` and `--upstream-arg` say the same
 * without it.
 */

export const DEFAULT_AGENT_NAME = 'countersign-mcp';
/**
 * How long a tool-call prompt waits for the person, unless the command line or the config says
 * otherwise: five minutes, time to read a file's whole content or diff. The client's own request
 * may time out sooner; the gateway holds the call (progress) and a retry joins the prompt.
 */
export const DEFAULT_EXPIRY_SECONDS = 300;

export interface GatewayRun {
  command: 'run';
  agentName: string;
  configDir: string | undefined;
  askAll: boolean;
  expirySeconds: number;
  /** Given: from --config; otherwise the one upstream of `--` or `--url`. */
  configFile: string | undefined;
  upstreams: UpstreamSpec[];
}

export type GatewayCommand =
  | GatewayRun
  | { command: 'pair'; agentName: string; configDir: string | undefined }
  | { command: 'help' }
  | { command: 'version' };

export const USAGE = `countersign-mcp: an MCP server in front of your MCP servers that asks you, in Countersign, before a tool does something.

Usage:
  countersign-mcp [options] -- <command> [args...]       one upstream over stdio
  countersign-mcp [options] --upstream-command <command> [--upstream-arg=<arg>]...
                                                       the same, for clients that take -- for themselves
  countersign-mcp [options] --url <URL> [--header 'Name: value']...
                                                       one upstream over Streamable HTTP
  countersign-mcp [options] --config <file>            several upstreams (JSON; see docs/mcp-gateway.md)
  countersign-mcp pair [--agent-name <name>] [--config-dir <dir>]
                                                       pair with Countersign once: type the code it prints
  countersign-mcp --help | --version

Options:
  --agent-name <name>   the name you see in Countersign (default "${DEFAULT_AGENT_NAME}")
  --config-dir <dir>    pairing keys and journals (default: the agent SDK's folder)
  --name <name>         the upstream's name in tool prefixes and the journal (default "upstream")
  --env NAME[=value]    give a stdio upstream this variable (from the gateway's own environment
                        without "=value"); repeatable. Nothing else of the environment is passed on.
  --company             the --url upstream is an operations v2 Company: read its poppy.json and
                        show its operations as the Company's (a poppy.json alone changes nothing)
  --session signed-in[:<account>] | this-session
                        for an operations v2 Company: the Session as Countersign shows it
  --ask-all             every tool asks, whatever its annotations say
  --expiry <seconds>    how long a tool-call prompt waits for you (default ${DEFAULT_EXPIRY_SECONDS})

Tools annotated readOnlyHint are allowed, every other tool asks; a config file can allow, ask or
deny tools by name. Annotations are the server's own claims: use --ask-all if you do not trust them.
If Countersign cannot be reached, a tool that asks is not called and the call returns an error.`;

function fail(message: string): never {
  throw new CountersignError('ERR_ARGUMENT_INVALID', `countersign-mcp: ${message} (see countersign-mcp --help)`);
}

export function parseGatewayArgs(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): GatewayCommand {
  const dash = argv.indexOf('--');
  const own = dash === -1 ? [...argv] : argv.slice(0, dash);
  const upstreamCommand = dash === -1 ? undefined : argv.slice(dash + 1);
  let parsed;
  try {
    parsed = parseArgs({
      args: own,
      allowPositionals: true,
      strict: true,
      options: {
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean' },
        'agent-name': { type: 'string' },
        'config-dir': { type: 'string' },
        config: { type: 'string' },
        url: { type: 'string' },
        header: { type: 'string', multiple: true },
        name: { type: 'string' },
        env: { type: 'string', multiple: true },
        session: { type: 'string' },
        company: { type: 'boolean' },
        'ask-all': { type: 'boolean' },
        expiry: { type: 'string' },
        'upstream-command': { type: 'string' },
        'upstream-arg': { type: 'string', multiple: true },
      },
    });
  } catch (error) {
    fail(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (values['upstream-arg'] !== undefined && values['upstream-command'] === undefined) fail('--upstream-arg needs --upstream-command');
  if (values['upstream-command'] !== undefined && upstreamCommand !== undefined) fail('use either -- <command> or --upstream-command, not both');
  const stdioCommand = values['upstream-command'] === undefined ? upstreamCommand : [values['upstream-command'], ...(values['upstream-arg'] ?? [])];
  if (values.help) return { command: 'help' };
  if (values.version) return { command: 'version' };
  const agentName = values['agent-name'] ?? DEFAULT_AGENT_NAME;
  const configDir = values['config-dir'];
  if (positionals[0] === 'pair') {
    if (positionals.length > 1 || stdioCommand !== undefined) fail('pair takes only --agent-name and --config-dir');
    return { command: 'pair', agentName, configDir };
  }
  if (positionals.length > 0) fail(`unexpected argument "${positionals[0]}" (the upstream's command goes after -- or in --upstream-command)`);

  const sources = [values.config !== undefined, values.url !== undefined, stdioCommand !== undefined].filter(Boolean).length;
  if (sources === 0) fail('say which upstream to use: -- <command> [args...], --upstream-command <command>, --url <URL> or --config <file>');
  if (sources > 1) fail('use exactly one of -- <command> (or --upstream-command), --url and --config');
  const expirySeconds = values.expiry === undefined ? DEFAULT_EXPIRY_SECONDS : Number(values.expiry);
  if (!Number.isInteger(expirySeconds) || expirySeconds < 10 || expirySeconds > 3600) fail('--expiry: expected whole seconds from 10 to 3600');
  const base = { command: 'run' as const, agentName, configDir, askAll: values['ask-all'] === true, expirySeconds };
  if (values.config !== undefined) {
    for (const flag of ['header', 'name', 'env', 'session', 'company'] as const) if (values[flag] !== undefined) fail(`--${flag} belongs in the config file with --config`);
    return { ...base, configFile: values.config, upstreams: [] };
  }

  const name = values.name ?? 'upstream';
  let spec: unknown;
  if (stdioCommand !== undefined) {
    if (stdioCommand.length === 0) fail('-- must be followed by the upstream command');
    if (values.header !== undefined || values.session !== undefined || values.company !== undefined) fail('--header, --session and --company are for --url upstreams');
    const [command, ...args] = stdioCommand;
    spec = { name, command, args, env: envOf(values.env ?? [], env) };
  } else {
    if (values.env !== undefined) fail('--env is for stdio upstreams (after -- or --upstream-command)');
    spec = {
      name,
      url: values.url,
      headers: headersOf(values.header ?? []),
      ...(values.company === true ? { company: true } : {}),
      ...(values.session === undefined ? {} : { session: sessionOf(values.session) }),
    };
  }
  const checked = upstreamSchema.safeParse(spec);
  if (!checked.success) fail(checked.error.issues.map((i) => `${i.path.map(String).join('.') || 'upstream'}: ${i.message}`).join('; '));
  return { ...base, configFile: undefined, upstreams: [checked.data] };
}

function envOf(pairs: readonly string[], env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    const key = eq === -1 ? pair : pair.slice(0, eq);
    const value = eq === -1 ? env[key] : pair.slice(eq + 1);
    if (value === undefined) fail(`--env ${key}: not set in this environment (give it as ${key}=value)`);
    out[key] = value;
  }
  return out;
}

function headersOf(lines: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) fail(`--header "${line.slice(0, 40)}": expected 'Name: value'`);
    out[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return out;
}

function sessionOf(text: string): { kind: 'signed_in'; account?: string } | { kind: 'this_session' } {
  if (text === 'this-session') return { kind: 'this_session' };
  if (text === 'signed-in') return { kind: 'signed_in' };
  if (text.startsWith('signed-in:') && text.length > 'signed-in:'.length) return { kind: 'signed_in', account: text.slice('signed-in:'.length) };
  fail(`--session: expected signed-in, signed-in:<account> or this-session, got "${text.slice(0, 40)}"`);
}
