import { mkdir, mkdtemp, rm, stat, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Companion, isCountersignError, type ApprovalResult, type OperationInput } from '../../src/agent';
import { savePinnedKey } from '../../src/agent/keys';
import { wireJwk } from '../../src/extension/keys';
import { generateSigningKeyPair } from '../../src/protocol/decision';
import { DirectExtension, rejection } from './harness';

/**
 * The SDK's own validation (every inbound message is validated with the bridge.ts
 * schemas; bad input is a typed error and changes nothing). The real bridge would already drop
 * most of this, so here the extension services sit behind a socket with no bridge checks
 * (harness.ts DirectExtension): whatever the test hands it reaches the SDK as a frame.
 */

const COMPANY = { name: 'Stormline', origin: 'https://stormline.example' };
const REQUEST = { interface: 'mcp' as const, tool: 'exchange_item', arguments: { order_id: 'ord_7Hk2', item_id: 'itm_4Qa' } };
const SESSION = { kind: 'this_session' as const };

function operation(revision = 'rev1'): OperationInput {
  return { operation_id: 'exc_5Rt2', revision, summary: 'Exchange the jacket for $70.00 more.', expires_at: '2099-10-08T12:20:00-07:00' };
}

function ask(companion: Companion, op: OperationInput): Promise<ApprovalResult> {
  return companion.requestApproval({ company: COMPANY, operation: op, request: REQUEST, session: SESSION });
}

const codeOf = (error: unknown) => (isCountersignError(error) ? error.code : undefined);
const ctx = () => ({ platform: process.platform, uid: process.getuid?.() });

describe('agent SDK validation of what arrives on its socket (no bridge in between)', () => {
  let ext: DirectExtension;
  const dirs: string[] = [];
  const open: Companion[] = [];

  beforeAll(async () => {
    ext = await DirectExtension.start();
  });
  afterAll(async () => {
    await ext.dispose();
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });
  afterEach(async () => {
    ext.tamper = undefined;
    ext.bridgeInfo = undefined;
    for (const c of open.splice(0)) await c.close();
  });

  let seq = 0;

  async function configDir(): Promise<string> {
    const dir = path.join(await mkdtemp(path.join(os.tmpdir(), 'csa-')), 'agent');
    dirs.push(path.dirname(dir));
    await mkdir(dir, { mode: 0o700 });
    return dir;
  }

  async function connect(dir?: string): Promise<Companion> {
    const companion = await Companion.connect({ agentName: `Desk agent ${++seq}`, configDir: dir ?? (await configDir()), socketPath: ext.socketPath, timeoutMs: 3000 });
    open.push(companion);
    return companion;
  }

  async function paired(): Promise<Companion> {
    return ext.pairConfirmed(await connect());
  }

  it('malformed, foreign-version and unanswerable messages are reported, change nothing, and the real decision still counts', async () => {
    const companion = await paired();
    const errors: string[] = [];
    companion.on('protocolError', (e) => errors.push(e.code));
    const conn = ext.conns.at(-1) as string;
    ext.tamper = (_conn, m) => {
      if (m.type !== 'decision') return [m];
      ext.deliverBytes(conn, new Uint8Array([0xff, 0xfe, 0x7b])); // not UTF-8
      ext.deliverBytes(conn, new TextEncoder().encode('{"type":')); // not JSON
      return [
        { type: 'decision', v: 2, id: m.id, status: 'approved' }, // approved without a jws
        { type: 'decision', v: 3, id: m.id, status: 'declined' }, // another major version
        { type: 'decision', v: 2, id: 'nobody_asked', status: 'expired' }, // answers nothing we asked
        { type: 'withdrawn', v: 2, operation_id: 'exc 5Rt2', revision: 'rev1' }, // not an id
        { type: 'welcome', v: 2, id: 'hello_again', paired: false, extension_key: wireJwk(ext.key.publicJwk) }, // out of turn
        { type: 'unheard_of', v: 2 },
        'not even an object',
        { type: 'error', v: 2, code: 'ERR_SOMETHING_NEW', message: 'a code from a later version' },
        m,
      ];
    };
    const result = ask(companion, operation());
    const key = await ext.prompt(companion.agentKeyThumbprint, 'exc_5Rt2', 'rev1');
    await ext.queue.decide(key, 'approve');
    expect(await result).toMatchObject({ status: 'approved' });
    expect(errors).toEqual([
      'ERR_FRAME_INVALID',
      'ERR_FRAME_INVALID',
      'ERR_BRIDGE_MESSAGE_INVALID',
      'ERR_PROTOCOL_VERSION',
      'ERR_BRIDGE_MESSAGE_INVALID',
      'ERR_BRIDGE_MESSAGE_INVALID',
      'ERR_BRIDGE_MESSAGE_INVALID',
      'ERR_BRIDGE_MESSAGE_INVALID',
      'ERR_BRIDGE_MESSAGE_INVALID',
      // An unknown code is kept (remoteCode) and typed as the other side's error.
      'ERR_REMOTE',
    ]);
    expect(companion.isWithdrawn('exc_5Rt2', 'rev1')).toBe(false);
    expect(companion.paired).toBe(true);
    expect(companion.connected).toBe(true);
  });

  it('an error answering the request rejects it with the extension\'s code, typed', async () => {
    const companion = await paired();
    ext.tamper = (_conn, m) => (m.type === 'decision' ? [{ type: 'error', v: 2, id: m.id, code: 'ERR_THROTTLED', message: 'too many', source: 'extension' }] : [m]);
    const result = ask(companion, operation());
    const key = await ext.prompt(companion.agentKeyThumbprint, 'exc_5Rt2', 'rev1');
    await ext.queue.decide(key, 'approve');
    const error = await rejection(result);
    expect(codeOf(error)).toBe('ERR_THROTTLED');
  });

  it('an oversized frame ends the connection: pending requests resolve "unavailable"', async () => {
    const companion = await paired();
    const result = ask(companion, operation());
    await ext.prompt(companion.agentKeyThumbprint, 'exc_5Rt2', 'rev1');
    const conn = ext.conns.at(-1) as string;
    // Only a length: 1 MiB + 1 announced, refused before any of it is read. After a length it
    // will not honour, the next frame boundary is unknown, so the connection is over.
    const length = new Uint8Array(4);
    new DataView(length.buffer).setUint32(0, 1024 * 1024 + 1, false);
    ext.writeRaw(conn, length);
    expect(await result).toEqual({ status: 'unavailable' });
    expect(companion.connected).toBe(false);
  });

  it('a welcome carrying another key than the one the bridge named: ERR_KEY_INVALID', async () => {
    const other = await generateSigningKeyPair({ extractable: false });
    ext.tamper = (_conn, m) => [m.type === 'welcome' ? { ...m, extension_key: other.publicJwk } : m];
    expect(codeOf(await rejection(connect()))).toBe('ERR_KEY_INVALID');
  });

  it('a bridge that names another extension than the pinned one: ERR_KEY_INVALID, no hello sent', async () => {
    const dir = await configDir();
    await savePinnedKey(dir, wireJwk(ext.key.publicJwk), ctx());
    const other = await generateSigningKeyPair({ extractable: false });
    ext.bridgeInfo = (info) => ({ ...info, extension_key_thumbprint: other.thumbprint });
    const before = ext.sentBy(undefined, 'hello').length;
    expect(codeOf(await rejection(connect(dir)))).toBe('ERR_KEY_INVALID');
    await new Promise((r) => setTimeout(r, 50));
    expect(ext.sentBy(undefined, 'hello')).toHaveLength(before);
  });

  it('a bridge that lies to match the pin cannot get past the extension: the proof is bound to the real key (ERR_AUTH_FAILED)', async () => {
    const dir = await configDir();
    const other = await generateSigningKeyPair({ extractable: false });
    await savePinnedKey(dir, other.publicJwk, ctx());
    // A socket named after the pinned key (a link to the real one), and a bridge_info to match.
    const alias = path.join(ext.runtimeDir, `${other.thumbprint}.sock`);
    await symlink(ext.socketPath, alias);
    ext.bridgeInfo = (info) => ({ ...info, extension_key_thumbprint: other.thumbprint });
    const companion = Companion.connect({ agentName: 'Desk agent', configDir: dir, socketPath: alias, timeoutMs: 3000 });
    expect(codeOf(await rejection(companion))).toBe('ERR_AUTH_FAILED');
  });

  it('a pair_offer with a key other than the welcomed one: ERR_KEY_INVALID; the nonce is not revealed and nothing is pinned', async () => {
    const companion = await connect();
    const other = await generateSigningKeyPair({ extractable: false });
    ext.tamper = (_conn, m) => [m.type === 'pair_offer' ? { ...m, extension_key: other.publicJwk } : m];
    expect(codeOf(await rejection(companion.pair()))).toBe('ERR_KEY_INVALID');
    expect(ext.sentBy(companion.bridgeInfo?.conn, 'pair_reveal')).toHaveLength(0);
    await expect(stat(path.join(companion.configDir, 'extension-key.json'))).rejects.toThrow();
  });

  it('a "withdrawn" for a revision already marked sent is ignored (section 5 allows withdrawing only before)', async () => {
    const companion = await paired();
    const result = ask(companion, operation());
    const key = await ext.prompt(companion.agentKeyThumbprint, 'exc_5Rt2', 'rev1');
    await ext.queue.decide(key, 'approve');
    expect((await result).status).toBe('approved');
    expect(await companion.markSent({ operation_id: 'exc_5Rt2', revision: 'rev1' })).toBe(true);
    const events: unknown[] = [];
    companion.on('withdrawn', (a) => events.push(a));
    ext.inject(companion.bridgeInfo?.conn as string, { type: 'withdrawn', v: 2, operation_id: 'exc_5Rt2', revision: 'rev1' });
    await new Promise((r) => setTimeout(r, 100));
    expect(events).toEqual([]);
    expect(companion.isWithdrawn('exc_5Rt2', 'rev1')).toBe(false);
  });
});
