import { dataDir, pathApi } from './browsers';
import { registrationError, reports, type Checked, type DoctorOptions, type Finding, type Registration } from './doctor-findings';
import { BUNDLE_COPY_NAME, LAUNCHER_NAME, parseLauncher, shellQuote, type InstallRecord } from './install';
import type { SystemContext } from './system';

/**
 * Doctor, the launcher a manifest points at: is it there, runnable, and this installation's? A
 * launcher written by another checkout or install runs another bridge, which the browser starts
 * without complaint; only here does the person learn of it (the launcher's form: install.ts).
 */

/** What a launcher we generated runs. */
export interface LauncherRun {
  execPath: string;
  bundlePath: string;
}

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

/** The launcher file itself: there, a file, ours, executable. */
function launcherFileFinding(reg: Registration, manifestPath: string, launcher: string): Finding | undefined {
  const { ctx, check } = reg;
  const failedToStart = reports(check.browser, 'failed-to-start');
  const st = ctx.fs.stat(launcher);
  if (st?.isDirectory === true) return registrationError(reg, `${manifestPath}: "path" ${launcher} is a folder, not the launcher; ${failedToStart}`);
  if (st?.isFile !== true) return registrationError(reg, `${manifestPath}: "path" ${launcher} does not exist (a moved or deleted install?); ${failedToStart}`);
  const own = ownLauncher(ctx, reg.record);
  if (!samePath(ctx, launcher, own)) {
    return registrationError(reg, `${manifestPath}: "path" is ${launcher}${describeRun(ctx, launcher)}, not this installation's launcher ${own}; install again from this one`);
  }
  if (ctx.platform !== 'win32' && (st.mode & 0o111) === 0) {
    return registrationError(reg, `launcher ${launcher} is not executable; ${failedToStart}`, `chmod 755 ${shellQuote(launcher)}`);
  }
  return undefined;
}

/** What the launcher runs: written by install, this installation's bundle, and both still there. */
function launcherRun(reg: Registration, launcher: string): Checked<LauncherRun> {
  const { ctx, check } = reg;
  const failedToStart = reports(check.browser, 'failed-to-start');
  const error = (message: string): Checked<LauncherRun> => ({ finding: registrationError(reg, message) });
  const run = parseLauncher(ctx.platform, ctx.fs.readText(launcher));
  if (run === undefined) {
    return error(`launcher ${launcher} was not written by "countersign-bridge install" (edited, or replaced by another program), so this installation's bridge may not be what runs; install again from this one`);
  }
  const bundles = ownBundles(ctx, reg.options, reg.record);
  if (!bundles.some((b) => samePath(ctx, run.bundlePath, b))) {
    return error(`launcher ${launcher} runs ${run.bundlePath}, not this installation's bridge (${bundles.join(' or ')}): another Countersign checkout or install wrote it; install again from this one`);
  }
  const node = ctx.fs.stat(run.execPath);
  if (node?.isFile !== true || (ctx.platform !== 'win32' && (node.mode & 0o111) === 0)) {
    return error(`node is gone from ${run.execPath}, the path install recorded in ${launcher} (a removed nvm or system version?); ${failedToStart}`);
  }
  if (ctx.fs.stat(run.bundlePath)?.isFile !== true) return error(`the bridge bundle ${run.bundlePath} is gone; ${failedToStart}`);
  return { ok: run };
}

/** The launcher at the manifest's absolute `path`, and what it runs, or the finding that stops there. */
export function checkLauncher(reg: Registration, manifestPath: string, launcher: string): Checked<LauncherRun> {
  const finding = launcherFileFinding(reg, manifestPath, launcher);
  return finding === undefined ? launcherRun(reg, launcher) : { finding };
}
