import { NATIVE_HOST_NAME } from '../protocol/bridge';
import { BROWSER_IDS, browserFamily, browserLocation, customProfileManifestPath, pathApi, sandboxedBrowserDirs, type BrowserId } from './browsers';
import { CHROMIUM_ID_PATTERN, FIREFOX_ID_PATTERN, batQuote, parseLauncher, readRecord, shellQuote, type InstallRecord } from './install';
import { CHROMIUM_EXTENSION_ID, FIREFOX_EXTENSION_ID } from '../extension/manifest-key';
import type { SystemContext } from './system';

/**
 * `countersign-bridge doctor`: checks each browser's host registration the way the browser will
 * use it, and for each problem says what is wrong, what the browser reports for it (its messages
 * are misleading: ../shared/notes/chromium-recipe.md) and the command that fixes it.
 */

export type Severity = 'ok' | 'warn' | 'error' | 'skip';

export interface Finding {
  /** A browser id; "sandbox" for Snap/Flatpak notes; "install" for the install record. */
  subject: BrowserId | 'sandbox' | 'install';
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
  /** Undefined when the browser has no registration at all. */
  manifestPath: string | undefined;
  registryKey?: string;
  userDataDir?: string;
  present: boolean;
}

function quoteFor(ctx: SystemContext, parts: readonly string[]): string {
  return parts.map((p) => (ctx.platform === 'win32' ? (/[\s"%]/.test(p) ? batQuote(p) : p) : /^[A-Za-z0-9_./:=@-]+$/.test(p) ? p : shellQuote(p))).join(' ');
}

function installCommand(ctx: SystemContext, options: DoctorOptions, check: Check, extensionId: string): string {
  const args = [...options.selfCommand, 'install', '--browser', check.browser];
  if (check.userDataDir !== undefined) args.push('--user-data-dir', check.userDataDir);
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
    return [{ browser, manifestPath: customProfileManifestPath(options.userDataDir, ctx.platform), userDataDir: options.userDataDir, present: true }];
  }
  const browsers = options.browsers === undefined || options.browsers === 'all' ? [...BROWSER_IDS] : options.browsers;
  const checks: Check[] = browsers.map((browser) => {
    const location = browserLocation(browser, ctx);
    const present = ctx.fs.stat(location.profileRoot)?.isDirectory === true;
    if (location.target.kind === 'registry') {
      return { browser, manifestPath: registryValue(ctx, location.target.registryKey), registryKey: location.target.registryKey, present };
    }
    return { browser, manifestPath: location.target.manifestPath, present };
  });
  // Custom profiles that install recorded are checked too: they are invisible otherwise.
  for (const entry of record?.entries ?? []) {
    if (entry.user_data_dir !== undefined && browsers.includes(entry.browser)) {
      checks.push({ browser: entry.browser, manifestPath: entry.manifest, userDataDir: entry.user_data_dir, present: true });
    }
  }
  return checks;
}

function checkOne(ctx: SystemContext, options: DoctorOptions, record: InstallRecord | undefined, check: Check): Finding {
  const p = pathApi(ctx.platform);
  const { browser } = check;
  const family = browserFamily(browser);
  const id = expectedId(browser, check.manifestPath, options, record);
  const fix = installCommand(ctx, options, check, id);
  const where = check.userDataDir === undefined ? '' : ` (profile ${check.userDataDir})`;
  const base = { subject: browser, ...(check.manifestPath === undefined ? {} : { manifest: check.manifestPath }) };
  const error = (message: string, fixCommand = fix): Finding => ({ ...base, severity: 'error', message: `${message}${where}`, fix: fixCommand });

  const exists = check.manifestPath !== undefined && ctx.fs.stat(check.manifestPath)?.isFile === true;
  if (!exists) {
    // A browser this user never ran needs no host; one they did run does.
    if (!check.present) return { ...base, severity: 'skip', message: 'not installed for this user' };
    const what = check.manifestPath === undefined ? `no registry value at ${check.registryKey ?? '?'}` : `no host manifest at ${check.manifestPath}`;
    return error(`${what}; the browser reports "Specified native messaging host not found."`);
  }
  const manifestPath = check.manifestPath as string;
  let manifest: Record<string, unknown>;
  try {
    const value = JSON.parse(ctx.fs.readText(manifestPath)) as unknown;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('not an object');
    manifest = value as Record<string, unknown>;
  } catch {
    return error(`${manifestPath} is not a JSON object; the browser ignores it`);
  }
  if (manifest['name'] !== NATIVE_HOST_NAME) return error(`${manifestPath}: "name" must be "${NATIVE_HOST_NAME}" (the file name and connectNative use it)`);
  if (manifest['type'] !== 'stdio') return error(`${manifestPath}: "type" must be "stdio"`);

  const launcher = manifest['path'];
  if (typeof launcher !== 'string' || launcher === '') return error(`${manifestPath}: "path" is missing`);
  if (!p.isAbsolute(launcher)) {
    return error(`${manifestPath}: "path" ${launcher} is relative; the browser reports "Specified native messaging host not found." (it must be absolute)`);
  }
  const st = ctx.fs.stat(launcher);
  if (st?.isFile !== true) return error(`launcher ${launcher} does not exist; the browser reports "Native host has exited."`);
  if (ctx.platform !== 'win32' && (st.mode & 0o111) === 0) {
    return error(`launcher ${launcher} is not executable; the browser reports "Native host has exited."`, `chmod 755 ${shellQuote(launcher)}`);
  }
  const run = parseLauncher(ctx.platform, ctx.fs.readText(launcher));
  if (run === undefined) {
    return { ...base, severity: 'warn', message: `launcher ${launcher} was not written by "countersign-bridge install"; not checked further`, fix };
  }
  const node = ctx.fs.stat(run.execPath);
  if (node?.isFile !== true || (ctx.platform !== 'win32' && (node.mode & 0o111) === 0)) {
    return error(`node is gone from ${run.execPath} (a removed nvm or system version?); the browser reports "Native host has exited."`);
  }
  if (ctx.fs.stat(run.bundlePath)?.isFile !== true) return error(`the bridge bundle ${run.bundlePath} is gone; the browser reports "Native host has exited."`);

  if (family === 'chromium') {
    const origins = manifest['allowed_origins'];
    const want = `chrome-extension://${id}/`;
    if (!Array.isArray(origins) || !origins.includes(want)) {
      const withoutSlash = Array.isArray(origins) && origins.includes(want.slice(0, -1));
      return error(
        withoutSlash
          ? `"allowed_origins" has ${want.slice(0, -1)} without the trailing slash; the browser reports "Specified native messaging host not found."`
          : `"allowed_origins" does not contain ${want}; the browser reports "Access to the specified native messaging host is forbidden."`,
      );
    }
  } else {
    const allowed = manifest['allowed_extensions'];
    if (!Array.isArray(allowed) || !allowed.includes(id)) {
      return error(`"allowed_extensions" does not contain ${id}; Firefox refuses the connection`);
    }
  }
  return { ...base, severity: 'ok', message: `ready: ${manifestPath} → ${launcher}${where}` };
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
  for (const dir of sandboxedBrowserDirs(ctx)) {
    if (ctx.fs.stat(dir)?.isDirectory === true) {
      findings.push({
        subject: 'sandbox',
        severity: 'warn',
        message: `${dir}: a Snap/Flatpak browser cannot start a host installed outside its sandbox; not supported yet (use a distribution or vendor package)`,
      });
    }
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
