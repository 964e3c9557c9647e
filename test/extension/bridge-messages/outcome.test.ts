import { describe, expect, it } from 'vitest';
import { outcome } from '../../../src/extension/bridge-messages/outcome';
import { fakeSession, parsed } from './fake-session';

const OUTCOME = { type: 'outcome', v: 2, id: 'o_1', operation_id: 'exc_5Rt2', revision: 'r1', outcome: 'performed', detail: 'Exchange placed', company_origin: 'https://shop.example' } as const;

describe('outcome (docs/bridge-protocol.md, section 9.5)', () => {
  it("a paired agent's outcome goes to the queue for the history, and the queue's answer goes back", async () => {
    const fake = await fakeSession('outcome');
    await fake.pair();
    fake.answer({ type: 'ack', id: 'o_1' });
    await outcome(fake.proved(), parsed({ ...OUTCOME }), fake.session);
    expect(fake.calls).toEqual([{ method: 'outcome', args: [fake.agent.thumbprint, 'o_1', 'exc_5Rt2', 'r1', 'performed', 'Exchange placed', 'https://shop.example'] }]);
    expect(fake.sent).toEqual([{ conn: 'c1', message: { type: 'ack', id: 'o_1' } }]);
  });

  it('from a revoked agent or an unproved connection: the typed refusal, no history written', async () => {
    const fake = await fakeSession('outcome-revoked');
    await fake.pair(true);
    await expect(outcome(fake.proved(), parsed({ ...OUTCOME }), fake.session)).rejects.toMatchObject({ code: 'ERR_AGENT_REVOKED' });
    await expect(outcome({ conn: 'c1', stage: 'new' }, parsed({ ...OUTCOME }), fake.session)).rejects.toMatchObject({ code: 'ERR_AUTH_FAILED' });
    expect(fake.calls).toEqual([]);
  });
});
