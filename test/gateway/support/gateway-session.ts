import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const SERVER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'capabilities-server.mjs');

/** What one session through the gateway saw: the tools it listed and the one read-only call's answer. */
export interface GatewaySession {
  tools: string[];
  answer: unknown;
}

/**
 * One session of countersign-mcp `bundle` as an MCP client launches it (`node <bundle> …` over
 * stdio), in front of support/capabilities-server.mjs: the client lists the tools and calls the
 * upstream's one read-only tool, which the gateway's policy allows without asking, then closes.
 */
export async function gatewaySession(bundle: string, configDir: string): Promise<GatewaySession> {
  const client = new Client({ name: 'session-client', version: '1.0.0' }, { capabilities: { roots: {} } });
  const args = [bundle, '--config-dir', configDir, '--upstream-command', process.execPath, '--upstream-arg', SERVER];
  await client.connect(new StdioClientTransport({ command: process.execPath, args, env: { ...process.env } as Record<string, string>, stderr: 'ignore' }));
  try {
    const { tools } = await client.listTools();
    const result = await client.callTool({ name: 'client_capabilities', arguments: {} });
    return { tools: tools.map((t) => t.name), answer: JSON.parse((result.content as Array<{ text: string }>)[0]!.text) };
  } finally {
    await client.close();
  }
}
