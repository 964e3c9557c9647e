// An MCP server over stdio that tells what its client declared: its one tool answers with the
// client's capabilities from `initialize`, as JSON. Started by test/gateway/client-capabilities.test.ts.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const server = new Server({ name: 'capabilities', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: 'client_capabilities', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } }] }));
server.setRequestHandler(CallToolRequestSchema, async () => ({ content: [{ type: 'text', text: JSON.stringify(server.getClientCapabilities() ?? null) }] }));
await server.connect(new StdioServerTransport());
