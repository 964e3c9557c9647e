import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';

const SERVER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'capabilities-server.mjs');

/** What one session through the gateway saw: the tools it listed, and what the upstream says its client declared. */
export interface GatewaySession {
  tools: string[];
  answer: unknown;
}

/**
 * One session of countersign-mcp as an MCP client launches it (`node <gateway…> --config-dir …`
 * over stdio), in front of support/capabilities-server.mjs. `gateway` is what comes before the
 * gateway's own arguments: a bundle, or tsx and the source entry. The client declares
 * `capabilities`, lists the tools and calls the upstream's one read-only tool (the gateway's
 * policy allows it without asking), whose answer is the capabilities the upstream was told, then
 * closes, which waits for the gateway to exit.
 */
export async function gatewaySession(gateway: string[], configDir: string, capabilities: ClientCapabilities = { roots: {} }): Promise<GatewaySession> {
  const client = new Client({ name: 'session-client', version: '1.0.0' }, { capabilities });
  const args = [...gateway, '--config-dir', configDir, '--upstream-command', process.execPath, '--upstream-arg', SERVER];
  await client.connect(new StdioClientTransport({ command: process.execPath, args, env: { ...process.env } as Record<string, string>, stderr: 'ignore' }));
  try {
    const { tools } = await client.listTools();
    const result = await client.callTool({ name: 'client_capabilities', arguments: {} });
    return { tools: tools.map((t) => t.name), answer: JSON.parse((result.content as Array<{ text: string }>)[0]!.text) };
  } finally {
    await client.close();
  }
}
