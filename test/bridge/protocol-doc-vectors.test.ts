import { webcrypto } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { agentToExtensionMessage, jwkThumbprint, parseBridgeMessage } from '../../src/protocol/bridge';
import { canonicalJson } from '../../src/protocol/canonical-json';
import { isCountersignError } from '../../src/protocol/errors';
import { passkeyChallengeBase64url, verifyPasskeyAssertion, type PasskeyCredential } from '../../src/protocol/passkey';
import type { ToolCall } from '../../src/protocol/tool-call';
import { digestToolArguments, toolCallRevision } from '../../src/protocol/tool-call-revision';
import { signToolCallDecision, toolCallDecisionClaims, verifyToolCallDecision } from '../../src/protocol/tool-call-decision';

// docs/bridge-protocol.md section 11's vectors of the tool-call decision and of passkey
// assertions, read from the page and checked with the code that signs and verifies them, so the
// page cannot say what the code does not do.

const doc = readFileSync(new URL('../../docs/bridge-protocol.md', import.meta.url), 'utf8');
const vectors = doc.slice(doc.indexOf('\n## 11. Test vectors'), doc.indexOf('\n## 12. Errors'));
const errors = doc.slice(doc.indexOf('\n## 12. Errors'), doc.indexOf('\n## 13.'));

/** The code blocks of `text` whose fence says `info`, as written. */
function blocks(text: string, info: string): string[] {
  return [...text.matchAll(/```([^\n]*)\n([\s\S]*?)\n```/g)].filter((m) => m[1] === info).map((m) => m[2]!);
}

const EXT = { kty: 'OKP', crv: 'Ed25519', d: 'oN_rAgo4BXXFBJ0ZRAqyDg_-X5nyDp7bvwrOEGpz2fs', x: '33L538Y6mLHlg5hsBbt01W3lCSTPAlURxJi16Uva51M' };
const AGENT_PUBLIC = { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' };

/** The example `tool_call_request` of section 9.7. */
function exampleRequest(): { id: string; nonce: string; tool_call: ToolCall } {
  const section = doc.slice(doc.indexOf('\n### 9.7 '), doc.indexOf('\n### 9.8 '));
  const text = blocks(section, 'json').find((block) => /^\{\s*"type":\s*"tool_call_request"/.test(block));
  if (text === undefined) throw new Error('section 9.7 has no example tool_call_request');
  return JSON.parse(text) as { id: string; nonce: string; tool_call: ToolCall };
}

describe('docs/bridge-protocol.md section 11: the tool-call decision vector', () => {
  const request = exampleRequest();
  const [claimsText] = blocks(vectors, 'json tool-call-claims');
  const claims = JSON.parse(claimsText ?? 'null') as Record<string, unknown>;
  const decision = blocks(vectors, 'json').map((text) => JSON.parse(text) as Record<string, unknown>).find((m) => m['type'] === 'decision' && m['id'] === request.id);

  it('its claims are what the extension signs for the example request of section 9.7', async () => {
    const agent = await jwkThumbprint(AGENT_PUBLIC);
    expect(claims).toEqual(await toolCallDecisionClaims({ call: request.tool_call, agent, nonce: request.nonce }, 'approved', 1791486000 * 1000));
    // Signed in the documented order.
    expect(Object.keys(claims)).toEqual(['v', 'kind', 'status', 'call_id', 'revision', 'server', 'tool', 'arguments_sha256', 'aud', 'nonce', 'iat', 'expires_at']);
  });

  it('the bytes it states hash to the revision and arguments_sha256', async () => {
    const call = request.tool_call;
    const [revisionInput] = blocks(vectors, 'text').filter((text) => text.startsWith('{"arguments"'));
    expect(revisionInput).toBe(canonicalJson({ server: call.server, tool: call.tool, arguments: call.arguments }));
    expect(claims['revision']).toBe(await toolCallRevision(call));
    expect(vectors).toContain(`\`arguments_sha256\` of \`${canonicalJson(call.arguments)}\``);
    expect(claims['arguments_sha256']).toBe(await digestToolArguments(call.arguments));
  });

  it('the decision verifies against the example request with the pinned example key, and its claims are the stated ones', async () => {
    expect(decision).toBeDefined();
    const verified = await verifyToolCallDecision(String(decision!['jws']), {
      pinnedKey: { kty: EXT.kty, crv: EXT.crv, x: EXT.x },
      expected: { call: request.tool_call, audience: await jwkThumbprint(AGENT_PUBLIC), nonce: request.nonce },
      now: new Date('2026-10-08T19:05:00Z'),
    });
    expect(verified).toEqual(claims);
  });

  it('signing the stated claims with the example extension key gives exactly the stated JWS (Ed25519 is deterministic)', async () => {
    const key = await webcrypto.subtle.importKey('jwk', EXT, { name: 'Ed25519' }, false, ['sign']);
    const jws = await signToolCallDecision(claims as never, key, 'EdDSA', await jwkThumbprint({ kty: EXT.kty, crv: EXT.crv, x: EXT.x }));
    expect(jws).toBe(decision!['jws']);
  });
});

/** A vector as test/fixtures/passkey/README.md describes them: what the verifier is given, and what it must answer. */
type PasskeyVector = { id: string; credential: PasskeyCredential; claims: object; challenge_base64url: string; origin: string; previous_sign_count: number; assertion: Record<string, string> } & (
  | { expected: 'valid'; expected_sign_count: number }
  | { expected: 'invalid'; error_code: string; error_contains: string }
);

describe('docs/bridge-protocol.md section 11: the passkey assertion vectors', () => {
  const stated = blocks(vectors, 'json passkey-vector').map((text) => JSON.parse(text) as PasskeyVector);
  const fixture = (JSON.parse(readFileSync(new URL('../fixtures/passkey/vectors.json', import.meta.url), 'utf8')) as { vectors: PasskeyVector[] }).vectors;

  it('states one vector per algorithm and one refused, each exactly as test/fixtures/passkey/vectors.json has it', () => {
    expect(stated.map((v) => [v.credential.alg, v.expected])).toEqual([
      [-7, 'valid'],
      [-8, 'valid'],
      [-8, 'invalid'],
    ]);
    for (const v of stated) expect(v, v.id).toEqual(fixture.find((f) => f.id === v.id));
  });

  it.each(stated.map((v) => [v.id, v] as const))('%s: the challenge is that of its claims, and verifyPasskeyAssertion gives the stated result', async (_id, v) => {
    expect(v.challenge_base64url).toBe(await passkeyChallengeBase64url(v.claims));
    const result = await verifyPasskeyAssertion(v.assertion, {
      credential: v.credential,
      challenge: Buffer.from(v.challenge_base64url, 'base64url'),
      origin: v.origin,
      previousSignCount: v.previous_sign_count,
    }).catch((error: unknown) => error);
    if (v.expected === 'valid') {
      expect(result).toEqual({ signCount: v.expected_sign_count, userVerified: true });
    } else {
      expect(isCountersignError(result) && result.code).toBe(v.error_code);
      expect((result as Error).message).toContain(v.error_contains);
    }
  });
});

describe('docs/bridge-protocol.md section 12: an invalid tool_call_request has its named error', () => {
  it('a tool_call that breaks a rule of section 9.7 gets the code the table names for it, naming the member', () => {
    const request = exampleRequest();
    const broken = { ...request, type: 'tool_call_request', v: 2, tool_call: { ...request.tool_call, server: { ...request.tool_call.server, name: 'two\nlines' } } };
    const parsed = parseBridgeMessage(agentToExtensionMessage, broken);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.error.message).toContain('tool_call.server.name');
    const row = errors.split('\n').find((line) => line.startsWith(`| \`${parsed.error.code}\` |`));
    expect(row).toContain('`tool_call_request`');
  });
});
