import 'fake-indexeddb/auto';
import { describe, expect, it, vi } from 'vitest';
import { APPROVE_DELAY_MS } from '../../src/extension/constants';
import { dispatchPageMessage, type DispatchContext } from '../../src/extension/page-messages/dispatch';
import { PAGE_PATHS, type BackgroundParts, type PageServices } from '../../src/extension/page-messages/index';
import { base64urlDecode } from '../../src/protocol/base64url';
import { verifyPasskeyAnnouncement } from '../../src/protocol/passkey-announcement';
import type { PasskeyAssertion } from '../../src/protocol/passkey';
import { sessionsHarness, type SessionsHarness } from '../extension/sessions-harness';
import { EXTENSION_ORIGIN, softwarePasskey, type SoftwarePasskey } from '../protocol/software-passkey';

/**
 * Finding: "Require my passkey for every approval" turned off with one click, no passkey, and the
 * agent was not told, so its next approval came without an assertion and nobody noticed. Now the
 * background (not only the page) refuses any change that takes the passkey's protection away
 * (a requirement turned off, the passkey replaced or removed) unless it comes with an assertion
 * of the registered passkey over a challenge naming exactly that change, or, with no passkey
 * registered, through the Approve gate; and every agent concerned is told in a signed
 * announcement (docs/bridge-protocol.md, section 10.3). Messages go through the real dispatch,
 * as the options page sends them, to the real store and agent sessions.
 */

const OWN_ID = 'mlfaahkflpghlfdpkpmonibnlhieinil';
const OPTIONS = { id: OWN_ID, url: `${EXTENSION_ORIGIN}${PAGE_PATHS.options}` };

interface Answer {
  ok?: true;
  told?: number;
  challenge?: string;
  now?: number;
  error?: { code: string; message: string };
}

interface Background {
  h: SessionsHarness;
  person: SoftwarePasskey;
  agent: string;
  send(message: Record<string, unknown>): Promise<Answer>;
  /** The assertion the options page gets from the person's passkey for `change`, as the page asks for it. */
  prove(change: Record<string, unknown>, passkey?: SoftwarePasskey): Promise<{ now: number; assertion: PasskeyAssertion }>;
  /** The passkey announcements sent so far to the agent's connection, verified as the agent does. */
  announcements(): Promise<Array<{ passkey: unknown; user_verification?: 'required' }>>;
}

async function background(label: string, options: { required?: boolean; passkey?: boolean } = {}): Promise<Background> {
  const h = await sessionsHarness(label);
  await h.pair();
  await h.authenticate('c_1', 'Desk agent');
  const person = await softwarePasskey();
  const parts = { store: h.store, sessions: h.sessions, port: { state: 'up' }, thumbprint: h.key.thumbprint } as unknown as BackgroundParts;
  const services = { ready: async () => parts, changed: vi.fn(), extensionOrigin: EXTENSION_ORIGIN } as unknown as PageServices;
  const ctx: DispatchContext = { ownId: OWN_ID, pageUrl: (path) => `${EXTENSION_ORIGIN}${path}`, services };
  const send = async (message: Record<string, unknown>) => (await dispatchPageMessage(message, OPTIONS, ctx)) as Answer;
  const bg: Background = {
    h,
    person,
    agent: h.agent.thumbprint,
    send,
    async prove(change, passkey = person) {
      const asked = await send({ type: 'countersign/settings-challenge', change });
      if (asked.error) throw new Error(asked.error.message);
      return { now: asked.now!, assertion: await passkey.assert(base64urlDecode(asked.challenge!)) };
    },
    async announcements() {
      const sent = h.answers.filter((a) => a.conn === 'c_1' && a.message.type === 'passkey_changed').map((a) => (a.message as { jws: string }).jws);
      return Promise.all(sent.map((jws) => verifyPasskeyAnnouncement(jws, { pinnedKey: h.key.publicJwk, agent: h.agent.thumbprint })));
    },
  };
  if (options.passkey !== false) expect((await send({ type: 'countersign/passkey-set', credential: person.credential })).ok).toBe(true);
  if (options.required) expect((await send({ type: 'countersign/agent-verification', thumbprint: bg.agent, required: true })).ok).toBe(true);
  return bg;
}

const off = (agent: string) => ({ kind: 'agent-verification', thumbprint: agent, required: false });
const required = async (bg: Background) => (await bg.h.store.getAgent(bg.agent))?.requireUserVerification === true;

describe('finding: "Require my passkey for every approval" turned off with one click (docs/ui.md, "Passkey settings")', () => {
  it('turning it off without the passkey is refused (ERR_NOT_ALLOWED), the requirement stays on and the agent hears nothing new', async () => {
    const bg = await background('pk-settings-bare', { required: true });
    const before = (await bg.announcements()).length;
    const answer = await bg.send({ type: 'countersign/agent-verification', thumbprint: bg.agent, required: false });
    expect(answer.error).toMatchObject({ code: 'ERR_NOT_ALLOWED', message: expect.stringContaining('passkey') });
    expect(await required(bg)).toBe(true);
    expect(await bg.announcements()).toHaveLength(before);
    // A trusted click after the arm delay is not enough while a passkey is registered: it is what the passkey guards against.
    const clicked = await bg.send({ type: 'countersign/agent-verification', thumbprint: bg.agent, required: false, trusted: true, shownFor: 60_000 });
    expect(clicked.error?.code).toBe('ERR_NOT_ALLOWED');
    expect(await required(bg)).toBe(true);
  });

  it('turning it on is a plain click, and the agent is told at once, signed: its announcement says user_verification "required"', async () => {
    const bg = await background('pk-settings-on');
    expect((await bg.send({ type: 'countersign/agent-verification', thumbprint: bg.agent, required: true })).told).toBe(1);
    expect(await required(bg)).toBe(true);
    const [registered, turnedOn] = await bg.announcements();
    expect(registered?.user_verification).toBeUndefined();
    expect(turnedOn).toMatchObject({ passkey: bg.person.credential, user_verification: 'required' });
    // An agent that reconnects hears the same at its welcome.
    await bg.h.authenticate('c_2', 'Desk agent');
    const welcome = bg.h.answers.at(-1)?.message as { passkey?: string };
    expect(await verifyPasskeyAnnouncement(welcome.passkey ?? '', { pinnedKey: bg.h.key.publicJwk, agent: bg.agent })).toMatchObject({ user_verification: 'required' });
  });

  it('turning it off with the passkey\'s assertion over exactly that change is accepted, and the agent is told it is off', async () => {
    const bg = await background('pk-settings-proved', { required: true });
    const proof = await bg.prove(off(bg.agent));
    const answer = await bg.send({ type: 'countersign/agent-verification', thumbprint: bg.agent, required: false, userVerification: proof });
    expect(answer).toMatchObject({ ok: true, told: 1 });
    expect(await required(bg)).toBe(false);
    const last = (await bg.announcements()).at(-1);
    expect(last).toMatchObject({ passkey: bg.person.credential });
    expect(last?.user_verification).toBeUndefined();
    expect((await bg.h.store.auditLog()).map((a) => a.kind)).toContain('passkey-not-required');
  });

  it('an assertion over another change, another agent, another instant, without UV, from another passkey, or stale is refused, and nothing changes', async () => {
    const bg = await background('pk-settings-other', { required: true });
    const stranger = await softwarePasskey();
    const otherAgent = `${'Z'.repeat(42)}A`;
    await bg.h.store.putAgent({ thumbprint: otherAgent, name: 'Other agent', publicJwk: {}, pairedAt: 1 });
    const removal = await bg.prove({ kind: 'passkey', credential: null });
    const forOther = await bg.prove(off(otherAgent));
    const right = await bg.prove(off(bg.agent));
    const noUv = { now: right.now, assertion: await bg.person.assert(base64urlDecode((await bg.send({ type: 'countersign/settings-challenge', change: off(bg.agent) })).challenge!), { flags: 0x01 }) };
    const cases: Array<[string, unknown, string]> = [
      ['the removal of the passkey', removal, 'ERR_PASSKEY_INVALID'],
      ['another agent', forOther, 'ERR_PASSKEY_INVALID'],
      ['another instant', { ...right, now: right.now - 1 }, 'ERR_PASSKEY_INVALID'],
      ['no user verification', noUv, 'ERR_PASSKEY_INVALID'],
      ['another passkey', await bg.prove(off(bg.agent), stranger), 'ERR_PASSKEY_INVALID'],
      ['too old', { ...right, now: right.now - 10 * 60_000 }, 'ERR_NOT_ALLOWED'],
      ['not an assertion', { now: right.now, assertion: { credential_id: 'x' } }, 'ERR_BRIDGE_MESSAGE_INVALID'],
    ];
    for (const [what, userVerification, code] of cases) {
      const answer = await bg.send({ type: 'countersign/agent-verification', thumbprint: bg.agent, required: false, userVerification });
      // A message that does not parse is not answered at all (undefined), as for any message not ours.
      if (code === 'ERR_BRIDGE_MESSAGE_INVALID') expect(answer, what).toBeUndefined();
      else expect(answer?.error?.code, what).toBe(code);
      expect(await required(bg), what).toBe(true);
    }
    expect((await bg.announcements()).at(-1)?.user_verification).toBe('required');
  });

  it('an assertion used once cannot turn the requirement off again after the person turned it back on', async () => {
    const bg = await background('pk-settings-replay', { required: true });
    const proof = await bg.prove(off(bg.agent));
    expect((await bg.send({ type: 'countersign/agent-verification', thumbprint: bg.agent, required: false, userVerification: proof })).ok).toBe(true);
    // A later instant, so the requirement's change time moves on.
    await new Promise((r) => setTimeout(r, 5));
    expect((await bg.send({ type: 'countersign/agent-verification', thumbprint: bg.agent, required: true })).ok).toBe(true);
    const replayed = await bg.send({ type: 'countersign/agent-verification', thumbprint: bg.agent, required: false, userVerification: proof });
    expect(replayed.error?.code).toBe('ERR_PASSKEY_INVALID');
    expect(await required(bg)).toBe(true);
  });

  it('requiring the passkey with none registered is refused: it would block every approval of the agent', async () => {
    const bg = await background('pk-settings-none', { passkey: false });
    expect((await bg.send({ type: 'countersign/agent-verification', thumbprint: bg.agent, required: true })).error?.code).toBe('ERR_NOT_ALLOWED');
    expect(await required(bg)).toBe(false);
  });
});

describe('finding: the passkey replaced or removed without itself (docs/ui.md, "Passkey settings")', () => {
  it('removing the passkey without its assertion is refused and the passkey stays; with one over the removal it goes, and the agent is told', async () => {
    const bg = await background('pk-settings-remove', { required: true });
    expect((await bg.send({ type: 'countersign/passkey-set', credential: null })).error?.code).toBe('ERR_NOT_ALLOWED');
    const wrong = await bg.prove(off(bg.agent));
    expect((await bg.send({ type: 'countersign/passkey-set', credential: null, userVerification: wrong })).error?.code).toBe('ERR_PASSKEY_INVALID');
    expect((await bg.h.store.getPasskey())?.credential).toEqual(bg.person.credential);
    const before = (await bg.announcements()).length;
    const proof = await bg.prove({ kind: 'passkey', credential: null });
    expect(await bg.send({ type: 'countersign/passkey-set', credential: null, userVerification: proof })).toMatchObject({ ok: true, told: 1 });
    expect((await bg.h.store.getPasskey())?.credential).toBeNull();
    const after = await bg.announcements();
    expect(after).toHaveLength(before + 1);
    // The requirement stands: the agent learns its approvals cannot be verified until a new passkey is registered.
    expect(after.at(-1)).toMatchObject({ passkey: null, user_verification: 'required' });
  });

  it('replacing the passkey needs the old one: an assertion of the newcomer or over the removal is refused', async () => {
    const bg = await background('pk-settings-replace');
    const newcomer = await softwarePasskey();
    const change = { kind: 'passkey', credential: newcomer.credential };
    expect((await bg.send({ type: 'countersign/passkey-set', credential: newcomer.credential })).error?.code).toBe('ERR_NOT_ALLOWED');
    expect((await bg.send({ type: 'countersign/passkey-set', credential: newcomer.credential, userVerification: await bg.prove(change, newcomer) })).error?.code).toBe('ERR_PASSKEY_INVALID');
    expect((await bg.send({ type: 'countersign/passkey-set', credential: newcomer.credential, userVerification: await bg.prove({ kind: 'passkey', credential: null }) })).error?.code).toBe('ERR_PASSKEY_INVALID');
    expect((await bg.h.store.getPasskey())?.credential).toEqual(bg.person.credential);
    expect((await bg.send({ type: 'countersign/passkey-set', credential: newcomer.credential, userVerification: await bg.prove(change) })).ok).toBe(true);
    expect((await bg.announcements()).at(-1)?.passkey).toEqual(newcomer.credential);
  });

  it('with no passkey registered any more, a requirement still on is turned off only by a trusted click after the arm delay', async () => {
    const bg = await background('pk-settings-gate', { required: true });
    await bg.send({ type: 'countersign/passkey-set', credential: null, userVerification: await bg.prove({ kind: 'passkey', credential: null }) });
    expect((await bg.send({ type: 'countersign/settings-challenge', change: off(bg.agent) })).error?.code).toBe('ERR_NOT_ALLOWED');
    for (const gate of [{}, { shownFor: 60_000 }, { trusted: true }, { trusted: true, shownFor: APPROVE_DELAY_MS - 1 }]) {
      expect((await bg.send({ type: 'countersign/agent-verification', thumbprint: bg.agent, required: false, ...gate })).error?.code, JSON.stringify(gate)).toBe('ERR_NOT_ALLOWED');
      expect(await required(bg)).toBe(true);
    }
    expect((await bg.send({ type: 'countersign/agent-verification', thumbprint: bg.agent, required: false, trusted: true, shownFor: APPROVE_DELAY_MS })).ok).toBe(true);
    expect(await required(bg)).toBe(false);
    expect((await bg.announcements()).at(-1)).toMatchObject({ passkey: null });
  });
});
