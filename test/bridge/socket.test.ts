import { chmodSync, existsSync, mkdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/bridge/log';
import { listenAgentSocket, prepareSocketDir, probeSocket } from '../../src/bridge/socket';
import { removeDir, tempDir } from './helpers';

const dirs: string[] = [];
const servers: net.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise<void>((r) => (s.listening ? s.close(() => r()) : r()));
  for (const d of dirs.splice(0)) removeDir(d);
});

function temp(): string {
  const d = tempDir('cs-sock-');
  dirs.push(d);
  return d;
}

const uid = process.getuid!();

describe('prepareSocketDir', () => {
  it('creates the folder 0700, and tightens an existing one of ours', async () => {
    const dir = path.join(temp(), 'countersign');
    await prepareSocketDir(dir, { uid });
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    chmodSync(dir, 0o755);
    await prepareSocketDir(dir, { uid });
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('refuses a folder of another user, a symbolic link, a file, or a missing parent', async () => {
    const root = temp();
    const dir = path.join(root, 'countersign');
    mkdirSync(dir);
    await expect(prepareSocketDir(dir, { uid: uid + 12345 })).rejects.toMatchObject({ code: 'ERR_SOCKET_DIR_UNSAFE' });
    const link = path.join(root, 'link');
    symlinkSync(dir, link);
    await expect(prepareSocketDir(link, { uid })).rejects.toMatchObject({ code: 'ERR_SOCKET_DIR_UNSAFE' });
    const file = path.join(root, 'file');
    writeFileSync(file, '');
    await expect(prepareSocketDir(file, { uid })).rejects.toMatchObject({ code: 'ERR_SOCKET_DIR_UNSAFE' });
    await expect(prepareSocketDir(path.join(root, 'no', 'such'), { uid })).rejects.toMatchObject({ code: 'ERR_SOCKET_DIR_UNSAFE' });
  });
});

describe('listenAgentSocket', () => {
  function socketPath(): string {
    return path.join(temp(), 'countersign', 'x.sock');
  }

  it('listens with mode 0600', async () => {
    const p = socketPath();
    const server = net.createServer();
    servers.push(server);
    await listenAgentSocket(server, { socketPath: p, platform: 'linux', uid, log: silentLogger });
    expect(statSync(p).isSocket()).toBe(true);
    expect(statSync(p).mode & 0o777).toBe(0o600);
    expect(await probeSocket(p)).toBe('live');
  });

  it('refuses a live socket after the busy timeout, and leaves it alone', async () => {
    const p = socketPath();
    const live = net.createServer((s) => s.destroy());
    servers.push(live);
    await listenAgentSocket(live, { socketPath: p, platform: 'linux', uid, log: silentLogger });
    const second = net.createServer();
    servers.push(second);
    const started = Date.now();
    await expect(listenAgentSocket(second, { socketPath: p, platform: 'linux', uid, log: silentLogger, busyTimeoutMs: 300, retryIntervalMs: 50 })).rejects.toMatchObject({ code: 'ERR_SOCKET_IN_USE' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(await probeSocket(p)).toBe('live');
  });

  it('waits for a busy socket to be released', async () => {
    const p = socketPath();
    const old = net.createServer();
    await listenAgentSocket(old, { socketPath: p, platform: 'linux', uid, log: silentLogger });
    setTimeout(() => old.close(), 150);
    const fresh = net.createServer();
    servers.push(fresh);
    await listenAgentSocket(fresh, { socketPath: p, platform: 'linux', uid, log: silentLogger, busyTimeoutMs: 2000, retryIntervalMs: 25 });
    expect(fresh.listening).toBe(true);
  });

  it('refuses to remove a regular file that sits where the socket goes', async () => {
    const p = socketPath();
    mkdirSync(path.dirname(p), { mode: 0o700 });
    writeFileSync(p, 'not a socket');
    const server = net.createServer();
    servers.push(server);
    await expect(listenAgentSocket(server, { socketPath: p, platform: 'linux', uid, log: silentLogger, busyTimeoutMs: 100 })).rejects.toMatchObject({ code: 'ERR_SOCKET_IN_USE' });
    expect(existsSync(p)).toBe(true);
  });

  it('probes a path with nothing there as absent', async () => {
    const p = socketPath();
    expect(await probeSocket(p)).toBe('absent');
  });
});
