import { beforeAll, describe, expect, it } from 'vitest';
import { decisionClaims, generateSigningKeyPair, signDecision, verifyDecision, type SigningKeyPair } from '../../src/protocol/decision';
import { isCountersignError } from '../../src/protocol/errors';
import type { ToolCall } from '../../src/protocol/tool-call';
import { TOOL_CALL_DECISION_TYP, signToolCallDecision, toolCallDecisionClaims, verifyToolCallDecision } from '../../src/protocol/tool-call-decision';

// A tool-call decision (docs/bridge-protocol.md, "The signed tool-call decision"): signed like an
// operation's decision, never accepted as one, and checked against the exact call.

let extension: SigningKeyPair;
let attacker: SigningKeyPair;
let agent: SigningKeyPair;
const nonce = 'N'.repeat(42) + 'A';
const call: ToolCall = {
  call_id: 'call_1',
  server: { name: 'secure-filesystem-server', reached_by: { transport: 'stdio', command: 'npx', args: ['@modelcontextprotocol/server-filesystem', '/home/me'] } },
  tool: 'write_file',
  arguments: { path: '/home/me/a.txt', content: 'hi' },
  expires_at: new Date(Date.now() + 120_000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
};

beforeAll(async () => {
  extension = await generateSigningKeyPair({ extractable: false });
  attacker = await generateSigningKeyPair({ extractable: false });
  agent = await generateSigningKeyPair({ extractable: false });
});

async function signed(status: 'approved' | 'declined' = 'approved', over: Partial<ToolCall> = {}, key = extension): Promise<string> {
  return signToolCallDecision(await toolCallDecisionClaims({ call: { ...call, ...over }, agent: agent.thumbprint, nonce }, status), key.privateKey, key.alg, key.thumbprint);
}

function verify(jws: string, expectedCall: ToolCall = call, extra: { audience?: string; nonce?: string; now?: Date } = {}) {
  return verifyToolCallDecision(jws, { pinnedKey: extension.publicJwk, expected: { call: expectedCall, audience: extra.audience ?? agent.thumbprint, nonce: extra.nonce ?? nonce }, ...(extra.now ? { now: extra.now } : {}) });
}

async function code(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    expect(isCountersignError(error)).toBe(true);
    return `${(error as { code: string }).code}: ${(error as Error).message}`;
  }
  throw new Error('verified');
}

describe('verifyToolCallDecision', () => {
  it('returns the claims of a decision about exactly this call', async () => {
    const claims = await verify(await signed());
    expect(claims).toMatchObject({ v: 1, kind: 'tool_call', status: 'approved', call_id: 'call_1', tool: 'write_file', server: call.server, aud: agent.thumbprint, nonce });
    expect(JSON.parse(Buffer.from((await signed()).split('.')[0]!, 'base64url').toString())).toEqual({ alg: extension.alg, typ: TOOL_CALL_DECISION_TYP, kid: extension.thumbprint });
  });

  it('writes the payload members in the documented order', async () => {
    const payload = JSON.parse(Buffer.from((await signed()).split('.')[1]!, 'base64url').toString()) as object;
    expect(Object.keys(payload)).toEqual(['v', 'kind', 'status', 'call_id', 'revision', 'server', 'tool', 'arguments_sha256', 'aud', 'nonce', 'iat', 'expires_at']);
  });

  it.each([
    ['other arguments', { ...call, arguments: { path: '/home/me/a.txt', content: 'HI' } }, /ERR_DECISION_MISMATCH: decision\.revision/],
    ['another tool', { ...call, tool: 'edit_file' }, /ERR_DECISION_MISMATCH: decision\.revision/],
    ['another server command', { ...call, server: { ...call.server, reached_by: { transport: 'stdio' as const, command: 'npx', args: ['evil'] } } }, /ERR_DECISION_MISMATCH: decision\.revision/],
    ['another call id', { ...call, call_id: 'call_2' }, /ERR_DECISION_MISMATCH: decision\.call_id/],
    ['another expiry', { ...call, expires_at: '2099-01-01T00:00:00Z' }, /ERR_DECISION_MISMATCH: decision\.expires_at/],
  ])('refuses a decision about the call with %s', async (_name, expected, message) => {
    expect(await code(verify(await signed(), expected))).toMatch(message);
  });

  it('refuses another audience or nonce, another key, and an expired call', async () => {
    expect(await code(verify(await signed(), call, { audience: attacker.thumbprint }))).toMatch(/decision\.aud/);
    expect(await code(verify(await signed(), call, { nonce: 'M'.repeat(42) + 'A' }))).toMatch(/decision\.nonce/);
    expect(await code(verify(await signed('approved', {}, attacker)))).toMatch(/ERR_DECISION_INVALID/);
    expect(await code(verify(await signed(), call, { now: new Date(Date.now() + 600_000) }))).toMatch(/ERR_DECISION_EXPIRED/);
  });

  it('a signed decline verifies as a decline', async () => expect((await verify(await signed('declined'))).status).toBe('declined'));
});

describe('a tool-call decision and a Company decision never stand in for each other', () => {
  const operation = { operation_id: 'call_1', revision: 'r1', summary: 'Call the tool', terms: call.arguments, expires_at: call.expires_at };
  const company = { name: 'secure-filesystem-server', origin: 'https://files.example' };

  it('verifyDecision refuses a tool-call decision (its typ)', async () => {
    const message = await code(verifyDecision(await signed(), { pinnedKey: extension.publicJwk, expected: { operation, company, audience: agent.thumbprint, nonce } }));
    expect(message).toMatch(/ERR_DECISION_INVALID: decision header\.typ/);
  });

  it('verifyToolCallDecision refuses a Company decision (its typ)', async () => {
    const claims = await decisionClaims({ operation, company, agent: agent.thumbprint, nonce }, 'approved');
    const jws = await signDecision(claims, extension.privateKey, extension.alg, extension.thumbprint);
    expect(await code(verify(jws))).toMatch(/ERR_DECISION_INVALID: decision header\.typ/);
  });

  it('signToolCallDecision refuses claims without kind "tool_call" (so a Company payload cannot be signed as one)', async () => {
    const claims = { ...(await toolCallDecisionClaims({ call, agent: agent.thumbprint, nonce }, 'approved')), kind: 'operation' };
    expect(await code(signToolCallDecision(claims as never, extension.privateKey, extension.alg, extension.thumbprint))).toMatch(/ERR_DECISION_INVALID: decision\.kind/);
  });
});
