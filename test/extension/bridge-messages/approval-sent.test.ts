import { describe, expect, it } from 'vitest';
import { approvalSent } from '../../../src/extension/bridge-messages/approval-sent';
import { fakeSession, parsed } from './fake-session';

const SENT = { type: 'approval_sent', v: 2, id: 's_1', operation_id: 'exc_5Rt2', revision: 'r1', company_origin: 'https://shop.example' } as const;

describe('approval_sent (docs/bridge-protocol.md, section 9.5)', () => {
  it("a paired agent's approval_sent goes to the queue with its item's names, and the queue's answer goes back", async () => {
    const fake = await fakeSession('sent');
    await fake.pair();
    fake.answer({ type: 'ack', id: 's_1', sent: true });
    await approvalSent(fake.proved(), parsed({ ...SENT }), fake.session);
    expect(fake.calls).toEqual([{ method: 'sent', args: [fake.agent.thumbprint, 's_1', 'exc_5Rt2', 'r1', 'https://shop.example'] }]);
    expect(fake.sent).toEqual([{ conn: 'c1', message: { type: 'ack', id: 's_1', sent: true } }]);
  });

  it('an agent revoked since it connected: ERR_AGENT_REVOKED, the item left as it was', async () => {
    const fake = await fakeSession('sent-revoked');
    await fake.pair(true);
    await expect(approvalSent(fake.proved(), parsed({ ...SENT }), fake.session)).rejects.toMatchObject({ code: 'ERR_AGENT_REVOKED' });
    const unpaired = await fakeSession('sent-unpaired');
    await expect(approvalSent(unpaired.proved(), parsed({ ...SENT }), unpaired.session)).rejects.toMatchObject({ code: 'ERR_AGENT_NOT_PAIRED' });
    expect([...fake.calls, ...unpaired.calls]).toEqual([]);
  });
});
