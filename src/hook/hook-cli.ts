import type { Readable } from 'node:stream';
import { pairFromCli } from '../agent/pair-from-cli';
import { PACKAGE_VERSION } from '../protocol/package-version';
import { hookAnswer, type HookDecision } from './hook-answer';
import { parseHookArgs, USAGE, type HookCommand } from './hook-args';
import { decideHookCall } from './hook-decision';
import { MAX_HOOK_INPUT_BYTES, type HookAgent } from './hook-input';
import { HookLink, reasonOf } from './hook-link';
import { doctorHook } from './hook-doctor';
import { installHook, uninstallHook } from './hook-settings';

/**
 * The `countersign-hook` command. Run by a coding agent's CLI for each tool call, its stdout
 * carries exactly one JSON answer in that CLI's format, and nothing else: every message for
 * people goes to stderr. Whatever goes wrong, the answer is a deny (docs/coding-agents.md,
 * "Fail closed").
 */

export interface HookCliDeps {
  argv: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  stdin: Readable;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/** Beyond the prompt's expiry, how long the hook waits for Countersign before it denies on its own. */
const GRACE_MS = 5_000;

export async function runHookCli(deps: HookCliDeps): Promise<number> {
  let command: HookCommand;
  try {
    command = parseHookArgs(deps.argv, deps.env, deps.cwd);
  } catch (error) {
    deps.stderr.write(`countersign-hook: ${error instanceof Error ? error.message : String(error)}\n`);
    // Run by a CLI with a bad command line: still answer, so the call is blocked, not let through.
    const agent = agentIn(deps.argv);
    if (agent !== undefined) deps.stdout.write(`${hookAnswer(agent, { decision: 'deny', reason: 'countersign-hook is misconfigured (see its stderr), so nothing runs' })}\n`);
    return 2;
  }
  switch (command.command) {
    case 'help':
      deps.stdout.write(`${USAGE}\n`);
      return 0;
    case 'version':
      deps.stdout.write(`countersign-hook ${PACKAGE_VERSION}\n`);
      return 0;
    case 'pair':
      return pair(command, deps);
    case 'install':
      return report(deps, await installHook(command, deps.env));
    case 'uninstall':
      return report(deps, await uninstallHook(command, deps.env));
    case 'doctor':
      return report(deps, await doctorHook(command, deps.env));
    case 'run':
      return run(command, deps);
  }
}

async function run(command: Extract<HookCommand, { command: 'run' }>, deps: HookCliDeps): Promise<number> {
  const link = new HookLink({ agentName: command.agentName, configDir: command.configDir, env: deps.env });
  const controller = new AbortController();
  const expiryMs = command.expirySeconds * 1000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<HookDecision>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve({ decision: 'deny', reason: 'Countersign did not answer in time, so the call is not run.' });
    }, expiryMs + GRACE_MS);
  });
  let decision: HookDecision;
  try {
    const input = await readInput(deps.stdin);
    decision = await Promise.race([decideHookCall({ agent: command.agent, input, configDir: command.configDir, asker: link, expiryMs, home: deps.env['HOME'], signal: controller.signal }), late]);
  } catch (error) {
    decision = { decision: 'deny', reason: `countersign-hook failed, so the call is not run: ${reasonOf(error)}` };
  } finally {
    clearTimeout(timer);
  }
  await link.close();
  deps.stderr.write(`countersign-hook: ${decision.decision}: ${decision.reason}\n`);
  deps.stdout.write(`${hookAnswer(command.agent, decision)}\n`);
  return 0;
}

/** Standard input, whole, up to the limit (a longer input is cut and then refused as not JSON). */
async function readInput(stdin: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > MAX_HOOK_INPUT_BYTES) {
      stdin.destroy();
      return ' '.repeat(MAX_HOOK_INPUT_BYTES + 1);
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function agentIn(argv: readonly string[]): HookAgent | undefined {
  const at = argv.indexOf('--agent');
  const value = at >= 0 ? argv[at + 1] : argv.find((a) => a.startsWith('--agent='))?.slice('--agent='.length);
  return value === 'claude-code' || value === 'codex' || value === 'gemini' ? value : undefined;
}

function pair(command: Extract<HookCommand, { command: 'pair' }>, deps: HookCliDeps): Promise<number> {
  const next = 'Paired. Install the hook: countersign-hook install --agent claude-code|codex|gemini';
  return pairFromCli({ command: 'countersign-hook', thing: 'hook', agentName: command.agentName, configDir: command.configDir, env: deps.env, stderr: deps.stderr, next });
}

function report(deps: HookCliDeps, result: { ok: boolean; lines: string[] }): number {
  deps.stderr.write(`${result.lines.join('\n')}\n`);
  return result.ok ? 0 : 1;
}
