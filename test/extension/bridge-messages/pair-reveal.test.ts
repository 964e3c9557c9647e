import { describe, expect, it } from 'vitest';
import { pairRequest } from '../../../src/extension/bridge-messages/pair-request';
import { pairReveal } from '../../../src/extension/bridge-messages/pair-reveal';
import { pairingCode, pairingCommitment } from '../../../src/protocol/bridge';
import { fakeSession, parsed, type FakeSession } from './fake-session';

const AGENT_NONCE = `${'r'.repeat(42)}A`;

async function offered(fake: FakeSession): Promise<string> {
  await pairRequest(
    fake.proved(),
    parsed({ type: 'pair_request', v: 2, id: 'p_1', agent_name: 'Desk agent', agent_key: fake.agent.jwk, agent_nonce_sha256: await pairingCommitment(AGENT_NONCE) }),
    fake.session,
  );
  return (fake.sent[0]!.message as { extension_nonce: string }).extension_nonce;
}

describe('pair_reveal (docs/bridge-protocol.md, section 8)', () => {
  it('the nonce that matches the commitment fixes the code both sides show, and the window is told', async () => {
    const fake = await fakeSession('reveal');
    const extensionNonce = await offered(fake);
    await pairReveal(fake.proved(), parsed({ type: 'pair_reveal', v: 2, id: 'r_1', pairing_id: 'p_1', agent_nonce: AGENT_NONCE }), fake.session);
    const code = await pairingCode({ extensionKeyThumbprint: fake.session.key.thumbprint, agentKeyThumbprint: fake.agent.thumbprint, extensionNonce, agentNonce: AGENT_NONCE });
    expect(fake.pairings.get('c1:p_1')).toMatchObject({ code, revealId: 'r_1' });
    expect(fake.changes()).toBe(1);
    expect(fake.sent).toHaveLength(1);
  });

  it('a nonce that does not match the commitment ends the pairing: ERR_PAIRING_FAILED', async () => {
    const fake = await fakeSession('reveal-wrong');
    await offered(fake);
    const m = parsed({ type: 'pair_reveal', v: 2, id: 'r_1', pairing_id: 'p_1', agent_nonce: `${'s'.repeat(42)}A` });
    await expect(pairReveal(fake.proved(), m, fake.session)).rejects.toMatchObject({ code: 'ERR_PAIRING_FAILED' });
    expect(fake.pairings.size).toBe(0);
    expect(fake.changes()).toBe(0);
  });

  it('a reveal for no waiting pairing, another connection\'s, or a second reveal: ERR_PAIRING_FAILED, the pairing untouched', async () => {
    const fake = await fakeSession('reveal-none');
    await offered(fake);
    const reveal = (id: string, pairingId: string) => parsed({ type: 'pair_reveal', v: 2, id, pairing_id: pairingId, agent_nonce: AGENT_NONCE });
    await expect(pairReveal(fake.proved(), reveal('r_0', 'p_9'), fake.session)).rejects.toMatchObject({ code: 'ERR_PAIRING_FAILED' });
    await expect(pairReveal(fake.proved('c2'), reveal('r_0', 'p_1'), fake.session)).rejects.toMatchObject({ code: 'ERR_PAIRING_FAILED' });
    expect(fake.pairings.get('c1:p_1')?.code).toBeUndefined();
    await pairReveal(fake.proved(), reveal('r_1', 'p_1'), fake.session);
    const code = fake.pairings.get('c1:p_1')?.code;
    await expect(pairReveal(fake.proved(), reveal('r_2', 'p_1'), fake.session)).rejects.toMatchObject({ code: 'ERR_PAIRING_FAILED' });
    expect(fake.pairings.get('c1:p_1')).toMatchObject({ code, revealId: 'r_1' });
  });
});
