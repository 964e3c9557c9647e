import { parseArgs } from 'node:util';
import os from 'node:os';
import path from 'node:path';
import { defaultConfigDir } from '../agent/files';
import { CountersignError } from '../protocol/errors';
import { HOOK_AGENTS, type HookAgent } from './hook-input';

/** The command line of countersign-hook (docs/coding-agents.md, "Command line"). */

export const DEFAULT_AGENT_NAME = 'countersign-hook';
/** How long a prompt waits for the person. The CLIs are told to wait longer for the hook (INSTALL_TIMEOUT_SECONDS). */
export const DEFAULT_EXPIRY_SECONDS = 120;
export const MAX_EXPIRY_SECONDS = 480;

export type HookCommand =
  | { command: 'run'; agent: HookAgent; configDir: string; agentName: string; expirySeconds: number }
  | { command: 'pair'; configDir: string; agentName: string }
  | { command: 'install' | 'uninstall' | 'doctor'; agent: HookAgent; configDir: string; project: string | undefined; hookCommand: string | undefined; codex: string | undefined }
  | { command: 'help' }
  | { command: 'version' };

export const USAGE = `countersign-hook: asks you in Countersign before a coding agent runs a command or changes a file.

Usage:
  countersign-hook install --agent claude-code|codex|gemini [--project [<dir>]]
                                     add the hook to that CLI's settings (user, or the project's)
  countersign-hook uninstall --agent <agent> [--project [<dir>]]
                                     remove exactly what install added
  countersign-hook doctor --agent <agent> [--project [<dir>]]
                                     check the hook is installed, runnable, paired (and trusted by Codex)
  countersign-hook pair              pair with Countersign once: type the code it prints
  countersign-hook --agent <agent>   what the CLI runs: reads the hook input on stdin, answers on stdout
  countersign-hook --help | --version

Options:
  --config-dir <dir>    pairing keys and policy.json (default: ${'~'}/.config/countersign-hook)
  --agent-name <name>   the name you see in Countersign (default "${DEFAULT_AGENT_NAME}")
  --expiry <seconds>    how long a prompt waits for you (default ${DEFAULT_EXPIRY_SECONDS}, at most ${MAX_EXPIRY_SECONDS})
  --command <command>   install: the command the CLI runs (default: this countersign-hook)
  --codex <path>        install, doctor: the codex executable that records hook trust (default: codex on PATH)

Read-only tools run; shell commands, file writes and edits, patches, web fetches and MCP tools ask.
If Countersign cannot be asked, or does not answer, the call is denied.`;

function fail(message: string): never {
  throw new CountersignError('ERR_ARGUMENT_INVALID', `${message}\nRun countersign-hook --help for the usage.`);
}

/** The hook's own config folder: beside the agent SDK's, so its pairing and policy are its own. */
export function hookConfigDir(given: string | undefined, env: Readonly<Record<string, string | undefined>>): string {
  if (given !== undefined) return path.resolve(given);
  const sdk = defaultConfigDir({ platform: process.platform, env, homedir: env['HOME'] ?? os.homedir() });
  return `${sdk}-hook`;
}

export function parseHookArgs(argv: readonly string[], env: Readonly<Record<string, string | undefined>>, cwd: string): HookCommand {
  const { values, positionals } = (() => {
    try {
      return parseArgs({
        args: [...argv],
        allowPositionals: true,
        strict: true,
        options: {
          agent: { type: 'string' },
          project: { type: 'boolean' },
          'config-dir': { type: 'string' },
          'agent-name': { type: 'string' },
          expiry: { type: 'string' },
          command: { type: 'string' },
          codex: { type: 'string' },
          help: { type: 'boolean', short: 'h' },
          version: { type: 'boolean' },
        },
      });
    } catch (error) {
      return fail(error instanceof Error ? error.message : String(error));
    }
  })();
  if (values.help === true) return { command: 'help' };
  if (values.version === true) return { command: 'version' };
  const configDir = hookConfigDir(values['config-dir'], env);
  const agentName = values['agent-name'] ?? DEFAULT_AGENT_NAME;
  const [verb, ...rest] = positionals;
  if (verb === 'pair') {
    if (rest.length > 0) fail(`pair: expected no other arguments, got ${rest.length}`);
    return { command: 'pair', configDir, agentName };
  }
  const agent = agentOf(values.agent);
  if (verb === undefined) return { command: 'run', agent, configDir, agentName, expirySeconds: expiryOf(values.expiry) };
  if (verb !== 'install' && verb !== 'uninstall' && verb !== 'doctor') fail(`expected install, uninstall, doctor or pair, got "${verb.slice(0, 40)}"`);
  if (rest.length > (values.project === true ? 1 : 0)) fail(`${verb}: expected at most a project folder after --project`);
  const project = values.project === true ? path.resolve(cwd, rest[0] ?? '.') : undefined;
  return { command: verb, agent, configDir, project, hookCommand: values.command, codex: values.codex };
}

function agentOf(value: string | undefined): HookAgent {
  if (value === undefined) fail(`expected --agent ${HOOK_AGENTS.join('|')}`);
  if (!(HOOK_AGENTS as readonly string[]).includes(value)) fail(`--agent: expected ${HOOK_AGENTS.join(', ')}, got "${value.slice(0, 40)}"`);
  return value as HookAgent;
}

function expiryOf(value: string | undefined): number {
  if (value === undefined) return DEFAULT_EXPIRY_SECONDS;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 10 || n > MAX_EXPIRY_SECONDS) fail(`--expiry: expected whole seconds from 10 to ${MAX_EXPIRY_SECONDS}, got "${value.slice(0, 20)}"`);
  return n;
}
