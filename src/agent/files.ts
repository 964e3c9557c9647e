import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import type * as z from 'zod';
import { CountersignError } from '../protocol/errors';
import { describeZodError } from '../protocol/describe-zod-error';

/**
 * The agent's config folder on disk: where it is by default, how it is created, and how files in
 * it are written. Everything in it is private to the user (it holds the agent's private key, see
 * keys.ts): the folder is 0700 and every file 0600, and a file that others can read or write is
 * refused rather than trusted, the way ssh treats its keys.
 *
 * Node only: src/agent is the SDK for desktop agents, which run on Node.
 */

/** The folder name under the platform's config base. */
export const CONFIG_DIR_NAME = 'countersign-agent';

export interface ConfigDirInput {
  platform: string;
  env: Readonly<Record<string, string | undefined>>;
  homedir: string;
}

/**
 * The default config folder, per OS. Pure (platform, environment and home are parameters) so each
 * OS's rule is testable anywhere.
 *
 * - Windows: %APPDATA%\countersign-agent (the roaming profile, where per-user settings live);
 *   without APPDATA, <home>\AppData\Roaming\countersign-agent.
 * - Any Unix with an absolute $XDG_CONFIG_HOME: $XDG_CONFIG_HOME/countersign-agent (the XDG Base
 *   Directory spec says a relative value is invalid and must be ignored).
 * - macOS otherwise: ~/Library/Application Support/countersign-agent.
 * - Linux and other Unix otherwise: ~/.config/countersign-agent.
 */
export function defaultConfigDir(input: ConfigDirInput): string {
  if (input.platform === 'win32') {
    const appData = input.env['APPDATA'];
    if (appData !== undefined && path.win32.isAbsolute(appData)) return path.win32.join(appData, CONFIG_DIR_NAME);
    return path.win32.join(input.homedir, 'AppData', 'Roaming', CONFIG_DIR_NAME);
  }
  const xdg = input.env['XDG_CONFIG_HOME'];
  if (xdg !== undefined && xdg.startsWith('/')) return path.posix.join(xdg, CONFIG_DIR_NAME);
  if (input.platform === 'darwin') return path.posix.join(input.homedir, 'Library', 'Application Support', CONFIG_DIR_NAME);
  return path.posix.join(input.homedir, '.config', CONFIG_DIR_NAME);
}

export function errno(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? String((error).code) : undefined;
}

/** Whether POSIX owners and modes mean anything here (not on Windows, where ACLs decide). */
function posix(platform: string): boolean {
  return platform !== 'win32';
}

export interface PrivacyContext {
  platform: string;
  /** The user the files must belong to (process.getuid()); undefined on Windows. */
  uid: number | undefined;
}

/**
 * Create the config folder (0700, parents as needed), or check an existing one: a folder, ours,
 * and tightened to 0700 if an earlier umask left it looser. A folder of another user is refused:
 * whoever owns it could swap our key or the pinned extension key under us.
 */
export async function preparePrivateDir(dir: string, ctx: PrivacyContext): Promise<void> {
  try {
    await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
  } catch (cause) {
    throw new CountersignError('ERR_STORAGE_FAILED', `configDir: cannot create ${dir} (${errno(cause) ?? 'error'})`, { cause });
  }
  let st;
  try {
    // stat, not lstat: a config folder that is a link (a dotfiles manager) is fine if its target is ours.
    st = await fsp.stat(dir);
  } catch (cause) {
    throw new CountersignError('ERR_STORAGE_FAILED', `configDir: cannot read ${dir} (${errno(cause) ?? 'error'})`, { cause });
  }
  if (!st.isDirectory()) throw new CountersignError('ERR_STORAGE_FAILED', `configDir: expected a folder at ${dir}, got ${st.isFile() ? 'a file' : 'something else'}`);
  if (!posix(ctx.platform)) return;
  if (ctx.uid !== undefined && st.uid !== ctx.uid) {
    throw new CountersignError('ERR_NOT_ALLOWED', `configDir: ${dir} belongs to user ${st.uid}, not to this user (${ctx.uid})`);
  }
  if ((st.mode & 0o777) !== 0o700) await fsp.chmod(dir, 0o700);
}

/**
 * Read a private file, or undefined when it does not exist. Refused (ERR_NOT_ALLOWED) when it is
 * not a regular file, belongs to someone else, or group or others may read or write it: the key
 * would be exposed, and the pin or the journal could have been replaced.
 */
export async function readPrivateFile(file: string, ctx: PrivacyContext): Promise<string | undefined> {
  let st;
  try {
    st = await fsp.lstat(file);
  } catch (error) {
    if (errno(error) === 'ENOENT') return undefined;
    throw new CountersignError('ERR_STORAGE_FAILED', `${file}: cannot be read (${errno(error) ?? 'error'})`, { cause: error });
  }
  if (!st.isFile()) throw new CountersignError('ERR_NOT_ALLOWED', `${file}: expected a regular file (not a link or a folder)`);
  if (posix(ctx.platform)) {
    if (ctx.uid !== undefined && st.uid !== ctx.uid) throw new CountersignError('ERR_NOT_ALLOWED', `${file}: belongs to user ${st.uid}, not to this user`);
    if ((st.mode & 0o077) !== 0) {
      throw new CountersignError('ERR_NOT_ALLOWED', `${file}: other users may access it (mode ${(st.mode & 0o777).toString(8)}); run "chmod 600 ${file}" if it is yours`);
    }
  }
  try {
    return await fsp.readFile(file, 'utf8');
  } catch (cause) {
    throw new CountersignError('ERR_STORAGE_FAILED', `${file}: cannot be read (${errno(cause) ?? 'error'})`, { cause });
  }
}

/**
 * Replace `file` with `text` atomically: write a temporary file (0600, created exclusively) in
 * the same folder, flush it, rename it over the target, then flush the folder. A crash leaves the
 * old file or the new one, never half of either; readers never see a partial key, pin or journal.
 */
export async function writePrivateFileAtomic(file: string, text: string, ctx: PrivacyContext): Promise<void> {
  const dir = path.dirname(file);
  const temp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  let handle: fsp.FileHandle | undefined;
  try {
    handle = await fsp.open(temp, 'wx', 0o600);
    await handle.writeFile(text, 'utf8');
    await handle.sync();
    await handle.close();
    handle = undefined;
    await fsp.rename(temp, file);
  } catch (cause) {
    await handle?.close().catch(() => undefined);
    await fsp.unlink(temp).catch(() => undefined);
    throw new CountersignError('ERR_STORAGE_FAILED', `${file}: cannot be written (${errno(cause) ?? 'error'})`, { cause });
  }
  if (posix(ctx.platform)) {
    // The rename is durable only once the folder entry is on disk. Best effort: some file systems refuse it.
    const d = await fsp.open(dir, 'r').catch(() => undefined);
    await d?.sync().catch(() => undefined);
    await d?.close().catch(() => undefined);
  }
}

// ---------------------------------------------------------------------------------------------
// One Companion per config folder

/** Folders locked by this process: a lock file naming our own pid is stale unless listed here. */
const heldHere = new Set<string>();

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but is another user's. Only ESRCH means it is gone.
    return errno(error) === 'EPERM';
  }
}

export interface ConfigLock {
  release(): Promise<void>;
}

/**
 * Take the config folder for this Companion. The journal (seen nonces, withdrawn approvals,
 * outcomes) is read once and then appended to and compacted from memory, so two writers would
 * silently undo each other's records; a second Companion on the same folder, in this process or another, is refused
 * (ERR_NOT_ALLOWED). A lock left by a process that died is taken over.
 */
export async function lockConfigDir(dir: string): Promise<ConfigLock> {
  const file = path.join(dir, 'lock');
  const resolved = path.resolve(dir);
  if (heldHere.has(resolved)) {
    throw new CountersignError('ERR_NOT_ALLOWED', `configDir: ${dir} is used by another Companion in this process; close it first or use another configDir`);
  }
  for (let attempt = 0; attempt < 3; attempt++) {
    // The pid is written to a temporary file first and linked into place: link fails if the lock
    // exists, and the lock never exists without its pid (no reader mistakes a fresh one for stale).
    const temp = path.join(dir, `.lock.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
    try {
      await fsp.writeFile(temp, `${process.pid}\n`, { mode: 0o600, flag: 'wx' });
      try {
        await fsp.link(temp, file);
      } finally {
        await fsp.unlink(temp).catch(() => undefined);
      }
      heldHere.add(resolved);
      let released = false;
      return {
        async release() {
          if (released) return;
          released = true;
          heldHere.delete(resolved);
          const owner = await fsp.readFile(file, 'utf8').catch(() => '');
          if (owner.trim() === String(process.pid)) await fsp.unlink(file).catch(() => undefined);
        },
      };
    } catch (error) {
      if (errno(error) !== 'EEXIST') {
        throw new CountersignError('ERR_STORAGE_FAILED', `configDir: cannot create ${file} (${errno(error) ?? 'error'})`, { cause: error });
      }
    }
    const text = await fsp.readFile(file, 'utf8').catch(() => '');
    const pid = /^\d{1,10}$/.test(text.trim()) ? Number(text.trim()) : undefined;
    const stale = pid === undefined || pid === process.pid || !processAlive(pid);
    if (!stale) {
      throw new CountersignError('ERR_NOT_ALLOWED', `configDir: ${dir} is in use by process ${pid} (one Companion per configDir); stop it or use another configDir`);
    }
    await fsp.unlink(file).catch(() => undefined);
  }
  throw new CountersignError('ERR_NOT_ALLOWED', `configDir: could not take ${file}; another process keeps creating it`);
}

/**
 * Reads a journal the agent keeps in its config folder: undefined when there is none yet. A damaged
 * file is an error, never an empty journal, because forgetting what was approved, withdrawn or
 * sent could ask the User twice or send what they withdrew (spec sections 5 and 7).
 */
export async function readJournalFile<S extends z.ZodType>(file: string, ctx: PrivacyContext, schema: S, name: string): Promise<z.output<S> | undefined> {
  const text = await readPrivateFile(file, ctx);
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new CountersignError('ERR_STORAGE_FAILED', `${file}: expected JSON, got text that is not; move it aside to start a new journal`, { cause });
  }
  const parsed = schema.safeParse(value, { reportInput: true });
  if (!parsed.success) {
    throw new CountersignError('ERR_STORAGE_FAILED', `${describeZodError(parsed.error, name)}; move it aside to start a new journal`, { cause: parsed.error });
  }
  return parsed.data;
}
