import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A scripted language model for the real coding-agent CLIs, on 127.0.0.1: it speaks the three
 * model APIs they use (Anthropic Messages, OpenAI Responses, Gemini streamGenerateContent, each
 * streamed as server-sent events) and answers from a script instead of thinking. The script is a
 * list of tool calls: a request that carries n tool results gets the (n+1)-th call, and once all
 * were made, a final text. Stateless on purpose: each request says where the conversation is,
 * so a CLI that retries or sends a side request (a title, a check) still gets the right step.
 */

/** One scripted tool call, in the CLI's own tool name and input. `custom` is Codex's freeform tool (apply_patch). */
export interface ScriptedCall {
  name: string;
  input: Record<string, unknown> | string;
  /** OpenAI Responses: an MCP tool's namespace (`mcp__<server>`). */
  namespace?: string;
}

export class ModelServer {
  readonly requests: Array<{ path: string; body: unknown }> = [];
  private script: ScriptedCall[] = [];
  private readonly server = http.createServer((req, res) => void this.handle(req, res));

  static async start(): Promise<ModelServer> {
    const s = new ModelServer();
    await new Promise<void>((resolve) => s.server.listen(0, '127.0.0.1', resolve));
    return s;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The calls the model makes in the next run, in order. */
  play(calls: ScriptedCall[]): void {
    this.script = calls;
    this.requests.length = 0;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: any;
    try {
      body = text === '' ? {} : JSON.parse(text);
    } catch {
      body = {};
    }
    const url = req.url ?? '';
    this.requests.push({ path: url, body });
    if (url.startsWith('/v1/messages')) return this.anthropic(body, res);
    if (url.startsWith('/v1/responses')) return this.openai(body, res);
    if (url.includes(':streamGenerateContent')) return this.gemini(body, res, true);
    if (url.includes(':generateContent')) return this.gemini(body, res, false);
    if (url.includes(':countTokens')) return json(res, { totalTokens: 1 });
    if (url.startsWith('/v1/models') || url.startsWith('/v1beta/models')) return json(res, { data: [], models: [] });
    json(res, {}, 404);
  }

  /** The step a request is at: how many tool results it carries; a request offering no tools is a side request. */
  private next(toolResults: number, offersTools: boolean): ScriptedCall | undefined {
    return offersTools ? this.script[toolResults] : undefined;
  }

  private anthropic(body: any, res: http.ServerResponse): void {
    if (body.stream !== true) return json(res, { id: 'msg_side', type: 'message', role: 'assistant', model: body.model, content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } });
    const messages: any[] = Array.isArray(body.messages) ? body.messages : [];
    const results = messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((c: any) => c?.type === 'tool_result').length;
    const call = this.next(results, Array.isArray(body.tools) && body.tools.length > 0);
    const events: Array<[string, unknown]> = [['message_start', { type: 'message_start', message: { id: `msg_${results}`, type: 'message', role: 'assistant', model: body.model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } }]];
    if (call === undefined) {
      events.push(
        ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
        ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'done' } }],
        ['content_block_stop', { type: 'content_block_stop', index: 0 }],
        ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 1 } }],
      );
    } else {
      events.push(
        ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: `toolu_scripted_${results}`, name: call.name, input: {} } }],
        ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(call.input) } }],
        ['content_block_stop', { type: 'content_block_stop', index: 0 }],
        ['message_delta', { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 1 } }],
      );
    }
    events.push(['message_stop', { type: 'message_stop' }]);
    sse(res, events);
  }

  private openai(body: any, res: http.ServerResponse): void {
    const input: any[] = Array.isArray(body.input) ? body.input : [];
    const results = input.filter((i) => i?.type === 'function_call_output' || i?.type === 'custom_tool_call_output').length;
    const call = this.next(results, Array.isArray(body.tools) && body.tools.length > 0);
    const id = `resp_${results}_${Date.now()}`;
    let item: Record<string, unknown>;
    if (call === undefined) item = { type: 'message', role: 'assistant', id: `msg_${id}`, status: 'completed', content: [{ type: 'output_text', text: 'done', annotations: [] }] };
    else if (typeof call.input === 'string') item = { type: 'custom_tool_call', id: `ctc_${id}`, call_id: `call_scripted_${results}`, name: call.name, input: call.input, status: 'completed' };
    else item = { type: 'function_call', id: `fc_${id}`, call_id: `call_scripted_${results}`, name: call.name, arguments: JSON.stringify(call.input), status: 'completed', ...(call.namespace === undefined ? {} : { namespace: call.namespace }) };
    const usage = { input_tokens: 1, input_tokens_details: { cached_tokens: 0 }, output_tokens: 1, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 2 };
    sse(res, [
      ['response.created', { type: 'response.created', response: { id, object: 'response', status: 'in_progress', output: [] } }],
      ['response.output_item.done', { type: 'response.output_item.done', output_index: 0, item }],
      ['response.completed', { type: 'response.completed', response: { id, object: 'response', status: 'completed', output: [item], usage } }],
    ]);
  }

  private gemini(body: any, res: http.ServerResponse, stream: boolean): void {
    const contents: any[] = Array.isArray(body.contents) ? body.contents : [];
    const results = contents.flatMap((c) => (Array.isArray(c.parts) ? c.parts : [])).filter((p: any) => p?.functionResponse !== undefined).length;
    const offers = Array.isArray(body.tools) && body.tools.some((t: any) => Array.isArray(t.functionDeclarations) && t.functionDeclarations.length > 0);
    const call = this.next(results, offers);
    const part = call === undefined ? { text: 'done' } : { functionCall: { name: call.name, args: call.input } };
    const answer = { candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 }, modelVersion: 'scripted' };
    if (!stream) return json(res, answer);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.end(`data: ${JSON.stringify(answer)}\r\n\r\n`);
  }
}

function json(res: http.ServerResponse, value: unknown, status = 200): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

function sse(res: http.ServerResponse, events: Array<[string, unknown]>): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.end(events.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join(''));
}
