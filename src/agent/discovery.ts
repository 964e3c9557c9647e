import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { B64U_32_PATTERN, agentSocketCandidates, pipeUserName } from '../protocol/bridge';
import { CountersignError } from '../protocol/errors';
import { errno } from './files';

/**
 * Finding the bridge's agent socket (docs/bridge-protocol.md, "Where agents connect").
 *
 * The bridge listens on `<folder>/<extension key thumbprint>.sock`, in the first of the folders
 * that agentSocketCandidates lists (bridge.ts); one socket per extension key, so two browsers or
 * profiles never answer for each other. A paired agent knows the thumbprint it
 * pinned and looks for exactly that socket. An agent that has not paired yet lists the sockets
 * that exist: one is the extension to pair with; several mean the person must say which one
 * (`socketPath`), because pairing with the wrong browser profile is not something to guess.
 */

export interface DiscoveryInput {
  platform: string;
  env: Readonly<Record<string, string | undefined>>;
  uid: number;
  username: string;
  /** The extension key pinned at pairing, if any. */
  pinnedThumbprint?: string | undefined;
}

export interface FoundSocket {
  thumbprint: string;
  /** Where to try, in order: the same thumbprint may have a socket in more than one folder (an old stale one). */
  paths: string[];
}

/** Any valid thumbprint: only the folders of the candidates are used, never this name. */
const PLACEHOLDER = 'A'.repeat(43);
const SOCKET_NAME = /^([A-Za-z0-9_-]{43})\.sock$/;

/** The folders the bridge may listen in, in the bridge's order of preference. */
export function socketFolders(input: Omit<DiscoveryInput, 'pinnedThumbprint'>): string[] {
  const candidates = agentSocketCandidates({ platform: input.platform, env: input.env, uid: input.uid, username: input.username, thumbprint: PLACEHOLDER });
  return [...new Set(candidates.map((p) => path.posix.dirname(p)))];
}

/**
 * docs/bridge-protocol.md section 3.1: before connecting, the socket's folder must be a real
 * folder (lstat: not a link), owned by this user, with no group or other permissions, as the
 * bridge makes it (bridge/socket.ts). A folder another user created first (a /tmp squatter) may
 * hold a socket that is not the bridge: it is not used.
 */
async function trustedFolder(dir: string, uid: number): Promise<boolean> {
  try {
    const st = await fsp.lstat(dir);
    return st.isDirectory() && st.uid === uid && (st.mode & 0o077) === 0;
  } catch {
    return false;
  }
}

/**
 * The extension key thumbprint a socket path is named after (`<T>.sock`, or the pipe
 * `countersign-<user>-<T>`), or undefined. Section 5 of the protocol: the agent checks that
 * `bridge_info.extension_key_thumbprint` is this name.
 */
export function thumbprintOfSocketPath(socketPath: string, platform: string): string | undefined {
  if (platform === 'win32') {
    const match = /^\\\\\.\\pipe\\countersign-[a-z0-9._-]+-([A-Za-z0-9_-]{43})$/.exec(socketPath);
    return match !== null && B64U_32_PATTERN.test(match[1] as string) ? match[1] : undefined;
  }
  const match = SOCKET_NAME.exec(path.posix.basename(socketPath));
  return match !== null && B64U_32_PATTERN.test(match[1] as string) ? match[1] : undefined;
}

/**
 * Check a socket path given by the caller as discovery checks what it finds: named after a
 * thumbprint (ERR_ARGUMENT_INVALID otherwise) and, on Unix, in a folder only this user can use
 * (ERR_SOCKET_DIR_UNSAFE otherwise). Returns the thumbprint in its name.
 */
export async function checkSocketPath(socketPath: string, platform: string, uid: number): Promise<string> {
  const thumbprint = thumbprintOfSocketPath(socketPath, platform);
  if (thumbprint === undefined) {
    throw new CountersignError(
      'ERR_ARGUMENT_INVALID',
      'socketPath: expected a Countersign bridge socket, named after the extension key\'s thumbprint ("countersign-bridge socket-path <thumbprint>" prints it), got a path named otherwise',
    );
  }
  if (platform !== 'win32' && !(await trustedFolder(path.posix.dirname(socketPath), uid))) {
    throw new CountersignError('ERR_SOCKET_DIR_UNSAFE', `socketPath: ${path.posix.dirname(socketPath)} must be a folder (not a link) of this user that nobody else may use (mode 0700)`);
  }
  return thumbprint;
}

async function unixSockets(input: DiscoveryInput): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>();
  for (const dir of socketFolders(input)) {
    if (!(await trustedFolder(dir, input.uid))) continue;
    let names: string[];
    try {
      names = await fsp.readdir(dir);
    } catch (error) {
      if (errno(error) === 'ENOENT') continue;
      throw new CountersignError('ERR_STORAGE_FAILED', `${dir}: cannot be listed (${errno(error) ?? 'error'})`, { cause: error });
    }
    for (const name of names.sort()) {
      const match = SOCKET_NAME.exec(name);
      if (match === null || !B64U_32_PATTERN.test(match[1] as string)) continue;
      const full = path.posix.join(dir, name);
      const st = await fsp.lstat(full).catch(() => undefined);
      if (st === undefined || !st.isSocket() || st.uid !== input.uid) continue;
      const thumbprint = match[1] as string;
      found.set(thumbprint, [...(found.get(thumbprint) ?? []), full]);
    }
  }
  return found;
}

async function windowsPipes(input: DiscoveryInput): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>();
  const prefix = `countersign-${pipeUserName(input.username)}-`;
  let names: string[];
  try {
    // Windows lists the open named pipes as the entries of this pseudo-folder.
    names = await fsp.readdir('\\\\.\\pipe\\');
  } catch {
    return found;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const thumbprint = name.slice(prefix.length);
    if (B64U_32_PATTERN.test(thumbprint)) found.set(thumbprint, [`\\\\.\\pipe\\${name}`]);
  }
  return found;
}

/** Every bridge socket of this user, by extension key thumbprint. */
export async function listAgentSockets(input: DiscoveryInput): Promise<Map<string, string[]>> {
  return input.platform === 'win32' ? windowsPipes(input) : unixSockets(input);
}

/**
 * Pick the socket to connect to:
 * - pinned: the pinned extension's socket, wherever it is; ERR_COMPANION_UNAVAILABLE when its
 *   browser is not running the extension (another extension's socket is never used instead);
 * - not pinned: the one socket there is; ERR_COMPANION_UNAVAILABLE for none; ERR_ARGUMENT_INVALID
 *   for several (pass `socketPath`).
 */
export async function findAgentSocket(input: DiscoveryInput): Promise<FoundSocket> {
  const sockets = await listAgentSockets(input);
  if (input.pinnedThumbprint !== undefined) {
    const paths = sockets.get(input.pinnedThumbprint);
    if (paths !== undefined) return { thumbprint: input.pinnedThumbprint, paths };
    const others = sockets.size === 0 ? '' : ` (${sockets.size} other Countersign extension${sockets.size === 1 ? ' is' : 's are'} running; this agent is paired with ${input.pinnedThumbprint})`;
    throw new CountersignError('ERR_COMPANION_UNAVAILABLE', `the paired Countersign extension is not running: open its browser${others}`);
  }
  if (sockets.size === 0) {
    throw new CountersignError('ERR_COMPANION_UNAVAILABLE', 'no Countersign extension is running: open the browser with Countersign (and run "countersign-bridge doctor" if it is open)');
  }
  if (sockets.size > 1) {
    // Which one to pair with is the caller's choice, never a guess: without socketPath the call is incomplete.
    throw new CountersignError(
      'ERR_ARGUMENT_INVALID',
      `socketPath: expected one, since ${sockets.size} Countersign extensions are running (${[...sockets.keys()].join(', ')}), got none: pass the socket of the one to pair with ("countersign-bridge socket-path <thumbprint>" prints it)`,
    );
  }
  const [thumbprint, paths] = [...sockets][0] as [string, string[]];
  return { thumbprint, paths };
}
