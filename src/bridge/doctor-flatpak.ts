import { flatpakOverrideFiles, pathApi } from './browsers';
import { quoteFor, reports, type Check, type Finding } from './doctor-findings';
import type { SystemContext } from './system';

/**
 * Doctor, Flatpak browsers: can the sandbox reach the bridge? A Flatpak browser starts the host
 * inside its sandbox, which sees only what `flatpak override --filesystem=` gave it, and mounts
 * its own runtime on /usr (docs/bridge-protocol.md section 14, README "Troubleshooting").
 */

/** Folders a Flatpak sandbox cannot be given (its own runtime is mounted there). */
const FLATPAK_RESERVED = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/etc', '/app', '/dev', '/proc'];

export function isReservedInFlatpak(p: string): boolean {
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
    out.push(...contextFilesystems(text));
  }
  return out;
}

/** The `filesystems=` entries of the `[Context]` group of one key file. */
function contextFilesystems(text: string): string[] {
  const out: string[] = [];
  let inContext = false;
  for (const line of text.split(/\r?\n/)) {
    const section = /^\s*\[(.+)\]\s*$/.exec(line);
    if (section) inContext = section[1] === 'Context';
    const m = inContext ? /^\s*filesystems\s*=(.*)$/.exec(line) : null;
    if (m) out.push(...(m[1] as string).split(';').map((e) => e.trim()).filter((e) => e !== '' && !e.startsWith('!')).map((e) => e.replace(/:(ro|rw|create)$/, '')));
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
export function nodeRoot(execPath: string): string {
  const dir = pathApi('linux').dirname(execPath);
  return pathApi('linux').basename(dir) === 'bin' ? pathApi('linux').dirname(dir) : dir;
}

export function flatpakOverrideCommand(appId: string, paths: readonly string[]): string {
  return ['flatpak override --user', ...paths.map((p) => `--filesystem=${quoteFor({ platform: 'linux' }, [`${p}:ro`])}`), '--filesystem=xdg-run/countersign:create', appId].join(' ');
}

/**
 * The override that opens `appId`'s sandbox to the launcher's folder and to the node running now
 * (unless that node is in a folder the sandbox cannot be given).
 */
export function sandboxOpeningCommand(ctx: Pick<SystemContext, 'execPath'>, appId: string, launcherDir: string): string {
  return flatpakOverrideCommand(appId, [launcherDir, ...(isReservedInFlatpak(ctx.execPath) ? [] : [nodeRoot(ctx.execPath)])]);
}

/** After the manifest checks passed: what a Flatpak sandbox still needs to run the launcher. */
export function flatpakFinding(ctx: SystemContext, check: Check, launcher: string, run: { execPath: string; bundlePath: string }): Finding | undefined {
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
