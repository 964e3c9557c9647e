import { EventEmitter } from 'node:events';
import { chmodSync, existsSync, mkdirSync, promises as fsp, statSync, symlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../src/bridge/log';
import { listenAgentSocket, prepareSocketDir, probeSocket } from '../../src/bridge/socket';
import { agentSocketPath } from '../../src/protocol/bridge';
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

/**
 * A Windows named-pipe listener, simulated: records what listen is given and answers "busy"
 * (EADDRINUSE: what libuv reports when the first pipe instance exists, ours or anyone's) as many
 * times as told. Windows itself cannot run here; what can be checked is what the bridge asks of it.
 */
class SimulatedPipeServer extends EventEmitter {
  readonly listened: unknown[] = [];
  constructor(private busy: number) {
    super();
  }
  listen(options: unknown): this {
    this.listened.push(options);
    setImmediate(() => {
      if (this.busy-- > 0) this.emit('error', Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' }));
      else this.emit('listening');
    });
    return this;
  }
}

describe('listenAgentSocket on Windows (simulated)', () => {
  const PIPE = agentSocketPath({ platform: 'win32', env: {}, uid: 0, username: 'Jane Doe', thumbprint: 'vsLAVcBec9S_ypx8huZjTqmt1xxSep2F33sUoSbaX90' });

  afterEach(() => {
    vi.restoreAllMocks();
  });

  function fsCalls() {
    return ['mkdir', 'lstat', 'chmod', 'unlink'].map((name) => vi.spyOn(fsp, name as 'mkdir'));
  }

  it('listens on the per-user pipe name, never granting Everyone access (readableAll/writableAll false), and touches no file', async () => {
    expect(PIPE).toBe('\\\\.\\pipe\\countersign-jane_doe-vsLAVcBec9S_ypx8huZjTqmt1xxSep2F33sUoSbaX90');
    const spies = fsCalls();
    const server = new SimulatedPipeServer(0);
    await listenAgentSocket(server as unknown as net.Server, { socketPath: PIPE, platform: 'win32', uid: 0, log: silentLogger });
    expect(server.listened).toEqual([{ path: PIPE, readableAll: false, writableAll: false }]);
    for (const spy of spies) expect(spy).not.toHaveBeenCalled();
  });

  it('a pipe held by another process is never taken over: retried for the busy timeout, then ERR_SOCKET_IN_USE naming "another process"', async () => {
    const spies = fsCalls();
    const connect = vi.spyOn(net, 'connect');
    const server = new SimulatedPipeServer(Infinity);
    await expect(listenAgentSocket(server as unknown as net.Server, { socketPath: PIPE, platform: 'win32', uid: 0, log: silentLogger, busyTimeoutMs: 200, retryIntervalMs: 40 })).rejects.toMatchObject({
      code: 'ERR_SOCKET_IN_USE',
      message: expect.stringContaining('another bridge (or another process) holds'),
    });
    expect(server.listened.length).toBeGreaterThan(2);
    for (const options of server.listened) expect(options).toEqual({ path: PIPE, readableAll: false, writableAll: false });
    // No probing, no removal: a pipe leaves no file behind, so nothing is "stale" on Windows.
    expect(connect).not.toHaveBeenCalled();
    for (const spy of spies) expect(spy).not.toHaveBeenCalled();
  });

  it('takes the pipe once the old bridge has left it (a browser restarting its host)', async () => {
    const server = new SimulatedPipeServer(2);
    await listenAgentSocket(server as unknown as net.Server, { socketPath: PIPE, platform: 'win32', uid: 0, log: silentLogger, busyTimeoutMs: 2000, retryIntervalMs: 10 });
    expect(server.listened).toHaveLength(3);
  });
});

describe('listenAgentSocket on Unix gives listen the same options', () => {
  it('readableAll and writableAll are false (the socket is then made 0600)', async () => {
    const p = path.join(tempDir('cs-sock-'), 'countersign', 'x.sock');
    dirs.push(path.dirname(path.dirname(p)));
    const server = net.createServer();
    servers.push(server);
    const listen = vi.spyOn(server, 'listen');
    await listenAgentSocket(server, { socketPath: p, platform: 'linux', uid, log: silentLogger });
    expect(listen).toHaveBeenCalledWith({ path: p, readableAll: false, writableAll: false });
    expect(statSync(p).mode & 0o777).toBe(0o600);
  });
});
