import { execFile } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { PIN_FILE } from '../agent/keys';
import { codexHooks } from './codex-trust';
import { AGENT_NAMES } from './tool-kinds';
import { hookCommandFor, isOurs, readJson, readToml, settingsFile, type SettingsCommand, type SettingsResult } from './hook-settings';

/**
 * `countersign-hook doctor --agent <agent>`: is the hook in the CLI's settings, can the CLI run
 * it, is it paired, and, for Codex, does Codex trust it (an untrusted hook is skipped without a
 * word, and the call runs). Each line says what was found and, when it is wrong, what to do.
 */
export async function doctorHook(command: SettingsCommand, env: Readonly<Record<string, string | undefined>>): Promise<SettingsResult> {
  const file = settingsFile(command.agent, command.project, env);
  const ours = hookCommandFor(command);
  const lines: string[] = [];
  let ok = true;
  const bad = (line: string) => {
    ok = false;
    lines.push(`✗ ${line}`);
  };
  const good = (line: string) => lines.push(`✓ ${line}`);

  const installed = await installedCommand(command, file, ours);
  if ('problem' in installed) bad(installed.problem);
  else {
    good(`${AGENT_NAMES[command.agent]} runs the hook: ${file}`);
    const version = await runs(installed.command);
    if (version === undefined) bad(`the hook's command does not run: ${installed.command}`);
    else good(`the hook runs (${version})`);
  }
  if (await fsp.access(path.join(command.configDir, PIN_FILE)).then(() => true, () => false)) good(`paired with Countersign (${command.configDir})`);
  else bad(`not paired: run countersign-hook pair --config-dir ${command.configDir} (until then every call that asks is denied)`);
  if (command.agent === 'codex') {
    const listed = await codexHooks({ codex: command.codex, env, cwd: command.project ?? env['HOME'] ?? '/' });
    if ('error' in listed) bad(`Codex could not be asked whether it trusts the hook: ${listed.error}`);
    else {
      const hook = listed.hooks.find((h) => isOurs(h.command, 'codex', ours));
      if (hook === undefined) bad('Codex does not list the hook: it will not run');
      else if (hook.trustStatus === 'trusted' || hook.trustStatus === 'managed') good(`Codex trusts the hook (${hook.trustStatus})`);
      else bad(`Codex does NOT trust the hook (${hook.trustStatus}): it skips it and runs every call. Run countersign-hook install --agent codex again, or trust it with /hooks in codex`);
    }
  }
  return { ok, lines };
}

async function installedCommand(command: SettingsCommand, file: string, ours: string): Promise<{ command: string } | { problem: string }> {
  let text;
  try {
    text = await fsp.readFile(file, 'utf8');
  } catch {
    return { problem: `${file} does not exist: run countersign-hook install --agent ${command.agent}` };
  }
  const read = command.agent === 'codex' ? readToml(file, text) : readJson(command.agent, file, text);
  if ('refused' in read) return { problem: read.refused.replace(/nothing was changed\.? ?/, '') };
  const event = command.agent === 'gemini' ? 'BeforeTool' : 'PreToolUse';
  const groups = (read.value['hooks'] as Record<string, unknown> | undefined)?.[event];
  for (const group of Array.isArray(groups) ? groups : []) {
    const items = (group as { hooks?: unknown }).hooks;
    for (const item of Array.isArray(items) ? items : []) {
      const c = (item as { command?: unknown }).command;
      if (isOurs(c, command.agent, ours)) return { command: c as string };
    }
  }
  if (command.agent === 'gemini' && (read.value['hooksConfig'] as { enabled?: unknown } | undefined)?.enabled !== true) return { problem: `${file}: hooksConfig.enabled is not true: Gemini CLI runs no hooks` };
  return { problem: `the hook is not in ${file}: run countersign-hook install --agent ${command.agent}${command.project === undefined ? '' : ' --project'}` };
}

/** The hook's version line when its command runs, else undefined. */
async function runs(command: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile('/bin/sh', ['-c', `${command} --version`], { timeout: 10_000 }, (error, stdout) => {
      const line = String(stdout).trim();
      resolve(error === null && line.startsWith('countersign-hook') ? line : undefined);
    });
  });
}
