import { describe, expect, it } from 'vitest';
import { MAX_PENDING_PAIRINGS, agentNameKey, pairRequest } from '../../../src/extension/bridge-messages/pair-request';
import { wireJwk } from '../../../src/extension/keys';
import { pairingCommitment } from '../../../src/protocol/bridge';
import { newAgentKey } from '../../bridge/helpers';
import { fakeSession, parsed, type FakeSession } from './fake-session';

const COMMITMENT = await pairingCommitment(`${'r'.repeat(42)}A`);

function request(fake: FakeSession, id = 'p_1', name = 'Desk agent') {
  return parsed({ type: 'pair_request', v: 2, id, agent_name: name, agent_key: fake.agent.jwk, agent_nonce_sha256: COMMITMENT });
}

describe('pair_request (docs/bridge-protocol.md, section 8)', () => {
  it('offers the extension key and a fresh nonce, and the pairing waits for its reveal', async () => {
    const fake = await fakeSession('pair');
    await pairRequest(fake.proved(), request(fake), fake.session);
    const offer = fake.sent[0]?.message as { extension_nonce: string };
    expect(fake.sent).toEqual([{ conn: 'c1', message: { type: 'pair_offer', v: 2, id: 'p_1', extension_key: wireJwk(fake.session.key.publicJwk), extension_nonce: offer.extension_nonce } }]);
    expect([...fake.pairings.values()]).toEqual([
      expect.objectContaining({ pairingId: 'c1:p_1', conn: 'c1', requestId: 'p_1', agentName: 'Desk agent', agentThumbprint: fake.agent.thumbprint, commitment: COMMITMENT, extensionNonce: offer.extension_nonce, attempts: 0 }),
    ]);
    expect(fake.pairings.get('c1:p_1')?.code).toBeUndefined();
  });

  it('refuses a connection that has not proved its key, and a key other than the one it proved', async () => {
    const fake = await fakeSession('pair-unproved');
    await expect(pairRequest({ conn: 'c1', stage: 'challenged' }, request(fake), fake.session)).rejects.toMatchObject({ code: 'ERR_AUTH_FAILED' });
    const other = await newAgentKey();
    const m = parsed({ type: 'pair_request', v: 2, id: 'p_1', agent_name: 'Desk agent', agent_key: other.jwk, agent_nonce_sha256: COMMITMENT });
    await expect(pairRequest(fake.proved(), m, fake.session)).rejects.toMatchObject({ code: 'ERR_PAIRING_FAILED' });
    expect(fake.pairings.size).toBe(0);
    expect(fake.sent).toEqual([]);
  });

  it("refuses the name of an agent paired with another key, as a person reads it, and audits it", async () => {
    const fake = await fakeSession('pair-namesake');
    const other = await newAgentKey();
    await fake.store.putAgent({ thumbprint: other.thumbprint, name: 'Desk agent', publicJwk: other.jwk, pairedAt: 1 });
    await expect(pairRequest(fake.proved(), request(fake, 'p_1', 'DESK\u200B  agent'), fake.session)).rejects.toMatchObject({ code: 'ERR_PAIRING_FAILED' });
    expect((await fake.store.auditLog()).map((e) => e.kind)).toContain('pairing-name-taken');
    expect(fake.pairings.size).toBe(0);
    expect(agentNameKey('DESK\u200B  agent')).toBe(agentNameKey('Desk agent'));
  });

  it(`one pairing per connection, and at most ${MAX_PENDING_PAIRINGS} waiting over all: ERR_THROTTLED past them`, async () => {
    const fake = await fakeSession('pair-cap');
    await pairRequest(fake.proved('c1'), request(fake, 'p_1'), fake.session);
    await expect(pairRequest(fake.proved('c1'), request(fake, 'p_2'), fake.session)).rejects.toMatchObject({ code: 'ERR_PAIRING_FAILED' });
    for (let i = 2; i <= MAX_PENDING_PAIRINGS; i++) await pairRequest(fake.proved(`c${i}`), request(fake, `p_${i}`), fake.session);
    await expect(pairRequest(fake.proved('c9'), request(fake, 'p_9'), fake.session)).rejects.toMatchObject({ code: 'ERR_THROTTLED' });
    expect(fake.pairings.size).toBe(MAX_PENDING_PAIRINGS);
    expect(fake.sent).toHaveLength(MAX_PENDING_PAIRINGS);
  });
});
