import { CHROMIUM_EXTENSION_ID, FIREFOX_EXTENSION_ID } from '../protocol/extension-identity';
import { NATIVE_HOST_NAME } from '../protocol/bridge';
import { browserFamily, dataDir, pathApi } from './browsers';
import { quoteFor, registrationError, reports, type Check, type Checked, type DoctorOptions, type Finding, type Registration } from './doctor-findings';
import { flatpakFinding, sandboxOpeningCommand } from './doctor-flatpak';
import { checkLauncher } from './doctor-launcher';
import { CHROMIUM_ID_PATTERN, FIREFOX_ID_PATTERN } from './extension-id-patterns';
import type { InstallRecord } from './install';
import type { SystemContext } from './system';

/**
 * Doctor, one host registration, in the order the browser itself reads it: the manifest there,
 * its fields, the launcher its `path` names (doctor-launcher.ts), the extension it allows, and for
 * a Flatpak the sandbox (doctor-flatpak.ts). The first problem found is the finding: the browser
 * stops at it too. The manifest's form: install.ts `hostManifest`, docs/bridge-protocol.md section 14.
 */

/** The extension id this registration must allow: --extension-id, else the recorded one, else Countersign's. */
function expectedId(browser: Check['browser'], manifestPath: string | undefined, options: DoctorOptions, record: InstallRecord | undefined): string {
  const family = browserFamily(browser);
  const given = options.extensionId;
  if (given !== undefined && (family === 'chromium' ? CHROMIUM_ID_PATTERN : FIREFOX_ID_PATTERN).test(given)) return given;
  const recorded = record?.entries.find((e) => e.manifest === manifestPath)?.extension_id;
  if (recorded !== undefined) return recorded;
  return family === 'chromium' ? CHROMIUM_EXTENSION_ID : FIREFOX_EXTENSION_ID;
}

function installCommand(ctx: SystemContext, options: DoctorOptions, check: Check, extensionId: string): string {
  const args = [...options.selfCommand, 'install', '--browser', check.browser];
  if (check.userDataDir !== undefined) args.push('--user-data-dir', check.userDataDir);
  if (check.flatpakApp !== undefined) args.push('--flatpak');
  const defaultId = browserFamily(check.browser) === 'chromium' ? CHROMIUM_EXTENSION_ID : FIREFOX_EXTENSION_ID;
  if (extensionId !== defaultId) args.push('--extension-id', extensionId);
  return quoteFor(ctx, args);
}

function registration(ctx: SystemContext, options: DoctorOptions, record: InstallRecord | undefined, check: Check): Registration {
  const extensionId = expectedId(check.browser, check.manifestPath, options, record);
  const where = check.userDataDir !== undefined ? ` (profile ${check.userDataDir})` : check.flatpakApp !== undefined ? ` (Flatpak ${check.flatpakApp})` : '';
  const install = installCommand(ctx, options, check, extensionId);
  const launcherDir = record !== undefined ? pathApi(ctx.platform).dirname(record.launcher) : dataDir(ctx);
  // A Flatpak's fix opens its sandbox too; install alone would leave it closed.
  const fix = check.flatpakApp === undefined ? install : `${sandboxOpeningCommand(ctx, check.flatpakApp, launcherDir)} && ${install}`;
  const base = { subject: check.browser, ...(check.manifestPath === undefined ? {} : { manifest: check.manifestPath }) };
  return { ctx, options, record, check, extensionId, where, fix, base };
}

/** No manifest where the browser looks: skipped, worth doing, or broken, by why the browser is checked. */
function missingManifest(reg: Registration): Finding {
  const { check, base, fix } = reg;
  const { browser } = check;
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
  // A browser's usual profile that install was never run for, when it was run for others (a custom
  // profile, other browsers): a choice the person made, so worth doing, not broken.
  const chosen = notChosen(reg);
  if (chosen !== undefined) return { ...base, severity: 'warn', message: `${what} (install was not run for it: it was run for ${chosen})${consequence}`, fix };
  // The running profile's message names it already: no " (profile …)" after it.
  return check.reason === 'running' ? { ...base, severity: 'error', message: `${why}${what}${consequence}`, fix } : registrationError(reg, `${why}${what}${consequence}`);
}

/**
 * For a used browser's usual place that the install record does not name while it names others:
 * what install was run for ("chromium (profile /home/sam/cs)"). Undefined otherwise: no record
 * (nothing installed yet, so the used browser is broken), or the place was named or recorded.
 */
function notChosen(reg: Registration): string | undefined {
  const { check, record } = reg;
  if (check.reason !== 'profile' || record === undefined || record.entries.length === 0) return undefined;
  // Install was run for this very place, or for this browser's usual profile (on Windows the
  // registry may now point elsewhere): what is missing there is broken, not a choice.
  if (record.entries.some((e) => e.manifest === check.manifestPath || (e.browser === check.browser && e.user_data_dir === undefined && e.flatpak_app === undefined))) return undefined;
  return record.entries.map((e) => (e.user_data_dir !== undefined ? `${e.browser} (profile ${e.user_data_dir})` : e.flatpak_app !== undefined ? `${e.browser} (Flatpak ${e.flatpak_app})` : e.browser)).join(', ');
}

/** The manifest as a JSON object with our `name` and `type`. */
function readManifest(reg: Registration, manifestPath: string): Checked<Record<string, unknown>> {
  const { ctx, check } = reg;
  const notFound = reports(check.browser, 'not-found');
  let value: unknown;
  try {
    value = JSON.parse(ctx.fs.readText(manifestPath));
  } catch {
    // Unreadable or not JSON: the same finding as JSON that is not an object, just below.
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { finding: registrationError(reg, `${manifestPath} is not a JSON object; the browser ignores it and ${notFound}`) };
  }
  const manifest = value as Record<string, unknown>;
  if (manifest['name'] !== NATIVE_HOST_NAME) {
    return { finding: registrationError(reg, `${manifestPath}: "name" must be "${NATIVE_HOST_NAME}" (the file name and connectNative use it); ${notFound}`) };
  }
  if (manifest['type'] !== 'stdio') return { finding: registrationError(reg, `${manifestPath}: "type" must be "stdio"; ${notFound}`) };
  return { ok: manifest };
}

/** The manifest's `path`: present and absolute (the browsers resolve nothing). */
function launcherPath(reg: Registration, manifestPath: string, manifest: Record<string, unknown>): Checked<string> {
  const notFound = reports(reg.check.browser, 'not-found');
  const launcher = manifest['path'];
  if (typeof launcher !== 'string' || launcher === '') return { finding: registrationError(reg, `${manifestPath}: "path" is missing; ${notFound}`) };
  if (!pathApi(reg.ctx.platform).isAbsolute(launcher)) {
    return { finding: registrationError(reg, `${manifestPath}: "path" ${launcher} is relative; ${notFound} (it must be absolute)`) };
  }
  return { ok: launcher };
}

/** Whether the manifest lets this extension in: `allowed_origins` (Chromium) or `allowed_extensions` (Firefox). */
function allowedFinding(reg: Registration, manifest: Record<string, unknown>): Finding | undefined {
  const { browser } = reg.check;
  const id = reg.extensionId;
  if (browserFamily(browser) === 'chromium') {
    const origins = manifest['allowed_origins'];
    const want = `chrome-extension://${id}/`;
    if (Array.isArray(origins) && origins.includes(want)) return undefined;
    // Chromium compares origins with the trailing slash, and without it reports "not found", not "forbidden".
    const withoutSlash = Array.isArray(origins) && origins.includes(want.slice(0, -1));
    return registrationError(
      reg,
      withoutSlash
        ? `"allowed_origins" has ${want.slice(0, -1)} without the trailing slash; ${reports(browser, 'not-found')}`
        : `"allowed_origins" does not contain ${want}; ${reports(browser, 'forbidden')}`,
    );
  }
  const allowed = manifest['allowed_extensions'];
  if (Array.isArray(allowed) && allowed.includes(id)) return undefined;
  return registrationError(reg, `"allowed_extensions" does not contain ${id}; ${reports(browser, 'forbidden')}`);
}

/** Check one registration the way its browser will use it: the first problem, or "ready". */
export function checkRegistration(ctx: SystemContext, options: DoctorOptions, record: InstallRecord | undefined, check: Check): Finding {
  const reg = registration(ctx, options, record, check);
  const manifestPath = check.manifestPath;
  if (manifestPath === undefined || ctx.fs.stat(manifestPath)?.isFile !== true) return missingManifest(reg);
  const manifest = readManifest(reg, manifestPath);
  if ('finding' in manifest) return manifest.finding;
  const launcher = launcherPath(reg, manifestPath, manifest.ok);
  if ('finding' in launcher) return launcher.finding;
  const run = checkLauncher(reg, manifestPath, launcher.ok);
  if ('finding' in run) return run.finding;
  const problem = allowedFinding(reg, manifest.ok) ?? (check.flatpakApp === undefined ? undefined : flatpakFinding(ctx, check, launcher.ok, run.ok));
  return problem ?? { ...reg.base, severity: 'ok', message: `ready: ${manifestPath} → ${launcher.ok}${reg.where}` };
}
