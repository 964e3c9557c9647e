import { readFile } from 'node:fs/promises';
import type { Readable, Writable } from 'node:stream';
import { pairFromCli } from '../agent/pair-from-cli';
import { PACKAGE_VERSION } from '../protocol/package-version';
import { readClientCapabilities } from './client-initialize';
import { CountersignLink, gatewayConfigDir } from './countersign-link';
import { parseGatewayArgs, USAGE, type GatewayRun } from './gateway-args';
import { parseGatewayConfig } from './gateway-config';
import { Gateway } from './gateway-server';
import { StdioServerLines } from './stdio-lines';
import { FileToolCallJournal } from './tool-call-journal';
import { connectUpstream, type Upstream } from './upstream-connection';

/**
 * The `countersign-mcp` command: `pair` once, then run as the MCP server a client launches. Its
 * stdout is the MCP channel while it runs, so everything for people goes to stderr.
 */

/** What `--version` prints and `initialize` reports: the package's version. */
export const GATEWAY_VERSION = PACKAGE_VERSION;

export interface GatewayCliDeps {
  argv: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  stdin: Readable;
  stdout: Writable;
  stderr: { write(text: string): unknown };
  /** Resolves when the client goes away (stdin closed) or a signal asks us to stop. */
  stopped?: Promise<void>;
}

export async function runGatewayCli(deps: GatewayCliDeps): Promise<number> {
  let command;
  try {
    command = parseGatewayArgs(deps.argv, deps.env);
  } catch (error) {
    deps.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  switch (command.command) {
    case 'help':
      deps.stdout.write(`${USAGE}\n`);
      return 0;
    case 'version':
      deps.stdout.write(`countersign-mcp ${GATEWAY_VERSION}\n`);
      return 0;
    case 'pair':
      return pair(command.agentName, gatewayConfigDir(command.configDir, deps.env, command.agentName), deps);
    case 'run':
      return run(command, deps);
  }
}

function pair(agentName: string, configDir: string, deps: GatewayCliDeps): Promise<number> {
  return pairFromCli({ command: 'countersign-mcp', thing: 'gateway', agentName, configDir, env: deps.env, stderr: deps.stderr, next: `Paired as "${agentName}". Add countersign-mcp to your MCP client with this same agent name (--agent-name or "agent_name"; see the README).` });
}

async function run(command: GatewayRun, deps: GatewayCliDeps): Promise<number> {
  let upstreamSpecs = command.upstreams;
  let agentName = command.agentName;
  let configDir = command.configDir;
  let askAll = command.askAll;
  let expirySeconds = command.expirySeconds;
  if (command.configFile !== undefined) {
    try {
      const config = parseGatewayConfig(await readFile(command.configFile, 'utf8'), command.configFile);
      upstreamSpecs = config.upstreams;
      agentName = config.agent_name ?? agentName;
      configDir = config.config_dir ?? configDir;
      askAll = askAll || config.ask_all === true;
      expirySeconds = config.expiry_seconds ?? expirySeconds;
    } catch (error) {
      deps.stderr.write(`countersign-mcp: ${error instanceof Error ? error.message : String(error)}\n`);
      return 2;
    }
  }
  const link = new CountersignLink({ agentName, configDir, env: deps.env });
  // The upstreams start once the client has said what it supports: each is told just that.
  const clientCapabilities = await readClientCapabilities(deps.stdin, deps.stopped);
  const upstreams: Upstream[] = [];
  try {
    for (const spec of upstreamSpecs) upstreams.push(await connectUpstream(spec, { clientInfo: { name: 'countersign-mcp', version: GATEWAY_VERSION }, ...(clientCapabilities === undefined ? {} : { clientCapabilities }) }));
  } catch (error) {
    deps.stderr.write(`countersign-mcp: ${error instanceof Error ? error.message : String(error)}\n`);
    await Promise.all(upstreams.map((u) => u.client.close().catch(() => undefined)));
    return 1;
  }
  // Never a quiet change: a Company named by the config that is not one is said out loud.
  for (const u of upstreams) if (u.warning !== undefined) deps.stderr.write(`countersign-mcp: warning: upstream "${u.spec.name}": ${u.warning}\n`);
  let gateway: Gateway;
  try {
    gateway = new Gateway({
      upstreams,
      approver: link,
      operations: link,
      journal: new FileToolCallJournal(link.configDir),
      serverInfo: { name: 'countersign-mcp', version: GATEWAY_VERSION },
      askAll,
      expiryMs: expirySeconds * 1000,
    });
  } catch (error) {
    deps.stderr.write(`countersign-mcp: ${error instanceof Error ? error.message : String(error)}\n`);
    await Promise.all(upstreams.map((u) => u.client.close().catch(() => undefined)));
    return 2;
  }
  const closed = new Promise<void>((resolve) => {
    gateway.server.onclose = () => resolve();
    for (const u of upstreams) u.client.onclose = () => resolve();
  });
  await gateway.connect(new StdioServerLines(deps.stdin, deps.stdout));
  // readClientCapabilities paused stdin with the initialize put back: the transport reads on from it.
  deps.stdin.resume();
  await Promise.race([closed, deps.stopped ?? new Promise<void>(() => undefined)]);
  await gateway.close();
  await link.close();
  return 0;
}
