import {
  BROWSER_IDS,
  DEFAULT_CUSTOM_PROFILE_BROWSER,
  browserLocation,
  browserRecord,
  customProfileManifestPath,
  detectBrowser,
  detectSandboxed,
  flatpakAppHome,
  flatpakManifestPath,
  pathApi,
  runningCustomProfiles,
  type BrowserId,
} from './browsers';
import { quoteFor, type Check, type DoctorOptions, type Finding } from './doctor-findings';
import { checkRegistration } from './doctor-registration';
import { socketFindings } from './doctor-sockets';
import { readRecord, shellQuote, type InstallRecord } from './install';
import type { SystemContext } from './system';

export { BROWSER_REPORTS, type BrowserProblem, type DoctorOptions, type Finding, type Severity } from './doctor-findings';

/**
 * `countersign-bridge doctor`: checks each browser's host registration the way the browser will
 * use it, and for each problem says what is wrong, what that browser reports for it (in its own
 * words, which mislead: Chromium reports a relative `path` as "Specified native messaging host not
 * found.", Firefox reports nearly everything as "No such native application") and the command
 * that fixes it. Also: whether the launcher is this installation's, Snap and Flatpak browsers,
 * browsers running with a custom profile folder, and the agent sockets of the bridges running now
 * (one per extension key). README "Troubleshooting" shows the output.
 *
 * This file decides what to check; each job is its own file: doctor-registration.ts (one
 * registration), doctor-launcher.ts, doctor-flatpak.ts, doctor-sockets.ts, and
 * doctor-findings.ts (the findings and each browser's words, which they all use).
 */

// ---------------------------------------------------------------------------------------------
// Which registrations to check

/** `reg query KEY /ve` prints `    (Default)    REG_SZ    C:\path`; the label is localized, the type is not. */
function registryValue(ctx: SystemContext, key: string): string | undefined {
  const result = ctx.run('reg', ['query', key, '/ve']);
  if (result.status !== 0) return undefined;
  const m = /REG_(?:EXPAND_)?SZ[ \t]+(.+?)\s*$/m.exec(result.stdout);
  return m?.[1];
}

/** Every registration to check: each browser's usual place, then custom profiles and Flatpak homes. */
function checksFor(ctx: SystemContext, options: DoctorOptions, record: InstallRecord | undefined): Check[] {
  if (options.userDataDir !== undefined) {
    const browser = options.browsers !== undefined && options.browsers !== 'all' && options.browsers[0] !== undefined ? options.browsers[0] : DEFAULT_CUSTOM_PROFILE_BROWSER;
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
    const used = ctx.fs.stat(flatpakAppHome(s.appId, ctx))?.isDirectory === true;
    add({ browser: s.browser, manifestPath: flatpakManifestPath(s.browser, ctx), flatpakApp: s.appId, reason: used ? 'flatpak-data' : 'flatpak' });
  }
  return checks;
}

// ---------------------------------------------------------------------------------------------
// Snap

function snapFindings(ctx: SystemContext, options: DoctorOptions, browsers: readonly BrowserId[]): Finding[] {
  const out: Finding[] = [];
  for (const s of detectSandboxed(ctx)) {
    if (s.kind !== 'snap' || !browsers.includes(s.browser)) continue;
    // A Snap that starts hosts through the portal is Firefox's (the only one with `portal` in BROWSERS).
    if (browserRecord(s.browser).snap?.portal === true) {
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

/** Check every browser (or those named). Never throws for what it finds: everything is a finding. */
export function doctor(ctx: SystemContext, options: DoctorOptions): Finding[] {
  let record: InstallRecord | undefined;
  const findings: Finding[] = [];
  try {
    record = readRecord(ctx);
  } catch (error) {
    findings.push({ subject: 'install', severity: 'warn', message: error instanceof Error ? error.message : 'install record unreadable' });
  }
  for (const check of checksFor(ctx, options, record)) findings.push(checkRegistration(ctx, options, record, check));
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

