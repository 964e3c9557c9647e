import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { gatewaySession } from './support/gateway-session';

// docs/mcp-gateway.md "What passes through": countersign-mcp, as a client launches it, tells each
// upstream only what that client itself declared of roots, sampling and elicitation. The upstream
// is a real stdio MCP server that answers with the capabilities it was given
// (support/capabilities-server.mjs); the gateway is the command itself, run from source.

const MAIN = path.resolve('src/gateway/main.ts');
const configDir = mkdtempSync(path.join(os.tmpdir(), 'cs-gw-caps-'));
afterAll(() => rmSync(configDir, { recursive: true, force: true }));

/** What the upstream says its client (the gateway) declared, when the MCP client declares `capabilities`. */
async function upstreamSees(capabilities: ClientCapabilities): Promise<unknown> {
  return (await gatewaySession(['--import', 'tsx', MAIN], configDir, capabilities)).answer;
}

describe('the upstream is told only what the MCP client can do', { timeout: 30_000 }, () => {
  it('a client that declares roots, sampling and form elicitation: the upstream hears exactly those', async () => {
    const declared = { roots: { listChanged: true }, sampling: {}, elicitation: { form: {} } };
    expect(await upstreamSees(declared)).toEqual(declared);
  });

  it('a client that declares none of them: the upstream hears none', async () => {
    expect(await upstreamSees({})).toEqual({});
  });

  it('elicitation in both modes and an experimental capability: elicitation as declared, nothing that is not relayed', async () => {
    expect(await upstreamSees({ elicitation: { form: {}, url: {} }, experimental: { 'example.com/thing': {} } })).toEqual({ elicitation: { form: {}, url: {} } });
  });

  it('roots without listChanged: as declared, not more', async () => {
    expect(await upstreamSees({ roots: {} })).toEqual({ roots: {} });
  });
});
