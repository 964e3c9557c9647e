import { describe, expect, it } from 'vitest';
import { decisionClaims } from '../../src/protocol/decision';
import { formatApprovalHeader, type Operation } from '../../src/protocol/index';
import { passkeyChallenge } from '../../src/protocol/passkey';
import { softwarePasskey } from '../protocol/software-passkey';
import { formatPasskeyProofMember, PASSKEY_PROOF_META_KEY, type PasskeyProof } from '../../src/protocol/passkey-proof';
import { ALEX, ALEX_PHONE, Clock, EXCHANGE_L, EXCHANGE_M, EXCHANGE_PATH, GUEST, GUEST_EXCHANGE, GUEST_PATH, approvalOf, callTool, mcpClient, operationFor, post, startCompany } from './helpers';

/**
 * The reference Company started with a passkey registered for Alex's account (docs/reference-company.md,
 * "Passkey proofs"): an approval by that account performs only with a proof that Alex's passkey, user
 * verification passed, signed exactly this revision's claims; other accounts and signed-out Sessions
 * are unaffected. Over real HTTP and MCP, with a software passkey.
 */

const AGENT = `agentA${'_'.repeat(36)}A`;

async function passkey() {
  const device = await softwarePasskey();
  /** What the extension and the person produce for an approval of `operation`. */
  const prove = async (operation: Operation, flags = 0x05): Promise<PasskeyProof> => {
    const claims = await decisionClaims({ operation, company: { name: 'Stormline Outfitters', origin: 'http://127.0.0.1' }, agent: AGENT, nonce: 'n'.repeat(43) }, 'approved');
    return { claims: claims as unknown as PasskeyProof['claims'], assertion: await device.assert(await passkeyChallenge(claims), { flags }) };
  };
  return { credential: device.credential, prove };
}

const withProof = (operation: Operation, proof: PasskeyProof) => `${formatApprovalHeader(approvalOf(operation))}, ${formatPasskeyProofMember(proof)}`;

describe('passkey proofs (a Company policy beyond the operations extension)', () => {
  it('API: the account approves only with a proof over this revision; the refusal performs nothing', async () => {
    const alex = await passkey();
    const company = await startCompany(new Clock(), { passkeys: { acct_alex: alex.credential } });
    const operation = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
    const bare = await post(company, EXCHANGE_PATH, { ...ALEX, approval: operation }, EXCHANGE_M);
    expect(bare.status).toBe(403);
    expect(bare.body).toMatchObject({ error: 'passkey_required' });
    // A proof of other terms (size L), a proof without user verification, a proof from another passkey.
    const larger = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_L);
    const stranger = await passkey();
    for (const [what, proof] of [
      ['other terms', await alex.prove(larger)],
      ['no UV', await alex.prove(operation, 0x01)],
      ['another passkey', await stranger.prove(operation)],
    ] as const) {
      const reply = await post(company, EXCHANGE_PATH, { ...ALEX, approval: withProof(operation, proof) }, EXCHANGE_M);
      expect(reply.status, what).toBe(403);
      expect(reply.body.error, what).toBe('passkey_required');
    }
    const broken = await post(company, EXCHANGE_PATH, { ...ALEX, approval: `${formatApprovalHeader(approvalOf(operation))}, countersign_passkey=:bm90IGpzb24=:` }, EXCHANGE_M);
    expect(broken.body).toMatchObject({ error: 'passkey_required', error_description: expect.stringContaining('countersign_passkey') });
    expect(company.state.performed.size).toBe(0);
    // The proof, from another Session of the same account: performed once.
    const done = await post(company, EXCHANGE_PATH, { ...ALEX_PHONE, approval: withProof(operation, await alex.prove(operation)) }, EXCHANGE_M);
    expect(done.status).toBe(200);
    expect(company.state.performed.get(operation.operation_id)).toBe(1);
  });

  it('MCP: the proof in _meta; a guest Session, with no passkey registered, is unaffected', async () => {
    const alex = await passkey();
    const company = await startCompany(new Clock(), { passkeys: { acct_alex: alex.credential } });
    const client = await mcpClient(company, ALEX);
    const args = { order_id: 'ord_7Hk2', ...EXCHANGE_M };
    const asked = await callTool(client, 'exchange_item', args);
    const operation = asked.structuredContent.operation as Operation;
    const refused = await client.callTool({ name: 'exchange_item', arguments: args, _meta: { 'personalagentprotocol.org/approval': approvalOf(operation) } });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain('passkey');
    const done = await client.callTool({ name: 'exchange_item', arguments: args, _meta: { 'personalagentprotocol.org/approval': approvalOf(operation), [PASSKEY_PROOF_META_KEY]: await alex.prove(operation) } });
    expect(done.isError).toBeFalsy();
    expect(company.state.performed.get(operation.operation_id)).toBe(1);
    await client.close();
    const guest = await operationFor(company, GUEST_PATH, GUEST, GUEST_EXCHANGE);
    expect((await post(company, GUEST_PATH, { ...GUEST, approval: guest }, GUEST_EXCHANGE)).status).toBe(200);
  });
});
