import type { Readable, Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { agentSocketCandidates } from '../protocol/bridge';
import { CountersignError, isCountersignError } from '../protocol/errors';
import { BROWSER_IDS, isBrowserId, pathApi, type BrowserId } from './browsers';
import { doctor, formatFindings } from './doctor';
import { FIREFOX_ID_PATTERN } from './extension-id-patterns';
import { BridgeHost } from './host';
import { hygieneLimitsFromEnv } from './hygiene';
import { install, uninstall } from './install';
import { createLogger, logLevelFrom } from './log';
import type { CommandRunner, FsLike, Platform } from './system';
import { BRIDGE_VERSION } from './version';

/**
 * The `countersign-bridge` command. Started by a browser, it is the native-messaging host;
 * started by a person, it installs, uninstalls and checks that host. Everything it touches comes
 * in through CliDeps, so tests drive it without a real process. The installer and doctor are
 * imported statically although the host needs neither: imported on demand, the one-file bundle
 * started no faster (esbuild wraps each module a dynamic import reaches in a function compiled
 * when first called; bench/bridge.bench.ts, "bridge start"). Validation schemas dominate the start.
 */

export interface CliDeps {
  /** Arguments after the script (process.argv.slice(2)). */
  argv: readonly string[];
  stdin: Readable;
  stdout: Writable;
  stderr: { write(text: string): unknown };
  env: Readonly<Record<string, string | undefined>>;
  platform: Platform;
  homedir: string;
  uid: number;
  username: string;
  cwd: string;
  /** The node running us. */
  execPath: string;
  /** The built bundle (dist/countersign-bridge.mjs), or undefined when running from source without one. */
  bundlePath: string | undefined;
  /** How to run this program again, for doctor's fix commands. */
  selfCommand: readonly string[];
  fs: FsLike;
  run: CommandRunner;
  /** Registers `stop` for termination signals (host mode), so the socket is removed on the way out. */
  onSignal?: (stop: () => void) => void;
}

export const USAGE = `countersign-bridge ${BRIDGE_VERSION}: the native-messaging host of the Countersign extension.

Usage:
  countersign-bridge install   [--browser B]... [--user-data-dir DIR | --flatpak] [--extension-id ID] [--link]
  countersign-bridge uninstall [--browser B]... [--user-data-dir DIR | --flatpak]
  countersign-bridge doctor    [--browser B]... [--user-data-dir DIR] [--extension-id ID] [--json]
  countersign-bridge socket-path <extension-key-thumbprint>
  countersign-bridge --version | --help

  B: ${BROWSER_IDS.join(', ')} or all (default: every browser installed for this user).
  --user-data-dir DIR  a Chromium profile started with --user-data-dir (manifest in DIR/NativeMessagingHosts).
  --flatpak            Linux: the Flatpak builds of the browsers (manifest inside ~/.var/app/<app-id>); doctor
                       prints the "flatpak override" the sandbox also needs.
  --extension-id ID    a Chromium id (32 letters a-p) or a Firefox add-on id; defaults to Countersign's.
  --link               run the bundle where it is instead of a copy (development).

Browsers start it as "countersign-bridge chrome-extension://<id>/" (Chromium) or
"countersign-bridge <manifest.json> <add-on id>" (Firefox); it then speaks native messaging on stdio.
`;

/** How the browser started us, if it did. */
export function hostInvocation(argv: readonly string[]): 'chromium' | 'firefox' | undefined {
  const first = argv[0];
  if (first === undefined) return undefined;
  // Chromium passes the caller's origin (and on Windows also --parent-window=<handle>).
  if (/^chrome-extension:\/\/[a-p]{32}\/$/.test(first)) return 'chromium';
  // Firefox passes the manifest's path and the add-on id.
  const second = argv[1];
  if (first.toLowerCase().endsWith('.json') && second !== undefined && FIREFOX_ID_PATTERN.test(second)) return 'firefox';
  return undefined;
}

interface Parsed {
  browsers: BrowserId[] | 'all';
  userDataDir?: string;
  extensionId?: string;
  link: boolean;
  json: boolean;
  flatpak: boolean;
  positional: string[];
}

/** A command line the bridge cannot run: printed with the usage, never escaping runCli. Typed like every other throw. */
class UsageError extends CountersignError {
  constructor(message: string) {
    super('ERR_ARGUMENT_INVALID', message);
  }
}

const FLAG_TYPES: Readonly<Record<string, 'string' | 'boolean'>> = {
  '--browser': 'string',
  '--user-data-dir': 'string',
  '--extension-id': 'string',
  '--link': 'boolean',
  '--json': 'boolean',
  '--flatpak': 'boolean',
};

/** A subcommand's flags through `node:util` parseArgs, as every command of the package reads them. */
function parseOptions(args: readonly string[], allowed: ReadonlySet<string>, cwd: string, platform: Platform): Parsed {
  const options = Object.fromEntries([...allowed].map((flag) => [flag.slice(2), { type: FLAG_TYPES[flag] ?? 'string', ...(flag === '--browser' ? { multiple: true } : {}) }]));
  let values: Record<string, string | boolean | Array<string | boolean> | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args: [...args], options, strict: true, allowPositionals: true }));
  } catch (cause) {
    throw new UsageError(cause instanceof Error ? cause.message : String(cause));
  }
  const text = (name: string): string | undefined => {
    const v = values[name];
    if (v === undefined) return undefined;
    if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} needs a value`);
    return v;
  };
  const browsers: BrowserId[] = [];
  let all = false;
  for (const list of (values['browser'] as string[] | undefined) ?? []) {
    for (const name of list.split(',')) {
      if (name === 'all') all = true;
      else if (isBrowserId(name)) browsers.push(name);
      else throw new UsageError(`--browser: unknown browser "${name}" (${BROWSER_IDS.join(', ')}, all)`);
    }
    if (list === '') throw new UsageError('--browser needs a value');
  }
  const userDataDir = text('user-data-dir');
  const extensionId = text('extension-id');
  return {
    browsers: all || browsers.length === 0 ? 'all' : browsers,
    link: values['link'] === true,
    json: values['json'] === true,
    flatpak: values['flatpak'] === true,
    positional: positionals,
    ...(userDataDir !== undefined ? { userDataDir: pathApi(platform).resolve(cwd, userDataDir) } : {}),
    ...(extensionId !== undefined ? { extensionId } : {}),
  };
}

const INSTALL_FLAGS = new Set(['--browser', '--user-data-dir', '--extension-id', '--link', '--flatpak']);
const UNINSTALL_FLAGS = new Set(['--browser', '--user-data-dir', '--flatpak']);
const DOCTOR_FLAGS = new Set(['--browser', '--user-data-dir', '--extension-id', '--json']);

/** Run the host until the extension goes away. Resolves with the exit code. */
export function runHost(deps: CliDeps, browser: 'chromium' | 'firefox'): Promise<number> {
  const log = createLogger((line) => deps.stderr.write(line), logLevelFrom(deps.env['COUNTERSIGN_BRIDGE_LOG']));
  return new Promise((resolve) => {
    const host = new BridgeHost({
      input: deps.stdin,
      output: deps.stdout,
      log,
      browser,
      socket: { platform: deps.platform, env: deps.env, uid: deps.uid, username: deps.username },
      // Only ever lower than the defaults (hygiene.ts): tests of the real process use it.
      hygiene: hygieneLimitsFromEnv(deps.env['COUNTERSIGN_BRIDGE_LIMITS'], log),
      onExit: resolve,
    });
    host.start();
    deps.onSignal?.(() => void host.shutdown(0));
  });
}

type SystemDeps = Pick<CliDeps, 'platform' | 'homedir' | 'env' | 'fs' | 'run' | 'execPath' | 'uid'>;

function systemOf(deps: CliDeps): SystemDeps {
  return { platform: deps.platform, homedir: deps.homedir, env: deps.env, fs: deps.fs, run: deps.run, execPath: deps.execPath, uid: deps.uid };
}

/** Options for a command that takes no positional argument. */
function commandOptions(deps: CliDeps, args: readonly string[], allowed: ReadonlySet<string>): Parsed {
  const o = parseOptions(args, allowed, deps.cwd, deps.platform);
  if (o.positional.length > 0) throw new UsageError(`unexpected argument ${o.positional[0]}`);
  return o;
}

function runInstall(deps: CliDeps, args: readonly string[]): number {
  const o = commandOptions(deps, args, INSTALL_FLAGS);
  if (deps.bundlePath === undefined) {
    deps.stderr.write('countersign-bridge: no built bundle to install; run "npm run build:bridge" first\n');
    return 1;
  }
  const report = install(
    { ...systemOf(deps), bundlePath: deps.bundlePath, bridgeVersion: BRIDGE_VERSION },
    {
      browsers: o.browsers,
      link: o.link,
      flatpak: o.flatpak,
      ...(o.userDataDir === undefined ? {} : { userDataDir: o.userDataDir }),
      ...(o.extensionId === undefined ? {} : { extensionId: o.extensionId }),
    },
  );
  const out = (text: string) => deps.stdout.write(text);
  out(`launcher ${report.launcher}\nbundle   ${report.bundle}\n`);
  for (const e of report.entries) out(`${e.browser.padEnd(9)} ${e.manifest}${e.registryKey === undefined ? '' : ` (registry ${e.registryKey})`}\n`);
  for (const note of report.notes) out(`note: ${note}\n`);
  return 0;
}

function runUninstall(deps: CliDeps, args: readonly string[]): number {
  const o = commandOptions(deps, args, UNINSTALL_FLAGS);
  const report = uninstall(systemOf(deps), { browsers: o.browsers, flatpak: o.flatpak, ...(o.userDataDir === undefined ? {} : { userDataDir: o.userDataDir }) });
  const out = (text: string) => deps.stdout.write(text);
  if (report.removed.length === 0 && report.kept.length === 0) out('nothing to uninstall\n');
  for (const r of report.removed) out(`removed ${r}\n`);
  for (const k of report.kept) out(`kept    ${k}\n`);
  return 0;
}

function runDoctor(deps: CliDeps, args: readonly string[]): number {
  const o = commandOptions(deps, args, DOCTOR_FLAGS);
  const findings = doctor(systemOf(deps), {
    browsers: o.browsers,
    selfCommand: deps.selfCommand,
    ...(o.userDataDir === undefined ? {} : { userDataDir: o.userDataDir }),
    ...(o.extensionId === undefined ? {} : { extensionId: o.extensionId }),
  });
  deps.stdout.write(o.json ? `${JSON.stringify(findings, null, 2)}\n` : formatFindings(findings));
  return findings.some((f) => f.severity === 'error') ? 1 : 0;
}

function runSocketPath(deps: CliDeps, args: readonly string[]): number {
  const thumbprint = args[0];
  if (thumbprint === undefined || args.length > 1) throw new UsageError('socket-path takes one extension key thumbprint');
  for (const p of agentSocketCandidates({ platform: deps.platform, env: deps.env, uid: deps.uid, username: deps.username, thumbprint })) deps.stdout.write(`${p}\n`);
  return 0;
}

/** A command typed by a person: its exit code. */
function runCommand(deps: CliDeps, command: string | undefined, args: readonly string[]): number {
  switch (command) {
    case 'install':
      return runInstall(deps, args);
    case 'uninstall':
      return runUninstall(deps, args);
    case 'doctor':
      return runDoctor(deps, args);
    case 'socket-path':
      return runSocketPath(deps, args);
    case '--version':
      deps.stdout.write(`${BRIDGE_VERSION}\n`);
      return 0;
    case '--help':
    case 'help':
      deps.stdout.write(USAGE);
      return 0;
    default:
      // Anything else, including no arguments at all: a person typing it, not a browser.
      deps.stderr.write(command === undefined ? USAGE : `countersign-bridge: unknown command "${command}"\n\n${USAGE}`);
      return 2;
  }
}

/** Run one command. Resolves with the process exit code. */
export async function runCli(deps: CliDeps): Promise<number> {
  const browser = hostInvocation(deps.argv);
  if (browser !== undefined) return runHost(deps, browser);
  const [command, ...rest] = deps.argv;
  try {
    return runCommand(deps, command, rest);
  } catch (error) {
    if (error instanceof UsageError) {
      deps.stderr.write(`countersign-bridge: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    if (isCountersignError(error)) {
      deps.stderr.write(`countersign-bridge: ${error.code}: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}
