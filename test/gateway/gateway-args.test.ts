import { describe, expect, it } from 'vitest';
import { DEFAULT_AGENT_NAME, parseGatewayArgs, USAGE } from '../../src/gateway/gateway-args';
import { isCountersignError } from '../../src/protocol/errors';

const env = { GITHUB_TOKEN: 'ghp_x', HOME: '/home/u' };

function refused(argv: string[]): string {
  try {
    parseGatewayArgs(argv, env);
  } catch (error) {
    expect(isCountersignError(error, 'ERR_ARGUMENT_INVALID')).toBe(true);
    return (error as Error).message;
  }
  throw new Error(`accepted: ${argv.join(' ')}`);
}

describe('countersign-mcp [options] -- <command> [args...]', () => {
  it('keeps everything after -- exactly, options included', () => {
    const cmd = parseGatewayArgs(['--agent-name', 'Desk', '--', 'npx', '-y', '@modelcontextprotocol/server-filesystem', '--help', '/tmp/a b'], env);
    expect(cmd).toMatchObject({ command: 'run', agentName: 'Desk', upstreams: [{ name: 'upstream', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '--help', '/tmp/a b'], env: {} }] });
  });
  it('passes only the named environment: NAME from ours, NAME=value as given', () => {
    const cmd = parseGatewayArgs(['--env', 'GITHUB_TOKEN', '--env', 'MODE=ro', '--', 'srv'], env);
    expect(cmd).toMatchObject({ upstreams: [{ env: { GITHUB_TOKEN: 'ghp_x', MODE: 'ro' } }] });
  });
  it('refuses --env NAME that is not set here', () => expect(refused(['--env', 'NOPE', '--', 'srv'])).toMatch(/--env NOPE: not set/));
  it('refuses an empty command after --', () => expect(refused(['--'])).toMatch(/must be followed by the upstream command/));
  it('refuses --header for a stdio upstream', () => expect(refused(['--header', 'A: b', '--', 'srv'])).toMatch(/--header, --session and --company are for --url/));
  it('defaults: agent name, two-minute expiry, ask-all off', () =>
    expect(parseGatewayArgs(['--', 'srv'], env)).toMatchObject({ agentName: DEFAULT_AGENT_NAME, expirySeconds: 300, askAll: false, configDir: undefined }));
});

describe('countersign-mcp [options] --upstream-command <command> [--upstream-arg=<arg>]... (for clients that take -- for themselves)', () => {
  it('is the same upstream as the -- form, arguments in order, a leading "-" given with "="', () => {
    const dashed = parseGatewayArgs(['--agent-name', 'Desk', '--', 'npx', '-y', '@modelcontextprotocol/server-filesystem', '/tmp/a b'], env);
    const flagged = parseGatewayArgs(['--agent-name', 'Desk', '--upstream-command', 'npx', '--upstream-arg=-y', '--upstream-arg', '@modelcontextprotocol/server-filesystem', '--upstream-arg', '/tmp/a b'], env);
    expect(flagged).toEqual(dashed);
  });
  it('takes --env like the -- form', () => expect(parseGatewayArgs(['--env', 'MODE=ro', '--upstream-command', 'srv'], env)).toMatchObject({ upstreams: [{ command: 'srv', args: [], env: { MODE: 'ro' } }] }));
  it('refuses --upstream-arg without --upstream-command', () => expect(refused(['--upstream-arg', 'x', '--url', 'https://a.example/mcp'])).toMatch(/--upstream-arg needs --upstream-command/));
  it('refuses both forms at once', () => expect(refused(['--upstream-command', 'a', '--', 'b'])).toMatch(/either -- <command> or --upstream-command/));
  it('refuses it beside --url', () => expect(refused(['--upstream-command', 'a', '--url', 'https://a.example/mcp'])).toMatch(/exactly one/));
});

describe('countersign-mcp [options] --url <URL>', () => {
  it('reads repeatable headers as Name: value', () => {
    const cmd = parseGatewayArgs(['--url', 'https://mcp.example/mcp', '--header', 'Authorization: Bearer a:b', '--header', 'Poppy-Session:  s1'], env);
    expect(cmd).toMatchObject({ upstreams: [{ url: 'https://mcp.example/mcp', headers: { Authorization: 'Bearer a:b', 'Poppy-Session': 's1' } }] });
  });
  it('reads --session', () => {
    expect(parseGatewayArgs(['--url', 'http://localhost:1/mcp', '--session', 'signed-in:sam@example.com'], env)).toMatchObject({ upstreams: [{ session: { kind: 'signed_in', account: 'sam@example.com' } }] });
    expect(parseGatewayArgs(['--url', 'http://localhost:1/mcp', '--session', 'this-session'], env)).toMatchObject({ upstreams: [{ session: { kind: 'this_session' } }] });
    expect(refused(['--url', 'http://localhost:1/mcp', '--session', 'guest'])).toMatch(/--session: expected/);
  });
  it('refuses a header without a colon, and one with a line break', () => {
    expect(refused(['--url', 'https://a.example/mcp', '--header', 'Authorization'])).toMatch(/expected 'Name: value'/);
    expect(refused(['--url', 'https://a.example/mcp', '--header', 'X: a\r\nInjected: 1'])).toMatch(/headers/);
  });
  it('refuses a URL that is not http(s)', () => expect(refused(['--url', 'file:///etc/passwd'])).toMatch(/url/));
  it('refuses --env with --url', () => expect(refused(['--url', 'https://a.example/mcp', '--env', 'HOME'])).toMatch(/--env is for stdio/));
  it('reads --company: only the command line makes an upstream a Company', () => {
    expect(parseGatewayArgs(['--url', 'http://localhost:1/mcp', '--company'], env)).toMatchObject({ upstreams: [{ company: true }] });
    expect((parseGatewayArgs(['--url', 'http://localhost:1/mcp'], env) as { upstreams: Array<Record<string, unknown>> }).upstreams[0]).not.toHaveProperty('company');
    expect(refused(['--company', '--', 'srv'])).toMatch(/--company are for --url/);
    expect(refused(['--config', 'gw.json', '--company'])).toMatch(/--company belongs in the config file/);
  });
});

describe('countersign-mcp --config <file>', () => {
  it('leaves the upstreams to the file', () => expect(parseGatewayArgs(['--config', 'gw.json', '--ask-all'], env)).toMatchObject({ command: 'run', configFile: 'gw.json', askAll: true, upstreams: [] }));
  it('refuses per-upstream flags beside it', () => expect(refused(['--config', 'gw.json', '--name', 'x'])).toMatch(/--name belongs in the config file/));
});

describe('exactly one upstream source, and the other commands', () => {
  it('refuses none', () => expect(refused([])).toMatch(/say which upstream/));
  it('refuses two', () => expect(refused(['--url', 'https://a.example/mcp', '--', 'srv'])).toMatch(/exactly one/));
  it('refuses an unknown option, naming it', () => expect(refused(['--allow', 'x', '--', 'srv'])).toMatch(/--allow/));
  it('refuses a stray word before --', () => expect(refused(['srv'])).toMatch(/goes after --/));
  it('refuses an expiry out of range', () => {
    expect(refused(['--expiry', '5', '--', 'srv'])).toMatch(/--expiry/);
    expect(refused(['--expiry', '1.5', '--', 'srv'])).toMatch(/--expiry/);
  });
  it('pair, help and version', () => {
    expect(parseGatewayArgs(['pair', '--agent-name', 'Desk'], env)).toEqual({ command: 'pair', agentName: 'Desk', configDir: undefined });
    expect(parseGatewayArgs(['--help', '--', 'x'], env)).toEqual({ command: 'help' });
    expect(parseGatewayArgs(['--version'], env)).toEqual({ command: 'version' });
    expect(refused(['pair', '--', 'srv'])).toMatch(/pair takes only/);
  });
  it('the usage names every form of the command line', () => {
    for (const form of ['-- <command> [args...]', '--url <URL>', '--config <file>', 'pair', '--ask-all', '--header']) expect(USAGE).toContain(form);
  });
});
