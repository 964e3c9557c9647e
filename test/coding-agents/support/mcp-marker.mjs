// A stdio MCP server with one tool, touch_marker, that appends a line to mcp-<name>.marker in the
// folder it was started in: the trace the coding-agent tests look for. JSON-RPC by hand (one
// message a line), so it starts in milliseconds without a TypeScript loader.
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';

const folder = process.argv[2] ?? process.cwd();
const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
const tool = {
  name: 'touch_marker',
  description: 'Leaves a marker file',
  inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
};

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  let m;
  try {
    m = JSON.parse(line);
  } catch {
    return;
  }
  if (m.id === undefined) return;
  if (m.method === 'initialize') send({ id: m.id, result: { protocolVersion: m.params?.protocolVersion ?? '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'marker', version: '1.0.0' } } });
  else if (m.method === 'tools/list') send({ id: m.id, result: { tools: [tool] } });
  else if (m.method === 'tools/call') {
    const name = String(m.params?.arguments?.name ?? 'x').replace(/[^a-z0-9-]/gi, '_');
    appendFileSync(path.join(folder, `mcp-${name}.marker`), 'ran\n');
    send({ id: m.id, result: { content: [{ type: 'text', text: 'marker left' }] } });
  } else send({ id: m.id, error: { code: -32601, message: 'method not found' } });
});
