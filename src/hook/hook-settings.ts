import { promises as fsp, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { applyEdits, findNodeAtLocation, getNodeValue, modify, parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import { parse as parseToml } from 'smol-toml';
import { PIN_FILE } from '../agent/keys';
import { sameJson } from '../protocol/canonical-json';
import type { HookAgent } from './hook-input';
import { AGENT_NAMES } from './tool-kinds';
import { codexHooks, type CodexHook } from './codex-trust';

/**
 * `countersign-hook install | uninstall | doctor` (docs/coding-agents.md, "Install"): the hook in
 * each CLI's own settings, user-wide or for one project.
 *
 * - Claude Code: `hooks.PreToolUse` in ~/.claude/settings.json or <project>/.claude/settings.json.
 * - Gemini CLI: `hooks.BeforeTool` in ~/.gemini/settings.json or <project>/.gemini/settings.json,
 *   and `hooksConfig.enabled`.
 * - Codex CLI: `[[hooks.PreToolUse]]` in $CODEX_HOME/config.toml (or <project>/.codex/config.toml),
 *   then its trust: Codex runs a hook only once its hash is recorded as trusted, and without that
 *   it silently skips the hook and runs the call. Install records the hash Codex itself reports
 *   (`codex app-server`, `hooks/list`) and doctor checks Codex sees the hook as trusted.
 *
 * Every other setting and hook is kept as it was, byte for byte where the format allows: JSON is
 * edited in place (jsonc-parser), and for TOML our lines are one marked block at the end. A file
 * that is not valid JSON or TOML is refused, unchanged. Writes are atomic (temporary file, then
 * rename), and install twice is install once.
 */

export interface SettingsCommand {
  agent: HookAgent;
  configDir: string;
  project: string | undefined;
  hookCommand: string | undefined;
  codex: string | undefined;
}

export interface SettingsResult {
  ok: boolean;
  lines: string[];
}

/** How long each CLI waits for the hook before giving up on it; above the hook's own longest expiry. */
export const INSTALL_TIMEOUT_SECONDS = 600;
const BLOCK_BEGIN = '# countersign-hook: begin (written by countersign-hook install; removed by countersign-hook uninstall)';
const BLOCK_END = '# countersign-hook: end';

type Env = Readonly<Record<string, string | undefined>>;

function homeOf(env: Env): string {
  return env['HOME'] ?? os.homedir();
}

/** The settings file install writes for `agent`. */
export function settingsFile(agent: HookAgent, project: string | undefined, env: Env): string {
  switch (agent) {
    case 'claude-code':
      return path.join(project ?? homeOf(env), '.claude', 'settings.json');
    case 'gemini':
      return path.join(project ?? homeOf(env), '.gemini', 'settings.json');
    case 'codex':
      return project === undefined ? path.join(env['CODEX_HOME'] ?? path.join(homeOf(env), '.codex'), 'config.toml') : path.join(project, '.codex', 'config.toml');
  }
}

/**
 * The command the CLI runs: this very countersign-hook, or the one given. By absolute paths, and
 * with the config folder spelled out: a CLI may run its hooks with a reduced environment (no
 * XDG_CONFIG_HOME, another PATH), and the hook must still find its pairing and policy.
 */
export function hookCommandFor(command: SettingsCommand): string {
  const base = command.hookCommand ?? [process.execPath, realpathSync(process.argv[1] ?? '.')].map(shellQuote).join(' ');
  return [base, '--agent', command.agent, '--config-dir', shellQuote(command.configDir)].join(' ');
}

function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** True for a hook entry command install wrote for `agent`. */
function isOurs(command: unknown, agent: HookAgent, ours: string): boolean {
  return typeof command === 'string' && (command === ours || (command.includes('countersign-hook') && command.includes(`--agent ${agent}`)));
}

async function readIfExists(file: string): Promise<string | undefined> {
  try {
    return await fsp.readFile(file, 'utf8');
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Write `text` to `file` atomically, keeping the file's mode. */
async function writeAtomically(file: string, text: string): Promise<void> {
  await fsp.mkdir(path.dirname(file), { recursive: true });
  const mode = await fsp.stat(file).then((s) => s.mode & 0o777, () => 0o600);
  const temporary = `${file}.countersign-hook-${process.pid}.tmp`;
  try {
    await fsp.writeFile(temporary, text, { mode, flag: 'wx' });
    await fsp.rename(temporary, file);
  } catch (error) {
    await fsp.rm(temporary, { force: true });
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// JSON: Claude Code and Gemini CLI

const FORMATTING = { tabSize: 2, insertSpaces: true, eol: '\n' };

function eventOf(agent: HookAgent): string {
  return agent === 'gemini' ? 'BeforeTool' : 'PreToolUse';
}

function entryFor(agent: HookAgent, command: string): Record<string, unknown> {
  if (agent === 'gemini') return { matcher: '.*', hooks: [{ type: 'command', name: 'countersign', command, timeout: INSTALL_TIMEOUT_SECONDS * 1000 }] };
  return { matcher: '.*', hooks: [{ type: 'command', command, timeout: INSTALL_TIMEOUT_SECONDS }] };
}

/** The settings as a value, or why they are refused. Gemini CLI reads comments in its settings; Claude Code does not. */
function readJson(agent: HookAgent, file: string, text: string): { value: Record<string, unknown> } | { refused: string } {
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { disallowComments: agent !== 'gemini', allowTrailingComma: false, allowEmptyContent: false });
  if (errors.length > 0 || tree === undefined) {
    const first = errors[0];
    return { refused: `${file} is not valid JSON (${first === undefined ? 'empty' : `${printParseErrorCode(first.error)} at offset ${first.offset}`}): nothing was changed. Fix it, then run install again.` };
  }
  const value: unknown = getNodeValue(tree);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { refused: `${file}: expected a JSON object: nothing was changed` };
  const hooks = (value as Record<string, unknown>)['hooks'];
  if (hooks !== undefined && (typeof hooks !== 'object' || hooks === null || Array.isArray(hooks))) return { refused: `${file}: "hooks" is not an object: nothing was changed` };
  const groups = (hooks as Record<string, unknown> | undefined)?.[eventOf(agent)];
  if (groups !== undefined && !Array.isArray(groups)) return { refused: `${file}: "hooks.${eventOf(agent)}" is not a list: nothing was changed` };
  return { value: value as Record<string, unknown> };
}

type Group = { hooks?: unknown };

function groupsOf(agent: HookAgent, value: Record<string, unknown>): Group[] {
  const hooks = value['hooks'] as Record<string, unknown> | undefined;
  return ((hooks?.[eventOf(agent)] as unknown[] | undefined) ?? []).map((g) => (typeof g === 'object' && g !== null ? (g as Group) : {}));
}

function itemsOf(group: Group): Array<{ command?: unknown }> {
  return Array.isArray(group.hooks) ? group.hooks.map((h) => (typeof h === 'object' && h !== null ? (h as { command?: unknown }) : {})) : [];
}

function installedJson(agent: HookAgent, value: Record<string, unknown>, ours: string): boolean {
  return groupsOf(agent, value).some((g) => itemsOf(g).some((h) => isOurs(h.command, agent, ours)));
}

async function installJson(command: SettingsCommand, file: string, ours: string): Promise<SettingsResult> {
  const agent = command.agent;
  let text = (await readIfExists(file)) ?? '{}\n';
  const read = readJson(agent, file, text);
  if ('refused' in read) return { ok: false, lines: [read.refused] };
  const lines: string[] = [];
  if (installedJson(agent, read.value, ours)) lines.push(`${AGENT_NAMES[agent]}: the hook is already in ${file}.`);
  else {
    text = applyEdits(text, modify(text, ['hooks', eventOf(agent), -1], entryFor(agent, ours), { formattingOptions: FORMATTING, isArrayInsertion: true }));
    lines.push(`${AGENT_NAMES[agent]}: added the hook to ${file}.`);
  }
  // Gemini CLI runs hooks only with hooksConfig.enabled.
  const enabled = (read.value['hooksConfig'] as { enabled?: unknown } | undefined)?.enabled;
  if (agent === 'gemini' && enabled !== true) {
    text = applyEdits(text, modify(text, ['hooksConfig', 'enabled'], true, { formattingOptions: FORMATTING }));
    lines.push('Gemini CLI: turned hooks on (hooksConfig.enabled).');
  }
  const expected = structuredClone(read.value);
  const hooks = (expected['hooks'] ??= {}) as Record<string, unknown>;
  if (!installedJson(agent, read.value, ours)) hooks[eventOf(agent)] = [...((hooks[eventOf(agent)] as unknown[] | undefined) ?? []), entryFor(agent, ours)];
  if (agent === 'gemini') expected['hooksConfig'] = { ...(expected['hooksConfig'] as object | undefined), enabled: true };
  const check = readJson(agent, file, text);
  if ('refused' in check || !sameJson(check.value, expected)) return { ok: false, lines: [`${file}: the hook could not be added safely: nothing was changed. Add it as docs/coding-agents.md shows.`] };
  if (text !== ((await readIfExists(file)) ?? '{}\n') || !(await exists(file))) await writeAtomically(file, text);
  return { ok: true, lines };
}

async function uninstallJson(command: SettingsCommand, file: string, ours: string): Promise<SettingsResult> {
  const agent = command.agent;
  const original = await readIfExists(file);
  if (original === undefined) return { ok: true, lines: [`${file} does not exist: nothing to remove.`] };
  const read = readJson(agent, file, original);
  if ('refused' in read) return { ok: false, lines: [read.refused] };
  const expected = withoutOurs(agent, read.value, ours);
  let text = original;
  for (;;) {
    const tree = parseTree(text, [], { disallowComments: agent !== 'gemini' }) as Node;
    const groups = findNodeAtLocation(tree, ['hooks', eventOf(agent)]);
    const value = getNodeValue(tree) as Record<string, unknown>;
    const gi = groupsOf(agent, value).findIndex((g) => itemsOf(g).some((h) => isOurs(h.command, agent, ours)));
    if (gi < 0 || groups === undefined) break;
    const group = (groups.children ?? [])[gi] as Node;
    const items = findNodeAtLocation(group, ['hooks']) as Node;
    const hi = itemsOf(groupsOf(agent, value)[gi] as Group).findIndex((h) => isOurs(h.command, agent, ours));
    // Our own group goes whole; in a group shared with other hooks, only our item goes.
    text = (items.children ?? []).length === 1 ? withoutElement(text, groups, gi) : withoutElement(text, items, hi);
  }
  if (text === original) return { ok: true, lines: [`${AGENT_NAMES[agent]}: the hook is not in ${file}: nothing to remove.`] };
  const check = readJson(agent, file, text);
  if ('refused' in check || !sameJson(check.value, expected)) return { ok: false, lines: [`${file}: the hook could not be removed safely: nothing was changed. Remove its entry by hand.`] };
  await writeAtomically(file, text);
  return { ok: true, lines: [`${AGENT_NAMES[agent]}: removed the hook from ${file}.`] };
}

/** The settings without our hook items, and without a group they leave empty: what uninstall must leave. */
function withoutOurs(agent: HookAgent, value: Record<string, unknown>, ours: string): Record<string, unknown> {
  const copy = structuredClone(value);
  const hooks = copy['hooks'] as Record<string, unknown> | undefined;
  const groups = hooks?.[eventOf(agent)];
  if (!Array.isArray(groups)) return copy;
  (hooks as Record<string, unknown>)[eventOf(agent)] = groups.flatMap((g: Group) => {
    if (!itemsOf(g).some((h) => isOurs(h.command, agent, ours))) return [g];
    const kept = itemsOf(g).filter((h) => !isOurs(h.command, agent, ours));
    return kept.length === 0 ? [] : [{ ...g, hooks: kept }];
  });
  return copy;
}

/**
 * The text with element `i` of the array `node` cut out, with its comma: jsonc-parser's own
 * removal writes a broken document when the last element of a nested array goes.
 */
function withoutElement(text: string, node: Node, i: number): string {
  const elements = node.children ?? [];
  const element = elements[i] as Node;
  if (elements.length === 1) return `${text.slice(0, node.offset)}[]${text.slice(node.offset + node.length)}`;
  if (i === elements.length - 1) {
    const previous = elements[i - 1] as Node;
    return text.slice(0, previous.offset + previous.length) + text.slice(element.offset + element.length);
  }
  const next = elements[i + 1] as Node;
  return text.slice(0, element.offset) + text.slice(next.offset);
}


async function exists(file: string): Promise<boolean> {
  return fsp.access(file).then(() => true, () => false);
}

// ---------------------------------------------------------------------------------------------
// TOML: Codex CLI

function readToml(file: string, text: string): { value: Record<string, unknown> } | { refused: string } {
  try {
    return { value: parseToml(text) };
  } catch (error) {
    return { refused: `${file} is not valid TOML (${error instanceof Error ? error.message.split('\n')[0] : String(error)}): nothing was changed. Fix it, then run install again.` };
  }
}

function installedToml(value: Record<string, unknown>, ours: string): boolean {
  const groups = (value['hooks'] as { PreToolUse?: unknown } | undefined)?.PreToolUse;
  return Array.isArray(groups) && groups.some((g) => itemsOf(g as Group).some((h) => isOurs(h.command, 'codex', ours)));
}

function tomlString(text: string): string {
  return JSON.stringify(text);
}

function tomlBlock(ours: string, trusted: CodexHook | undefined): string {
  const lines = [BLOCK_BEGIN, '[[hooks.PreToolUse]]', 'matcher = ".*"', '', '[[hooks.PreToolUse.hooks]]', 'type = "command"', `command = ${tomlString(ours)}`, `timeout = ${INSTALL_TIMEOUT_SECONDS}`];
  if (trusted !== undefined) lines.push('', `[hooks.state.${tomlString(trusted.key)}]`, `trusted_hash = ${tomlString(trusted.currentHash)}`);
  lines.push(BLOCK_END);
  return `${lines.join('\n')}\n`;
}

/** The text without our block (and the blank line install put before it). */
function withoutBlock(text: string): string {
  const begin = text.indexOf(BLOCK_BEGIN);
  if (begin < 0) return text;
  const end = text.indexOf(BLOCK_END, begin);
  if (end < 0) return text;
  const before = text.slice(0, begin).replace(/\n\n$/, '\n');
  return before + text.slice(end + BLOCK_END.length).replace(/^\n/, '');
}

function withBlock(text: string, block: string): string {
  const base = withoutBlock(text);
  return `${base}${base === '' || base.endsWith('\n') ? '' : '\n'}${base === '' ? '' : '\n'}${block}`;
}

async function installToml(command: SettingsCommand, file: string, ours: string, env: Env): Promise<SettingsResult> {
  const original = (await readIfExists(file)) ?? '';
  const read = readToml(file, original);
  if ('refused' in read) return { ok: false, lines: [read.refused] };
  const lines: string[] = [];
  let text = original;
  if (!installedToml(read.value, ours)) {
    text = withBlock(original, tomlBlock(ours, undefined));
    const check = readToml(file, text);
    if ('refused' in check || !installedToml(check.value, ours)) return { ok: false, lines: [`${file}: the hook cannot be added at the end of this file (its hooks are written in another form): nothing was changed. Add it as docs/coding-agents.md shows.`] };
    await writeAtomically(file, text);
    lines.push(`Codex CLI: added the hook to ${file}.`);
  } else lines.push(`Codex CLI: the hook is already in ${file}.`);
  // Trust: the hash Codex computes for our hook, recorded in our block, then checked.
  const listed = await codexHooks({ codex: command.codex, env, cwd: command.project ?? homeOf(env) });
  if ('error' in listed) return { ok: false, lines: [...lines, `Codex CLI: the hook is NOT trusted yet (${listed.error}). Codex skips untrusted hooks and runs the call: open codex, type /hooks and trust "countersign-hook", then run countersign-hook doctor --agent codex.`] };
  const hook = listed.hooks.find((h) => isOurs(h.command, 'codex', ours));
  if (hook === undefined) return { ok: false, lines: [...lines, `Codex CLI: codex does not list the hook from ${file}${command.project === undefined ? '' : ' (is the project trusted in Codex?)'}: it will not run.`] };
  if (hook.trustStatus !== 'trusted' && hook.trustStatus !== 'managed') {
    const current = readToml(file, text);
    if ('refused' in current) return { ok: false, lines: [...lines, current.refused] };
    text = withBlock(text, tomlBlock(ours, hook));
    if ('refused' in readToml(file, text)) return { ok: false, lines: [...lines, `${file}: Codex's trust for the hook cannot be recorded here: trust it with /hooks in codex.`] };
    await writeAtomically(file, text);
    lines.push('Codex CLI: recorded that you trust the hook (hooks.state).');
  }
  const after = await codexHooks({ codex: command.codex, env, cwd: command.project ?? homeOf(env) });
  const trusted = 'hooks' in after && after.hooks.some((h) => isOurs(h.command, 'codex', ours) && (h.trustStatus === 'trusted' || h.trustStatus === 'managed'));
  if (!trusted) return { ok: false, lines: [...lines, 'Codex CLI: codex still does not trust the hook: trust it with /hooks in codex.'] };
  lines.push('Codex CLI: codex lists the hook as trusted.');
  return { ok: true, lines };
}

async function uninstallToml(file: string): Promise<SettingsResult> {
  const original = await readIfExists(file);
  if (original === undefined) return { ok: true, lines: [`${file} does not exist: nothing to remove.`] };
  const read = readToml(file, original);
  if ('refused' in read) return { ok: false, lines: [read.refused] };
  const text = withoutBlock(original);
  if (text === original) return { ok: true, lines: [`Codex CLI: the hook is not in ${file}: nothing to remove.`] };
  await writeAtomically(file, text);
  return { ok: true, lines: [`Codex CLI: removed the hook (and its trust) from ${file}.`] };
}

// ---------------------------------------------------------------------------------------------

export async function installHook(command: SettingsCommand, env: Env): Promise<SettingsResult> {
  const file = settingsFile(command.agent, command.project, env);
  const ours = hookCommandFor(command);
  try {
    const result = command.agent === 'codex' ? await installToml(command, file, ours, env) : await installJson(command, file, ours);
    if (result.ok && !(await exists(path.join(command.configDir, PIN_FILE)))) result.lines.push('Not paired yet: run countersign-hook pair, or every call that asks is denied.');
    return result;
  } catch (error) {
    return { ok: false, lines: [`${file}: ${error instanceof Error ? error.message : String(error)}`] };
  }
}

export async function uninstallHook(command: SettingsCommand, env: Env): Promise<SettingsResult> {
  const file = settingsFile(command.agent, command.project, env);
  try {
    return command.agent === 'codex' ? await uninstallToml(file) : await uninstallJson(command, file, hookCommandFor(command));
  } catch (error) {
    return { ok: false, lines: [`${file}: ${error instanceof Error ? error.message : String(error)}`] };
  }
}

export { installedJson, installedToml, readJson, readToml, isOurs };
