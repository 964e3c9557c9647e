import { describe, expect, it } from 'vitest';
import { auth } from '../../../src/extension/bridge-messages/auth';
import type { Connection } from '../../../src/extension/bridge-messages/types';
import { wireJwk } from '../../../src/extension/keys';
import { signAuth } from '../../bridge/helpers';
import { fakeSession, parsed, type FakeSession } from './fake-session';

function challenged(fake: FakeSession): Connection {
  return { conn: 'c1', stage: 'challenged', agentName: 'Desk agent', agentKey: fake.agent.jwk, agentThumbprint: fake.agent.thumbprint, challenge: `${'n'.repeat(42)}A` };
}

function signed(fake: FakeSession, c: Connection, id = 'a_1') {
  return parsed({ type: 'auth', v: 2, id, signature: signAuth(fake.agent, { extensionKeyThumbprint: fake.session.key.thumbprint, conn: c.conn, nonce: c.challenge! }) });
}

describe('auth (docs/bridge-protocol.md, section 7)', () => {
  it('a signature over the challenge proves the key: welcome, paired false for an agent the person has not paired', async () => {
    const fake = await fakeSession('auth');
    const c = challenged(fake);
    await auth(c, signed(fake, c), fake.session);
    expect(c.stage).toBe('authenticated');
    expect(c.challenge).toBeUndefined();
    expect(fake.sent).toEqual([{ conn: 'c1', message: { type: 'welcome', v: 2, id: 'a_1', paired: false, extension_key: wireJwk(fake.session.key.publicJwk) } }]);
  });

  it('welcome says paired true for a paired agent, and false again once it is revoked', async () => {
    const fake = await fakeSession('auth-paired');
    await fake.pair();
    const c = challenged(fake);
    await auth(c, signed(fake, c), fake.session);
    expect(fake.sent.at(-1)?.message).toMatchObject({ type: 'welcome', paired: true });
    await fake.pair(true);
    const again = challenged(fake);
    await auth(again, signed(fake, again, 'a_2'), fake.session);
    expect(fake.sent.at(-1)?.message).toMatchObject({ type: 'welcome', id: 'a_2', paired: false });
  });

  it('a wrong signature: ERR_AUTH_FAILED, back to new, the challenge spent, and a problem for the person', async () => {
    const fake = await fakeSession('auth-wrong');
    const c = challenged(fake);
    const m = signed(fake, { ...c, challenge: `${'o'.repeat(42)}A` });
    await expect(auth(c, m, fake.session)).rejects.toMatchObject({ code: 'ERR_AUTH_FAILED' });
    expect(c.stage).toBe('new');
    expect(c.challenge).toBeUndefined();
    expect(fake.problems).toEqual([{ kind: 'auth', agentName: 'Desk agent' }]);
    expect(fake.sent).toEqual([]);
  });

  it('before hello: ERR_AUTH_FAILED, nothing sent', async () => {
    const fake = await fakeSession('auth-early');
    const c: Connection = { conn: 'c1', stage: 'new' };
    await expect(auth(c, parsed({ type: 'auth', v: 2, id: 'a_1', signature: 'A'.repeat(86) }), fake.session)).rejects.toMatchObject({ code: 'ERR_AUTH_FAILED' });
    expect(c.stage).toBe('new');
    expect(fake.sent).toEqual([]);
  });
});
