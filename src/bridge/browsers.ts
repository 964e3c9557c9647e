import path from 'node:path';
import { NATIVE_HOST_NAME } from '../protocol/bridge';
import type { Platform, SystemContext } from './system';

/**
 * Where each browser looks for native-messaging host manifests, per OS (Chrome and Firefox
 * documentation, checked on Debian Chromium and Firefox ESR; what they did differently from the
 * docs is noted where it matters below). Pure functions of the platform, home folder and
 * environment.
 */

export const BROWSER_IDS = ['chrome', 'chromium', 'edge', 'brave', 'vivaldi', 'firefox'] as const;
export type BrowserId = (typeof BROWSER_IDS)[number];

export function isBrowserId(value: string): value is BrowserId {
  return (BROWSER_IDS as readonly string[]).includes(value);
}

export function browserFamily(browser: BrowserId): 'chromium' | 'firefox' {
  return browser === 'firefox' ? 'firefox' : 'chromium';
}

export function pathApi(platform: Platform): path.PlatformPath {
  return platform === 'win32' ? path.win32 : path.posix;
}

export type ManifestTarget =
  /** Linux and macOS, and a custom Chromium profile: the browser reads `<dir>/dev.countersign.bridge.json`. */
  | { kind: 'file'; manifestPath: string }
  /** Windows: the browser reads the registry value, which names the manifest file (anywhere). */
  | { kind: 'registry'; manifestPath: string; registryKey: string };

export interface BrowserLocation {
  browser: BrowserId;
  /** A folder that exists once the browser has run for this user: how "installed" is detected. */
  profileRoot: string;
  target: ManifestTarget;
}

const MANIFEST_FILE = `${NATIVE_HOST_NAME}.json`;

function absoluteEnv(ctx: Pick<SystemContext, 'env' | 'platform'>, name: string): string | undefined {
  const value = ctx.env[name];
  return value !== undefined && value !== '' && pathApi(ctx.platform).isAbsolute(value) ? value : undefined;
}

/** Our own per-user folder: launcher, bundle copy, install record (and the manifests on Windows). */
export function dataDir(ctx: Pick<SystemContext, 'env' | 'platform' | 'homedir'>): string {
  const p = pathApi(ctx.platform);
  switch (ctx.platform) {
    case 'linux':
      return p.join(absoluteEnv(ctx, 'XDG_DATA_HOME') ?? p.join(ctx.homedir, '.local', 'share'), 'countersign');
    case 'darwin':
      return p.join(ctx.homedir, 'Library', 'Application Support', 'Countersign');
    case 'win32':
      return p.join(localAppData(ctx), 'Countersign');
  }
}

function localAppData(ctx: Pick<SystemContext, 'env' | 'platform' | 'homedir'>): string {
  return absoluteEnv(ctx, 'LOCALAPPDATA') ?? path.win32.join(ctx.homedir, 'AppData', 'Local');
}

function roamingAppData(ctx: Pick<SystemContext, 'env' | 'platform' | 'homedir'>): string {
  return absoluteEnv(ctx, 'APPDATA') ?? path.win32.join(ctx.homedir, 'AppData', 'Roaming');
}

/** Chromium-family profile folders relative to the OS's config root. */
const LINUX_DIRS: Record<Exclude<BrowserId, 'firefox'>, string[]> = {
  chrome: ['google-chrome'],
  chromium: ['chromium'],
  edge: ['microsoft-edge'],
  brave: ['BraveSoftware', 'Brave-Browser'],
  vivaldi: ['vivaldi'],
};
const MAC_DIRS: Record<Exclude<BrowserId, 'firefox'>, string[]> = {
  chrome: ['Google', 'Chrome'],
  chromium: ['Chromium'],
  edge: ['Microsoft Edge'],
  brave: ['BraveSoftware', 'Brave-Browser'],
  vivaldi: ['Vivaldi'],
};
/** Windows: `%LOCALAPPDATA%\<dirs>\User Data` and `HKCU\Software\<key>\NativeMessagingHosts`. */
const WINDOWS: Record<Exclude<BrowserId, 'firefox'>, { dirs: string[]; key: string }> = {
  chrome: { dirs: ['Google', 'Chrome'], key: 'Google\\Chrome' },
  chromium: { dirs: ['Chromium'], key: 'Chromium' },
  edge: { dirs: ['Microsoft', 'Edge'], key: 'Microsoft\\Edge' },
  brave: { dirs: ['BraveSoftware', 'Brave-Browser'], key: 'BraveSoftware\\Brave-Browser' },
  vivaldi: { dirs: ['Vivaldi'], key: 'Vivaldi' },
};

export function registryKey(browser: BrowserId): string {
  const base = browser === 'firefox' ? 'Mozilla' : WINDOWS[browser].key;
  return `HKCU\\Software\\${base}\\NativeMessagingHosts\\${NATIVE_HOST_NAME}`;
}

/** Where `browser` reads our manifest for this user, and how to tell it is installed. */
export function browserLocation(browser: BrowserId, ctx: Pick<SystemContext, 'env' | 'platform' | 'homedir'>): BrowserLocation {
  const p = pathApi(ctx.platform);
  switch (ctx.platform) {
    case 'linux': {
      if (browser === 'firefox') {
        // Firefox reads only ~/.mozilla/native-messaging-hosts (and a system folder): never XDG_CONFIG_HOME.
        return { browser, profileRoot: p.join(ctx.homedir, '.mozilla'), target: { kind: 'file', manifestPath: p.join(ctx.homedir, '.mozilla', 'native-messaging-hosts', MANIFEST_FILE) } };
      }
      // Chromium browsers put their user data dir, and NativeMessagingHosts in it, under XDG_CONFIG_HOME.
      const root = p.join(absoluteEnv(ctx, 'XDG_CONFIG_HOME') ?? p.join(ctx.homedir, '.config'), ...LINUX_DIRS[browser]);
      return { browser, profileRoot: root, target: { kind: 'file', manifestPath: p.join(root, 'NativeMessagingHosts', MANIFEST_FILE) } };
    }
    case 'darwin': {
      const support = p.join(ctx.homedir, 'Library', 'Application Support');
      if (browser === 'firefox') {
        return { browser, profileRoot: p.join(support, 'Firefox'), target: { kind: 'file', manifestPath: p.join(support, 'Mozilla', 'NativeMessagingHosts', MANIFEST_FILE) } };
      }
      const root = p.join(support, ...MAC_DIRS[browser]);
      return { browser, profileRoot: root, target: { kind: 'file', manifestPath: p.join(root, 'NativeMessagingHosts', MANIFEST_FILE) } };
    }
    case 'win32': {
      // The manifest may live anywhere on Windows; one per browser, so each can name its own extension id.
      const manifestPath = p.join(dataDir(ctx), 'manifests', browser, MANIFEST_FILE);
      const profileRoot = browser === 'firefox' ? p.join(roamingAppData(ctx), 'Mozilla', 'Firefox') : p.join(localAppData(ctx), ...WINDOWS[browser].dirs, 'User Data');
      return { browser, profileRoot, target: { kind: 'registry', manifestPath, registryKey: registryKey(browser) } };
    }
  }
}

/** A custom Chromium profile (`--user-data-dir DIR`) reads `DIR/NativeMessagingHosts` and nothing else. */
export function customProfileManifestPath(userDataDir: string, platform: Platform): string {
  return pathApi(platform).join(userDataDir, 'NativeMessagingHosts', MANIFEST_FILE);
}

// ---------------------------------------------------------------------------------------------
// Which browsers are installed

/**
 * Programs that mean a browser is installed, besides its profile folder (a browser never started
 * by this user has none yet, but reads our manifest from the first start on). Linux: the usual
 * package locations, plus these names on PATH. macOS: the app bundles.
 */
const LINUX_PROGRAMS: Record<BrowserId, { names: string[]; paths: string[] }> = {
  chrome: { names: ['google-chrome', 'google-chrome-stable'], paths: ['/opt/google/chrome/chrome'] },
  chromium: { names: ['chromium', 'chromium-browser'], paths: ['/usr/lib/chromium/chromium', '/usr/lib64/chromium-browser/chromium-browser'] },
  edge: { names: ['microsoft-edge', 'microsoft-edge-stable'], paths: ['/opt/microsoft/msedge/msedge'] },
  brave: { names: ['brave-browser', 'brave-browser-stable'], paths: ['/opt/brave.com/brave/brave'] },
  vivaldi: { names: ['vivaldi', 'vivaldi-stable'], paths: ['/opt/vivaldi/vivaldi'] },
  firefox: { names: ['firefox', 'firefox-esr'], paths: ['/usr/lib/firefox/firefox', '/usr/lib/firefox-esr/firefox-esr', '/opt/firefox/firefox'] },
};
const MAC_APPS: Record<BrowserId, string> = {
  chrome: 'Google Chrome.app',
  chromium: 'Chromium.app',
  edge: 'Microsoft Edge.app',
  brave: 'Brave Browser.app',
  vivaldi: 'Vivaldi.app',
  firefox: 'Firefox.app',
};

/** Where a browser's program would be, in the order looked at. */
export function programCandidates(browser: BrowserId, ctx: Pick<SystemContext, 'env' | 'platform' | 'homedir'>): string[] {
  switch (ctx.platform) {
    case 'linux': {
      const { names, paths } = LINUX_PROGRAMS[browser];
      const dirs = ['/usr/bin', ...(ctx.env['PATH'] ?? '').split(':').filter((d) => d.startsWith('/'))];
      return [...new Set([...dirs.flatMap((d) => names.map((n) => path.posix.join(d, n))), ...paths])];
    }
    case 'darwin':
      return ['/Applications', path.posix.join(ctx.homedir, 'Applications')].map((d) => path.posix.join(d, MAC_APPS[browser]));
    case 'win32':
      // Windows installs are found by their profile folder (and the registry is per user anyway).
      return [];
  }
}

/**
 * Ubuntu's /usr/bin/firefox and /usr/bin/chromium-browser are small scripts (or links) that start
 * the Snap: that is the Snap browser, not a native one.
 */
function isSnapLauncher(ctx: Pick<SystemContext, 'fs'>, file: string): boolean {
  if (ctx.fs.readlink?.(file)?.includes('/snap/') === true) return true;
  const st = ctx.fs.stat(file);
  if (st?.isFile !== true || st.size === undefined || st.size > 64 * 1024) return false;
  try {
    return /\/snap\/|\bsnap run\b/.test(ctx.fs.readText(file));
  } catch {
    return false;
  }
}

export interface Detection {
  browser: BrowserId;
  /** profile: this user ran it (its profile folder exists); program: installed, never run by this user; snap: Firefox as a Snap. */
  kind: 'profile' | 'program' | 'snap';
  /** The folder or program that showed it. */
  evidence: string;
}

/** Whether `browser` is installed natively for this user, and what shows it; undefined when not. */
export function detectBrowser(browser: BrowserId, ctx: Pick<SystemContext, 'env' | 'platform' | 'homedir' | 'fs'>): Detection | undefined {
  const { profileRoot } = browserLocation(browser, ctx);
  if (ctx.fs.stat(profileRoot)?.isDirectory === true) return { browser, kind: 'profile', evidence: profileRoot };
  for (const candidate of programCandidates(browser, ctx)) {
    const st = ctx.fs.stat(candidate);
    const found = ctx.platform === 'darwin' ? st?.isDirectory === true : st?.isFile === true && (st.mode & 0o111) !== 0;
    if (found && !isSnapLauncher(ctx, candidate)) return { browser, kind: 'program', evidence: candidate };
  }
  // Firefox as a Snap starts hosts through the XDG WebExtensions portal, which reads the usual
  // ~/.mozilla/native-messaging-hosts: for install, it is a Firefox like any other.
  const snap = detectSandboxed(ctx).find((s) => s.kind === 'snap' && s.browser === 'firefox');
  if (browser === 'firefox' && snap !== undefined) return { browser, kind: 'snap', evidence: snap.evidence };
  return undefined;
}

/** Every browser installed for this user ("--browser all"), in BROWSER_IDS order. */
export function installedBrowsers(ctx: Pick<SystemContext, 'env' | 'platform' | 'homedir' | 'fs'>): Detection[] {
  return BROWSER_IDS.map((b) => detectBrowser(b, ctx)).filter((d): d is Detection => d !== undefined);
}

// ---------------------------------------------------------------------------------------------
// Snap and Flatpak

/** Flathub application ids. */
export const FLATPAK_APPS: Record<BrowserId, string> = {
  chrome: 'com.google.Chrome',
  chromium: 'org.chromium.Chromium',
  edge: 'com.microsoft.Edge',
  brave: 'com.brave.Browser',
  vivaldi: 'com.vivaldi.Vivaldi',
  firefox: 'org.mozilla.firefox',
};
/** Snap names of the browsers published as Snaps. */
export const SNAP_NAMES: Partial<Record<BrowserId, string>> = { chromium: 'chromium', firefox: 'firefox', brave: 'brave' };

export interface SandboxedBrowser {
  browser: BrowserId;
  kind: 'flatpak' | 'snap';
  /** The Flatpak application id or the Snap name. */
  appId: string;
  evidence: string;
}

/** `~/.var/app/<id>`: a Flatpak app's own home folder (its config, its ~/.mozilla). */
export function flatpakAppHome(appId: string, ctx: Pick<SystemContext, 'homedir'>): string {
  return path.posix.join(ctx.homedir, '.var', 'app', appId);
}

/**
 * Where a Flatpak browser reads our manifest: inside its own home, which the sandbox maps to
 * ~/.config (Chromium family) or ~/.mozilla (Firefox).
 */
export function flatpakManifestPath(browser: BrowserId, ctx: Pick<SystemContext, 'homedir'>): string {
  const home = flatpakAppHome(FLATPAK_APPS[browser], ctx);
  return browser === 'firefox'
    ? path.posix.join(home, '.mozilla', 'native-messaging-hosts', MANIFEST_FILE)
    : path.posix.join(home, 'config', ...LINUX_DIRS[browser], 'NativeMessagingHosts', MANIFEST_FILE);
}

/** Folders holding installed Flatpak apps: per user, then system-wide. */
function flatpakInstallDirs(ctx: Pick<SystemContext, 'env' | 'platform' | 'homedir'>): string[] {
  const dataHome = absoluteEnv(ctx, 'XDG_DATA_HOME') ?? path.posix.join(ctx.homedir, '.local', 'share');
  return [path.posix.join(dataHome, 'flatpak', 'app'), '/var/lib/flatpak/app'];
}

/** Snap and Flatpak browsers on this machine (Linux only): installed, or with data in the home folder. */
export function detectSandboxed(ctx: Pick<SystemContext, 'env' | 'platform' | 'homedir' | 'fs'>): SandboxedBrowser[] {
  if (ctx.platform !== 'linux') return [];
  const isDir = (p: string) => ctx.fs.stat(p)?.isDirectory === true;
  const found: SandboxedBrowser[] = [];
  for (const browser of BROWSER_IDS) {
    const snap = SNAP_NAMES[browser];
    if (snap !== undefined) {
      const evidence = ['/snap/' + snap, path.posix.join(ctx.homedir, 'snap', snap)].find(isDir);
      if (evidence !== undefined) found.push({ browser, kind: 'snap', appId: snap, evidence });
    }
    const appId = FLATPAK_APPS[browser];
    const evidence = [...flatpakInstallDirs(ctx).map((d) => path.posix.join(d, appId)), flatpakAppHome(appId, ctx)].find(isDir);
    if (evidence !== undefined) found.push({ browser, kind: 'flatpak', appId, evidence });
  }
  return found;
}

/**
 * The `flatpak override --user` file of an app (a key file: `[Context]` `filesystems=a;b;`), and
 * the system-wide one. Doctor reads them to see whether the sandbox can reach the bridge.
 */
export function flatpakOverrideFiles(appId: string, ctx: Pick<SystemContext, 'env' | 'platform' | 'homedir'>): string[] {
  const dataHome = absoluteEnv(ctx, 'XDG_DATA_HOME') ?? path.posix.join(ctx.homedir, '.local', 'share');
  return [path.posix.join(dataHome, 'flatpak', 'overrides', appId), path.posix.join('/var/lib/flatpak/overrides', appId)];
}

// ---------------------------------------------------------------------------------------------
// Running browsers (Linux /proc): custom profile folders

/** Chromium-family program names as they appear in a process's argv[0]. */
const CHROMIUM_PROGRAM_NAMES: Array<[RegExp, Exclude<BrowserId, 'firefox'>]> = [
  [/^(google-chrome(-stable|-beta|-unstable)?|chrome)$/, 'chrome'],
  [/^chromium(-browser)?$/, 'chromium'],
  [/^(microsoft-edge(-stable|-beta|-dev)?|msedge)$/, 'edge'],
  [/^brave(-browser(-stable)?)?$/, 'brave'],
  [/^vivaldi(-bin|-stable)?$/, 'vivaldi'],
];

/** Which Chromium-family browser a program path is, if any. */
export function chromiumBrowserOf(program: string): Exclude<BrowserId, 'firefox'> | undefined {
  const base = path.posix.basename(program);
  return CHROMIUM_PROGRAM_NAMES.find(([re]) => re.test(base))?.[1];
}

/** The value of a Chromium switch `--name=value` in an argv (Chromium takes no `--name value` form). */
export function argValue(argv: readonly string[], name: string): string | undefined {
  const prefix = `${name}=`;
  return argv.find((a) => a.startsWith(prefix))?.slice(prefix.length);
}

export interface ProcessInfo {
  pid: number;
  argv: string[];
  /** Parent process id. */
  ppid?: number;
}

/** Read one process from /proc; undefined when it is gone or not ours to read. */
export function readProcess(ctx: Pick<SystemContext, 'fs'>, pid: number): ProcessInfo | undefined {
  let argv: string[];
  try {
    argv = ctx.fs.readText(`/proc/${pid}/cmdline`).split('\0');
  } catch {
    return undefined;
  }
  if (argv.at(-1) === '') argv.pop();
  if (argv.length === 0) return undefined;
  let ppid: string | undefined;
  try {
    ppid = /^PPid:\s*(\d+)$/m.exec(ctx.fs.readText(`/proc/${pid}/status`))?.[1];
  } catch {
    ppid = undefined;
  }
  return { pid, argv, ...(ppid === undefined ? {} : { ppid: Number(ppid) }) };
}

/** Process ids in /proc (Linux), or none elsewhere. */
export function processIds(ctx: Pick<SystemContext, 'fs' | 'platform'>): number[] {
  if (ctx.platform !== 'linux' || ctx.fs.stat('/proc')?.isDirectory !== true) return [];
  try {
    return ctx.fs
      .readdir('/proc')
      .filter((n) => /^\d+$/.test(n))
      .map(Number);
  } catch {
    return [];
  }
}

export interface RunningProfile {
  browser: Exclude<BrowserId, 'firefox'>;
  userDataDir: string;
  pid: number;
}

/**
 * Chromium-family browsers running with `--user-data-dir` (their main process: helpers carry
 * `--type=`). Such a browser reads host manifests from DIR/NativeMessagingHosts only.
 */
export function runningCustomProfiles(ctx: Pick<SystemContext, 'fs' | 'platform'>): RunningProfile[] {
  const out: RunningProfile[] = [];
  for (const pid of processIds(ctx)) {
    const proc = readProcess(ctx, pid);
    if (proc === undefined || proc.argv.some((a) => a.startsWith('--type='))) continue;
    const browser = chromiumBrowserOf(proc.argv[0] ?? '');
    let dir = browser === undefined ? undefined : argValue(proc.argv, '--user-data-dir');
    if (browser === undefined || dir === undefined || dir === '') continue;
    if (!path.posix.isAbsolute(dir)) {
      const cwd = ctx.fs.readlink?.(`/proc/${pid}/cwd`);
      if (cwd === undefined) continue;
      dir = path.posix.resolve(cwd, dir);
    }
    const userDataDir = path.posix.normalize(dir).replace(/\/+$/, '') || '/';
    if (!out.some((p) => p.userDataDir === userDataDir)) out.push({ browser, userDataDir, pid });
  }
  return out;
}
