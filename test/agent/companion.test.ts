import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
// Through the package subpath, as a desktop agent imports it (package.json "exports").
import { Companion, CompanionError, isCountersignError, type ApprovalResult, type OperationInput } from 'countersign/agent';
import { Journal } from '../../src/agent/journal';
import { savePinnedKey } from '../../src/agent/keys';
import { approvalKey } from '../../src/extension/store';
import { wireJwk } from '../../src/extension/keys';
import { base64urlDecode, base64urlEncode } from '../../src/protocol/bridge';
import { generateSigningKeyPair, signDecision, verifyDecision, type DecisionClaims } from '../../src/protocol/decision';
import { FakeExtension, waitFor, rejection } from './harness';

/**
 * The agent SDK against the real bridge process and the real extension services (harness.ts).
 * Each test uses a fresh agent (its own config folder, so its own key): the extension keys every
 * approval by agent, so tests sharing one extension never see each other's prompts.
 */

const COMPANY = { name: 'Stormline', origin: 'https://stormline.example' };
const REQUEST = { interface: 'api' as const, method: 'POST', url: 'https://api.stormline.example/orders/ord_7Hk2/exchanges', body: { item_id: 'itm_4Qa' } };
const SESSION = { kind: 'signed_in' as const, account: 'sam@example.com' };
const FAR = '2099-10-08T12:20:00-07:00';
/** For reading the journal back the way the SDK does (its lines are the SDK's business). */
const PRIVACY = { platform: process.platform, uid: process.getuid?.() };

let seq = 0;
function operation(revision = 'rev1', overrides: Partial<OperationInput> = {}): OperationInput {
  return {
    operation_id: 'exc_5Rt2',
    revision,
    summary: 'Exchange the Stormline Jacket (M) for the Stormline Insulated Jacket (M), for **$70.00** more.',
    terms: { order_id: 'ord_7Hk2', price_difference: { amount: '70.00', currency: 'USD' } },
    expires_at: FAR,
    ...overrides,
  };
}

function ask(companion: Companion, op: OperationInput, extra: { signal?: AbortSignal } = {}): Promise<ApprovalResult> {
  return companion.requestApproval({ company: COMPANY, operation: op, request: REQUEST, session: SESSION, ...extra });
}

function codeOf(error: unknown): string | undefined {
  return isCountersignError(error) ? error.code : undefined;
}

describe('agent SDK against the real bridge and the real extension services (docs/agent-sdk.md)', () => {
  let ext: FakeExtension;
  const dirs: string[] = [];
  const open: Companion[] = [];

  beforeAll(async () => {
    ext = await FakeExtension.start();
  }, 30_000);
  afterAll(async () => {
    await ext?.dispose();
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });
  afterEach(async () => {
    ext.tamper = undefined;
    for (const c of open.splice(0)) await c.close();
  });

  async function configDir(): Promise<string> {
    const dir = path.join(await mkdtemp(path.join(os.tmpdir(), 'csa-')), 'agent');
    dirs.push(path.dirname(dir));
    return dir;
  }

  async function connect(dir?: string, extra: { ackWindowMs?: number } = {}): Promise<Companion> {
    const companion = await Companion.connect({ agentName: `Desk agent ${++seq}`, configDir: dir ?? (await configDir()), socketPath: ext.socketPath, ...extra });
    open.push(companion);
    return companion;
  }

  async function paired(dir?: string): Promise<Companion> {
    const companion = await connect(dir);
    const pairing = await companion.pair();
    const shown = await ext.pairingShown();
    expect(shown.code).toBe(pairing.code);
    await ext.sessions.answerPairing(shown.pairingId, { confirmed: true, code: pairing.code });
    await pairing.confirmed;
    return companion;
  }

  async function reconnect(companion: Companion): Promise<Companion> {
    await companion.close();
    return connect(companion.configDir);
  }

  /** Ask, wait for the prompt, answer as the person. */
  async function decided(companion: Companion, op: OperationInput, answer: 'approve' | 'decline'): Promise<ApprovalResult> {
    const result = ask(companion, op);
    const key = await ext.prompt(companion.agentKeyThumbprint, op.operation_id, op.revision);
    await ext.queue.decide(key, answer);
    return result;
  }

  // -------------------------------------------------------------------------------------------

  it('handshake: proves its key, learns the extension key; the key file is 0600 in a 0700 folder and survives a restart', async () => {
    const dir = await configDir();
    const companion = await connect(dir);
    expect(companion.connected).toBe(true);
    expect(companion.paired).toBe(false);
    expect(companion.extensionKeyThumbprint).toBe(ext.key.thumbprint);
    expect(companion.bridgeInfo?.browser).toBe('chromium');
    const hello = ext.sentBy(companion.bridgeInfo?.conn, 'hello');
    expect(hello).toHaveLength(1);
    expect(ext.sentBy(companion.bridgeInfo?.conn, 'auth')).toHaveLength(1);

    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect((await stat(path.join(dir, 'agent-key.json'))).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(await readFile(path.join(dir, 'agent-key.json'), 'utf8'));
    expect(stored.private_jwk).toMatchObject({ kty: 'OKP', crv: 'Ed25519' });
    expect(typeof stored.private_jwk.d).toBe('string');

    // One Companion per config folder: a second one would undo the first one's journal writes.
    expect(codeOf(await rejection(Companion.connect({ agentName: 'Twin', configDir: dir, socketPath: ext.socketPath })))).toBe('ERR_NOT_ALLOWED');

    const again = await reconnect(companion);
    expect(again.agentKeyThumbprint).toBe(companion.agentKeyThumbprint);
  });

  it('refuses a key file that other users can read', async () => {
    const dir = await configDir();
    await (await connect(dir)).close();
    open.length = 0;
    const { chmod } = await import('node:fs/promises');
    await chmod(path.join(dir, 'agent-key.json'), 0o644);
    expect(codeOf(await rejection(Companion.connect({ agentName: 'Desk agent', configDir: dir, socketPath: ext.socketPath })))).toBe('ERR_NOT_ALLOWED');
  });

  it('an unpaired agent gets ERR_AGENT_NOT_PAIRED and the extension keeps no pending record', async () => {
    const companion = await connect();
    // No pinned key: nothing the extension could answer would be verifiable, so it is not even asked.
    expect(codeOf(await rejection(ask(companion, operation())))).toBe('ERR_AGENT_NOT_PAIRED');
    expect(ext.sentBy(companion.bridgeInfo?.conn, 'approval_request')).toHaveLength(0);

    // With a pin the extension does not know this agent (its data was reset): the extension refuses.
    await savePinnedKey(companion.configDir, wireJwk(ext.key.publicJwk), { platform: process.platform, uid: process.getuid?.() });
    const pinned = await reconnect(companion);
    expect(pinned.paired).toBe(false);
    const error = await rejection(ask(pinned, operation()));
    expect(error).toBeInstanceOf(CompanionError);
    expect(codeOf(error)).toBe('ERR_AGENT_NOT_PAIRED');
    expect((error as CompanionError).source).toBe('extension');
    expect(ext.sentBy(pinned.bridgeInfo?.conn, 'approval_request')).toHaveLength(1);
    expect((await ext.store.all()).filter((r) => r.agent === pinned.agentKeyThumbprint)).toEqual([]);
  });

  it('pairing: both sides show the same code; confirming pins the extension key atomically (0600)', async () => {
    const companion = await connect();
    const pairing = await companion.pair();
    expect(pairing.code).toMatch(/^\d{6}$/);
    const shown = await ext.pairingShown();
    expect(shown.code).toBe(pairing.code);
    expect(shown.agentThumbprint).toBe(companion.agentKeyThumbprint);
    await ext.sessions.answerPairing(shown.pairingId, { confirmed: true, code: pairing.code });
    await pairing.confirmed;
    expect(companion.paired).toBe(true);

    const pinFile = path.join(companion.configDir, 'extension-key.json');
    expect((await stat(pinFile)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(pinFile, 'utf8')).thumbprint).toBe(ext.key.thumbprint);
    expect(await ext.store.getAgent(companion.agentKeyThumbprint)).toMatchObject({ name: expect.stringMatching(/^Desk agent/) });
    expect((await reconnect(companion)).paired).toBe(true);
  });

  it('pairing refused by the person rejects with ERR_PAIRING_FAILED and pins nothing', async () => {
    const companion = await connect();
    const pairing = await companion.pair();
    const shown = await ext.pairingShown();
    await ext.sessions.answerPairing(shown.pairingId, { confirmed: false });
    expect(codeOf(await rejection(pairing.confirmed))).toBe('ERR_PAIRING_FAILED');
    expect(companion.paired).toBe(false);
    await expect(stat(path.join(companion.configDir, 'extension-key.json'))).rejects.toThrow();
    expect(await ext.store.getAgent(companion.agentKeyThumbprint)).toBeUndefined();
  });

  it('a pinned key that differs from the extension behind the socket: ERR_KEY_INVALID before anything is signed', async () => {
    const dir = await configDir();
    const other = await generateSigningKeyPair({ extractable: false });
    await (await connect(dir)).close();
    open.length = 0;
    await savePinnedKey(dir, other.publicJwk, { platform: process.platform, uid: process.getuid?.() });
    const before = ext.fromAgents.length;
    expect(codeOf(await rejection(Companion.connect({ agentName: 'Desk agent', configDir: dir, socketPath: ext.socketPath })))).toBe('ERR_KEY_INVALID');
    await new Promise((r) => setTimeout(r, 100));
    expect(ext.fromAgents.slice(before).filter((e) => e.message.type === 'hello')).toHaveLength(0);
  });

  it('approval round trip: a real Ed25519 decision, verified for this agent, nonce, operation and Company', async () => {
    const companion = await paired();
    const op = operation();
    const result = await decided(companion, op, 'approve');
    expect(result.status).toBe('approved');
    if (result.status !== 'approved') return;
    expect(result.approval).toEqual({ operation_id: op.operation_id, revision: op.revision });
    expect(result.stored).toBe(false);
    expect(result.decision).toMatchObject({ status: 'approved', aud: companion.agentKeyThumbprint, company: COMPANY, expires_at: FAR });
    const sent = ext.sentBy(companion.bridgeInfo?.conn, 'approval_request')[0] as { nonce: string };
    expect(result.decision.nonce).toBe(sent.nonce);
    // Independently: the JWS verifies with the extension's own public key (EdDSA).
    expect(JSON.parse(new TextDecoder().decode(base64urlDecode(result.jws.split('.')[0] as string)))).toMatchObject({ alg: 'EdDSA', kid: ext.key.thumbprint });
    await verifyDecision(result.jws, { pinnedKey: ext.key.publicJwk, expected: { operation: op, company: COMPANY, audience: companion.agentKeyThumbprint, nonce: sent.nonce } });
    // Journaled (0600) for section 7 retries and for "never a second prompt".
    const journal = path.join(companion.configDir, 'decisions.json');
    expect((await stat(journal)).mode & 0o777).toBe(0o600);
    expect((await Journal.open(companion.configDir, PRIVACY)).entries()).toHaveLength(1);
  });

  it('decline: a signed decline, and asking again answers from the journal', async () => {
    const companion = await paired();
    const result = await decided(companion, operation(), 'decline');
    expect(result).toMatchObject({ status: 'declined', decision: { status: 'declined' }, stored: false });
    expect(await ask(companion, operation())).toMatchObject({ status: 'declined', stored: true });
    expect(ext.sentBy(companion.bridgeInfo?.conn, 'approval_request')).toHaveLength(1);
  });

  it('a decided revision asked again returns the stored decision without a round trip, also after a restart', async () => {
    const companion = await paired();
    const first = await decided(companion, operation(), 'approve');
    const again = await ask(companion, operation());
    expect(again).toMatchObject({ status: 'approved', stored: true });
    if (first.status !== 'approved' || again.status !== 'approved') throw new Error('expected approvals');
    expect(again.jws).toBe(first.jws);
    expect(ext.sentBy(companion.bridgeInfo?.conn, 'approval_request')).toHaveLength(1);

    const restarted = await reconnect(companion);
    expect(await ask(restarted, operation())).toMatchObject({ status: 'approved', stored: true });
    expect(ext.sentBy(restarted.bridgeInfo?.conn, 'approval_request')).toHaveLength(0);
    expect((await ext.store.auditLog()).filter((a) => a.kind === 'reissued' && a.agent === companion.agentKeyThumbprint)).toEqual([]);

    // The same revision with other terms (section 3 forbids it) never gets the old approval.
    const changed = operation('rev1', { summary: 'Exchange the jacket for $700.00 more.' });
    expect(codeOf(await rejection(ask(restarted, changed)))).toBe('ERR_DECISION_MISMATCH');
  });

  it('a decision tampered with in transit (one byte of the payload) is an error, never an approval', async () => {
    const companion = await paired();
    ext.tamper = (_conn, m) => {
      if (m.type !== 'decision' || m.jws === undefined) return [m];
      const [h, p, s] = m.jws.split('.') as [string, string, string];
      const bytes = base64urlDecode(p);
      // Flip one bit of the nonce's first character: still valid JSON and a valid claim shape.
      const text = new TextDecoder().decode(bytes);
      const at = text.indexOf('"nonce":"') + 9;
      const flipped = new TextEncoder().encode(text);
      flipped[at] = (flipped[at] as number) ^ 0x01;
      return [{ ...m, jws: `${h}.${base64urlEncode(flipped)}.${s}` }];
    };
    const error = await rejection(decided(companion, operation(), 'approve'));
    expect(codeOf(error)).toBe('ERR_DECISION_INVALID');
    // The SDK told the extension, which records it.
    await waitFor(async () => (await ext.store.auditLog()).some((a) => a.kind === 'agent-error' && a.detail?.startsWith('ERR_DECISION_INVALID')), 'the agent error in the audit log');
    // Nothing was journaled: asking again goes to the extension (which re-signs the stored approval).
    ext.tamper = undefined;
    expect(await ask(companion, operation())).toMatchObject({ status: 'approved', stored: false });
  });

  it('a decision signed with another key (a forged approval) is an error', async () => {
    const companion = await paired();
    const forger = await generateSigningKeyPair({ extractable: false });
    ext.tamper = async (_conn, m) => {
      if (m.type !== 'decision' || m.jws === undefined) return [m];
      const claims = JSON.parse(new TextDecoder().decode(base64urlDecode(m.jws.split('.')[1] as string))) as DecisionClaims;
      return [{ ...m, jws: await signDecision(claims, forger.privateKey, forger.alg, forger.thumbprint) }];
    };
    // A forged decline (the person's real answer replaced) and a forged approval: both refused.
    expect(codeOf(await rejection(decided(companion, operation(), 'decline')))).toBe('ERR_DECISION_INVALID');
    expect(codeOf(await rejection(decided(companion, operation('rev2'), 'approve')))).toBe('ERR_DECISION_INVALID');
  });

  it('a relay that turns a signed decline into "approved" is a mismatch, not an approval', async () => {
    const companion = await paired();
    ext.tamper = (_conn, m) => [m.type === 'decision' && m.status === 'declined' ? { ...m, status: 'approved' } : m];
    expect(codeOf(await rejection(decided(companion, operation(), 'decline')))).toBe('ERR_DECISION_MISMATCH');
  });

  it('a decision replayed onto a later request is refused; a duplicated decision message is ignored', async () => {
    const companion = await paired();
    let captured: string | undefined;
    const protocolErrors: string[] = [];
    companion.on('protocolError', (e) => protocolErrors.push(e.message));
    ext.tamper = (_conn, m) => {
      if (m.type !== 'decision' || m.jws === undefined) return [m];
      if (captured === undefined) {
        captured = m.jws;
        return [m, m]; // delivered twice
      }
      return [{ ...m, jws: captured }]; // the old approval, replayed
    };
    const first = await decided(companion, operation('rev1', { operation_id: 'exc_A' }), 'approve');
    expect(first.status).toBe('approved');
    await waitFor(() => protocolErrors.some((m) => m.includes('unexpected decision')), 'the duplicate to be reported');
    // A new request carries a fresh nonce: the replayed decision names another nonce and operation.
    expect(codeOf(await rejection(decided(companion, operation('rev1', { operation_id: 'exc_B' }), 'approve')))).toBe('ERR_DECISION_MISMATCH');
  });

  it('expired: the extension expires the prompt; an operation already expired is not even asked about', async () => {
    const companion = await paired();
    const soon = operation('rev1', { operation_id: 'exc_soon', expires_at: new Date(Date.now() + 1500).toISOString() });
    const result = ask(companion, soon);
    await ext.prompt(companion.agentKeyThumbprint, 'exc_soon', 'rev1');
    await new Promise((r) => setTimeout(r, 1700));
    await ext.queue.expireDue();
    expect(await result).toEqual({ status: 'expired' });

    const past = operation('rev1', { operation_id: 'exc_past', expires_at: '2020-01-01T00:00:00Z' });
    expect(await ask(companion, past)).toEqual({ status: 'expired' });
    expect(ext.sentBy(companion.bridgeInfo?.conn, 'approval_request')).toHaveLength(1);
  });

  it('superseded: a new revision replaces the pending one, which resolves "superseded"', async () => {
    const companion = await paired();
    const first = ask(companion, operation('rev1'));
    await ext.prompt(companion.agentKeyThumbprint, 'exc_5Rt2', 'rev1');
    const second = ask(companion, operation('rev2'));
    expect(await first).toEqual({ status: 'superseded' });
    const key = await ext.prompt(companion.agentKeyThumbprint, 'exc_5Rt2', 'rev2');
    await ext.queue.decide(key, 'approve');
    expect(await second).toMatchObject({ status: 'approved', approval: { revision: 'rev2' } });
  });

  it('withdrawn before it was sent: surfaced as an event and isWithdrawn; markSent resolves false and sends nothing', async () => {
    const companion = await paired();
    const withdrawn = new Promise((resolve) => companion.once('withdrawn', resolve));
    const result = await decided(companion, operation(), 'approve');
    expect(result.status).toBe('approved');
    await ext.queue.withdraw(approvalKey(companion.agentKeyThumbprint, COMPANY.origin, 'exc_5Rt2', 'rev1'));
    expect(await withdrawn).toEqual({ operation_id: 'exc_5Rt2', revision: 'rev1' });
    expect(companion.isWithdrawn('exc_5Rt2', 'rev1')).toBe(true);
    expect(await companion.markSent({ operation_id: 'exc_5Rt2', revision: 'rev1' })).toBe(false);
    expect(ext.sentBy(companion.bridgeInfo?.conn, 'approval_sent')).toHaveLength(0);
    // Remembered: asking again does not bring the approval back, even after a restart.
    expect(await ask(companion, operation())).toEqual({ status: 'withdrawn' });
    const restarted = await reconnect(companion);
    expect(restarted.isWithdrawn('exc_5Rt2', 'rev1')).toBe(true);
  });

  it('withdrawn while the message was lost: the extension refuses approval_sent, markSent resolves false', async () => {
    const companion = await paired();
    const result = await decided(companion, operation(), 'approve');
    expect(result.status).toBe('approved');
    ext.tamper = (_conn, m) => (m.type === 'withdrawn' ? [] : [m]);
    await ext.queue.withdraw(approvalKey(companion.agentKeyThumbprint, COMPANY.origin, 'exc_5Rt2', 'rev1'));
    expect(companion.isWithdrawn('exc_5Rt2', 'rev1')).toBe(false);
    expect(await companion.markSent({ operation_id: 'exc_5Rt2', revision: 'rev1' })).toBe(false);
    expect(companion.isWithdrawn('exc_5Rt2', 'rev1')).toBe(true);
  });

  it('markSent then reportOutcome: the extension records sent and performed; markSent is idempotent for retries', async () => {
    const companion = await paired();
    await decided(companion, operation(), 'approve');
    const approval = { operation_id: 'exc_5Rt2', revision: 'rev1' };
    expect(await companion.markSent(approval)).toBe(true);
    expect((await ext.record(companion.agentKeyThumbprint, 'exc_5Rt2', 'rev1'))?.state).toBe('sent');
    expect(await companion.markSent(approval)).toBe(true);
    expect(ext.sentBy(companion.bridgeInfo?.conn, 'approval_sent')).toHaveLength(1);
    expect(await companion.reportOutcome({ ...approval, outcome: 'performed', detail: 'exchange ex_91 created' })).toBe(true);
    expect(await ext.record(companion.agentKeyThumbprint, 'exc_5Rt2', 'rev1')).toMatchObject({ state: 'performed', outcomeDetail: 'exchange ex_91 created' });
    // A report the extension refuses (nothing approved there) is a typed error.
    expect(codeOf(await rejection(companion.reportOutcome({ operation_id: 'exc_none', revision: 'rev1', outcome: 'failed' })))).toBe('ERR_ARGUMENT_INVALID');
    // markSent only for approvals this SDK verified.
    expect(codeOf(await rejection(companion.markSent({ operation_id: 'exc_none', revision: 'rev1' })))).toBe('ERR_ARGUMENT_INVALID');
  });

  it('section 7: no new revision while an approved one has no known outcome; reporting it unblocks', async () => {
    const companion = await paired();
    await decided(companion, operation('rev1'), 'approve');
    expect(codeOf(await rejection(ask(companion, operation('rev2'))))).toBe('ERR_OUTCOME_PENDING');
    await companion.reportOutcome({ operation_id: 'exc_5Rt2', revision: 'rev1', outcome: 'unknown' });
    expect(codeOf(await rejection(ask(companion, operation('rev2'))))).toBe('ERR_OUTCOME_PENDING');
    await companion.reportOutcome({ operation_id: 'exc_5Rt2', revision: 'rev1', outcome: 'new_revision' });
    expect(await decided(companion, operation('rev2'), 'approve')).toMatchObject({ status: 'approved', approval: { revision: 'rev2' } });
  });

  it('aborting sends approval_cancel: the prompt is cancelled in the extension, the cancel is acknowledged, and the call rejects with the reason', async () => {
    const companion = await paired();
    const controller = new AbortController();
    const result = ask(companion, operation(), { signal: controller.signal });
    const key = await ext.prompt(companion.agentKeyThumbprint, 'exc_5Rt2', 'rev1');
    controller.abort(new Error('the user closed the chat'));
    expect(((await rejection(result)) as Error).message).toBe('the user closed the chat');
    await waitFor(async () => (await ext.store.get(key))?.state === 'cancelled', 'the prompt to be cancelled');
    expect(ext.sentBy(companion.bridgeInfo?.conn, 'approval_cancel')).toHaveLength(1);
  });

  it('malformed messages from the extension side are stopped by the real bridge; the real decision still counts', async () => {
    const companion = await paired();
    const errors: string[] = [];
    companion.on('protocolError', (e) => errors.push(e.code));
    const bridgeErrorsBefore = ext.bridgeErrors.length;
    ext.tamper = (_conn, m) => {
      if (m.type !== 'decision') return [m];
      return [{ type: 'decision', v: 2, id: m.id, status: 'approved' }, { type: 'withdrawn', v: 2, operation_id: 'exc 5Rt2', revision: 'rev1' }, m];
    };
    expect(await decided(companion, operation(), 'approve')).toMatchObject({ status: 'approved' });
    // Two layers: the bridge refused both (test/agent/direct.test.ts shows the SDK refusing them too).
    await waitFor(() => ext.bridgeErrors.length >= bridgeErrorsBefore + 2, 'the bridge to refuse the relays');
    expect(errors).toEqual([]);
    expect(companion.isWithdrawn('exc_5Rt2', 'rev1')).toBe(false);
  });

  it('revoked in the extension: ERR_AGENT_REVOKED', async () => {
    const companion = await paired();
    const agent = await ext.store.getAgent(companion.agentKeyThumbprint);
    await ext.store.putAgent({ ...agent!, revokedAt: Date.now() });
    const again = await reconnect(companion);
    expect(again.paired).toBe(false);
    expect(codeOf(await rejection(ask(again, operation())))).toBe('ERR_AGENT_REVOKED');
  });

  it('finds the socket of its pinned extension without socketPath', async () => {
    const companion = await paired();
    await companion.close();
    const found = await Companion.connect({ agentName: 'Desk agent', configDir: companion.configDir, env: { ...process.env, XDG_RUNTIME_DIR: ext.runtimeDir, TMPDIR: ext.runtimeDir } });
    open.push(found);
    expect(found.paired).toBe(true);
    expect(found.extensionKeyThumbprint).toBe(ext.key.thumbprint);
  });

  it('outcomes that could not be delivered are journaled and delivered on the next connection', async () => {
    const companion = await paired();
    await decided(companion, operation(), 'approve');
    expect(await companion.markSent({ operation_id: 'exc_5Rt2', revision: 'rev1' })).toBe(true);
    const dir = companion.configDir;
    await companion.close();
    // Closed: nothing can be delivered, but the outcome is kept.
    expect(await companion.reportOutcome({ operation_id: 'exc_5Rt2', revision: 'rev1', outcome: 'failed', detail: 'HTTP 500' })).toBe(false);
    const journal = await Journal.open(dir, PRIVACY);
    expect(journal.get('exc_5Rt2', 'rev1')).toMatchObject({ outcome: 'failed', outcome_reported: false });
    await connect(dir);
    await waitFor(async () => (await ext.record(companion.agentKeyThumbprint, 'exc_5Rt2', 'rev1'))?.state === 'failed', 'the outcome to arrive');
  });
});

describe('when the extension side goes away (agents are told "companion unavailable", docs/agent-sdk.md)', () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const f of cleanup.splice(0).reverse()) await f();
  });

  async function setup(): Promise<{ ext: FakeExtension; companion: Companion }> {
    const ext = await FakeExtension.start();
    const dir = path.join(await mkdtemp(path.join(os.tmpdir(), 'csa-')), 'agent');
    cleanup.push(async () => {
      await ext.dispose();
      await rm(path.dirname(dir), { recursive: true, force: true });
    });
    const companion = await Companion.connect({ agentName: 'Desk agent', configDir: dir, socketPath: ext.socketPath });
    cleanup.push(() => companion.close());
    await ext.pairConfirmed(companion);
    return { ext, companion };
  }

  it('the browser closes the port: a pending request resolves "unavailable", and so do later ones', async () => {
    const { ext, companion } = await setup();
    const gone = new Promise<Error>((resolve) => companion.once('unavailable', resolve));
    const result = ask(companion, operation());
    await ext.prompt(companion.agentKeyThumbprint, 'exc_5Rt2', 'rev1');
    expect(await ext.stop()).toBe(0);
    expect(await result).toEqual({ status: 'unavailable' });
    expect(codeOf(await gone)).toBe('ERR_COMPANION_UNAVAILABLE');
    expect(companion.connected).toBe(false);
    expect(await ask(companion, operation('rev9', { operation_id: 'exc_other' }))).toEqual({ status: 'unavailable' });
  }, 30_000);

  it('the bridge dies without a word: the closed socket means "unavailable"', async () => {
    const { ext, companion } = await setup();
    const result = ask(companion, operation());
    await ext.prompt(companion.agentKeyThumbprint, 'exc_5Rt2', 'rev1');
    await ext.kill();
    expect(await result).toEqual({ status: 'unavailable' });
    expect(companion.connected).toBe(false);
    expect(await ask(companion, operation('rev2'))).toEqual({ status: 'unavailable' });
  }, 30_000);
});
