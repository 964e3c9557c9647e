import path from 'node:path';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { Companion } from '../../src/agent';
import { Gateway } from '../../src/gateway/gateway-server';
import type { ApprovedCall, ToolCallAnswer, ToolCallApprover, ToolCallQuestion } from '../../src/gateway/tool-call-approver';
import { connectUpstream } from '../../src/gateway/upstream-connection';
import { toolCallAsRequest } from '../../src/extension/tool-call-request';
import { shownToolCall } from '../../src/extension/snapshot';
import { showsSignedCall } from '../../src/extension/ui/tool-call-arguments';
import { canonicalJson } from '../../src/protocol/canonical-json';
import { agentToExtensionMessage, parseBridgeMessage } from '../../src/protocol/bridge-messages';
import { generateSigningKeyPair } from '../../src/protocol/decision';
import { isCountersignError } from '../../src/protocol/errors';
import { MAX_TOOL_DESCRIPTION_LENGTH, type ToolCall } from '../../src/protocol/tool-call';
import { signToolCallDecision, toolCallDecisionClaims, verifyToolCallDecision } from '../../src/protocol/tool-call-decision';
import { toolCallRevision } from '../../src/protocol/tool-call-revision';
import { sha256Base64url } from '../../src/protocol/webcrypto';
import { DirectExtension } from '../agent/harness';

/**
 * The tool's own words on the card (docs/bridge-protocol.md section 9.7, `description` and
 * `annotations`; docs/mcp-gateway.md, "What the card shows"): a hostile MCP server's description
 * and annotations reach the window only as plain, checked text under the signature, or not at
 * all. The server is a real stdio MCP server (test/gateway/support/hostile-words-server.mjs); only
 * Countersign is a stand-in where the gateway is driven (RecordingApprover).
 */

const HOSTILE = path.resolve('test/gateway/support/hostile-words-server.mjs');
const server = { name: 'hostile-words', reached_by: { transport: 'stdio' as const, command: 'node', args: [HOSTILE] } };
const nonce = `${'N'.repeat(42)}A`;

class RecordingApprover implements ToolCallApprover {
  questions: ToolCallQuestion[] = [];
  async ask(q: ToolCallQuestion): Promise<ToolCallAnswer> {
    this.questions.push(q);
    return { status: 'declined', callId: `call_${this.questions.length}` };
  }
  async markRunning(_approved: ApprovedCall): Promise<boolean> {
    return false;
  }
  async reportRan(): Promise<void> {}
}

function call(extra: Partial<ToolCall>): ToolCall {
  return { call_id: 'call_1', server, tool: 'write_file', arguments: { path: '/home/sam/a.txt' }, expires_at: '2099-10-08T19:20:00Z', ...extra };
}

function refusal(value: unknown) {
  const parsed = parseBridgeMessage(agentToExtensionMessage, { type: 'tool_call_request', v: 2, id: 't_1', nonce, tool_call: value });
  return parsed.ok ? undefined : parsed.error;
}

describe('section 9.7: a hostile server\'s description and annotations, through the gateway', () => {
  let gateway: Gateway;
  let client: Client;
  const approver = new RecordingApprover();
  const asked = new Map<string, ToolCallQuestion>();

  beforeAll(async () => {
    const upstream = await connectUpstream({ name: 'hostile', command: 'node', args: [HOSTILE] }, { clientInfo: { name: 'countersign-mcp', version: 'test' } });
    gateway = new Gateway({ upstreams: [upstream], approver, operations: { call: () => Promise.reject(new Error('none')) }, journal: { append: async () => undefined }, serverInfo: { name: 'countersign-mcp', version: 'test' }, askAll: true, expiryMs: 60_000 });
    const [a, b] = InMemoryTransport.createLinkedPair();
    client = new Client({ name: 'test-client', version: '1.0.0' });
    await Promise.all([gateway.server.connect(a), client.connect(b)]);
    // Listed with a loose schema: the client's SDK would refuse this server's list outright.
    const listed = await client.request({ method: 'tools/list', params: {} }, z.looseObject({ tools: z.array(z.looseObject({ name: z.string() })) }));
    for (const { name } of listed.tools) {
      const result = await client.callTool({ name, arguments: {} });
      expect(result.isError).toBe(true);
      asked.set(name, approver.questions.at(-1)!);
    }
  }, 30_000);
  afterAll(async () => {
    await client.close();
    await gateway.close();
  });

  it.each([
    ['one character over MAX_TOOL_DESCRIPTION_LENGTH', 'too_long'],
    ['a bidi override', 'bidi'],
    ['an escape sequence (a C0 control)', 'escape'],
    ['a description that is not a string', 'odd_types'],
  ])('a description with %s is dropped whole, never cut or cleaned', (_name, tool) => {
    expect(asked.get(tool)).toBeDefined();
    expect(asked.get(tool)).not.toHaveProperty('description');
  });

  it('a description at the limit is sent whole', () => expect(asked.get('at_limit')?.description).toBe('d'.repeat(MAX_TOOL_DESCRIPTION_LENGTH)));

  it('HTML is sent as the literal text it is, and never reaches the summary the pipeline renders', async () => {
    const q = asked.get('html')!;
    expect(q.description).toBe('<img src=x onerror="alert(1)"><b>Safe</b> tool');
    const req = await toolCallAsRequest({ id: 't_1', nonce, tool_call: call({ tool: 'html', description: q.description! }) });
    expect(req.operation.summary).not.toContain('img');
    expect(req.toolCall?.description).toBe(q.description);
  });

  it('line breaks and tabs are folded into single spaces, the words kept', () => {
    expect(asked.get('lines')?.description).toBe('Writes a file. Creates it, or overwrites it when it exists.');
  });

  it('only the annotations MCP defines travel: unknown members are dropped', () => {
    expect(asked.get('hints')?.annotations).toEqual({ title: 'Delete folder', readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false });
  });

  it('an annotation with the wrong type or a bidi control in its title is dropped, the valid ones kept', () => {
    expect(asked.get('bad_hints')?.annotations).toEqual({ openWorldHint: true });
    expect(asked.get('odd_types')).not.toHaveProperty('annotations');
  });

  it('every question the gateway asks passes the bridge\'s own schema', () => {
    for (const q of approver.questions) {
      const words = { ...(q.description === undefined ? {} : { description: q.description }), ...(q.annotations === undefined ? {} : { annotations: q.annotations }) };
      expect(refusal(call({ tool: q.tool, ...words }))).toBeUndefined();
    }
  });
});

describe('section 9.7: a tool_call_request that carries them raw is refused with a typed error', () => {
  it.each([
    ['a description over MAX_TOOL_DESCRIPTION_LENGTH', { description: 'd'.repeat(MAX_TOOL_DESCRIPTION_LENGTH + 1) }, /description: expected at most 2048 characters/],
    ['a bidi override in the description', { description: 'safe \u202Eelif' }, /description: expected no control or bidi-control characters/],
    ['a line break in the description', { description: 'a\nb' }, /description: expected no control or bidi-control characters/],
    ['an unpaired surrogate in the description', { description: 'a\uD800' }, /description: expected well-formed Unicode text/],
    ['an annotation MCP does not define', { annotations: { readOnlyHint: true, trustMe: true } }, /annotations/],
    ['a hint that is not a boolean', { annotations: { destructiveHint: 'no' } }, /annotations\.destructiveHint/],
    ['a title with a control character', { annotations: { title: 'a\u0007b' } }, /annotations\.title/],
  ])('%s: ERR_BRIDGE_MESSAGE_INVALID naming the member', (_name, extra, message) => {
    const error = refusal(call(extra as Partial<ToolCall>));
    expect(error?.code).toBe('ERR_BRIDGE_MESSAGE_INVALID');
    expect(error?.message).toMatch(message);
  });

  it('a request without them, as older gateways send, is accepted', () => expect(refusal(call({}))).toBeUndefined());

  describe('the agent SDK refuses them before a byte is sent', () => {
    let ext: DirectExtension;
    let dir: string;
    beforeAll(async () => {
      ext = await DirectExtension.start();
      dir = await mkdtemp(path.join(os.tmpdir(), 'cs-words-'));
    });
    afterAll(async () => {
      await ext.dispose();
      await rm(dir, { recursive: true, force: true });
    });

    it('requestToolCallApproval with a bidi override in the description: ERR_ARGUMENT_INVALID, nothing sent', async () => {
      await mkdir(path.join(dir, 'agent'), { mode: 0o700 });
      const companion = await ext.pairConfirmed(await Companion.connect({ agentName: 'Words gateway', configDir: path.join(dir, 'agent'), socketPath: ext.socketPath, timeoutMs: 3000 }));
      try {
        const before = ext.sentBy(undefined, 'tool_call_request').length;
        const error = await companion.requestToolCallApproval({ server, tool: 'write_file', description: 'safe \u202Eelif', arguments: {}, expiresAt: new Date(Date.now() + 60_000) }).catch((e: unknown) => e);
        expect(isCountersignError(error, 'ERR_ARGUMENT_INVALID')).toBe(true);
        expect((error as Error).message).toMatch(/^requestToolCallApproval\.tool_call\.description/);
        expect(ext.sentBy(undefined, 'tool_call_request')).toHaveLength(before);
      } finally {
        await companion.close();
      }
    });
  });
});

describe('section 10.1: what is signed is what is shown, the tool\'s words included', () => {
  const words = { description: 'Creates a file, or overwrites it when it exists.', annotations: { destructiveHint: true } };

  it('the revision covers the description and the annotations: changing either changes it', async () => {
    const signed = await toolCallRevision(call(words));
    expect(await toolCallRevision(call({ ...words, description: 'Creates a file.' }))).not.toBe(signed);
    expect(await toolCallRevision(call({ ...words, annotations: { destructiveHint: false } }))).not.toBe(signed);
    expect(await toolCallRevision(call({ description: words.description }))).not.toBe(signed);
  });

  it('a call without them keeps the revision it always had: SHA-256 of {server, tool, arguments}', async () => {
    const c = call({});
    expect(await toolCallRevision(c)).toBe(await sha256Base64url(new TextEncoder().encode(canonicalJson({ server: c.server, tool: c.tool, arguments: c.arguments }))));
  });

  it('the window gets the words with the call, and arms only while what it shows hashes to the revision', async () => {
    const asked = call(words);
    const req = await toolCallAsRequest({ id: 't_1', nonce, tool_call: asked });
    const view = { toolCall: shownToolCall(req.toolCall!), operation: req.operation };
    expect(view.toolCall).toMatchObject(words);
    expect(await showsSignedCall(view)).toBe(true);
    expect(await showsSignedCall({ ...view, toolCall: { ...view.toolCall, description: 'Reads a file.' } })).toBe(false);
    expect(await showsSignedCall({ ...view, toolCall: { ...view.toolCall, annotations: { readOnlyHint: true } } })).toBe(false);
  });

  it('a decision signed over one description does not verify for the call with another', async () => {
    const extension = await generateSigningKeyPair({ extractable: false });
    const asked = call(words);
    const jws = await signToolCallDecision(await toolCallDecisionClaims({ call: asked, agent: extension.thumbprint, nonce }, 'approved'), extension.privateKey, extension.alg, extension.thumbprint);
    const expected = (c: ToolCall) => ({ pinnedKey: extension.publicJwk, expected: { call: c, audience: extension.thumbprint, nonce } });
    await expect(verifyToolCallDecision(jws, expected(asked))).resolves.toMatchObject({ status: 'approved' });
    const error = await verifyToolCallDecision(jws, expected({ ...asked, description: 'Reads a file.' })).catch((e: unknown) => e);
    expect(isCountersignError(error, 'ERR_DECISION_MISMATCH')).toBe(true);
  });
});
