import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Companion, defaultConfigDir, findAgentSocket, isCountersignError, listAgentSockets, thumbprintOfSocketPath } from '../../src/agent';
import { lockConfigDir, writePrivateFileAtomic } from '../../src/agent/files';
import { Journal } from '../../src/agent/journal';
import { loadOrCreateAgentKey, loadPinnedKey, savePinnedKey } from '../../src/agent/keys';
import { randomNonce } from '../../src/protocol/bridge';
import { generateSigningKeyPair, signDecision, verifyDecision, digestSummary } from '../../src/protocol/decision';
import { T1, T2, T3, discoverySteps, type DiscoverySteps } from './discovery-steps';
import { rejection } from './harness';

/** The SDK's local parts: where files go, how they are written and read back, and socket discovery. */

const uid = process.getuid?.() ?? 0;
const ctx = { platform: process.platform, uid };
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

async function tempDir(prefix = 'csl-'): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

const codeOf = (error: unknown) => (isCountersignError(error) ? error.code : undefined);

describe('defaultConfigDir (per OS)', () => {
  it.each([
    ['linux', { XDG_CONFIG_HOME: '/home/sam/.cfg' }, '/home/sam', '/home/sam/.cfg/countersign-agent'],
    ['linux', {}, '/home/sam', '/home/sam/.config/countersign-agent'],
    // XDG Base Directory: a relative value is invalid and ignored.
    ['linux', { XDG_CONFIG_HOME: 'relative/cfg' }, '/home/sam', '/home/sam/.config/countersign-agent'],
    ['darwin', {}, '/Users/sam', '/Users/sam/Library/Application Support/countersign-agent'],
    ['darwin', { XDG_CONFIG_HOME: '/Users/sam/.config' }, '/Users/sam', '/Users/sam/.config/countersign-agent'],
    ['freebsd', {}, '/home/sam', '/home/sam/.config/countersign-agent'],
    ['win32', { APPDATA: 'C:\\Users\\sam\\AppData\\Roaming' }, 'C:\\Users\\sam', 'C:\\Users\\sam\\AppData\\Roaming\\countersign-agent'],
    ['win32', {}, 'C:\\Users\\sam', 'C:\\Users\\sam\\AppData\\Roaming\\countersign-agent'],
  ])('%s %j', (platform, env, homedir, expected) => {
    expect(defaultConfigDir({ platform, env, homedir })).toBe(expected);
  });
});

/**
 * Whether this machine gives a process an empty /tmp of its own (Linux: a user and a mount
 * namespace, as unprivileged users may make them on most distributions), and this checkout is not
 * under /tmp itself.
 */
function privateTmp(): boolean {
  if (process.platform !== 'linux') return false;
  // A checkout under /tmp (a CI clone) would be hidden by the empty /tmp, its own test script too.
  if (path.resolve(import.meta.dirname).startsWith('/tmp/')) return false;
  return spawnSync('unshare', ['--user', '--map-root-user', '--mount', 'sh', '-c', 'mount -t tmpfs tmpfs /tmp'], { stdio: 'ignore' }).status === 0;
}

/**
 * discovery-steps.ts's steps where no bridge running on this machine can add a socket: in a
 * private /tmp when the machine can give one, else here when /tmp/countersign-<uid> holds no
 * socket; else the reason they cannot run without counting that bridge's socket.
 */
async function stepsAlone(): Promise<DiscoverySteps | string> {
  if (privateTmp()) {
    const tsx = path.join(import.meta.dirname, '..', '..', 'node_modules', 'tsx', 'dist', 'cli.mjs');
    const script = path.join(import.meta.dirname, 'discovery-steps.ts');
    const run = spawnSync('unshare', ['--user', '--map-root-user', '--mount', 'sh', '-c', 'mount -t tmpfs tmpfs /tmp && exec "$@"', 'sh', process.execPath, tsx, script], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`discovery-steps.ts in a private /tmp failed: ${run.stderr}`);
    return JSON.parse(run.stdout) as DiscoverySteps;
  }
  const shared = `/tmp/countersign-${uid}`;
  if (!(existsSync(shared) && readdirSync(shared).some((n) => n.endsWith('.sock')))) return discoverySteps();
  return `a bridge of this user listens in ${shared}, a folder every agent searches, and this machine gives no process a /tmp of its own (unshare --user --mount): the socket counts would include that bridge's`;
}

describe('socket discovery', () => {
  const steps = stepsAlone();

  async function listen(file: string): Promise<void> {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(file, resolve));
    cleanup.push(() => new Promise((resolve) => server.close(() => resolve())));
  }

  async function runtime(): Promise<{ env: Record<string, string>; folder: string }> {
    const root = await tempDir('csd-');
    const folder = path.join(root, 'countersign');
    await mkdir(folder, { mode: 0o700 });
    return { env: { XDG_RUNTIME_DIR: root, TMPDIR: root }, folder };
  }

  it('a pinned agent finds its extension\'s socket among several, and only that one', async () => {
    const { env, folder } = await runtime();
    await listen(path.join(folder, `${T1}.sock`));
    await listen(path.join(folder, `${T2}.sock`));
    await writeFile(path.join(folder, `${'C'.repeat(42)}A.sock`), 'a file, not a socket');
    await writeFile(path.join(folder, 'notes.txt'), '');
    const input = { platform: 'linux', env, uid, username: 'sam' };
    expect(await findAgentSocket({ ...input, pinnedThumbprint: T2 })).toEqual({ thumbprint: T2, paths: [path.join(folder, `${T2}.sock`)] });
    expect(codeOf(await rejection(findAgentSocket({ ...input, pinnedThumbprint: T3 })))).toBe('ERR_COMPANION_UNAVAILABLE');
  });

  it('an unpaired agent uses the one socket there is, and asks which when there are several; a pinned one says how many others run', async (test) => {
    const found = await steps;
    if (typeof found === 'string') return test.skip(found);
    expect(found.none).toMatchObject({ code: 'ERR_COMPANION_UNAVAILABLE' });
    expect(found.one).toEqual({ thumbprint: T1 });
    expect(found.several).toMatchObject({ code: 'ERR_ARGUMENT_INVALID', message: expect.stringContaining('socketPath') as unknown });
    expect(found.pinned).toEqual({ thumbprint: T2 });
    expect(found.pinnedMissing).toMatchObject({ code: 'ERR_COMPANION_UNAVAILABLE', message: expect.stringContaining('2 other Countersign extensions are running') as unknown });
  });

  it('the fallback folder ($TMPDIR/countersign-<uid>) is searched when XDG_RUNTIME_DIR is absent', async () => {
    const root = await tempDir('csd-');
    const folder = path.join(root, `countersign-${uid}`);
    await mkdir(folder, { mode: 0o700 });
    await listen(path.join(folder, `${T1}.sock`));
    expect(await findAgentSocket({ platform: 'linux', env: { TMPDIR: root }, uid, username: 'sam', pinnedThumbprint: T1 })).toEqual({ thumbprint: T1, paths: [path.join(folder, `${T1}.sock`)] });
  });

  it('a folder others may use is not trusted (a socket there may not be the bridge)', async () => {
    const { env, folder } = await runtime();
    await listen(path.join(folder, `${T1}.sock`));
    for (const mode of [0o777, 0o750, 0o701]) {
      await chmod(folder, mode);
      expect((await listAgentSockets({ platform: 'linux', env, uid, username: 'sam' })).has(T1)).toBe(false);
    }
  });

  it('the thumbprint in a socket\'s name (Unix socket or Windows pipe)', () => {
    expect(thumbprintOfSocketPath(`/run/user/1000/countersign/${T1}.sock`, 'linux')).toBe(T1);
    expect(thumbprintOfSocketPath('/run/user/1000/countersign/bridge.sock', 'linux')).toBeUndefined();
    expect(thumbprintOfSocketPath(`\\\\.\\pipe\\countersign-jane_doe-${T2}`, 'win32')).toBe(T2);
    expect(thumbprintOfSocketPath(`\\\\.\\pipe\\other-${T2}`, 'win32')).toBeUndefined();
  });

  it('an explicit socketPath is checked like a discovered one, before anything connects', async () => {
    const { folder } = await runtime();
    const configDir = path.join(await tempDir(), 'agent');
    const connect = (socketPath: string) => Companion.connect({ agentName: 'Desk agent', configDir, socketPath, timeoutMs: 500 });
    // Not named after a thumbprint: the bridge_info check would have nothing to compare with.
    expect(codeOf(await rejection(connect(path.join(folder, 'bridge.sock'))))).toBe('ERR_ARGUMENT_INVALID');
    // In a folder others may use.
    await chmod(folder, 0o755);
    expect(codeOf(await rejection(connect(path.join(folder, `${T1}.sock`))))).toBe('ERR_SOCKET_DIR_UNSAFE');
    await chmod(folder, 0o700);
    // Pinned to another extension than the one the name says.
    const ext = await generateSigningKeyPair({ extractable: true });
    await savePinnedKey(configDir, ext.publicJwk, ctx);
    expect(codeOf(await rejection(connect(path.join(folder, `${T1}.sock`))))).toBe('ERR_KEY_INVALID');
    // Nothing listening there: unavailable, and the config folder is free again afterwards.
    const own = path.join(folder, `${ext.thumbprint}.sock`);
    expect(codeOf(await rejection(connect(own)))).toBe('ERR_COMPANION_UNAVAILABLE');
    expect(existsSync(path.join(configDir, 'lock'))).toBe(false);
  });
});

describe('config files', () => {
  it('atomic writes leave a 0600 file and no temporary files', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'x.json');
    await writePrivateFileAtomic(file, 'one', ctx);
    await writePrivateFileAtomic(file, 'two', ctx);
    expect(await readFile(file, 'utf8')).toBe('two');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readdir(dir)).toEqual(['x.json']);
  });

  it('one Companion per folder: a live holder is refused, a dead one\'s lock is taken over', async () => {
    const dir = await tempDir();
    const lock = await lockConfigDir(dir);
    expect(codeOf(await rejection(lockConfigDir(dir)))).toBe('ERR_NOT_ALLOWED');
    await lock.release();
    expect(existsSync(path.join(dir, 'lock'))).toBe(false);

    // Another live process (our parent) holds it.
    await writeFile(path.join(dir, 'lock'), `${process.ppid}\n`);
    expect(codeOf(await rejection(lockConfigDir(dir)))).toBe('ERR_NOT_ALLOWED');
    // A process that has exited held it.
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    await writeFile(path.join(dir, 'lock'), `${dead}\n`);
    const taken = await lockConfigDir(dir);
    expect((await readFile(path.join(dir, 'lock'), 'utf8')).trim()).toBe(String(process.pid));
    await taken.release();
  });

  it('a damaged key file is refused, not replaced', async () => {
    const dir = await tempDir();
    const key = await loadOrCreateAgentKey(dir, ctx);
    expect((await loadOrCreateAgentKey(dir, ctx)).thumbprint).toBe(key.thumbprint);
    const file = path.join(dir, 'agent-key.json');
    const stored = JSON.parse(await readFile(file, 'utf8'));
    // The private half of another key under this public half.
    const other = await generateSigningKeyPair({ extractable: true });
    stored.private_jwk.d = (await crypto.subtle.exportKey('jwk', other.privateKey)).d;
    await writePrivateFileAtomic(file, JSON.stringify(stored), ctx);
    expect(codeOf(await rejection(loadOrCreateAgentKey(dir, ctx)))).toBe('ERR_KEY_INVALID');
    await writePrivateFileAtomic(file, '{"v":1}', ctx);
    expect(codeOf(await rejection(loadOrCreateAgentKey(dir, ctx)))).toBe('ERR_KEY_INVALID');
  });

  it('a pin whose thumbprint does not match its key is refused; one with private material too', async () => {
    const dir = await tempDir();
    const ext = await generateSigningKeyPair({ extractable: true });
    expect((await savePinnedKey(dir, ext.publicJwk, ctx)).thumbprint).toBe(ext.thumbprint);
    expect((await loadPinnedKey(dir, ctx))?.thumbprint).toBe(ext.thumbprint);
    const file = path.join(dir, 'extension-key.json');
    const pin = JSON.parse(await readFile(file, 'utf8'));
    await writePrivateFileAtomic(file, JSON.stringify({ ...pin, thumbprint: 'E'.repeat(42) + 'A' }), ctx);
    expect(codeOf(await rejection(loadPinnedKey(dir, ctx)))).toBe('ERR_KEY_INVALID');
    const priv = await crypto.subtle.exportKey('jwk', ext.privateKey);
    await writePrivateFileAtomic(file, JSON.stringify({ ...pin, extension_key: { ...pin.extension_key, d: priv.d } }), ctx);
    expect(codeOf(await rejection(loadPinnedKey(dir, ctx)))).toBe('ERR_KEY_INVALID');
  });
});

describe('decision journal', () => {
  const company = { name: 'Stormline', origin: 'https://stormline.example' };
  const operation = { operation_id: 'exc_5Rt2', revision: 'rev1', summary: 'Exchange the jacket for $70.00 more.', expires_at: '2099-10-08T12:20:00-07:00' };

  it('seen nonces survive a restart: the same decision is not accepted twice (ERR_DECISION_REPLAYED)', async () => {
    const dir = await tempDir();
    const ext = await generateSigningKeyPair({ extractable: false });
    const agent = await generateSigningKeyPair({ extractable: false });
    const nonce = randomNonce();
    const jws = await signDecision(
      {
        v: 1,
        status: 'approved',
        operation_id: operation.operation_id,
        revision: operation.revision,
        summary_sha256: await digestSummary(operation.summary),
        terms_sha256: null,
        company,
        aud: agent.thumbprint,
        nonce,
        iat: Math.floor(Date.now() / 1000),
        expires_at: operation.expires_at,
      },
      ext.privateKey,
      ext.alg,
      ext.thumbprint,
    );
    const verify = (journal: Journal) =>
      verifyDecision(jws, { pinnedKey: ext.publicJwk, expected: { operation, company, audience: agent.thumbprint, nonce }, seenNonces: journal.nonces });

    const first = await Journal.open(dir, ctx);
    const claims = await verify(first);
    await first.record({ ...operation, status: claims.status, jws, nonce, company, recorded_at: new Date().toISOString() });
    const reopened = await Journal.open(dir, ctx);
    expect(reopened.nonces.has(nonce)).toBe(true);
    expect(codeOf(await rejection(verify(reopened)))).toBe('ERR_DECISION_REPLAYED');
  });

  it('withdrawals, sent marks and outcomes persist; settled entries are pruned long after expiry; open ones are kept', async () => {
    const dir = await tempDir();
    let now = Date.parse('2026-10-08T19:00:00Z');
    const journal = await Journal.open(dir, ctx, () => now);
    const entry = (revision: string, expires_at: string) => ({
      operation_id: 'exc_5Rt2',
      revision,
      status: 'approved' as const,
      jws: 'h.p.s',
      nonce: randomNonce(),
      company,
      expires_at,
      recorded_at: new Date(now).toISOString(),
    });
    await journal.record(entry('rev1', '2026-10-08T20:00:00Z'));
    await journal.record(entry('rev2', '2026-10-08T20:00:00Z'));
    await journal.markSent('exc_5Rt2', 'rev1');
    await journal.setOutcome('exc_5Rt2', 'rev1', 'performed', 'done', true);
    expect(await journal.markWithdrawn('exc_5Rt2', 'rev1')).toBe(false); // sent: too late to withdraw
    expect(await journal.markWithdrawn('exc_9', 'rev1')).toBe(true);
    expect(journal.openSibling('exc_5Rt2', 'rev3')?.revision).toBe('rev2');

    now += 40 * 24 * 3600 * 1000;
    await journal.markWithdrawn('exc_10', 'rev1'); // any write prunes
    const reopened = await Journal.open(dir, ctx, () => now);
    expect(reopened.get('exc_5Rt2', 'rev1')).toBeUndefined(); // performed and long expired
    expect(reopened.get('exc_5Rt2', 'rev2')?.outcome).toBeUndefined(); // outcome unknown: kept (section 7)
    expect(reopened.isWithdrawn('exc_9', 'rev1')).toBe(true);
  });

  it('a damaged journal is an error, not an empty journal (forgetting withdrawals would fail open)', async () => {
    const dir = await tempDir();
    await writePrivateFileAtomic(path.join(dir, 'decisions.json'), '{"v":1,"kind":"countersign-decision-journal","decisions":[{}]}', ctx);
    expect(codeOf(await rejection(Journal.open(dir, ctx)))).toBe('ERR_STORAGE_FAILED');
    await writePrivateFileAtomic(path.join(dir, 'decisions.json'), 'nope', ctx);
    expect(codeOf(await rejection(Journal.open(dir, ctx)))).toBe('ERR_STORAGE_FAILED');
  });
});
