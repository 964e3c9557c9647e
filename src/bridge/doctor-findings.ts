import { NATIVE_HOST_NAME } from '../protocol/bridge';
import { browserFamily, type BrowserFamily, type BrowserId, type Detection } from './browsers';
import { batQuote, shellQuote, type InstallRecord } from './install';
import type { SystemContext } from './system';

/**
 * What every part of `countersign-bridge doctor` speaks in: findings, the registration being
 * checked, each browser's own words for a broken registration, and fix commands ready to paste.
 * The checks themselves: doctor.ts (which registrations), doctor-registration.ts (one
 * registration), doctor-launcher.ts, doctor-flatpak.ts, doctor-sockets.ts.
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

/** One host registration to check: where one browser (or profile, or Flatpak) reads our manifest. */
export interface Check {
  browser: BrowserId;
  /** Undefined when the browser has no registration at all (Windows: no registry value). */
  manifestPath: string | undefined;
  registryKey?: string;
  userDataDir?: string;
  flatpakApp?: string;
  /** Why this browser is checked: how it was found, or that install or the person named it. */
  reason: Detection['kind'] | 'recorded' | 'running' | 'named' | 'flatpak' | 'flatpak-data' | undefined;
}

/** A step of a check: the value it found, or the finding that ends the check. */
export type Checked<T> = { ok: T } | { finding: Finding };

/** One registration being checked, with what every finding about it shares. */
export interface Registration {
  ctx: SystemContext;
  options: DoctorOptions;
  record: InstallRecord | undefined;
  check: Check;
  /** The extension id the manifest must allow. */
  extensionId: string;
  /** " (profile DIR)" or " (Flatpak APP)": which of the browser's registrations, for the messages. */
  where: string;
  /** The command that fixes most problems: install again (for a Flatpak, also open its sandbox). */
  fix: string;
  /** What every finding about it carries. */
  base: Pick<Finding, 'subject' | 'manifest'>;
}

/** An error about `reg`: the message says which registration, and the fix is install's unless given. */
export function registrationError(reg: Registration, message: string, fix: string = reg.fix): Finding {
  return { ...reg.base, severity: 'error', message: `${message}${reg.where}`, fix };
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
export const BROWSER_REPORTS: Readonly<Record<BrowserFamily, Readonly<Record<BrowserProblem, string>>>> = {
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
export function reports(browser: BrowserId, problem: BrowserProblem): string {
  return `the browser reports "${BROWSER_REPORTS[browserFamily(browser)][problem]}"`;
}

/** A command line for this platform's shell: arguments quoted only where they need it. */
export function quoteFor(ctx: Pick<SystemContext, 'platform'>, parts: readonly string[]): string {
  return parts.map((p) => (ctx.platform === 'win32' ? (/[\s"%]/.test(p) ? batQuote(p) : p) : /^[A-Za-z0-9_./:=@,+-]+$/.test(p) ? p : shellQuote(p))).join(' ');
}
