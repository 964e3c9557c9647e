import { promises as fsp } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { CountersignError } from '../protocol/errors';
import type { Logger } from './log';

/**
 * The agent socket's folder and listener (docs/bridge-protocol.md, "Where agents connect").
 *
 * Unix: who can connect is decided by the file system, not by the protocol: the folder is 0700
 * and owned by the user, the socket 0600. Windows (section 3.2): a named pipe has no folder, and
 * Node cannot give it a security descriptor of its own, so it keeps Windows' default one; see
 * listenOnce. Either way any process of the same user can still connect; that is why every
 * connection must prove a paired key before the extension accepts a request, and why connections
 * that have not are limited in number and time (hygiene.ts, section 5).
 */

export interface SocketDirOptions {
  /** The user the folder must belong to (process.getuid()). */
  uid: number;
}

function errno(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? String((error).code) : undefined;
}

/**
 * Create the socket's folder (mode 0700), or check an existing one: a real folder (not a link),
 * ours, and closed to group and others. A folder another user made first (a /tmp squatter)
 * is refused with ERR_SOCKET_DIR_UNSAFE: sockets in it could be swapped under us. Its parent
 * ($XDG_RUNTIME_DIR, $TMPDIR, /tmp) must exist: we create one level only.
 */
export async function prepareSocketDir(dir: string, options: SocketDirOptions): Promise<void> {
  try {
    await fsp.mkdir(dir, { mode: 0o700 });
  } catch (error) {
    if (errno(error) !== 'EEXIST') {
      throw new CountersignError('ERR_SOCKET_DIR_UNSAFE', `cannot create the socket folder ${dir} (${errno(error) ?? 'error'})`, { cause: error });
    }
  }
  const st = await fsp.lstat(dir);
  if (st.isSymbolicLink() || !st.isDirectory()) {
    throw new CountersignError('ERR_SOCKET_DIR_UNSAFE', `${dir} is not a folder (a link or a file is in its place); remove it`);
  }
  if (st.uid !== options.uid) {
    throw new CountersignError('ERR_SOCKET_DIR_UNSAFE', `${dir} belongs to user ${st.uid}, not to this user (${options.uid}); remove it`);
  }
  // Ours: whatever the umask or an earlier run left, the folder ends up exactly 0700.
  if ((st.mode & 0o777) !== 0o700) await fsp.chmod(dir, 0o700);
}

type Probe = 'live' | 'stale' | 'absent';

/** Connect to `socketPath` to learn whether a process still listens there. */
export function probeSocket(socketPath: string, timeoutMs = 1000): Promise<Probe> {
  return new Promise((resolve) => {
    const client = net.connect(socketPath);
    const done = (result: Probe) => {
      clearTimeout(timer);
      client.removeAllListeners();
      client.on('error', () => {});
      client.destroy();
      resolve(result);
    };
    // A listener that accepts nothing within the timeout is alive but stuck: still not ours to take.
    const timer = setTimeout(() => done('live'), timeoutMs);
    client.once('connect', () => done('live'));
    client.once('error', (error) => done(errno(error) === 'ENOENT' ? 'absent' : 'stale'));
  });
}

/**
 * What listen is given. `readableAll` and `writableAll` stay false on every platform, said out
 * loud so that no later edit turns them on: on Unix they would make the socket 0666-like, and on
 * Windows Node would add an "Everyone" entry to the pipe's access list (libuv uv_pipe_chmod). With
 * them false, a pipe keeps the default descriptor Windows gives named pipes: full control for its
 * creator (this user), LocalSystem and Administrators, read-only for Everyone and Anonymous; so
 * another user's process can open it to read, never to write (docs/bridge-protocol.md 3.2).
 * Node has no option for a DACL of "this user only", nor for rejecting remote clients.
 */
export function listenArguments(socketPath: string): net.ListenOptions {
  return { path: socketPath, readableAll: false, writableAll: false };
}

function listenOnce(server: net.Server, socketPath: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => {
      server.off('listening', onListening);
      reject(error);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(listenArguments(socketPath));
  });
}

export interface ListenOptions {
  socketPath: string;
  platform: string;
  uid: number;
  log: Logger;
  /**
   * How long a live socket may stay busy before we give up. A browser that restarts its host (a
   * service worker restart) starts the new bridge while the old one is still noticing that its
   * stdin ended; waiting briefly lets the old one leave instead of failing the new one.
   */
  busyTimeoutMs?: number;
  retryIntervalMs?: number;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Listen on the agent socket. A stale socket file (its bridge died: connecting is refused) is
 * removed and replaced; a live one is never taken over: after `busyTimeoutMs` that is
 * ERR_SOCKET_IN_USE. Unix: the socket ends up mode 0600 in a 0700 folder. Windows: a named pipe,
 * where a dead server leaves nothing behind, so only "busy" can happen.
 */
export async function listenAgentSocket(server: net.Server, options: ListenOptions): Promise<void> {
  const { socketPath, log } = options;
  const busyTimeoutMs = options.busyTimeoutMs ?? 2000;
  const retryIntervalMs = options.retryIntervalMs ?? 100;
  const deadline = Date.now() + busyTimeoutMs;
  const unix = options.platform !== 'win32';
  if (unix) await prepareSocketDir(path.posix.dirname(socketPath), { uid: options.uid });

  // Stale-socket replacement races only with another bridge doing the same; a few rounds settle it.
  let replacements = 0;
  for (;;) {
    try {
      await listenOnce(server, socketPath);
      break;
    } catch (error) {
      if (errno(error) !== 'EADDRINUSE') {
        throw new CountersignError('ERR_SOCKET_IN_USE', `cannot listen on ${socketPath} (${errno(error) ?? 'error'})`, { cause: error });
      }
    }
    const state = unix ? await probeSocket(socketPath) : 'live';
    if (state !== 'live' && ++replacements > 5) {
      throw new CountersignError('ERR_SOCKET_IN_USE', `cannot take over ${socketPath}: it keeps being in use`);
    }
    if (state === 'stale') {
      const st = await fsp.lstat(socketPath).catch(() => undefined);
      if (st !== undefined) {
        // Only a socket of ours is removed: anything else at that path is someone's file.
        if (!st.isSocket() || st.uid !== options.uid) {
          throw new CountersignError('ERR_SOCKET_IN_USE', `${socketPath} exists and is not a socket of this user; remove it`);
        }
        log.info(`replacing stale socket ${socketPath}`);
        await fsp.unlink(socketPath).catch(() => {});
      }
      continue;
    }
    if (state === 'absent') continue;
    if (Date.now() >= deadline) {
      // On Windows a pipe name is global to the machine: it may also be another user's process that
      // created it first (docs/bridge-protocol.md 3.2). It is never taken over either way.
      const who = unix ? 'another bridge is serving' : 'another bridge (or another process) holds';
      throw new CountersignError('ERR_SOCKET_IN_USE', `${who} ${socketPath} for this extension key`);
    }
    log.debug(`socket ${socketPath} busy; waiting for the other bridge to leave`);
    await sleep(retryIntervalMs);
  }
  if (unix) await fsp.chmod(socketPath, 0o600);
}
