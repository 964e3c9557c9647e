import { describe, expect, it } from 'vitest';
import { toolCallRequest } from '../../../src/extension/bridge-messages/tool-call-request';
import { toolCallAsRequest } from '../../../src/extension/tool-call-request';
import { fakeSession, parsed } from './fake-session';

const CALL = {
  call_id: 'call_1',
  server: { name: 'filesystem', reached_by: { transport: 'stdio', command: 'npx', args: ['@modelcontextprotocol/server-filesystem', '/home/me'] } },
  tool: 'write_file',
  arguments: { path: '/home/me/a.txt', content: 'hi' },
  expires_at: '2099-10-08T12:20:00Z',
};
const request = () => parsed({ type: 'tool_call_request', v: 2, id: 't_1', nonce: `${'t'.repeat(42)}A`, tool_call: CALL });

describe('tool_call_request (docs/bridge-protocol.md, section 9.7)', () => {
  it("a paired agent's call goes to the queue as the approval Countersign writes from the call", async () => {
    const fake = await fakeSession('tool');
    await fake.pair();
    const m = request();
    await toolCallRequest(fake.proved(), m, fake.session);
    expect(fake.calls).toEqual([{ method: 'receive', agent: expect.objectContaining({ thumbprint: fake.agent.thumbprint }), conn: 'c1', request: await toolCallAsRequest(m) }]);
  });

  it('an unpaired or revoked agent is refused with its typed error, and the queue never sees the call', async () => {
    const fake = await fakeSession('tool-unpaired');
    await expect(toolCallRequest(fake.proved(), request(), fake.session)).rejects.toMatchObject({ code: 'ERR_AGENT_NOT_PAIRED' });
    await fake.pair(true);
    await expect(toolCallRequest(fake.proved(), request(), fake.session)).rejects.toMatchObject({ code: 'ERR_AGENT_REVOKED' });
    expect(fake.calls).toEqual([]);
  });
});
