import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Companion, isCountersignError, type ApprovalResult } from 'countersign/agent';
import { recordChallenge } from '../../src/extension/keys';
import type { PasskeyAssertion } from '../../src/protocol/passkey';
import { softwarePasskey, type SoftwarePasskey } from '../protocol/software-passkey';
import { FakeExtension, rejection, waitFor } from './harness';

/**
 * Passkey-verified approvals in the agent SDK (docs/agent-sdk.md, "Passkey-verified approvals"),
 * against the real bridge process and the real extension services: the passkey reaches the agent
 * only through the extension's signed announcement, and a request that requires it is `approved`
 * only with an assertion over exactly the verified claims, whatever the decision message says.
 */

const COMPANY = { name: 'Stormline', origin: 'https://stormline.example' };
const REQUEST = { interface: 'api' as const, method: 'POST', url: 'https://api.stormline.example/orders/ord_7Hk2/exchanges' };
let seq = 0;

describe('passkey-verified approvals in the agent SDK', () => {
  let ext: FakeExtension;
  let root: string;
  let person: SoftwarePasskey;
  const open: Companion[] = [];

  beforeAll(async () => {
    ext = await FakeExtension.start();
    root = await mkdtemp(path.join(os.tmpdir(), 'csa-passkey-'));
    person = await softwarePasskey();
  }, 30_000);
  afterAll(async () => {
    for (const c of open.splice(0)) await c.close();
    await ext?.dispose();
    await rm(root, { recursive: true, force: true });
  });

  async function pairedAgent(): Promise<Companion> {
    const companion = await Companion.connect({ agentName: `Passkey agent ${++seq}`, configDir: path.join(root, `agent-${seq}`), socketPath: ext.socketPath });
    open.push(companion);
    return ext.pairConfirmed(companion);
  }

  /** The person approves with their passkey, as the window and the background do (docs/bridge-protocol.md, section 10.2). */
  async function approveWithPasskey(companion: Companion, operationId: string, assertion?: (challenge: Uint8Array) => Promise<PasskeyAssertion>): Promise<ApprovalResult> {
    const operation = { operation_id: operationId, revision: 'rev1', summary: 'Exchange the jacket for $70.00 more.', expires_at: '2099-10-08T12:20:00-07:00' };
    const result = companion.requestApproval({ company: COMPANY, operation, request: REQUEST, session: { kind: 'this_session' }, userVerification: 'required' });
    const key = await ext.prompt(companion.agentKeyThumbprint, operationId, 'rev1');
    const record = await ext.store.get(key);
    if (!record) throw new Error('no prompt');
    const now = Date.now();
    const challenge = await recordChallenge(record, now);
    await ext.queue.decide(key, 'approve', { now, assertion: await (assertion ?? ((c: Uint8Array) => person.assert(c)))(challenge) });
    return result;
  }

  it('the passkey arrives only signed by the extension; a required verification is approved with a verified assertion', async () => {
    const agent = await pairedAgent();
    expect(agent.passkey).toBeUndefined();
    await ext.store.putPasskey(person.credential, Date.now());
    expect(await ext.sessions.announcePasskey()).toBeGreaterThan(0);
    await waitFor(() => agent.passkey?.credential_id === person.credential.credential_id, 'the announced passkey');
    const result = await approveWithPasskey(agent, 'exc_pk1');
    expect(result).toMatchObject({ status: 'approved', userVerified: true, passkeyAssertion: { credential_id: person.credential.credential_id } });
  });

  it('refuses (ERR_PASSKEY_INVALID, never approved) a decision whose assertion was stripped, swapped for another decision\'s, or made by another passkey', async () => {
    const agent = await pairedAgent();
    await waitFor(() => agent.passkey?.credential_id === person.credential.credential_id, 'the passkey at pairing');
    const stranger = await softwarePasskey();
    ext.tamper = (_conn, m) => (m.type === 'decision' && m.passkey_assertion !== undefined ? [{ ...m, passkey_assertion: undefined }] : [m]);
    expect(isCountersignError(await rejection(approveWithPasskey(agent, 'exc_pk2')), 'ERR_PASSKEY_INVALID')).toBe(true);
    ext.tamper = undefined;
    const other = (): Promise<PasskeyAssertion> => person.assert(new Uint8Array(32).fill(3));
    expect(isCountersignError(await rejection(approveWithPasskey(agent, 'exc_pk3', other)), 'ERR_PASSKEY_INVALID')).toBe(true);
    expect(isCountersignError(await rejection(approveWithPasskey(agent, 'exc_pk4', (c) => stranger.assert(c))), 'ERR_PASSKEY_INVALID')).toBe(true);
    // The SDK told the extension each time, which records it.
    await waitFor(async () => (await ext.store.auditLog()).filter((a) => a.kind === 'agent-error' && a.detail?.startsWith('ERR_PASSKEY_INVALID')).length >= 3, 'the agent errors in the audit log');
  });

  it('finding: a requirement turned off behind the agent\'s back: while the extension\'s signed announcement says required, an approval without an assertion is refused, even unasked', async () => {
    const agent = await pairedAgent();
    await waitFor(() => agent.passkey?.credential_id === person.credential.credential_id, 'the passkey at pairing');
    const told: boolean[] = [];
    agent.on('passkeyRequirementChanged', (required) => told.push(required));
    const paired = await ext.store.getAgent(agent.agentKeyThumbprint);
    if (!paired) throw new Error('not paired');
    await ext.store.putAgent({ ...paired, requireUserVerification: true, userVerificationChangedAt: Date.now() });
    expect(await ext.sessions.announcePasskey(agent.agentKeyThumbprint)).toBe(1);
    await waitFor(() => agent.passkeyRequired, 'the requirement');
    expect(told).toEqual([true]);
    // The store changed without the announcement (what one click used to do): the request comes
    // back without user verification and its approval without an assertion, and the SDK refuses it.
    await ext.store.putAgent({ ...paired, requireUserVerification: false });
    const operation = { operation_id: 'exc_pk_off', revision: 'rev1', summary: 'Exchange the jacket for $70.00 more.', expires_at: '2099-10-08T12:20:00-07:00' };
    const result = agent.requestApproval({ company: COMPANY, operation, request: REQUEST, session: { kind: 'this_session' } });
    const key = await ext.prompt(agent.agentKeyThumbprint, operation.operation_id, 'rev1');
    expect((await ext.store.get(key))?.userVerification).toBeUndefined();
    await ext.queue.decide(key, 'approve');
    expect(isCountersignError(await rejection(result), 'ERR_PASSKEY_INVALID')).toBe(true);
    // Turned off as the extension does it, announced: approvals without the passkey count again.
    await ext.store.putAgent({ ...paired, requireUserVerification: false, userVerificationChangedAt: Date.now() + 1 });
    await ext.sessions.announcePasskey(agent.agentKeyThumbprint);
    await waitFor(() => !agent.passkeyRequired, 'the requirement off');
    expect(told).toEqual([true, false]);
    const again = { ...operation, operation_id: 'exc_pk_off2' };
    const plain = agent.requestApproval({ company: COMPANY, operation: again, request: REQUEST, session: { kind: 'this_session' } });
    await ext.queue.decide(await ext.prompt(agent.agentKeyThumbprint, again.operation_id, 'rev1'), 'approve');
    expect((await plain).status).toBe('approved');
  });

  it('finding: while the person requires the passkey for this agent, a tool call too is approved only with an assertion over its claims', async () => {
    const agent = await pairedAgent();
    await waitFor(() => agent.passkey?.credential_id === person.credential.credential_id, 'the passkey at pairing');
    const paired = await ext.store.getAgent(agent.agentKeyThumbprint);
    if (!paired) throw new Error('not paired');
    await ext.store.putAgent({ ...paired, requireUserVerification: true, userVerificationChangedAt: Date.now() });
    await ext.sessions.announcePasskey(agent.agentKeyThumbprint);
    await waitFor(() => agent.passkeyRequired, 'the requirement');
    const server = { name: 'secure-filesystem-server', reached_by: { transport: 'stdio' as const, command: 'npx', args: ['@modelcontextprotocol/server-filesystem', '/home/sam'] } };
    const call = () => agent.requestToolCallApproval({ server, tool: 'move_files', arguments: { source: '/home/sam/a', destination: '/home/sam/b' }, expiresAt: new Date(Date.now() + 600_000) });
    const pendingCall = async () => {
      let record: Awaited<ReturnType<typeof ext.store.inStates>>[number] | undefined;
      await waitFor(async () => (record = (await ext.store.inStates(['pending'])).find((r) => r.agent === agent.agentKeyThumbprint && r.toolCall)) !== undefined, 'the tool call prompt');
      return record!;
    };
    // The assertion stripped on the way: refused, never approved.
    ext.tamper = (_conn, m) => (m.type === 'decision' && m.passkey_assertion !== undefined ? [{ ...m, passkey_assertion: undefined }] : [m]);
    const stripped = call();
    const first = await pendingCall();
    const now = Date.now();
    await ext.queue.decide(first.key, 'approve', { now, assertion: await person.assert(await recordChallenge(first, now)) });
    expect(isCountersignError(await rejection(stripped), 'ERR_PASSKEY_INVALID')).toBe(true);
    ext.tamper = undefined;
    const asked = call();
    const second = await pendingCall();
    const later = Date.now();
    await ext.queue.decide(second.key, 'approve', { now: later, assertion: await person.assert(await recordChallenge(second, later)) });
    expect((await asked).status).toBe('approved');
  });

  it('after the person removes the passkey, a request that requires it cannot be approved', async () => {
    const agent = await pairedAgent();
    await ext.store.putPasskey(null, Date.now());
    await ext.sessions.announcePasskey();
    await waitFor(() => agent.passkey === null, 'the removal');
    expect(isCountersignError(await rejection(approveWithPasskey(agent, 'exc_pk5')), 'ERR_PASSKEY_INVALID')).toBe(true);
  });
});
