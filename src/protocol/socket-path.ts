import { B64U_32_PATTERN, B64U_32_RULE } from './base64url';
import { CountersignError } from './errors';
import { describeNumber, describeValue } from './issues';

/**
 * Where agents connect: the socket (Unix) or pipe (Windows) the bridge listens on for one
 * extension key (docs/bridge-protocol.md, section 3 "Where agents connect"). Named after the
 * extension key's thumbprint, so two browser profiles never answer for each other.
 */

/** sun_path holds 108 bytes on Linux and 104 on macOS, both including the final NUL: 103 is safe on both. */
export const MAX_UNIX_SOCKET_PATH_BYTES = 103;

export interface SocketPathInput {
  platform: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Numeric user id (Unix). */
  uid: number;
  /** Account name (Windows). */
  username: string;
  thumbprint: string;
}

function utf8Length(s: string): number {
  return new TextEncoder().encode(s).length;
}

/**
 * The account name the pipe is named after, as every process of the account finds it: the OS's
 * answer (Node's `os.userInfo`, passed in so this stays pure), else `USERNAME` (Windows) or `USER`,
 * else "user". The bridge and every agent must find the same one, or they miss each other's pipe.
 */
export function accountName(userInfo: () => { username: string }, env: Readonly<Record<string, string | undefined>>): string {
  try {
    return userInfo().username;
  } catch {
    // os.userInfo throws when the account has no entry in the user database (some containers).
    return env['USERNAME'] ?? env['USER'] ?? 'user';
  }
}

/** The Windows account name as it appears in a pipe name: lower case, [a-z0-9._-], others become "_". */
export function pipeUserName(username: string): string {
  const cleaned = username.toLowerCase().replace(/[^a-z0-9._-]/g, '_');
  return cleaned === '' ? 'user' : cleaned;
}

/**
 * Every place the agent socket for `thumbprint` may be, in order. The bridge listens on the first;
 * an agent connects to the first that exists (its environment may lack XDG_RUNTIME_DIR or TMPDIR
 * when the browser's had them). Pure: the platform, environment and ids are parameters.
 *
 * Unix:  1. $XDG_RUNTIME_DIR/countersign/<thumbprint>.sock   (when XDG_RUNTIME_DIR is absolute)
 *        2. $TMPDIR/countersign-<uid>/<thumbprint>.sock       (when TMPDIR is absolute)
 *        3. /tmp/countersign-<uid>/<thumbprint>.sock
 *        4. /run/user/<uid>/countersign/<thumbprint>.sock     (Linux, when XDG_RUNTIME_DIR is not set)
 *        each only when at most 103 bytes long (sun_path); 3 always is.
 * Candidate 4 is the folder a login session's XDG_RUNTIME_DIR names on Linux (pam_systemd sets
 * it to /run/user/<uid>). MCP clients and coding agents often start servers and hooks with a
 * reduced environment (HOME, PATH, SHELL, TERM), so the agent derives it; it comes last so a
 * bridge that lacks the variable too never listens in a folder that may not exist.
 * Windows: \\.\pipe\countersign-<user>-<thumbprint>
 */
export function agentSocketCandidates(input: SocketPathInput): string[] {
  if (!B64U_32_PATTERN.test(input.thumbprint)) {
    throw new CountersignError('ERR_ARGUMENT_INVALID', `thumbprint: expected ${B64U_32_RULE}, got ${describeValue(input.thumbprint)}`);
  }
  const file = `${input.thumbprint}.sock`;
  if (input.platform === 'win32') return [`\\\\.\\pipe\\countersign-${pipeUserName(input.username)}-${input.thumbprint}`];
  if (!Number.isInteger(input.uid) || input.uid < 0) {
    throw new CountersignError('ERR_ARGUMENT_INVALID', `uid: expected a non-negative integer, got ${describeNumber(input.uid)}`);
  }
  const out: string[] = [];
  const runtime = input.env['XDG_RUNTIME_DIR'];
  if (runtime !== undefined && runtime.startsWith('/')) out.push(`${runtime.replace(/\/+$/, '')}/countersign/${file}`);
  const tmp = input.env['TMPDIR'];
  if (tmp !== undefined && tmp.startsWith('/')) out.push(`${tmp.replace(/\/+$/, '')}/countersign-${input.uid}/${file}`);
  out.push(`/tmp/countersign-${input.uid}/${file}`);
  if (input.platform === 'linux' && (runtime === undefined || !runtime.startsWith('/'))) out.push(`/run/user/${input.uid}/countersign/${file}`);
  return [...new Set(out)].filter((p) => utf8Length(p) <= MAX_UNIX_SOCKET_PATH_BYTES);
}

/** Where the bridge listens: the first candidate. */
export function agentSocketPath(input: SocketPathInput): string {
  const first = agentSocketCandidates(input)[0];
  // Unreachable: candidate 3 is at most 76 bytes. Kept so the type is string, not string | undefined.
  if (first === undefined) throw new CountersignError('ERR_ARGUMENT_INVALID', `socket path: expected a candidate of at most ${MAX_UNIX_SOCKET_PATH_BYTES} bytes, got none`);
  return first;
}
