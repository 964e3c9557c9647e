import { generateText, tool, type ModelMessage } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { countersignApprovalResponses } from '../../src/agent/index';
import { answeredBy, approveAfterChange, startCountersign, type Countersign } from './support/countersign';

/**
 * docs/agent-sdk.md, "AI SDK": `ai` as published, scripted by its own MockLanguageModelV4, a
 * `needsApproval: true` tool, and Countersign as the real bridge in front of the extension
 * services; the person is played.
 */

const COMMAND = { command: 'rm -rf ./build' };
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

function scenario() {
  const ran: unknown[] = [];
  const prompts: string[] = [];
  const model = new MockLanguageModelV4({
    doGenerate: async (options) => {
      prompts.push(JSON.stringify(options.prompt));
      const answered = options.prompt.some((m) => m.role === 'tool' && m.content.some((c) => c.type === 'tool-result'));
      const content = answered ? [{ type: 'text' as const, text: 'MOCK_DONE' }] : [{ type: 'tool-call' as const, toolCallId: 'c1', toolName: 'runCommand', input: JSON.stringify(COMMAND) }];
      return { content, finishReason: { unified: answered ? ('stop' as const) : ('tool-calls' as const), raw: undefined }, usage, warnings: [] };
    },
  });
  const tools = {
    runCommand: tool({
      description: 'Runs a shell command',
      inputSchema: z.object({ command: z.string() }),
      needsApproval: true,
      execute: async (input) => {
        ran.push(input);
        return 'ran';
      },
    }),
  };
  return { ran, prompts, model, tools };
}

describe('AI SDK: tool-approval requests answered in Countersign', { timeout: 30_000 }, () => {
  let cs: Countersign;
  beforeAll(async () => {
    cs = await startCountersign('Builder');
  }, 30_000);
  afterAll(async () => cs?.dispose());

  async function runToEnd(s: ReturnType<typeof scenario>, options: { expiryMs?: number; whileAsked?: (input: Record<string, unknown>) => Promise<void> } = {}) {
    const messages: ModelMessage[] = [{ role: 'user', content: 'Clean the build.' }];
    const first = await generateText({ model: s.model, tools: s.tools, messages });
    expect(first.content.filter((p) => p.type === 'tool-approval-request')).toHaveLength(1);
    messages.push(...first.response.messages);
    const asking = countersignApprovalResponses(cs.companion, messages, { agent: 'Builder', ...(options.expiryMs === undefined ? {} : { expiryMs: options.expiryMs }) });
    // The tool call as the next generateText runs it: the one in the conversation.
    const history = messages.flatMap((m) => (m.role === 'assistant' && Array.isArray(m.content) ? m.content : [])).find((p) => p.type === 'tool-call');
    await options.whileAsked?.(history?.input as Record<string, unknown>);
    const answers = await asking;
    expect(answers).toBeDefined();
    if (answers !== undefined) messages.push(answers);
    // Answered requests are not asked again.
    expect(await countersignApprovalResponses(cs.companion, messages, { agent: 'Builder' })).toBeUndefined();
    return generateText({ model: s.model, tools: s.tools, messages });
  }

  it('approved: the tool runs once, with exactly the input the card showed', async () => {
    const s = scenario();
    const { value: result, prompts } = await answeredBy(cs.ext, 'approve', () => runToEnd(s));
    expect(prompts).toHaveLength(1);
    expect(prompts[0]?.toolCall).toMatchObject({ tool: 'runCommand', arguments: COMMAND, server: { name: 'Builder' } });
    expect(s.ran).toEqual([COMMAND]);
    expect(result.text).toBe('MOCK_DONE');
  });

  it('declined: the tool does not run, and the model is told the person declined', async () => {
    const s = scenario();
    const { value: result, prompts } = await answeredBy(cs.ext, 'decline', () => runToEnd(s));
    expect(prompts).toHaveLength(1);
    expect(s.ran).toEqual([]);
    expect(s.prompts.at(-1)).toContain('The person declined this runCommand call in Countersign');
    expect(result.text).toBe('MOCK_DONE');
  });

  it('an input changed while the card is on screen is denied, and the tool does not run', async () => {
    const s = scenario();
    await runToEnd(s, { whileAsked: (input) => approveAfterChange(cs.ext, () => (input['command'] = 'rm -rf ~')) });
    expect(s.ran).toEqual([]);
    expect(s.prompts.at(-1)).toContain("Countersign's approval does not cover this exact runCommand call");
  });

  it('nobody answers before the prompt expires: denied, the tool does not run', async () => {
    const s = scenario();
    await runToEnd(s, { expiryMs: 2_000 });
    expect(s.ran).toEqual([]);
    expect(s.prompts.at(-1)).toContain('Nobody approved this runCommand call in Countersign in time');
  });

  it('no approval is asked for: no message to add', async () => {
    expect(await countersignApprovalResponses(cs.companion, [{ role: 'user', content: 'Hello' }, { role: 'assistant', content: [{ type: 'text', text: 'Hi' }] }], { agent: 'Builder' })).toBeUndefined();
  });

  it('Countersign unavailable (the bridge died): denied with the reason, the tool does not run', async () => {
    const s = scenario();
    await cs.ext.kill();
    await runToEnd(s);
    expect(s.ran).toEqual([]);
    expect(s.prompts.at(-1)).toMatch(/Countersign (is not available|could not be asked)/);
  });
});
