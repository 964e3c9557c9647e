// An MCP server over stdio that lists 162 tools one per page (a cursor each time) and whose one
// tool answers with a JSON-RPC error of its own code: what a list cut short or an error text
// prefixed twice would show. Started by test/gateway/gateway-server.test.ts.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';

const TOOLS = 162;
const server = new Server({ name: 'paged', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async (req) => {
  const at = Number(req.params?.cursor ?? '0');
  const tool = { name: `tool_${at}`, inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } };
  return { tools: [tool], ...(at + 1 < TOOLS ? { nextCursor: String(at + 1) } : {}) };
});
server.setRequestHandler(CallToolRequestSchema, async () => {
  throw new McpError(-32042, 'the server refuses this call', { why: 'test' });
});
await server.connect(new StdioServerTransport());
