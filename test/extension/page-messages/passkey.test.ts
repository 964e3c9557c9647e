import 'fake-indexeddb/auto';
import { describe, expect, it, vi } from 'vitest';
import { ApprovalQueue, type AgentReply, type IncomingApprovalRequest } from '../../../src/extension/approval-queue';
import { extensionKey, signRecord } from '../../../src/extension/keys';
import { agentVerification } from '../../../src/extension/page-messages/agent-verification';
import { decide, decideMessage } from '../../../src/extension/page-messages/decide';
import type { BackgroundParts, PageServices } from '../../../src/extension/page-messages/index';
import { passkeyChallenge as challengeMessage } from '../../../src/extension/page-messages/passkey-challenge';
import { passkeySet } from '../../../src/extension/page-messages/passkey-set';
import { Store, type PairedAgent } from '../../../src/extension/store';
import { base64urlDecode, base64urlEncode } from '../../../src/protocol/base64url';
import { EXTENSION_ORIGIN, softwarePasskey } from '../../protocol/software-passkey';
import { verifyDecision } from '../../../src/protocol/decision';
import { passkeyChallenge, verifyPasskeyAssertion, type PasskeyAssertion } from '../../../src/protocol/passkey';

/**
 * The background's half of passkey-verified approvals (docs/bridge-protocol.md, section 10.2),
 * with a real store and queue: Approve on an item that needs the passkey is refused without an
 * assertion; passkey-challenge gives the hash of exactly the claims the decision will sign; an
 * assertion is checked by the background before anything is signed, and travels with the decision.
 */

const ORIGIN = EXTENSION_ORIGIN;
const AGENT = `agentA${'_'.repeat(36)}A`;
let n = 0;

async function background() {
  const store = await Store.open(`passkey-${++n}`);
  const key = await extensionKey(store);
  const sent: AgentReply[] = [];
  const queue = new ApprovalQueue({ store, sign: (record, status, now) => signRecord(key, record, status, now), send: (_conn, reply) => sent.push(reply) > 0, changed: () => undefined });
  const agent: PairedAgent = { thumbprint: AGENT, name: 'Desk agent', publicJwk: {}, pairedAt: 0 };
  await store.putAgent(agent);
  const sessions = { announcePasskey: vi.fn(async () => 1) };
  const parts = { store, queue, sessions, port: { state: 'up' }, thumbprint: key.thumbprint } as unknown as BackgroundParts;
  const services = { ready: async () => parts, changed: vi.fn(), extensionOrigin: ORIGIN } as unknown as PageServices;
  return { store, key, queue, sent, agent, sessions, services };
}

function request(overrides: Partial<IncomingApprovalRequest> = {}): IncomingApprovalRequest {
  return {
    id: `req-${++n}`,
    nonce: `${'n'.repeat(38)}${String(n).padStart(4, '0')}A`,
    company: { name: 'Stormline', origin: 'https://stormline.example' },
    operation: { operation_id: `exc_${n}`, revision: 'rev1', summary: 'Exchange the jacket for $70.00 more.', expires_at: new Date(Date.now() + 600_000).toISOString() },
    request: { interface: 'api', method: 'POST', url: 'https://api.example.com/orders/ord_7Hk2/exchanges' },
    session: { kind: 'this_session' },
    ...overrides,
  };
}

const approve = (key: string, userVerification?: { now: number; assertion: PasskeyAssertion }) =>
  decideMessage.parse({ type: 'countersign/decide', key, decision: 'approve', trusted: true, shownFor: 5000, ...(userVerification ? { userVerification } : {}) });

describe('passkey-verified approvals in the background (docs/bridge-protocol.md, section 10.2)', () => {
  it('an item that needs the passkey: refused without an assertion, approved with one over its claims, which the decision carries', async () => {
    const bg = await background();
    const person = await softwarePasskey();
    await passkeySet.handler({ type: 'countersign/passkey-set', credential: person.credential }, bg.services);
    expect(bg.sessions.announcePasskey).toHaveBeenCalledOnce();
    const asked = request({ userVerification: 'required' });
    expect(await bg.queue.receive(bg.agent, 'c1', asked)).toBeNull();
    const [record] = await bg.store.inStates(['pending']);
    expect(record?.userVerification).toBe('required');
    await expect(decide.handler(approve(record!.key), bg.services)).rejects.toMatchObject({ code: 'ERR_NOT_ALLOWED', message: expect.stringContaining('passkey') });

    const { challenge, credentialId, now } = (await challengeMessage.handler({ type: 'countersign/passkey-challenge', key: record!.key }, bg.services)) as { challenge: string; credentialId: string; now: number };
    expect(credentialId).toBe(person.credential.credential_id);
    const assertion = await person.assert(base64urlDecode(challenge));
    await decide.handler(approve(record!.key, { now, assertion }), bg.services);
    const reply = bg.sent.at(-1) as Extract<AgentReply, { type: 'decision' }>;
    expect(reply).toMatchObject({ type: 'decision', status: 'approved', passkey_assertion: assertion });
    // What the agent does: the signed claims hash to the challenge the passkey signed.
    const claims = await verifyDecision(reply.jws ?? '', { pinnedKey: bg.key.publicJwk, expected: { operation: asked.operation, company: asked.company, audience: AGENT, nonce: asked.nonce } });
    expect(base64urlEncode(await passkeyChallenge(claims))).toBe(challenge);
    await expect(verifyPasskeyAssertion(assertion, { credential: person.credential, challenge: await passkeyChallenge(claims), origin: ORIGIN })).resolves.toMatchObject({ userVerified: true });
  });

  it('refuses an assertion for other claims, one without UV, one from another passkey, and a stale one; the item stays pending', async () => {
    const bg = await background();
    const person = await softwarePasskey();
    const stranger = await softwarePasskey();
    await expect(challengeMessage.handler({ type: 'countersign/passkey-challenge', key: 'nothing' }, bg.services)).rejects.toMatchObject({ code: 'ERR_NOT_ALLOWED' });
    await bg.queue.receive(bg.agent, 'c1', request({ userVerification: 'required' }));
    const [record] = await bg.store.inStates(['pending']);
    await expect(challengeMessage.handler({ type: 'countersign/passkey-challenge', key: record!.key }, bg.services)).rejects.toMatchObject({ message: expect.stringContaining('none is registered') });
    await passkeySet.handler({ type: 'countersign/passkey-set', credential: person.credential }, bg.services);
    const { challenge, now } = (await challengeMessage.handler({ type: 'countersign/passkey-challenge', key: record!.key }, bg.services)) as { challenge: string; now: number };
    const cases: Array<[string, { now: number; assertion: PasskeyAssertion }]> = [
      ['other claims', { now, assertion: await person.assert(new Uint8Array(32).fill(9)) }],
      ['no UV', { now, assertion: await person.assert(base64urlDecode(challenge), { flags: 0x01 }) }],
      ['another passkey', { now, assertion: await stranger.assert(base64urlDecode(challenge)) }],
      ['another instant (other claims)', { now: now - 1000, assertion: await person.assert(base64urlDecode(challenge)) }],
    ];
    for (const [what, verification] of cases) {
      await expect(decide.handler(approve(record!.key, verification), bg.services), what).rejects.toMatchObject({ code: 'ERR_PASSKEY_INVALID' });
    }
    await expect(decide.handler(approve(record!.key, { now: now - 10 * 60_000, assertion: await person.assert(base64urlDecode(challenge)) }), bg.services)).rejects.toMatchObject({ code: 'ERR_NOT_ALLOWED', message: expect.stringContaining('took too long') });
    expect((await bg.store.get(record!.key))?.state).toBe('pending');
    expect(bg.sent).toEqual([]);
    // A decline needs no passkey.
    await decide.handler(decideMessage.parse({ type: 'countersign/decide', key: record!.key, decision: 'decline', trusted: true, shownFor: 0 }), bg.services);
    expect(bg.sent.at(-1)).toMatchObject({ status: 'declined' });
  });

  it('the signature counter: a counting passkey\'s count is kept and an older one refused; a synced passkey counts 0 and nothing is written', async () => {
    const bg = await background();
    const person = await softwarePasskey();
    await passkeySet.handler({ type: 'countersign/passkey-set', credential: person.credential }, bg.services);
    const approveWith = async (count: number) => {
      await bg.queue.receive(bg.agent, 'c1', request({ userVerification: 'required' }));
      const [record] = await bg.store.inStates(['pending']);
      const { challenge, now } = (await challengeMessage.handler({ type: 'countersign/passkey-challenge', key: record!.key }, bg.services)) as { challenge: string; now: number };
      const assertion = await person.assert(base64urlDecode(challenge), { count });
      return { record: record!, done: decide.handler(approve(record!.key, { now, assertion }), bg.services) };
    };
    const counting = await approveWith(7);
    await counting.done;
    expect((await bg.store.getPasskey())?.signCount).toBe(7);
    const older = await approveWith(7);
    await expect(older.done).rejects.toMatchObject({ code: 'ERR_PASSKEY_INVALID', message: expect.stringContaining('more than 7') });
    await decide.handler(decideMessage.parse({ type: 'countersign/decide', key: older.record.key, decision: 'decline', trusted: true, shownFor: 0 }), bg.services);

    const synced = await background();
    const cloud = await softwarePasskey();
    await passkeySet.handler({ type: 'countersign/passkey-set', credential: cloud.credential }, synced.services);
    const writes = vi.spyOn(synced.store, 'putPasskeySignCount');
    for (let i = 0; i < 2; i++) {
      await synced.queue.receive(synced.agent, 'c1', request({ userVerification: 'required' }));
      const [record] = await synced.store.inStates(['pending']);
      const { challenge, now } = (await challengeMessage.handler({ type: 'countersign/passkey-challenge', key: record!.key }, synced.services)) as { challenge: string; now: number };
      await decide.handler(approve(record!.key, { now, assertion: await cloud.assert(base64urlDecode(challenge), { count: 0 }) }), synced.services);
    }
    expect(synced.sent.filter((r) => r.type === 'decision' && r.status === 'approved')).toHaveLength(2);
    expect(writes).not.toHaveBeenCalled();
  });

  it('the person requires the passkey for every approval of one agent (once one is registered), and the agent is told', async () => {
    const bg = await background();
    const person = await softwarePasskey();
    await passkeySet.handler({ type: 'countersign/passkey-set', credential: person.credential }, bg.services);
    await agentVerification.handler({ type: 'countersign/agent-verification', thumbprint: AGENT, required: true }, bg.services);
    expect(bg.sessions.announcePasskey).toHaveBeenLastCalledWith(AGENT);
    await bg.queue.receive({ ...bg.agent, requireUserVerification: true }, 'c1', request());
    expect((await bg.store.inStates(['pending']))[0]?.userVerification).toBe('required');
    expect((await bg.store.getAgent(AGENT))?.requireUserVerification).toBe(true);
    await expect(agentVerification.handler({ type: 'countersign/agent-verification', thumbprint: 'nobody', required: true }, bg.services)).rejects.toMatchObject({ code: 'ERR_ARGUMENT_INVALID' });
    // Removing it takes the protection away: not without the passkey (test/adversarial/passkey-settings.test.ts).
    await expect(passkeySet.handler({ type: 'countersign/passkey-set', credential: null }, bg.services)).rejects.toMatchObject({ code: 'ERR_NOT_ALLOWED' });
    expect(await bg.store.getPasskey()).toMatchObject({ credential: person.credential });
  });
});
