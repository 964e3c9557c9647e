import { B64U_32_PATTERN, NATIVE_HOST_NAME, agentSocketCandidates } from '../protocol/bridge';
import {
  BROWSER_IDS,
  argValue,
  browserFamily,
  browserLocation,
  chromiumBrowserOf,
  customProfileManifestPath,
  dataDir,
  detectBrowser,
  detectSandboxed,
  flatpakManifestPath,
  flatpakOverrideFiles,
  pathApi,
  processIds,
  readProcess,
  runningCustomProfiles,
  type BrowserId,
  type Detection,
  type ProcessInfo,
} from './browsers';
import {
  BUNDLE_COPY_NAME,
  CHROMIUM_ID_PATTERN,
  FIREFOX_ID_PATTERN,
  LAUNCHER_NAME,
  batQuote,
  parseLauncher,
  readRecord,
  shellQuote,
  type InstallRecord,
} from './install';
import { CHROMIUM_EXTENSION_ID, FIREFOX_EXTENSION_ID } from '../extension/manifest-key';
import type { SystemContext } from './system';

/**
 * `countersign-bridge doctor`: checks each browser's host registration the way the browser will
 * use it, and for each problem says what is wrong, what that browser reports for it (in its own
 * words, which mislead: Chromium reports a relative `path` as "Specified native messaging host not
 * found.", Firefox reports nearly everything as "No such native application") and the command
 * that fixes it. Also: whether the launcher is this installation's, Snap and Flatpak browsers,
 * browsers running with a custom profile folder, and the agent sockets of the bridges running now
 * (one per extension key).
 */

export type Severity = 'ok' | 'info' | 'warn' | 'error' | 'skip';

export interface Finding {
  /** A browser id; "sandbox" for Snap notes; "socket" for running bridges; "install" for the install record. */
  subject: BrowserId | 'sandbox' | 'socket' | 'install';
  severity: Severity;
  message: string;
  /** A command that fixes it, ready to paste. */
  fix?: string;
  manifest?: string;
}

export interface DoctorOptions {
  browsers?: BrowserId[] | 'all';
  userDataDir?: string;
  extensionId?: string;
  /** How to run this program again (node + script), for the fix commands. */
  selfCommand: readonly string[];
}

interface Check {
  browser: BrowserId;
  /** Undefined when the browser has no registration at all (Windows: no registry value). */
  manifestPath: string | undefined;
  registryKey?: string;
  userDataDir?: string;
  flatpakApp?: string;
  /** Why this browser is checked: how it was found, or that install or the person named it. */
  reason: Detection['kind'] | 'recorded' | 'running' | 'named' | 'flatpak' | 'flatpak-data' | undefined;
}

// ---------------------------------------------------------------------------------------------
// What each browser shows the extension (runtime.lastError, or the port's error)

/** The kinds of broken registration a browser tells apart, if it tells them apart at all. */
export type BrowserProblem = 'not-found' | 'forbidden' | 'failed-to-start';

/**
 * Each browser family's own words for each problem. The person compares them with what the popup
 * or the browser console showed, so a finding must never quote another browser's text. Firefox
 * has one message for a missing or invalid manifest, a manifest that does not allow the add-on
 * and a relative `path`.
 */
export const BROWSER_REPORTS: Readonly<Record<'chromium' | 'firefox', Readonly<Record<BrowserProblem, string>>>> = {
  chromium: {
    'not-found': 'Specified native messaging host not found.',
    forbidden: 'Access to the specified native messaging host is forbidden.',
    'failed-to-start': 'Native host has exited.',
  },
  firefox: {
    'not-found': `No such native application ${NATIVE_HOST_NAME}`,
    forbidden: `No such native application ${NATIVE_HOST_NAME}`,
    'failed-to-start': 'An unexpected error occurred',
  },
};

/** `the browser reports "…"`, in the words of `browser`'s family. */
function reports(browser: BrowserId, problem: BrowserProblem): string {
  return `the browser reports "${BROWSER_REPORTS[browserFamily(browser)][problem]}"`;
}

function quoteFor(ctx: SystemContext, parts: readonly string[]): string {
  return parts.map((p) => (ctx.platform === 'win32' ? (/[\s"%]/.test(p) ? batQuote(p) : p) : /^[A-Za-z0-9_./:=@,+-]+$/.test(p) ? p : shellQuote(p))).join(' ');
}

function installCommand(ctx: SystemContext, options: DoctorOptions, check: Check, extensionId: string): string {
  const args = [...options.selfCommand, 'install', '--browser', check.browser];
  if (check.userDataDir !== undefined) args.push('--user-data-dir', check.userDataDir);
  if (check.flatpakApp !== undefined) args.push('--flatpak');
  const defaultId = browserFamily(check.browser) === 'chromium' ? CHROMIUM_EXTENSION_ID : FIREFOX_EXTENSION_ID;
  if (extensionId !== defaultId) args.push('--extension-id', extensionId);
  return quoteFor(ctx, args);
}

/** `reg query KEY /ve` prints `    (Default)    REG_SZ    C:\path`; the label is localized, the type is not. */
function registryValue(ctx: SystemContext, key: string): string | undefined {
  const result = ctx.run('reg', ['query', key, '/ve']);
  if (result.status !== 0) return undefined;
  const m = /REG_(?:EXPAND_)?SZ[ \t]+(.+?)\s*$/m.exec(result.stdout);
  return m?.[1];
}

function expectedId(browser: BrowserId, manifestPath: string | undefined, options: DoctorOptions, record: InstallRecord | undefined): string {
  const family = browserFamily(browser);
  const given = options.extensionId;
  if (given !== undefined && (family === 'chromium' ? CHROMIUM_ID_PATTERN : FIREFOX_ID_PATTERN).test(given)) return given;
  const recorded = record?.entries.find((e) => e.manifest === manifestPath)?.extension_id;
  if (recorded !== undefined) return recorded;
  return family === 'chromium' ? CHROMIUM_EXTENSION_ID : FIREFOX_EXTENSION_ID;
}

function checksFor(ctx: SystemContext, options: DoctorOptions, record: InstallRecord | undefined): Check[] {
  if (options.userDataDir !== undefined) {
    const browser = options.browsers !== undefined && options.browsers !== 'all' && options.browsers[0] !== undefined ? options.browsers[0] : 'chromium';
    return [{ browser, manifestPath: customProfileManifestPath(options.userDataDir, ctx.platform), userDataDir: options.userDataDir, reason: 'named' }];
  }
  const all = options.browsers === undefined || options.browsers === 'all';
  const browsers = all ? [...BROWSER_IDS] : (options.browsers as BrowserId[]);
  const checks: Check[] = browsers.map((browser) => {
    const location = browserLocation(browser, ctx);
    const reason = detectBrowser(browser, ctx)?.kind ?? (all ? undefined : 'named');
    if (location.target.kind === 'registry') {
      return { browser, manifestPath: registryValue(ctx, location.target.registryKey), registryKey: location.target.registryKey, reason };
    }
    return { browser, manifestPath: location.target.manifestPath, reason };
  });
  const seen = new Set(checks.map((c) => c.manifestPath));
  const add = (check: Check) => {
    if (check.manifestPath !== undefined && seen.has(check.manifestPath)) return;
    seen.add(check.manifestPath);
    checks.push(check);
  };
  // Custom profiles and Flatpak homes that install recorded: invisible otherwise.
  for (const entry of record?.entries ?? []) {
    if (!browsers.includes(entry.browser)) continue;
    if (entry.user_data_dir !== undefined) add({ browser: entry.browser, manifestPath: entry.manifest, userDataDir: entry.user_data_dir, reason: 'recorded' });
    else if (entry.flatpak_app !== undefined) add({ browser: entry.browser, manifestPath: entry.manifest, flatpakApp: entry.flatpak_app, reason: 'recorded' });
  }
  // A Chromium started with --user-data-dir reads its hosts from that folder only.
  for (const running of runningCustomProfiles(ctx)) {
    if (!browsers.includes(running.browser)) continue;
    add({ browser: running.browser, manifestPath: customProfileManifestPath(running.userDataDir, ctx.platform), userDataDir: running.userDataDir, reason: 'running' });
  }
  // Flatpak browsers read from their own home, and need their sandbox opened.
  for (const s of detectSandboxed(ctx)) {
    if (s.kind !== 'flatpak' || !browsers.includes(s.browser)) continue;
    const used = ctx.fs.stat(pathApi(ctx.platform).join(ctx.homedir, '.var', 'app', s.appId))?.isDirectory === true;
    add({ browser: s.browser, manifestPath: flatpakManifestPath(s.browser, ctx), flatpakApp: s.appId, reason: used ? 'flatpak-data' : 'flatpak' });
  }
  return checks;
}

// ---------------------------------------------------------------------------------------------
// Flatpak: can the sandbox reach the bridge?

/** Folders a Flatpak sandbox cannot be given (its own runtime is mounted there). */
const FLATPAK_RESERVED = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/etc', '/app', '/dev', '/proc'];

function isReservedInFlatpak(p: string): boolean {
  return FLATPAK_RESERVED.some((r) => p === r || p.startsWith(`${r}/`));
}

/** The `filesystems=` entries of an app's overrides (user and system), without the :ro/:rw/:create suffix. */
function flatpakFilesystems(ctx: SystemContext, appId: string): string[] {
  const out: string[] = [];
  for (const file of flatpakOverrideFiles(appId, ctx)) {
    if (ctx.fs.stat(file)?.isFile !== true) continue;
    let text: string;
    try {
      text = ctx.fs.readText(file);
    } catch {
      continue;
    }
    let inContext = false;
    for (const line of text.split(/\r?\n/)) {
      const section = /^\s*\[(.+)\]\s*$/.exec(line);
      if (section) inContext = section[1] === 'Context';
      const m = inContext ? /^\s*filesystems\s*=(.*)$/.exec(line) : null;
      if (m) out.push(...(m[1] as string).split(';').map((e) => e.trim()).filter((e) => e !== '' && !e.startsWith('!')).map((e) => e.replace(/:(ro|rw|create)$/, '')));
    }
  }
  return out;
}

function coveredBy(ctx: SystemContext, entries: readonly string[], target: string): boolean {
  const home = ctx.homedir;
  return entries.some((e) => {
    if (e === 'host' || e === 'host-os') return !isReservedInFlatpak(target);
    const base = e === 'home' || e === '~' ? home : e.startsWith('~/') ? `${home}/${e.slice(2)}` : e;
    return base.startsWith('/') && (target === base || target.startsWith(`${base.replace(/\/+$/, '')}/`));
  });
}

/** Where a node install starts (…/bin/node → …), so the whole of it is shared with the sandbox. */
function nodeRoot(execPath: string): string {
  const dir = pathApi('linux').dirname(execPath);
  return pathApi('linux').basename(dir) === 'bin' ? pathApi('linux').dirname(dir) : dir;
}

function flatpakOverrideCommand(appId: string, paths: readonly string[]): string {
  return ['flatpak override --user', ...paths.map((p) => `--filesystem=${quoteFor({ platform: 'linux' } as SystemContext, [`${p}:ro`])}`), '--filesystem=xdg-run/countersign:create', appId].join(' ');
}

/** After the manifest checks passed: what a Flatpak sandbox still needs to run the launcher. */
function flatpakFinding(ctx: SystemContext, check: Check, launcher: string, run: { execPath: string; bundlePath: string }): Finding | undefined {
  const appId = check.flatpakApp as string;
  const p = pathApi('linux');
  const base = { subject: check.browser, manifest: check.manifestPath as string };
  if (isReservedInFlatpak(run.execPath)) {
    return {
      ...base,
      severity: 'error',
      message:
        `${check.browser} runs in a Flatpak sandbox (${appId}), where ${p.dirname(run.execPath)} is the Flatpak runtime's, not yours: ` +
        `node ${run.execPath} does not exist in there. Install a Node.js under your home (for example with nvm), run install with that node, ` +
        `then open the sandbox to both`,
      fix: `<node under your home> <countersign-bridge.mjs> install --browser ${check.browser} --flatpak && ${flatpakOverrideCommand(appId, [p.dirname(launcher), '<that node folder>'])}`,
    };
  }
  const entries = flatpakFilesystems(ctx, appId);
  const needed = [...new Set([p.dirname(launcher), p.dirname(run.bundlePath), nodeRoot(run.execPath)])];
  const missing = needed.filter((d) => !coveredBy(ctx, entries, d));
  const runtimeShared = entries.some((e) => e === 'xdg-run/countersign' || e.startsWith('xdg-run/countersign/'));
  if (missing.length > 0 || !runtimeShared) {
    const what = [...missing, ...(runtimeShared ? [] : ['$XDG_RUNTIME_DIR/countersign (where agents find the socket)'])];
    return {
      ...base,
      severity: 'error',
      message: `${check.browser} runs in a Flatpak sandbox (${appId}) that cannot reach ${what.join(', ')}; ${reports(check.browser, 'failed-to-start')} (or agents find no socket)`,
      fix: flatpakOverrideCommand(appId, needed),
    };
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Is the launcher this installation's?

/** The launcher install writes for this user: the one the record names, else where install would put it. */
function ownLauncher(ctx: SystemContext, record: InstallRecord | undefined): string {
  return record?.launcher ?? pathApi(ctx.platform).join(dataDir(ctx), ctx.platform === 'win32' ? LAUNCHER_NAME.win32 : LAUNCHER_NAME.unix);
}

/**
 * The bundles this installation's launcher may run: the copy install makes, or (install --link)
 * the program running now. From source the program is main.ts, and --link points at the build
 * output two folders up, the bundle main.ts itself picks.
 */
function ownBundles(ctx: SystemContext, options: DoctorOptions, record: InstallRecord | undefined): string[] {
  const p = pathApi(ctx.platform);
  const out = [p.join(dataDir(ctx), BUNDLE_COPY_NAME)];
  if (record?.bundle !== undefined) out.push(record.bundle);
  const script = options.selfCommand[options.selfCommand.length - 1];
  if (script !== undefined && p.isAbsolute(script)) {
    out.push(script);
    if (!script.endsWith('.mjs')) out.push(p.resolve(p.dirname(script), '..', '..', 'dist', BUNDLE_COPY_NAME));
  }
  return [...new Set(out.map((b) => p.normalize(b)))];
}

/** ", which runs …": what a launcher that is not ours would start, so the person recognizes it. */
function describeRun(ctx: SystemContext, launcher: string): string {
  let text: string;
  try {
    text = ctx.fs.readText(launcher);
  } catch {
    return '';
  }
  const run = parseLauncher(ctx.platform, text);
  return run === undefined ? ' (a program "countersign-bridge install" did not write)' : `, which runs ${run.bundlePath}`;
}

/** Windows paths differ in case only when they name the same file. */
function samePath(ctx: SystemContext, a: string, b: string): boolean {
  const p = pathApi(ctx.platform);
  const [x, y] = [p.normalize(a), p.normalize(b)];
  return ctx.platform === 'win32' ? x.toLowerCase() === y.toLowerCase() : x === y;
}

// ---------------------------------------------------------------------------------------------
// One registration

function checkOne(ctx: SystemContext, options: DoctorOptions, record: InstallRecord | undefined, check: Check): Finding {
  const p = pathApi(ctx.platform);
  const { browser } = check;
  const family = browserFamily(browser);
  const id = expectedId(browser, check.manifestPath, options, record);
  const where =
    check.userDataDir !== undefined ? ` (profile ${check.userDataDir})` : check.flatpakApp !== undefined ? ` (Flatpak ${check.flatpakApp})` : '';
  const install = installCommand(ctx, options, check, id);
  const launcherDir = record !== undefined ? p.dirname(record.launcher) : dataDir(ctx);
  // A Flatpak's fix opens its sandbox too; install alone would leave it closed.
  const fix = check.flatpakApp === undefined ? install : `${flatpakOverrideCommand(check.flatpakApp, [launcherDir, ...(isReservedInFlatpak(ctx.execPath) ? [] : [nodeRoot(ctx.execPath)])])} && ${install}`;
  const base = { subject: browser, ...(check.manifestPath === undefined ? {} : { manifest: check.manifestPath }) };
  const error = (message: string, fixCommand = fix): Finding => ({ ...base, severity: 'error', message: `${message}${where}`, fix: fixCommand });

  const exists = check.manifestPath !== undefined && ctx.fs.stat(check.manifestPath)?.isFile === true;
  if (!exists) {
    // A browser this user never ran needs no host; one they did run does.
    if (check.reason === undefined) return { ...base, severity: 'skip', message: 'not installed for this user' };
    const what = check.manifestPath === undefined ? `no registry value at ${check.registryKey ?? '?'}` : `no host manifest at ${check.manifestPath}`;
    const why =
      check.reason === 'running'
        ? `${browser} is running with --user-data-dir=${check.userDataDir ?? ''}, so it reads host manifests from that folder only: `
        : check.reason === 'flatpak' || check.reason === 'flatpak-data'
          ? `${browser} is installed as a Flatpak (${check.flatpakApp ?? ''}): it reads host manifests inside its own home and starts the host inside its sandbox: `
          : '';
    const consequence = `; ${reports(browser, 'not-found')}`;
    // Installed but never started by this user (or a Flatpak never run): worth doing, not yet broken.
    if (check.reason === 'program' || check.reason === 'flatpak') {
      return { ...base, severity: 'warn', message: `${why}${what} (installed, not yet used by this user)${consequence}`, fix };
    }
    return check.reason === 'running' ? { ...base, severity: 'error', message: `${why}${what}${consequence}`, fix } : error(`${why}${what}${consequence}`);
  }
  const manifestPath = check.manifestPath as string;
  let manifest: Record<string, unknown>;
  try {
    const value = JSON.parse(ctx.fs.readText(manifestPath)) as unknown;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('not an object');
    manifest = value as Record<string, unknown>;
  } catch {
    return error(`${manifestPath} is not a JSON object; the browser ignores it and ${reports(browser, 'not-found')}`);
  }
  if (manifest['name'] !== NATIVE_HOST_NAME) {
    return error(`${manifestPath}: "name" must be "${NATIVE_HOST_NAME}" (the file name and connectNative use it); ${reports(browser, 'not-found')}`);
  }
  if (manifest['type'] !== 'stdio') return error(`${manifestPath}: "type" must be "stdio"; ${reports(browser, 'not-found')}`);

  const launcher = manifest['path'];
  if (typeof launcher !== 'string' || launcher === '') return error(`${manifestPath}: "path" is missing; ${reports(browser, 'not-found')}`);
  if (!p.isAbsolute(launcher)) {
    return error(`${manifestPath}: "path" ${launcher} is relative; ${reports(browser, 'not-found')} (it must be absolute)`);
  }
  const failedToStart = reports(browser, 'failed-to-start');
  const st = ctx.fs.stat(launcher);
  if (st?.isDirectory === true) return error(`${manifestPath}: "path" ${launcher} is a folder, not the launcher; ${failedToStart}`);
  if (st?.isFile !== true) return error(`${manifestPath}: "path" ${launcher} does not exist (a moved or deleted install?); ${failedToStart}`);
  const own = ownLauncher(ctx, record);
  if (!samePath(ctx, launcher, own)) {
    return error(`${manifestPath}: "path" is ${launcher}${describeRun(ctx, launcher)}, not this installation's launcher ${own}; install again from this one`);
  }
  if (ctx.platform !== 'win32' && (st.mode & 0o111) === 0) {
    return error(`launcher ${launcher} is not executable; ${failedToStart}`, `chmod 755 ${shellQuote(launcher)}`);
  }
  const run = parseLauncher(ctx.platform, ctx.fs.readText(launcher));
  if (run === undefined) {
    return error(`launcher ${launcher} was not written by "countersign-bridge install" (edited, or replaced by another program), so this installation's bridge may not be what runs; install again from this one`);
  }
  const bundles = ownBundles(ctx, options, record);
  if (!bundles.some((b) => samePath(ctx, run.bundlePath, b))) {
    return error(
      `launcher ${launcher} runs ${run.bundlePath}, not this installation's bridge (${bundles.join(' or ')}): another Countersign checkout or install wrote it; install again from this one`,
    );
  }
  const node = ctx.fs.stat(run.execPath);
  if (node?.isFile !== true || (ctx.platform !== 'win32' && (node.mode & 0o111) === 0)) {
    return error(`node is gone from ${run.execPath}, the path install recorded in ${launcher} (a removed nvm or system version?); ${failedToStart}`);
  }
  if (ctx.fs.stat(run.bundlePath)?.isFile !== true) return error(`the bridge bundle ${run.bundlePath} is gone; ${failedToStart}`);

  if (family === 'chromium') {
    const origins = manifest['allowed_origins'];
    const want = `chrome-extension://${id}/`;
    if (!Array.isArray(origins) || !origins.includes(want)) {
      const withoutSlash = Array.isArray(origins) && origins.includes(want.slice(0, -1));
      return error(
        withoutSlash
          ? `"allowed_origins" has ${want.slice(0, -1)} without the trailing slash; ${reports(browser, 'not-found')}`
          : `"allowed_origins" does not contain ${want}; ${reports(browser, 'forbidden')}`,
      );
    }
  } else {
    const allowed = manifest['allowed_extensions'];
    if (!Array.isArray(allowed) || !allowed.includes(id)) {
      return error(`"allowed_extensions" does not contain ${id}; ${reports(browser, 'forbidden')}`);
    }
  }
  if (check.flatpakApp !== undefined) {
    const sandbox = flatpakFinding(ctx, check, launcher, run);
    if (sandbox !== undefined) return sandbox;
  }
  return { ...base, severity: 'ok', message: `ready: ${manifestPath} → ${launcher}${where}` };
}

// ---------------------------------------------------------------------------------------------
// Snap

function snapFindings(ctx: SystemContext, options: DoctorOptions, browsers: readonly BrowserId[]): Finding[] {
  const out: Finding[] = [];
  for (const s of detectSandboxed(ctx)) {
    if (s.kind !== 'snap' || !browsers.includes(s.browser)) continue;
    if (s.browser === 'firefox') {
      out.push({
        subject: 'sandbox',
        severity: 'info',
        message:
          `Firefox is a Snap (${s.evidence}): it starts the bridge through the XDG WebExtensions portal (Ubuntu 22.04 and later), ` +
          `which reads the manifest in ~/.mozilla/native-messaging-hosts (checked above) and asks you once whether Firefox may start it. ` +
          `If you answered no, or nothing happens: reset that answer (remove ~/.local/share/flatpak/db/webextensions, then log out and in), ` +
          `or use Firefox from Mozilla's .deb or tarball`,
        fix: `rm -f ${shellQuote(pathApi('linux').join(ctx.homedir, '.local', 'share', 'flatpak', 'db', 'webextensions'))}`,
      });
    } else {
      out.push({
        subject: 'sandbox',
        severity: 'warn',
        message:
          `${s.browser} is a Snap (${s.evidence}): a Snap ${s.browser} cannot start native messaging hosts outside its confinement, ` +
          `so Countersign cannot connect from it (no manifest or override changes that). Use ${s.browser} from a .deb/.rpm ` +
          `(on Ubuntu the apt "chromium-browser" package is the Snap too: use Google Chrome's .deb, Debian's chromium or Firefox), then install for it`,
        fix: quoteFor(ctx, [...options.selfCommand, 'install', '--browser', 'all']),
      });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Running bridges: one agent socket per extension key

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

function socketFindings(ctx: SystemContext, options: DoctorOptions): Finding[] {
  // Windows: named pipes, which leave nothing to look at when their bridge is gone.
  if (ctx.platform === 'win32') return [];
  const p = pathApi('linux');
  const sockets: Array<{ path: string; thumbprint: string }> = [];
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
  if (sockets.length === 0) {
    return [{ subject: 'socket', severity: 'info', message: 'no bridge is running now (the browser starts one when the extension connects)' }];
  }
  const listening = listeningSockets(ctx);
  const live = sockets.filter((s) => listening === undefined || listening.has(s.path));
  const out: Finding[] = [];
  if (live.length > 1) {
    out.push({
      subject: 'socket',
      severity: 'warn',
      message:
        `${live.length} bridges are running, one per extension key: each browser profile with Countersign has its own key and its own socket. ` +
        `An agent paired with one key only ever reaches that profile; an agent not yet paired cannot choose, so give it the socket ` +
        `of the profile you approve in (socketPath, printed by socket-path <thumbprint>)`,
    });
  }
  for (const s of sockets) {
    const socketPathCommand = quoteFor(ctx, [...options.selfCommand, 'socket-path', s.thumbprint]);
    if (listening !== undefined && !listening.has(s.path)) {
      out.push({
        subject: 'socket',
        severity: 'warn',
        message: `${s.path}: no bridge listens (left by a bridge that stopped); the next bridge for extension key ${s.thumbprint} replaces it, and agents skip it`,
        fix: `rm ${shellQuote(s.path)}`,
      });
      continue;
    }
    const inode = listening?.get(s.path);
    const owner = inode === undefined ? undefined : socketOwner(ctx, inode);
    const who = owner === undefined ? '' : `; bridge pid ${owner.pid} ${describeStarter(ctx, owner)}`;
    out.push({
      subject: 'socket',
      severity: live.length > 1 ? 'warn' : 'ok',
      message: `${s.path}: extension key ${s.thumbprint}${who}`,
      ...(live.length > 1 ? { fix: socketPathCommand } : {}),
    });
  }
  return out;
}

/** Check every browser (or those named). Never throws for what it finds: everything is a finding. */
export function doctor(ctx: SystemContext, options: DoctorOptions): Finding[] {
  let record: InstallRecord | undefined;
  const findings: Finding[] = [];
  try {
    record = readRecord(ctx);
  } catch (error) {
    findings.push({ subject: 'install', severity: 'warn', message: error instanceof Error ? error.message : 'install record unreadable' });
  }
  for (const check of checksFor(ctx, options, record)) findings.push(checkOne(ctx, options, record, check));
  if (options.userDataDir === undefined) {
    const browsers = options.browsers === undefined || options.browsers === 'all' ? [...BROWSER_IDS] : options.browsers;
    findings.push(...snapFindings(ctx, options, browsers));
    findings.push(...socketFindings(ctx, options));
  }
  return findings;
}

/** Human-readable report: one line per finding, the fix indented under it. */
export function formatFindings(findings: readonly Finding[]): string {
  const lines: string[] = [];
  for (const f of findings) {
    lines.push(`${f.subject.padEnd(9)} ${f.severity.padEnd(5)} ${f.message}`);
    if (f.fix !== undefined) lines.push(`${' '.repeat(16)}fix: ${f.fix}`);
  }
  return `${lines.join('\n')}\n`;
}

