import { B64U_32_PATTERN, agentSocketCandidates } from '../protocol/bridge';
import { argValue, chromiumBrowserOf, pathApi, processIds, readProcess, type ProcessInfo } from './browsers';
import { quoteFor, type DoctorOptions, type Finding } from './doctor-findings';
import { FIREFOX_ID_PATTERN } from './extension-id-patterns';
import { shellQuote } from './install';
import type { SystemContext } from './system';

/**
 * Doctor, the bridges running now: one agent socket per extension key (docs/bridge-protocol.md
 * section 3), which browser and profile started each, and sockets left by a bridge that stopped.
 * Linux reads /proc; elsewhere only the socket files are seen.
 */

/** The folders where bridges of this user put their sockets (docs/bridge-protocol.md 3.1). */
function socketDirs(ctx: SystemContext): string[] {
  if (ctx.platform === 'win32') return [];
  const p = pathApi('linux');
  if (ctx.uid === undefined) {
    const runtime = ctx.env['XDG_RUNTIME_DIR'];
    return runtime !== undefined && runtime.startsWith('/') ? [p.join(runtime, 'countersign')] : [];
  }
  // Any valid thumbprint: only the folders matter.
  return agentSocketCandidates({ platform: ctx.platform, env: ctx.env, uid: ctx.uid, username: '', thumbprint: 'A'.repeat(43) }).map((s) => p.dirname(s));
}

/** Listening Unix sockets by path → inode, from /proc/net/unix (Linux). */
function listeningSockets(ctx: SystemContext): Map<string, string> | undefined {
  let text: string;
  try {
    text = ctx.fs.readText('/proc/net/unix');
  } catch {
    return undefined;
  }
  const out = new Map<string, string>();
  for (const line of text.split('\n').slice(1)) {
    // Num RefCount Protocol Flags Type St Inode Path
    const parts = line.trim().split(/\s+/);
    if (parts.length < 8) continue;
    const flags = Number.parseInt(parts[3] as string, 16);
    // __SO_ACCEPTCON: a listening socket.
    if ((flags & 0x10000) !== 0) out.set(parts.slice(7).join(' '), parts[6] as string);
  }
  return out;
}

/** The process holding socket `inode` open, by walking /proc/<pid>/fd (only this user's are readable). */
function socketOwner(ctx: SystemContext, inode: string): ProcessInfo | undefined {
  if (ctx.fs.readlink === undefined) return undefined;
  const want = `socket:[${inode}]`;
  for (const pid of processIds(ctx)) {
    let fds: string[];
    try {
      fds = ctx.fs.readdir(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    if (fds.some((fd) => ctx.fs.readlink?.(`/proc/${pid}/fd/${fd}`) === want)) return readProcess(ctx, pid);
  }
  return undefined;
}

/** "chromium, profile /x" for the browser that started a bridge. */
function describeStarter(ctx: SystemContext, bridge: ProcessInfo): string {
  const ext = bridge.argv.find((a) => /^chrome-extension:\/\/[a-p]{32}\/$/.test(a)) ?? bridge.argv.find((a) => FIREFOX_ID_PATTERN.test(a));
  const parent = bridge.ppid === undefined ? undefined : readProcess(ctx, bridge.ppid);
  const parts: string[] = [];
  if (parent !== undefined) {
    const program = parent.argv[0] ?? '?';
    let profile: string | undefined;
    if (chromiumBrowserOf(program) !== undefined) {
      profile = argValue(parent.argv, '--user-data-dir');
    } else {
      const i = parent.argv.findIndex((a) => a === '-profile' || a === '--profile');
      if (i >= 0) profile = parent.argv[i + 1];
    }
    parts.push(`started by ${pathApi('linux').basename(program)} (pid ${parent.pid}, ${profile === undefined ? 'its default profile' : `profile ${profile}`})`);
  }
  if (ext !== undefined) parts.push(`for ${ext}`);
  return parts.join(' ');
}

interface SocketFile {
  path: string;
  thumbprint: string;
}

/** The agent sockets in this user's socket folders (named <thumbprint>.sock), listening or not. */
function socketFiles(ctx: SystemContext): SocketFile[] {
  const p = pathApi('linux');
  const sockets: SocketFile[] = [];
  for (const dir of socketDirs(ctx)) {
    if (ctx.fs.stat(dir)?.isDirectory !== true) continue;
    let names: string[];
    try {
      names = ctx.fs.readdir(dir);
    } catch {
      continue;
    }
    for (const name of names.sort()) {
      const thumbprint = name.endsWith('.sock') ? name.slice(0, -5) : '';
      if (!B64U_32_PATTERN.test(thumbprint)) continue;
      const st = ctx.fs.stat(p.join(dir, name));
      if (st !== undefined && st.isSocket !== false) sockets.push({ path: p.join(dir, name), thumbprint });
    }
  }
  return sockets;
}

/** Several bridges: an agent not yet paired cannot tell which profile each one is. */
const SEVERAL_BRIDGES =
  'bridges are running, one per extension key: each browser profile with Countersign has its own key and its own socket. ' +
  'An agent paired with one key only ever reaches that profile; an agent not yet paired cannot choose, so give it the socket ' +
  'of the profile you approve in (socketPath, printed by socket-path <thumbprint>)';

/** One socket: stale (no bridge listens), or whose it is. `several`: more than one bridge is live. */
function socketFinding(ctx: SystemContext, options: DoctorOptions, s: SocketFile, listening: Map<string, string> | undefined, several: boolean): Finding {
  if (listening !== undefined && !listening.has(s.path)) {
    return {
      subject: 'socket',
      severity: 'warn',
      message: `${s.path}: no bridge listens (left by a bridge that stopped); the next bridge for extension key ${s.thumbprint} replaces it, and agents skip it`,
      fix: `rm ${shellQuote(s.path)}`,
    };
  }
  const inode = listening?.get(s.path);
  const owner = inode === undefined ? undefined : socketOwner(ctx, inode);
  const who = owner === undefined ? '' : `; bridge pid ${owner.pid} ${describeStarter(ctx, owner)}`;
  return {
    subject: 'socket',
    severity: several ? 'warn' : 'ok',
    message: `${s.path}: extension key ${s.thumbprint}${who}`,
    ...(several ? { fix: quoteFor(ctx, [...options.selfCommand, 'socket-path', s.thumbprint]) } : {}),
  };
}

/** The bridges running now, by their agent sockets (Unix; Windows named pipes leave nothing to look at). */
export function socketFindings(ctx: SystemContext, options: DoctorOptions): Finding[] {
  if (ctx.platform === 'win32') return [];
  const sockets = socketFiles(ctx);
  if (sockets.length === 0) {
    return [{ subject: 'socket', severity: 'info', message: 'no bridge is running now (the browser starts one when the extension connects)' }];
  }
  const listening = listeningSockets(ctx);
  const live = sockets.filter((s) => listening === undefined || listening.has(s.path));
  const several = live.length > 1;
  const out: Finding[] = several ? [{ subject: 'socket', severity: 'warn', message: `${live.length} ${SEVERAL_BRIDGES}` }] : [];
  for (const s of sockets) out.push(socketFinding(ctx, options, s, listening, several));
  return out;
}
