import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PasskeyPin, PASSKEY_FILE } from '../../src/agent/passkey-pin';
import { generateSigningKeyPair } from '../../src/protocol/decision';
import { CountersignError } from '../../src/protocol/errors';
import { passkeyChallenge, type PasskeyCredential } from '../../src/protocol/passkey';
import { softwarePasskey } from '../protocol/software-passkey';
import { signPasskeyAnnouncement, verifyPasskeyAnnouncement } from '../../src/protocol/passkey-announcement';

/**
 * The agent's side of passkey-verified approvals: announcements accepted only under the pinned
 * extension key and never older than the last, and assertions verified over exactly the decision's
 * claims with the pinned passkey, its counter going only forward. A software Ed25519 authenticator
 * written here stands in for the person's device.
 */

const AGENT = 'A'.repeat(43);
const dirs: string[] = [];
const ctx = { platform: process.platform, uid: process.getuid?.() };

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'countersign-passkey-'));
  dirs.push(dir);
  return dir;
}

const device = softwarePasskey;

async function extension() {
  const pair = await generateSigningKeyPair({ extractable: false });
  const key = { privateKey: pair.privateKey, alg: pair.alg, kid: pair.thumbprint };
  return {
    publicJwk: pair.publicJwk,
    announce: (passkey: PasskeyCredential | null, now: number, agent = AGENT, userVerification?: 'required') => signPasskeyAnnouncement({ agent, passkey, now, userVerification }, key),
  };
}

const CLAIMS = { v: 1, status: 'approved', operation_id: 'exc_5Rt2', revision: '1791487200-k3Jd9Qx2mW8v', aud: AGENT, nonce: 'n'.repeat(43), iat: 1_791_480_000, expires_at: '2026-10-08T19:20:00Z' };

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(CountersignError);
    return `${(error as CountersignError).code}: ${(error as Error).message}`;
  }
  throw new Error('expected a refusal');
}

describe('the passkey announcement (docs/bridge-protocol.md, "The passkey announcement")', () => {
  it('verifies under the pinned extension key only, for this agent only, and never an older one', async () => {
    const ext = await extension();
    const other = await extension();
    const { credential } = await device();
    const jws = await ext.announce(credential, 2_000);
    expect(await verifyPasskeyAnnouncement(jws, { pinnedKey: ext.publicJwk, agent: AGENT })).toMatchObject({ kind: 'passkey', aud: AGENT, iat: 2_000, passkey: credential });
    expect(await codeOf(verifyPasskeyAnnouncement(jws, { pinnedKey: other.publicJwk, agent: AGENT }))).toMatch(/^ERR_DECISION_INVALID: announcement/);
    expect(await codeOf(verifyPasskeyAnnouncement(await ext.announce(credential, 2_000, `${'C'.repeat(42)}A`), { pinnedKey: ext.publicJwk, agent: AGENT }))).toMatch(/^ERR_DECISION_MISMATCH: announcement\.aud/);
    expect(await codeOf(verifyPasskeyAnnouncement(jws, { pinnedKey: ext.publicJwk, agent: AGENT, after: 2_000 }))).toMatch(/^ERR_DECISION_REPLAYED: announcement\.iat/);
  });
});

describe('PasskeyPin (the agent SDK)', () => {
  it('pins an announced passkey in passkey.json, ignores the same announcement again, and takes a removal', async () => {
    const dir = tempDir();
    const ext = await extension();
    const { credential } = await device();
    const pin = await PasskeyPin.load(dir, ctx);
    expect(pin.current).toBeUndefined();
    const first = await ext.announce(credential, 1_000);
    expect(await pin.accept(first, ext.publicJwk, AGENT)).toEqual({ passkey: true, required: false });
    expect(await pin.accept(first, ext.publicJwk, AGENT)).toEqual({ passkey: false, required: false });
    expect(JSON.parse(readFileSync(path.join(dir, PASSKEY_FILE), 'utf8'))).toMatchObject({ v: 1, kind: 'countersign-passkey', iat: 1_000, passkey: credential, sign_count: 0 });
    expect((await PasskeyPin.load(dir, ctx)).current?.passkey).toEqual(credential);
    expect(await pin.accept(await ext.announce(null, 3_000), ext.publicJwk, AGENT)).toEqual({ passkey: true, required: false });
    expect(pin.current?.passkey).toBeNull();
    // The older announcement, replayed by whatever sits between, cannot bring the passkey back.
    expect(await codeOf(pin.accept(first, ext.publicJwk, AGENT))).toMatch(/^ERR_DECISION_REPLAYED/);
    expect(pin.current?.passkey).toBeNull();
  });

  it('pins whether the person requires the passkey for every approval of this agent, and when they stop (signed, newer only)', async () => {
    const dir = tempDir();
    const ext = await extension();
    const { credential } = await device();
    const pin = await PasskeyPin.load(dir, ctx);
    const on = await ext.announce(credential, 1_000, AGENT, 'required');
    expect(await pin.accept(on, ext.publicJwk, AGENT)).toEqual({ passkey: true, required: true });
    expect(pin.current?.required).toBe(true);
    expect(JSON.parse(readFileSync(path.join(dir, PASSKEY_FILE), 'utf8'))).toMatchObject({ required: true });
    expect((await PasskeyPin.load(dir, ctx)).current?.required).toBe(true);
    expect(await pin.accept(await ext.announce(credential, 2_000), ext.publicJwk, AGENT)).toEqual({ passkey: false, required: true });
    expect(pin.current).toMatchObject({ passkey: credential, required: false });
    // The announcement that said "required", replayed, cannot stand in for the newer one.
    expect(await codeOf(pin.accept(on, ext.publicJwk, AGENT))).toMatch(/^ERR_DECISION_REPLAYED/);
    expect(pin.current?.required).toBe(false);
  });

  it('verifies an assertion over exactly these claims, with the pinned passkey, its counter only going forward', async () => {
    const dir = tempDir();
    const ext = await extension();
    const person = await device();
    const pin = await PasskeyPin.load(dir, ctx);
    expect(await codeOf(pin.verify(CLAIMS, await person.assert(await passkeyChallenge(CLAIMS))))).toMatch(/^ERR_PASSKEY_INVALID: passkey: the person has no passkey/);
    await pin.accept(await ext.announce(person.credential, 1_000), ext.publicJwk, AGENT);
    const good = await person.assert(await passkeyChallenge(CLAIMS), { count: 5 });
    await pin.verify(CLAIMS, good);
    expect(pin.current?.signCount).toBe(5);
    // The same assertion again: its counter did not move forward (a replay, or a cloned authenticator).
    expect(await codeOf(pin.verify(CLAIMS, good))).toMatch(/^ERR_PASSKEY_INVALID/);
    // Another decision's claims (another nonce): the challenge differs.
    const other = { ...CLAIMS, nonce: 'm'.repeat(43) };
    expect(await codeOf(pin.verify(other, await person.assert(await passkeyChallenge(CLAIMS))))).toMatch(/^ERR_PASSKEY_INVALID: .*challenge/);
    // User presence without verification (UV cleared): refused.
    expect(await codeOf(pin.verify(CLAIMS, await person.assert(await passkeyChallenge(CLAIMS), { flags: 0x01 })))).toMatch(/^ERR_PASSKEY_INVALID: .*UV/);
    // No assertion at all.
    expect(await codeOf(pin.verify(CLAIMS, undefined))).toMatch(/^ERR_PASSKEY_INVALID: decision\.passkey_assertion/);
    // A replaced passkey: the old device's assertions no longer verify.
    const replacement = await device();
    await pin.accept(await ext.announce(replacement.credential, 2_000), ext.publicJwk, AGENT);
    expect(pin.current?.signCount).toBe(0);
    expect(await codeOf(pin.verify(CLAIMS, await person.assert(await passkeyChallenge(CLAIMS))))).toMatch(/^ERR_PASSKEY_INVALID/);
    await pin.verify(CLAIMS, await replacement.assert(await passkeyChallenge(CLAIMS)));
    expect(pin.current?.signCount).toBe(1);
  });
});
