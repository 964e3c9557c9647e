import { describe, expect, it } from 'vitest';
import { hello } from '../../../src/extension/bridge-messages/hello';
import type { Connection } from '../../../src/extension/bridge-messages/types';
import { fakeSession, parsed } from './fake-session';

describe('hello (docs/bridge-protocol.md, section 7)', () => {
  it('answers a challenge with a fresh nonce and holds the claimed name and key until auth proves them', async () => {
    const fake = await fakeSession('hello');
    const c: Connection = { conn: 'c1', stage: 'new' };
    await hello(c, parsed({ type: 'hello', v: 2, id: 'h_1', versions: [2], agent_name: 'Desk agent', agent_key: fake.agent.jwk }), fake.session);
    expect(c).toMatchObject({ stage: 'challenged', agentName: 'Desk agent', agentKey: fake.agent.jwk, agentThumbprint: fake.agent.thumbprint });
    expect(fake.sent).toEqual([{ conn: 'c1', message: { type: 'challenge', v: 2, id: 'h_1', nonce: c.challenge, version: 2 } }]);
    const first = c.challenge;
    await hello(c, parsed({ type: 'hello', v: 2, id: 'h_2', versions: [2], agent_name: 'Desk agent', agent_key: fake.agent.jwk }), fake.session);
    expect(c.challenge).not.toBe(first);
  });

  it('with no common version: ERR_PROTOCOL_VERSION naming the versions spoken here, a problem for the person, and no challenge', async () => {
    const fake = await fakeSession('hello-version');
    const c: Connection = { conn: 'c1', stage: 'new' };
    await hello(c, parsed({ type: 'hello', v: 2, id: 'h_1', versions: [1], agent_name: 'Old agent', agent_key: fake.agent.jwk }), fake.session);
    expect(fake.sent).toEqual([
      { conn: 'c1', message: { type: 'error', v: 2, id: 'h_1', code: 'ERR_PROTOCOL_VERSION', message: 'no common protocol version', source: 'extension', supported_versions: [2] } },
    ]);
    expect(fake.problems).toEqual([{ kind: 'version', agentName: 'Old agent' }]);
    expect(c).toEqual({ conn: 'c1', stage: 'new' });
  });
});
