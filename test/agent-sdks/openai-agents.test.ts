import { Agent, run, setTracingDisabled, tool, Usage, type Model, type ModelRequest, type ModelResponse } from '@openai/agents';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { countersignInterruptions } from '../../src/agent/index';
import { answeredBy, approveAfterChange, startCountersign, type Countersign } from './support/countersign';

/**
 * docs/agent-sdk.md, "OpenAI Agents SDK": `@openai/agents` as published, a scripted model (any
 * object with getResponse), a `needsApproval: true` tool, and Countersign as the real bridge in
 * front of the extension services; the person is played.
 */

const COMMAND = { command: 'rm -rf ./build' };

/** Calls run_command once, then ends with a text once the tool's result (or refusal) is in the input. */
class ScriptedModel implements Model {
  readonly requests: ModelRequest[] = [];
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const answered = Array.isArray(request.input) && request.input.some((i) => i.type === 'function_call_result');
    const output = answered
      ? [{ type: 'message' as const, role: 'assistant' as const, status: 'completed' as const, content: [{ type: 'output_text' as const, text: 'MOCK_DONE' }] }]
      : [{ type: 'function_call' as const, callId: 'c1', name: 'run_command', status: 'completed' as const, arguments: JSON.stringify(COMMAND) }];
    return { usage: new Usage(), output };
  }
  getStreamedResponse(): AsyncIterable<never> {
    throw new Error('the scripted model does not stream');
  }
}

function scenario() {
  const ran: unknown[] = [];
  const model = new ScriptedModel();
  const runCommand = tool({
    name: 'run_command',
    description: 'Runs a shell command',
    parameters: z.object({ command: z.string() }),
    needsApproval: true,
    execute: async (input) => {
      ran.push(input);
      return 'ran';
    },
  });
  const agent = new Agent({ name: 'Builder', instructions: 'Clean the build.', model, tools: [runCommand] });
  return { ran, model, agent };
}

describe('OpenAI Agents SDK: needsApproval interruptions answered in Countersign', { timeout: 30_000 }, () => {
  let cs: Countersign;
  beforeAll(async () => {
    setTracingDisabled(true);
    cs = await startCountersign('Builder');
  }, 30_000);
  afterAll(async () => cs?.dispose());

  async function runToEnd(s: ReturnType<typeof scenario>) {
    let result = await run(s.agent, 'Clean the build.');
    expect(result.interruptions).toHaveLength(1);
    while (result.interruptions.length > 0) result = await run(s.agent, await countersignInterruptions(cs.companion, result, { agent: 'Builder' }));
    return result;
  }

  it('approved: the tool runs once, with exactly the arguments the card showed', async () => {
    const s = scenario();
    const { value: result, prompts } = await answeredBy(cs.ext, 'approve', () => runToEnd(s));
    expect(prompts).toHaveLength(1);
    expect(prompts[0]?.toolCall).toMatchObject({ tool: 'run_command', arguments: COMMAND, server: { name: 'Builder' } });
    expect(s.ran).toEqual([COMMAND]);
    expect(result.finalOutput).toBe('MOCK_DONE');
  });

  it('declined: the tool does not run, and the model is told the person declined', async () => {
    const s = scenario();
    const { value: result, prompts } = await answeredBy(cs.ext, 'decline', () => runToEnd(s));
    expect(prompts).toHaveLength(1);
    expect(s.ran).toEqual([]);
    expect(JSON.stringify(s.model.requests.at(-1)?.input)).toContain('The person declined this run_command call in Countersign');
    expect(result.finalOutput).toBe('MOCK_DONE');
  });

  it('arguments changed while the card is on screen are rejected, and the tool does not run', async () => {
    const s = scenario();
    const result = await run(s.agent, 'Clean the build.');
    const decided: string[] = [];
    const approve = result.state.approve.bind(result.state);
    const reject = result.state.reject.bind(result.state);
    result.state.approve = (...args: Parameters<typeof approve>) => (decided.push('approve'), approve(...args));
    result.state.reject = (...args: Parameters<typeof reject>) => (decided.push(`reject: ${args[1]?.message ?? ''}`), reject(...args));
    const asking = countersignInterruptions(cs.companion, result, { agent: 'Builder' });
    // result.interruptions are copies: the call that runs on resume is the one the run state holds.
    const held = (result.state as unknown as { _currentStep: { data: { interruptions: Array<{ rawItem: { arguments: string } }> } } })._currentStep.data.interruptions[0]!;
    await approveAfterChange(cs.ext, () => (held.rawItem.arguments = JSON.stringify({ command: 'rm -rf ~' })));
    await asking;
    expect(decided).toEqual(["reject: Countersign's approval does not cover this exact run_command call, so it is not run."]);
    // The SDK, too, refuses to run a call whose arguments changed after its approval decision.
    await expect(run(s.agent, result.state)).rejects.toThrow(/reused for a different invocation/);
    expect(s.ran).toEqual([]);
  });

  it('Countersign unavailable (the bridge died): rejected with the reason, the tool does not run', async () => {
    const s = scenario();
    await cs.ext.kill();
    await runToEnd(s);
    expect(s.ran).toEqual([]);
    expect(JSON.stringify(s.model.requests.at(-1)?.input)).toMatch(/Countersign (is not available|could not be asked)/);
  });
});
