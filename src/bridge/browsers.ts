import path from 'node:path';
import { NATIVE_HOST_NAME } from '../protocol/bridge';
import type { Platform, SystemContext } from './system';

/**
 * Where each browser looks for native-messaging host manifests, per OS (Chrome and Firefox
 * documentation; ../shared/notes/*-recipe.md for what was measured here). Pure functions of the
 * platform, home folder and environment.
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

/**
 * Sandboxed browser packages found in the home folder. Snap and Flatpak browsers cannot start a
 * host outside their sandbox without portal support, and their manifest folders are inside the
 * sandbox: doctor says so; install does not handle them yet.
 */
export function sandboxedBrowserDirs(ctx: Pick<SystemContext, 'platform' | 'homedir'>): string[] {
  if (ctx.platform !== 'linux') return [];
  const p = path.posix;
  return [
    p.join(ctx.homedir, 'snap', 'chromium'),
    p.join(ctx.homedir, 'snap', 'firefox'),
    p.join(ctx.homedir, '.var', 'app', 'org.chromium.Chromium'),
    p.join(ctx.homedir, '.var', 'app', 'com.google.Chrome'),
    p.join(ctx.homedir, '.var', 'app', 'com.brave.Browser'),
    p.join(ctx.homedir, '.var', 'app', 'com.microsoft.Edge'),
    p.join(ctx.homedir, '.var', 'app', 'com.vivaldi.Vivaldi'),
    p.join(ctx.homedir, '.var', 'app', 'org.mozilla.firefox'),
  ];
}
