import { base64url } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  DECISION_VERSION,
  decisionClaims,
  decisionClaimsSchema,
  decisionCompanySchema,
  generateSigningKeyPair,
  signDecision,
  verifyDecision,
  type DecisionSubject,
} from '../../src/protocol/decision';

/** decisionClaims (what the extension signs) and the payload order, taken from the claims schema. */

const agentThumbprint = 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs';
const nonce = 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
const subject: DecisionSubject = {
  agent: agentThumbprint,
  nonce,
  company: { origin: 'https://shop.example', name: 'Example Shop' },
  operation: { expires_at: '2099-01-01T00:00:00Z', terms: { amount: 12 }, summary: 'Pay 12 EUR', revision: 'r1', operation_id: 'op_1' },
};

describe('decisionClaims', () => {
  it('claims exactly what was shown, at the current DECISION_VERSION, and they pass the schema', async () => {
    const claims = await decisionClaims(subject, 'approved', Date.UTC(2030, 0, 1));
    expect(claims.v).toBe(DECISION_VERSION);
    expect(claims).toMatchObject({ status: 'approved', operation_id: 'op_1', revision: 'r1', aud: agentThumbprint, nonce, iat: Date.UTC(2030, 0, 1) / 1000 });
    expect(decisionClaimsSchema.safeParse(claims).success).toBe(true);
  });

  it('the signed payload follows the schema order, whatever order the claims were built in', async () => {
    const key = await generateSigningKeyPair({ extractable: false });
    const claims = await decisionClaims(subject, 'declined', Date.UTC(2030, 0, 1));
    const shuffled = Object.fromEntries(Object.entries({ ...claims, jti: 'dec_1' }).reverse()) as typeof claims;
    const jws = await signDecision(shuffled, key.privateKey, key.alg, key.thumbprint);
    const payload = JSON.parse(new TextDecoder().decode(base64url.decode(jws.split('.')[1] ?? ''))) as Record<string, unknown>;
    expect(Object.keys(payload)).toEqual(Object.keys(decisionClaimsSchema.shape));
    expect(Object.keys(payload['company'] as object)).toEqual(Object.keys(decisionCompanySchema.shape));
    const verified = await verifyDecision(jws, {
      pinnedKey: key.publicJwk,
      expected: { operation: subject.operation, company: subject.company, audience: agentThumbprint, nonce },
      now: new Date(Date.UTC(2030, 0, 1)),
    });
    expect(verified.status).toBe('declined');
  });
});
