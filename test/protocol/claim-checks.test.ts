import { beforeAll, describe, expect, it } from 'vitest';
import { checkClaims, type ClaimCheck, type ClaimChecks } from '../../src/protocol/claim-checks';
import {
  DECISION_CHECKS,
  DECISION_TYP,
  decisionClaims,
  decisionClaimsSchema,
  generateSigningKeyPair,
  signCompactJws,
  verifyDecision,
  type DecisionClaims,
  type SigningKeyPair,
} from '../../src/protocol/decision';
import { isCountersignError, type ErrorCode } from '../../src/protocol/errors';
import type { ToolCall } from '../../src/protocol/tool-call';
import { TOOL_CALL_CHECKS, TOOL_CALL_DECISION_TYP, toolCallClaimsSchema, toolCallDecisionClaims, verifyToolCallDecision, type ToolCallClaims } from '../../src/protocol/tool-call-decision';

/**
 * docs/bridge-protocol.md, sections 10 and 10.1: every claim of a signed decision is checked.
 * Each kind of decision has one table of checks, one entry per claim of its schema; here each
 * claim is tampered with in a payload the extension's own key signs again, so only the claim
 * check stands between it and an approval, and it must refuse it with its typed error.
 */

let extension: SigningKeyPair;
const NOW = Date.UTC(2030, 0, 1);
const agent = 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs';
const other = 'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k';
const nonce = `${'N'.repeat(42)}A`;
const operation = { operation_id: 'exc_5Rt2', revision: 'r1', summary: 'Pay **$70.00** more', terms: { price_difference: { amount: '70.00', currency: 'USD' } }, expires_at: '2030-01-01T00:10:00Z' };
const company = { name: 'Stormline Outfitters', origin: 'https://shop.stormline.example' };
const call: ToolCall = {
  call_id: 'call_1',
  server: { name: 'filesystem', reached_by: { transport: 'stdio', command: 'npx', args: ['@modelcontextprotocol/server-filesystem', '/home/me'] } },
  tool: 'write_file',
  arguments: { path: '/home/me/a.txt', content: 'hi' },
  expires_at: '2030-01-01T00:10:00Z',
};

beforeAll(async () => {
  extension = await generateSigningKeyPair({ extractable: false });
});

/** The payload signed as the extension, exactly as given: no schema in the way, as a key holder with a bug could sign it. */
function resign(typ: string, payload: Record<string, unknown>): Promise<string> {
  return signCompactJws({ alg: extension.alg, typ, kid: extension.thumbprint }, new TextEncoder().encode(JSON.stringify(payload)), extension.privateKey);
}

async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    expect(isCountersignError(error)).toBe(true);
    return { code: (error as { code: string }).code, message: (error as Error).message };
  }
  throw new Error('the tampered decision verified');
}

/** One claim tampered with, and the error that must follow. */
interface Tamper {
  edit: (claims: Record<string, unknown>) => void;
  code: ErrorCode;
  /** Where the message points: `decision.<this>`. */
  at: string;
}

/** The code a check of this kind refuses a tampered claim with. */
function codesOf(check: ClaimCheck<unknown, unknown>): ErrorCode[] {
  if ('differs' in check) return ['ERR_DECISION_MISMATCH'];
  if (check.settledBy === 'time') return ['ERR_DECISION_INVALID', 'ERR_DECISION_EXPIRED'];
  return ['ERR_DECISION_INVALID'];
}

// A new claim needs its row here as well as its check: both tables are keyed by the claims.
const DECISION_TAMPERS: Record<keyof DecisionClaims, Tamper> = {
  v: { edit: (c) => (c['v'] = 2), code: 'ERR_DECISION_INVALID', at: 'v' },
  status: { edit: (c) => (c['status'] = 'approved_always'), code: 'ERR_DECISION_INVALID', at: 'status' },
  operation_id: { edit: (c) => (c['operation_id'] = 'exc_5Rt3'), code: 'ERR_DECISION_MISMATCH', at: 'operation_id' },
  revision: { edit: (c) => (c['revision'] = 'r2'), code: 'ERR_DECISION_MISMATCH', at: 'revision' },
  summary_sha256: { edit: (c) => (c['summary_sha256'] = 'ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0'), code: 'ERR_DECISION_MISMATCH', at: 'summary_sha256' },
  terms_sha256: { edit: (c) => (c['terms_sha256'] = null), code: 'ERR_DECISION_MISMATCH', at: 'terms_sha256' },
  company: { edit: (c) => (c['company'] = { ...company, origin: 'https://shop.stormline.example.evil' }), code: 'ERR_DECISION_MISMATCH', at: 'company.origin' },
  aud: { edit: (c) => (c['aud'] = other), code: 'ERR_DECISION_MISMATCH', at: 'aud' },
  nonce: { edit: (c) => (c['nonce'] = `${'M'.repeat(42)}A`), code: 'ERR_DECISION_MISMATCH', at: 'nonce' },
  iat: { edit: (c) => (c['iat'] = NOW / 1000 + 120), code: 'ERR_DECISION_INVALID', at: 'iat' },
  expires_at: { edit: (c) => (c['expires_at'] = '2030-01-01T00:20:00Z'), code: 'ERR_DECISION_MISMATCH', at: 'expires_at' },
  jti: { edit: (c) => (c['jti'] = 'not an id'), code: 'ERR_DECISION_INVALID', at: 'jti' },
};

const TOOL_CALL_TAMPERS: Record<keyof ToolCallClaims, Tamper> = {
  v: { edit: (c) => (c['v'] = 0), code: 'ERR_DECISION_INVALID', at: 'v' },
  kind: { edit: (c) => (c['kind'] = 'operation'), code: 'ERR_DECISION_INVALID', at: 'kind' },
  status: { edit: (c) => (c['status'] = 'run'), code: 'ERR_DECISION_INVALID', at: 'status' },
  call_id: { edit: (c) => (c['call_id'] = 'call_2'), code: 'ERR_DECISION_MISMATCH', at: 'call_id' },
  revision: { edit: (c) => (c['revision'] = 'ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0'), code: 'ERR_DECISION_MISMATCH', at: 'revision' },
  server: { edit: (c) => (c['server'] = { ...call.server, name: 'filesystem-2' }), code: 'ERR_DECISION_MISMATCH', at: 'server' },
  tool: { edit: (c) => (c['tool'] = 'delete_file'), code: 'ERR_DECISION_MISMATCH', at: 'tool' },
  arguments_sha256: { edit: (c) => (c['arguments_sha256'] = 'ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0'), code: 'ERR_DECISION_MISMATCH', at: 'arguments_sha256' },
  aud: { edit: (c) => (c['aud'] = other), code: 'ERR_DECISION_MISMATCH', at: 'aud' },
  nonce: { edit: (c) => (c['nonce'] = `${'M'.repeat(42)}A`), code: 'ERR_DECISION_MISMATCH', at: 'nonce' },
  iat: { edit: (c) => (c['iat'] = Date.UTC(2030, 0, 1, 0, 11) / 1000), code: 'ERR_DECISION_EXPIRED', at: 'iat' },
  expires_at: { edit: (c) => (c['expires_at'] = '2030-01-01T00:20:00Z'), code: 'ERR_DECISION_MISMATCH', at: 'expires_at' },
};

function verifyOperation(jws: string) {
  return verifyDecision(jws, { pinnedKey: extension.publicJwk, expected: { operation, company, audience: agent, nonce }, now: new Date(NOW) });
}

function verifyCall(jws: string) {
  return verifyToolCallDecision(jws, { pinnedKey: extension.publicJwk, expected: { call, audience: agent, nonce }, now: new Date(NOW) });
}

describe('section 10: the decision schema drives its verification', () => {
  it('DECISION_CHECKS has a check for every claim of decisionClaimsSchema, and for nothing else', () => {
    expect(Object.keys(DECISION_CHECKS).sort()).toEqual(Object.keys(decisionClaimsSchema.shape).sort());
  });

  it('a table without a claim does not compile', () => {
    const { jti: _jti, ...rest } = DECISION_CHECKS;
    // @ts-expect-error `jti` has no check.
    const missing: ClaimChecks<DecisionClaims, unknown> = rest;
    expect(Object.keys(missing)).not.toContain('jti');
  });

  it('an untampered decision verifies (so each refusal below is the tampered claim\'s)', async () => {
    const claims = { ...(await decisionClaims({ operation, company, agent, nonce }, 'approved', NOW)), jti: 'dec_1' };
    await expect(verifyOperation(await resign(DECISION_TYP, claims))).resolves.toMatchObject({ status: 'approved', jti: 'dec_1' });
  });

  it.each(Object.entries(DECISION_TAMPERS))('%s tampered with and signed again by the extension key → its typed error', async (claim, tamper) => {
    const claims: Record<string, unknown> = { ...(await decisionClaims({ operation, company, agent, nonce }, 'approved', NOW)), jti: 'dec_1' };
    tamper.edit(claims);
    const error = await refusal(verifyOperation(await resign(DECISION_TYP, claims)));
    expect(error.code).toBe(tamper.code);
    expect(error.message).toContain(`decision.${tamper.at}`);
    expect(codesOf(DECISION_CHECKS[claim as keyof DecisionClaims] as ClaimCheck<unknown, unknown>)).toContain(tamper.code);
  });

  it('status is the caller\'s: a decline signed as such verifies as a decline, never as an approval', async () => {
    expect(DECISION_CHECKS.status).toMatchObject({ settledBy: 'caller' });
    const claims = await decisionClaims({ operation, company, agent, nonce }, 'declined', NOW);
    await expect(verifyOperation(await resign(DECISION_TYP, claims))).resolves.toMatchObject({ status: 'declined' });
  });
});

describe('section 10.1: the tool-call decision schema drives its verification', () => {
  it('TOOL_CALL_CHECKS has a check for every claim of toolCallClaimsSchema, and for nothing else', () => {
    expect(Object.keys(TOOL_CALL_CHECKS).sort()).toEqual(Object.keys(toolCallClaimsSchema.shape).sort());
  });

  it('an untampered tool-call decision verifies', async () => {
    const claims = await toolCallDecisionClaims({ call, agent, nonce }, 'approved', NOW);
    await expect(verifyCall(await resign(TOOL_CALL_DECISION_TYP, claims))).resolves.toMatchObject({ status: 'approved', call_id: 'call_1' });
  });

  it.each(Object.entries(TOOL_CALL_TAMPERS))('%s tampered with and signed again by the extension key → its typed error', async (claim, tamper) => {
    const claims: Record<string, unknown> = { ...(await toolCallDecisionClaims({ call, agent, nonce }, 'approved', NOW)) };
    tamper.edit(claims);
    const error = await refusal(verifyCall(await resign(TOOL_CALL_DECISION_TYP, claims)));
    expect(error.code).toBe(tamper.code);
    expect(error.message).toContain(`decision.${tamper.at}`);
    expect(codesOf(TOOL_CALL_CHECKS[claim as keyof ToolCallClaims] as ClaimCheck<unknown, unknown>)).toContain(tamper.code);
  });
});

describe('checkClaims', () => {
  it('runs the comparisons in the table\'s order and names the path the first one gives', async () => {
    const seen: string[] = [];
    const checks: ClaimChecks<{ a: number; b: { c: number }; d: number }, { a: number; c: number }> = {
      a: { against: 'a asked', differs: (x, e) => (seen.push('a'), x.a !== e.a && 'a') },
      b: { against: 'c asked', differs: (x, e) => (seen.push('b'), x.b.c !== e.c && 'b.c') },
      d: { settledBy: 'schema', why: 'any number' },
    };
    await expect(checkClaims(checks, { a: 1, b: { c: 2 }, d: 3 }, { a: 1, c: 2 })).resolves.toBeUndefined();
    await expect(checkClaims(checks, { a: 1, b: { c: 9 }, d: 3 }, { a: 1, c: 2 })).rejects.toMatchObject({ code: 'ERR_DECISION_MISMATCH', message: 'decision.b.c: does not match c asked' });
    expect(seen).toEqual(['a', 'b', 'a', 'b']);
  });
});
