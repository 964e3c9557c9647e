import path from 'node:path';
import { NATIVE_HOST_NAME } from '../protocol/bridge';
import type { Platform, SystemContext } from './system';

/**
 * Where each browser looks for native-messaging host manifests, per OS (Chrome and Firefox
 * documentation, checked on Debian Chromium and Firefox ESR; what they did differently from the
 * docs is noted where it matters below). Pure functions of the platform, home folder and
 * environment. docs/bridge-protocol.md section 14 and the README's "Install the bridge" describe
 * the result for people.
 *
 * Everything known about one browser is its entry in BROWSERS, and everything else (BROWSER_IDS,
 * the `--browser` help, install, doctor, detection, Snap/Flatpak, running processes) reads it.
 *
 * Adding a Chromium-family browser is one edit here: add an entry to BROWSERS, before `firefox`
 * (the order is the order of BROWSER_IDS, of `--browser` help and of doctor's report), of the form
 *
 *   <id>: {
 *     family: 'chromium',
 *     linux: { userData: [<folders under ~/.config>], programs: [<names on PATH>], programPaths: [<absolute paths>] },
 *     mac: { userData: [<folders under ~/Library/Application Support>], app: '<Name>.app' },
 *     windows: { userData: [<folders under %LOCALAPPDATA%, before "User Data">], registry: '<Vendor>\\<Product>' },
 *     flatpak: '<Flathub app id>',
 *     processName: /^<program base name in argv[0]>$/,
 *   },
 *
 * (with `snap: { name, portal: false }` if it is published as a Snap). Nothing else in src/ changes:
 * the compiler checks the entry's shape, and install, doctor, detection and `--browser` read it.
 * The tests then name what must say the new browser in words, and fail until it does: the browser
 * lists in docs/bridge-protocol.md section 14 and README.md (test/bridge/browsers.test.ts), and
 * the expectations written out by hand on purpose, so that they check this table rather than
 * repeat it (the expected folders and registry keys in test/bridge/install.test.ts, the count of
 * browsers doctor skips in test/bridge/doctor.test.ts).
 */

export type BrowserFamily = 'chromium' | 'firefox';

/** What every browser has, whatever its family. */
interface CommonRecord {
  /** Flathub application id; its home is ~/.var/app/<flatpak>. */
  flatpak: string;
  /**
   * The Snap, when the browser is published as one. portal: the Snap starts hosts through the XDG
   * WebExtensions portal, reading the usual manifest (Firefox); without it a Snap cannot start a
   * host outside its confinement at all (Chromium, Brave).
   */
  snap?: { name: string; portal: boolean };
}

/** Linux programs that mean the browser is installed: names in /usr/bin and on PATH, then absolute paths. */
interface LinuxPrograms {
  programs: readonly string[];
  programPaths: readonly string[];
}

/**
 * A Chromium-family browser: hosts are read from `<user data dir>/NativeMessagingHosts`, and on
 * Windows from the registry (https://developer.chrome.com/docs/extensions/develop/concepts/native-messaging#native-messaging-host-location).
 */
export interface ChromiumRecord extends CommonRecord {
  family: 'chromium';
  /** userData: under $XDG_CONFIG_HOME (~/.config), and under ~/.var/app/<flatpak>/config in a Flatpak. */
  linux: LinuxPrograms & { userData: readonly string[] };
  /** userData: under ~/Library/Application Support. app: the bundle in /Applications or ~/Applications. */
  mac: { userData: readonly string[]; app: string };
  /** userData: `%LOCALAPPDATA%\<userData>\User Data`. registry: `HKCU\Software\<registry>\NativeMessagingHosts`. */
  windows: { userData: readonly string[]; registry: string };
  /** The program's base name in argv[0] of a running browser (custom profiles, who started a bridge). */
  processName: RegExp;
}

/**
 * A Firefox-family browser: its profile folder and its hosts folder differ
 * (https://developer.mozilla.org/en-US/docs/Mozilla/Add-ons/WebExtensions/Native_manifests#manifest_location).
 */
export interface FirefoxRecord extends CommonRecord {
  family: 'firefox';
  /** Under the home folder, never XDG_CONFIG_HOME; in a Flatpak, under ~/.var/app/<flatpak>. */
  linux: LinuxPrograms & { profile: readonly string[]; hosts: readonly string[] };
  /** Under ~/Library/Application Support. */
  mac: { profile: readonly string[]; hosts: readonly string[]; app: string };
  /** profile: under %APPDATA%. registry: `HKCU\Software\<registry>\NativeMessagingHosts`. */
  windows: { profile: readonly string[]; registry: string };
}

export type BrowserRecord = ChromiumRecord | FirefoxRecord;

/** One entry per browser; the key is the id people type after `--browser`. */
export const BROWSERS = {
  chrome: {
    family: 'chromium',
    linux: { userData: ['google-chrome'], programs: ['google-chrome', 'google-chrome-stable'], programPaths: ['/opt/google/chrome/chrome'] },
    mac: { userData: ['Google', 'Chrome'], app: 'Google Chrome.app' },
    windows: { userData: ['Google', 'Chrome'], registry: 'Google\\Chrome' },
    flatpak: 'com.google.Chrome',
    processName: /^(google-chrome(-stable|-beta|-unstable)?|chrome)$/,
  },
  chromium: {
    family: 'chromium',
    linux: { userData: ['chromium'], programs: ['chromium', 'chromium-browser'], programPaths: ['/usr/lib/chromium/chromium', '/usr/lib64/chromium-browser/chromium-browser'] },
    mac: { userData: ['Chromium'], app: 'Chromium.app' },
    windows: { userData: ['Chromium'], registry: 'Chromium' },
    flatpak: 'org.chromium.Chromium',
    snap: { name: 'chromium', portal: false },
    processName: /^chromium(-browser)?$/,
  },
  edge: {
    family: 'chromium',
    linux: { userData: ['microsoft-edge'], programs: ['microsoft-edge', 'microsoft-edge-stable'], programPaths: ['/opt/microsoft/msedge/msedge'] },
    mac: { userData: ['Microsoft Edge'], app: 'Microsoft Edge.app' },
    windows: { userData: ['Microsoft', 'Edge'], registry: 'Microsoft\\Edge' },
    flatpak: 'com.microsoft.Edge',
    processName: /^(microsoft-edge(-stable|-beta|-dev)?|msedge)$/,
  },
  brave: {
    family: 'chromium',
    linux: { userData: ['BraveSoftware', 'Brave-Browser'], programs: ['brave-browser', 'brave-browser-stable'], programPaths: ['/opt/brave.com/brave/brave'] },
    mac: { userData: ['BraveSoftware', 'Brave-Browser'], app: 'Brave Browser.app' },
    windows: { userData: ['BraveSoftware', 'Brave-Browser'], registry: 'BraveSoftware\\Brave-Browser' },
    flatpak: 'com.brave.Browser',
    snap: { name: 'brave', portal: false },
    processName: /^brave(-browser(-stable)?)?$/,
  },
  vivaldi: {
    family: 'chromium',
    linux: { userData: ['vivaldi'], programs: ['vivaldi', 'vivaldi-stable'], programPaths: ['/opt/vivaldi/vivaldi'] },
    mac: { userData: ['Vivaldi'], app: 'Vivaldi.app' },
    windows: { userData: ['Vivaldi'], registry: 'Vivaldi' },
    flatpak: 'com.vivaldi.Vivaldi',
    processName: /^vivaldi(-bin|-stable)?$/,
  },
  firefox: {
    family: 'firefox',
    linux: {
      profile: ['.mozilla'],
      // Firefox reads only ~/.mozilla/native-messaging-hosts (and a system folder): never XDG_CONFIG_HOME.
      hosts: ['.mozilla', 'native-messaging-hosts'],
      programs: ['firefox', 'firefox-esr'],
      programPaths: ['/usr/lib/firefox/firefox', '/usr/lib/firefox-esr/firefox-esr', '/opt/firefox/firefox'],
    },
    mac: { profile: ['Firefox'], hosts: ['Mozilla', 'NativeMessagingHosts'], app: 'Firefox.app' },
    windows: { profile: ['Mozilla', 'Firefox'], registry: 'Mozilla' },
    flatpak: 'org.mozilla.firefox',
    // Firefox as a Snap starts hosts through the XDG WebExtensions portal (Ubuntu 22.04 and later).
    snap: { name: 'firefox', portal: true },
  },
} as const satisfies Record<string, BrowserRecord>;

export type BrowserId = keyof typeof BROWSERS;
/** The browsers of the Chromium family (the ones `--user-data-dir` applies to). */
export type ChromiumBrowserId = { [K in BrowserId]: (typeof BROWSERS)[K]['family'] extends 'chromium' ? K : never }[BrowserId];

/** Every browser id, in BROWSERS order. */
export const BROWSER_IDS = Object.keys(BROWSERS) as [BrowserId, ...BrowserId[]];
/** The Chromium-family ids, in BROWSERS order. */
export const CHROMIUM_BROWSER_IDS = BROWSER_IDS.filter((b): b is ChromiumBrowserId => BROWSERS[b].family === 'chromium');

/** The browser a custom profile (`--user-data-dir` without `--browser`) is taken to be. */
export const DEFAULT_CUSTOM_PROFILE_BROWSER: ChromiumBrowserId = 'chromium';

/** The record of `browser`, as the union type (narrow it with `family`). */
export function browserRecord(browser: BrowserId): BrowserRecord {
  return BROWSERS[browser];
}

export function isBrowserId(value: string): value is BrowserId {
  return (BROWSER_IDS as readonly string[]).includes(value);
}

export function isChromiumBrowser(browser: BrowserId): browser is ChromiumBrowserId {
  return BROWSERS[browser].family === 'chromium';
}

export function browserFamily(browser: BrowserId): BrowserFamily {
  return BROWSERS[browser].family;
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
/** The folder a Chromium-family browser reads host manifests from, inside its user data dir. */
const CHROMIUM_HOSTS_DIR = 'NativeMessagingHosts';

type PathContext = Pick<SystemContext, 'env' | 'platform' | 'homedir'>;
type DetectContext = Pick<SystemContext, 'env' | 'platform' | 'homedir' | 'fs'>;

function absoluteEnv(ctx: Pick<SystemContext, 'env' | 'platform'>, name: string): string | undefined {
  const value = ctx.env[name];
  return value !== undefined && value !== '' && pathApi(ctx.platform).isAbsolute(value) ? value : undefined;
}

/** Our own per-user folder: launcher, bundle copy, install record (and the manifests on Windows). */
export function dataDir(ctx: PathContext): string {
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

function localAppData(ctx: PathContext): string {
  return absoluteEnv(ctx, 'LOCALAPPDATA') ?? path.win32.join(ctx.homedir, 'AppData', 'Local');
}

function roamingAppData(ctx: PathContext): string {
  return absoluteEnv(ctx, 'APPDATA') ?? path.win32.join(ctx.homedir, 'AppData', 'Roaming');
}

export function registryKey(browser: BrowserId): string {
  return `HKCU\\Software\\${BROWSERS[browser].windows.registry}\\NativeMessagingHosts\\${NATIVE_HOST_NAME}`;
}

/** Linux and macOS: the profile folder and the folder the manifest goes in. */
function unixFolders(browser: BrowserId, ctx: PathContext): { profileRoot: string; hostsDir: string } {
  const p = pathApi(ctx.platform);
  const record = browserRecord(browser);
  if (ctx.platform === 'darwin') {
    const support = p.join(ctx.homedir, 'Library', 'Application Support');
    if (record.family === 'firefox') return { profileRoot: p.join(support, ...record.mac.profile), hostsDir: p.join(support, ...record.mac.hosts) };
    const root = p.join(support, ...record.mac.userData);
    return { profileRoot: root, hostsDir: p.join(root, CHROMIUM_HOSTS_DIR) };
  }
  if (record.family === 'firefox') return { profileRoot: p.join(ctx.homedir, ...record.linux.profile), hostsDir: p.join(ctx.homedir, ...record.linux.hosts) };
  // Chromium browsers put their user data dir, and NativeMessagingHosts in it, under XDG_CONFIG_HOME.
  const root = p.join(absoluteEnv(ctx, 'XDG_CONFIG_HOME') ?? p.join(ctx.homedir, '.config'), ...record.linux.userData);
  return { profileRoot: root, hostsDir: p.join(root, CHROMIUM_HOSTS_DIR) };
}

/** Where `browser` reads our manifest for this user, and how to tell it is installed. */
export function browserLocation(browser: BrowserId, ctx: PathContext): BrowserLocation {
  const p = pathApi(ctx.platform);
  if (ctx.platform !== 'win32') {
    const { profileRoot, hostsDir } = unixFolders(browser, ctx);
    return { browser, profileRoot, target: { kind: 'file', manifestPath: p.join(hostsDir, MANIFEST_FILE) } };
  }
  // The manifest may live anywhere on Windows; one per browser, so each can name its own extension id.
  const manifestPath = p.join(dataDir(ctx), 'manifests', browser, MANIFEST_FILE);
  const record = browserRecord(browser);
  const profileRoot = record.family === 'firefox' ? p.join(roamingAppData(ctx), ...record.windows.profile) : p.join(localAppData(ctx), ...record.windows.userData, 'User Data');
  return { browser, profileRoot, target: { kind: 'registry', manifestPath, registryKey: registryKey(browser) } };
}

/** A custom Chromium profile (`--user-data-dir DIR`) reads `DIR/NativeMessagingHosts` and nothing else. */
export function customProfileManifestPath(userDataDir: string, platform: Platform): string {
  return pathApi(platform).join(userDataDir, CHROMIUM_HOSTS_DIR, MANIFEST_FILE);
}

// ---------------------------------------------------------------------------------------------
// Which browsers are installed

/**
 * Where a browser's program would be, in the order looked at: besides its profile folder, a
 * program means the browser is installed (a browser never started by this user has no profile
 * folder yet, but reads our manifest from the first start on). Linux: the record's names in
 * /usr/bin and on PATH, then its usual package locations. macOS: its app bundle.
 */
export function programCandidates(browser: BrowserId, ctx: PathContext): string[] {
  const record = browserRecord(browser);
  switch (ctx.platform) {
    case 'linux': {
      const { programs, programPaths } = record.linux;
      const dirs = ['/usr/bin', ...(ctx.env['PATH'] ?? '').split(':').filter((d) => d.startsWith('/'))];
      return [...new Set([...dirs.flatMap((d) => programs.map((n) => path.posix.join(d, n))), ...programPaths])];
    }
    case 'darwin':
      return ['/Applications', path.posix.join(ctx.homedir, 'Applications')].map((d) => path.posix.join(d, record.mac.app));
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
export function detectBrowser(browser: BrowserId, ctx: DetectContext): Detection | undefined {
  const { profileRoot } = browserLocation(browser, ctx);
  if (ctx.fs.stat(profileRoot)?.isDirectory === true) return { browser, kind: 'profile', evidence: profileRoot };
  for (const candidate of programCandidates(browser, ctx)) {
    const st = ctx.fs.stat(candidate);
    const found = ctx.platform === 'darwin' ? st?.isDirectory === true : st?.isFile === true && (st.mode & 0o111) !== 0;
    if (found && !isSnapLauncher(ctx, candidate)) return { browser, kind: 'program', evidence: candidate };
  }
  // A Snap that starts hosts through the XDG WebExtensions portal (Firefox) reads the usual
  // manifest (~/.mozilla/native-messaging-hosts): for install, it is a browser like any other.
  if (browserRecord(browser).snap?.portal !== true) return undefined;
  const snap = detectSandboxed(ctx).find((s) => s.kind === 'snap' && s.browser === browser);
  return snap === undefined ? undefined : { browser, kind: 'snap', evidence: snap.evidence };
}

/** Every browser installed for this user ("--browser all"), in BROWSER_IDS order. */
export function installedBrowsers(ctx: DetectContext): Detection[] {
  return BROWSER_IDS.map((b) => detectBrowser(b, ctx)).filter((d): d is Detection => d !== undefined);
}

// ---------------------------------------------------------------------------------------------
// Snap and Flatpak

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
  const record = browserRecord(browser);
  const home = flatpakAppHome(record.flatpak, ctx);
  return record.family === 'firefox'
    ? path.posix.join(home, ...record.linux.hosts, MANIFEST_FILE)
    : path.posix.join(home, 'config', ...record.linux.userData, CHROMIUM_HOSTS_DIR, MANIFEST_FILE);
}

/** Folders holding installed Flatpak apps: per user, then system-wide. */
function flatpakInstallDirs(ctx: PathContext): string[] {
  const dataHome = absoluteEnv(ctx, 'XDG_DATA_HOME') ?? path.posix.join(ctx.homedir, '.local', 'share');
  return [path.posix.join(dataHome, 'flatpak', 'app'), '/var/lib/flatpak/app'];
}

/** Snap and Flatpak browsers on this machine (Linux only): installed, or with data in the home folder. */
export function detectSandboxed(ctx: DetectContext): SandboxedBrowser[] {
  if (ctx.platform !== 'linux') return [];
  const isDir = (p: string) => ctx.fs.stat(p)?.isDirectory === true;
  const found: SandboxedBrowser[] = [];
  for (const browser of BROWSER_IDS) {
    const snap = browserRecord(browser).snap?.name;
    if (snap !== undefined) {
      const evidence = ['/snap/' + snap, path.posix.join(ctx.homedir, 'snap', snap)].find(isDir);
      if (evidence !== undefined) found.push({ browser, kind: 'snap', appId: snap, evidence });
    }
    const appId = BROWSERS[browser].flatpak;
    const evidence = [...flatpakInstallDirs(ctx).map((d) => path.posix.join(d, appId)), flatpakAppHome(appId, ctx)].find(isDir);
    if (evidence !== undefined) found.push({ browser, kind: 'flatpak', appId, evidence });
  }
  return found;
}

/**
 * The `flatpak override --user` file of an app (a key file: `[Context]` `filesystems=a;b;`), and
 * the system-wide one. Doctor reads them to see whether the sandbox can reach the bridge.
 */
export function flatpakOverrideFiles(appId: string, ctx: PathContext): string[] {
  const dataHome = absoluteEnv(ctx, 'XDG_DATA_HOME') ?? path.posix.join(ctx.homedir, '.local', 'share');
  return [path.posix.join(dataHome, 'flatpak', 'overrides', appId), path.posix.join('/var/lib/flatpak/overrides', appId)];
}

// ---------------------------------------------------------------------------------------------
// Running browsers (Linux /proc): custom profile folders

/** Which Chromium-family browser a program path is (its record's processName), if any. */
export function chromiumBrowserOf(program: string): ChromiumBrowserId | undefined {
  const base = path.posix.basename(program);
  return CHROMIUM_BROWSER_IDS.find((b) => BROWSERS[b].processName.test(base));
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
  browser: ChromiumBrowserId;
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
