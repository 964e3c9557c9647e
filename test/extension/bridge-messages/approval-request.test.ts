import { describe, expect, it } from 'vitest';
import { approvalRequest } from '../../../src/extension/bridge-messages/approval-request';
import { approvalRequest as rawRequest } from '../../bridge/helpers';
import { fakeSession, parsed } from './fake-session';

const request = (extra: Record<string, unknown> = {}) => parsed({ ...(rawRequest('req_1') as { type: 'approval_request' }), ...extra });

describe('approval_request (docs/bridge-protocol.md, section 9.1)', () => {
  it("a paired agent's request goes to the queue as sent, with its user_verification, and the queue's answer is handed back for the sessions to send in order", async () => {
    const fake = await fakeSession('request');
    await fake.pair();
    fake.answer({ type: 'ack', id: 'req_1' });
    const m = request({ user_verification: 'required' });
    const later = await approvalRequest(fake.proved(), m, fake.session);
    expect(fake.calls).toEqual([{ method: 'receive', agent: expect.objectContaining({ thumbprint: fake.agent.thumbprint }), conn: 'c1', request: { ...m, userVerification: 'required' } }]);
    expect(await later?.answer).toEqual({ type: 'ack', id: 'req_1' });
    // Not sent here: the sessions send it after the answers of the connection's messages before it.
    expect(fake.sent).toEqual([]);
  });

  it('waits for the person without an answer now when the queue has none', async () => {
    const fake = await fakeSession('request-later');
    await fake.pair();
    const later = await approvalRequest(fake.proved(), request(), fake.session);
    expect(fake.calls).toHaveLength(1);
    expect(await later?.answer).toBeNull();
  });

  it('an unpaired agent: ERR_AGENT_NOT_PAIRED and a problem, a revoked one ERR_AGENT_REVOKED; never the queue', async () => {
    const fake = await fakeSession('request-unpaired');
    await expect(approvalRequest(fake.proved(), request(), fake.session)).rejects.toMatchObject({ code: 'ERR_AGENT_NOT_PAIRED' });
    await fake.pair(true);
    await expect(approvalRequest(fake.proved(), request(), fake.session)).rejects.toMatchObject({ code: 'ERR_AGENT_REVOKED' });
    expect(fake.problems).toEqual([
      { kind: 'unpaired', agentName: 'Desk agent' },
      { kind: 'revoked', agentName: 'Desk agent' },
    ]);
    expect(fake.calls).toEqual([]);
  });

  it('a connection that has not proved its key: ERR_AUTH_FAILED, no problem named after what it claims', async () => {
    const fake = await fakeSession('request-unproved');
    await fake.pair();
    await expect(approvalRequest({ conn: 'c1', stage: 'challenged', agentName: 'Desk agent' }, request(), fake.session)).rejects.toMatchObject({ code: 'ERR_AUTH_FAILED' });
    expect(fake.problems).toEqual([]);
    expect(fake.calls).toEqual([]);
  });
});
