import { describe, expect, it } from 'vitest';
import { digestSummary, generateSigningKeyPair, signDecision, verifyDecision, type DecisionClaims } from '../../src/protocol/decision';

/**
 * A decision covers the exact summary the person saw, byte for byte (UTF-8 of the string as
 * given): not its Unicode normalisation. "Café" in NFC (U+00E9) and in NFD (e + U+0301) look the
 * same but are different summaries; a verifier that normalised first would let a Company swap
 * one for the other, and with it anything that normalises alike (e.g. compatibility forms).
 */

const NFC = 'Cancel the Caf\u00E9 M\u00FCller booking for \u20AC70.00.';
const NFD = NFC.normalize('NFD');
const AUD = `agentA${'_'.repeat(36)}A`;
const NONCE = `${'n'.repeat(42)}A`;
const COMPANY = { name: 'Caf\u00E9 M\u00FCller', origin: 'https://cafe.example' };

async function decided(summary: string) {
  const pair = await generateSigningKeyPair({ extractable: false });
  const operation = { operation_id: 'bk_1', revision: 'rev1', summary, expires_at: '2099-01-01T00:00:00Z' };
  const claims: DecisionClaims = {
    v: 1,
    status: 'approved',
    operation_id: operation.operation_id,
    revision: operation.revision,
    summary_sha256: await digestSummary(summary),
    terms_sha256: null,
    company: COMPANY,
    aud: AUD,
    nonce: NONCE,
    iat: Math.floor(Date.now() / 1000),
    expires_at: operation.expires_at,
  };
  const jws = await signDecision(claims, pair.privateKey, pair.alg, pair.thumbprint);
  const verify = (shown: string) =>
    verifyDecision(jws, { pinnedKey: pair.publicJwk, expected: { operation: { ...operation, summary: shown }, company: COMPANY, audience: AUD, nonce: NONCE } });
  return { verify };
}

describe('decisions and Unicode spellings (spec section 5: the approval covers what was shown)', () => {
  it('the two spellings really differ as strings and look the same', () => {
    expect(NFC).not.toBe(NFD);
    expect(NFD.normalize('NFC')).toBe(NFC);
  });

  it('a decision signed over the NFC summary does not verify for the NFD one', async () => {
    const { verify } = await decided(NFC);
    await expect(verify(NFC)).resolves.toMatchObject({ status: 'approved' });
    await expect(verify(NFD)).rejects.toMatchObject({ code: 'ERR_DECISION_MISMATCH' });
  });

  it('a decision over an NFD summary verifies for exactly that NFD summary (nothing is normalised away)', async () => {
    const { verify } = await decided(NFD);
    await expect(verify(NFD)).resolves.toMatchObject({ status: 'approved' });
    await expect(verify(NFC)).rejects.toMatchObject({ code: 'ERR_DECISION_MISMATCH' });
  });
});
