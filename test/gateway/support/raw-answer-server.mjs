// An MCP server over stdio written by hand, without the SDK, whose one read-only tool answers
// tools/call with a `result` that is not an object: what a broken or hostile server may send.
// Started by test/gateway/pass-through.test.ts.
import { createInterface } from 'node:readline';

const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  const m = JSON.parse(line);
  if (m.method === 'initialize') send({ id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'raw', version: '1.0.0' } } });
  else if (m.method === 'tools/list') send({ id: m.id, result: { tools: [{ name: 'broken', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } }] } });
  else if (m.method === 'tools/call') send({ id: m.id, result: 5 });
  else if (m.id !== undefined) send({ id: m.id, result: {} });
}
