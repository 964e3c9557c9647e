import { describe, expect, it } from 'vitest';
import { approvalCancel } from '../../../src/extension/bridge-messages/approval-cancel';
import { fakeSession, parsed } from './fake-session';

describe('approval_cancel (docs/bridge-protocol.md, section 9.3)', () => {
  it("asks the queue to cancel this connection's request and acks with what it did", async () => {
    const fake = await fakeSession('cancel');
    await approvalCancel(fake.proved(), parsed({ type: 'approval_cancel', v: 2, id: 'x_1', request_id: 'req_1' }), fake.session);
    expect(fake.calls).toEqual([{ method: 'cancel', conn: 'c1', requestId: 'req_1' }]);
    expect(fake.sent).toEqual([{ conn: 'c1', message: { type: 'ack', id: 'x_1', cancelled: true } }]);
  });

  it('a connection that has not proved its key: ERR_AUTH_FAILED, nothing cancelled', async () => {
    const fake = await fakeSession('cancel-unproved');
    const m = parsed({ type: 'approval_cancel', v: 2, id: 'x_1', request_id: 'req_1' });
    await expect(approvalCancel({ conn: 'c1', stage: 'new' }, m, fake.session)).rejects.toMatchObject({ code: 'ERR_AUTH_FAILED' });
    expect(fake.calls).toEqual([]);
  });
});
