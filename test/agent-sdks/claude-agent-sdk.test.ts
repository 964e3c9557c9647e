import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { query } from '@anthropic-ai/claude-agent-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countersignCanUseTool } from '../../src/agent/index';
import { cliEnv } from '../coding-agents/support/clients';
import { ModelServer } from '../coding-agents/support/model-server';
import captured from './fixtures/claude-can-use-tool.json';
import { answeredBy, approveAfterChange, startCountersign, type Countersign } from './support/countersign';

/**
 * docs/agent-sdk.md, "Claude Agent SDK": `@anthropic-ai/claude-agent-sdk` as published (it runs
 * the bundled claude binary), the scripted Anthropic Messages server of the coding-agent suites as
 * its model, `countersignCanUseTool` as its permission callback, and Countersign as the real
 * bridge in front of the extension services; the person is played.
 */

const MARKER = 'bash-ran.marker';
const BASH = { command: `echo ran >> ${MARKER}`, description: 'make marker' };

describe('Claude Agent SDK: canUseTool answered in Countersign', { timeout: 40_000 }, () => {
  let cs: Countersign;
  let model: ModelServer;
  let home: string;
  beforeAll(async () => {
    [cs, model] = await Promise.all([startCountersign('Builder'), ModelServer.start()]);
    home = await mkdtemp(path.join(os.tmpdir(), 'cs-claude-sdk-'));
  }, 30_000);
  afterAll(async () => {
    await Promise.all([cs?.dispose(), model?.close()]);
    await rm(home, { recursive: true, force: true });
  });

  /** One query in a fresh project whose model makes the Bash call; returns how many times it ran. */
  async function runQuery(): Promise<{ runs: number }> {
    const project = await mkdtemp(path.join(home, 'p-'));
    model.play([{ name: 'Bash', input: BASH }]);
    // The coding-agent suites' environment for Claude Code: the SDK runs the same binary.
    const env = cliEnv({ agent: 'claude-code', home, project, configDir: home }, model);
    const canUseTool = countersignCanUseTool(cs.companion, { agent: 'Builder' });
    for await (const _message of query({ prompt: 'go', options: { cwd: project, env, canUseTool, model: 'claude-sonnet-4-5', settingSources: [] } })) {
      // Drained: the run ends when the scripted model answers with text.
    }
    const marker = await readFile(path.join(project, MARKER), 'utf8').catch(() => '');
    return { runs: marker.split('\n').filter((l) => l === 'ran').length };
  }

  /** What the model was told about its tool calls: the tool results the SDK sent back. */
  const toldModel = () =>
    JSON.stringify(model.requests.flatMap((r) => ((r.body as { messages?: Array<{ content?: unknown }> }).messages ?? []).flatMap((m) => (Array.isArray(m.content) ? m.content.filter((c: { type?: string }) => c.type === 'tool_result') : []))));

  it('approved: Bash runs once, with exactly the input the card showed', async () => {
    const { value: { runs }, prompts } = await answeredBy(cs.ext, 'approve', runQuery);
    expect(prompts).toHaveLength(1);
    expect(prompts[0]?.toolCall).toMatchObject({ tool: 'Bash', arguments: BASH, server: { name: 'Builder' } });
    expect(runs).toBe(1);
  });

  it('declined: Bash does not run, and the model is told the person declined', async () => {
    const { value: { runs }, prompts } = await answeredBy(cs.ext, 'decline', runQuery);
    expect(prompts).toHaveLength(1);
    expect(runs).toBe(0);
    expect(toldModel()).toContain('The person declined this Bash call in Countersign');
  });

  it("the SDK's arguments as captured: the card is the input alone, and the suggested allow rules are not applied", async () => {
    const [call] = captured;
    const canUseTool = countersignCanUseTool(cs.companion, { agent: 'Builder' });
    const { value: answer, prompts } = await answeredBy(cs.ext, 'approve', () => canUseTool(call!.toolName, call!.input, { toolUseID: call!.toolUseID, signal: new AbortController().signal }));
    expect(prompts[0]?.toolCall?.arguments).toEqual(call!.input);
    expect(answer).toEqual({ behavior: 'allow', updatedInput: call!.input });
  });

  it('an input changed while the card is on screen is denied: what runs is what was approved, or nothing', async () => {
    const input: Record<string, unknown> = { ...BASH };
    const answer = countersignCanUseTool(cs.companion, { agent: 'Builder' })('Bash', input, { signal: new AbortController().signal });
    await approveAfterChange(cs.ext, () => (input['command'] = 'rm -rf ~'));
    expect(await answer).toEqual({ behavior: 'deny', message: "Countersign's approval does not cover this exact Bash call, so it is not run." });
  });

  it('Countersign unavailable (the bridge died): denied with the reason, Bash does not run', async () => {
    await cs.ext.kill();
    const { runs } = await runQuery();
    expect(runs).toBe(0);
    expect(toldModel()).toMatch(/Countersign (is not available|could not be asked)/);
  });
});
