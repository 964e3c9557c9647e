import { createHash } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { canonicalJson, sameJson } from '../protocol/canonical-json';
import { CountersignError } from '../protocol/errors';
import { applyHunks, parseApplyPatch, type PatchFile } from './apply-patch';
import { commandFindings, pathFindings, type PathContext } from './danger-findings';
import type { HookCall } from './hook-input';
import type { ToolKind } from './tool-kinds';
import { unifiedDiff } from './unified-diff';

/**
 * The arguments Countersign shows and signs for a coding agent's tool call (docs/coding-agents.md,
 * "What the card shows"): not the CLI's raw input but what will happen, as data. A shell call is
 * its `command` and `working_directory`; a file write says whether it creates or replaces the file
 * and, for a replace, the unified diff against the file on disk as the hook read it; an edit or a
 * Codex patch is the diff it makes. Risky parts are listed in `countersign_findings`.
 *
 * Two members bind the approval to what runs: `countersign_input_sha256` (the CLI's exact tool
 * input) and, for each file the call changes, `countersign_files` (what was on disk when the diff
 * was made). The hook allows only when both still hold (stillTheSame).
 */

/** Above this size a file's content is not read for a diff (the card says so, and binds its hash). */
export const MAX_DIFF_FILE_BYTES = 2 * 1024 * 1024;
const MAX_LINK_DEPTH = 8;

/** A file as the hook saw it: absent, or its kind, its link target when a link, and its content hash. */
export interface FileState {
  path: string;
  state: 'absent' | 'file' | 'symlink' | 'other';
  link_target?: string;
  sha256?: string;
  size?: number;
}

export interface PreparedCall {
  kind: ToolKind;
  arguments: Record<string, unknown>;
  files: FileState[];
  /** What the policy needs to know beyond the tool's name. */
  facts: { command?: string; sensitiveRead?: boolean };
}

export async function prepareCall(call: HookCall, kind: ToolKind, ctx: PathContext): Promise<PreparedCall> {
  const base = { countersign_input_sha256: inputDigest(call.input) };
  switch (kind) {
    case 'shell':
      return shellCall(call, kind, base);
    case 'write':
    case 'edit':
      return fileCall(call, kind, ctx, base);
    case 'patch':
      return patchCall(call, kind, ctx, base);
    case 'mcp':
      return { kind, arguments: { server: call.mcp?.server, tool: call.mcp?.tool, arguments: call.input, ...base }, files: [], facts: {} };
    case 'read':
      return { kind, arguments: { tool_input: call.input, ...base }, files: [], facts: { sensitiveRead: readPaths(call).some((p) => pathFindings(p, ctx).length > 0) } };
    default:
      return { kind, arguments: { tool_input: call.input, ...base }, files: [], facts: {} };
  }
}

/** base64url-free hex SHA-256 of the tool input's canonical JSON: what the approval binds. */
export function inputDigest(input: Record<string, unknown>): string {
  return `sha256:${createHash('sha256').update(canonicalJson(input)).digest('hex')}`;
}

function text(input: Record<string, unknown>, ...names: string[]): string | undefined {
  for (const name of names) if (typeof input[name] === 'string') return input[name];
  return undefined;
}

function required(call: HookCall, ...names: string[]): string {
  const value = text(call.input, ...names);
  if (value === undefined) throw new CountersignError('ERR_ARGUMENT_INVALID', `tool_input of ${call.tool}: expected a string ${names[0] as string}`);
  return value;
}

function findings(list: string[]): { countersign_findings?: string[] } {
  return list.length === 0 ? {} : { countersign_findings: list };
}

function shellCall(call: HookCall, kind: ToolKind, base: Record<string, unknown>): PreparedCall {
  const command = call.input['command'];
  // Codex's exec_command may carry the command as an argument vector.
  const line = Array.isArray(command) && command.every((w) => typeof w === 'string') ? command.join(' ') : required(call, 'command', 'cmd');
  const workdir = text(call.input, 'workdir', 'cwd', 'dir_path', 'directory');
  const description = text(call.input, 'description');
  return {
    kind,
    arguments: { command: line, working_directory: workdir === undefined ? call.cwd : path.resolve(call.cwd, workdir), ...(description === undefined ? {} : { description }), ...findings(commandFindings(line)), ...base },
    files: [],
    facts: { command: line },
  };
}

async function fileCall(call: HookCall, kind: ToolKind, ctx: PathContext, base: Record<string, unknown>): Promise<PreparedCall> {
  const target = path.resolve(call.cwd, required(call, 'file_path', 'path', 'notebook_path'));
  const found = pathFindings(target, ctx);
  const disk = await readState(target);
  if (disk.state.state === 'symlink') found.push(`the path is a symbolic link to ${disk.state.link_target ?? '?'}`);
  if (disk.state.state === 'other') found.push('the path is not a regular file');
  const files = [disk.state];
  const bound = { countersign_files: files.map(describeState) };
  if (kind === 'write') {
    const content = required(call, 'content');
    if (disk.content === undefined && disk.state.state === 'absent') return { kind, arguments: { action: 'create', path: target, content, ...findings(found), ...bound, ...base }, files, facts: {} };
    return { kind, arguments: { action: 'replace', path: target, ...diffOf(disk, content, target, found), ...findings(found), ...bound, ...base }, files, facts: {} };
  }
  const after = disk.content === undefined ? undefined : editedContent(call, disk.content);
  if (after === undefined) {
    found.push(disk.content === undefined ? 'the file cannot be read to show the change' : 'the text to replace is not in the file as it is now: the edit will fail or do something else');
    return { kind, arguments: { action: 'edit', path: target, tool_input: call.input, ...findings(found), ...bound, ...base }, files, facts: {} };
  }
  return { kind, arguments: { action: 'edit', path: target, ...diffOf(disk, after, target, found), ...findings(found), ...bound, ...base }, files, facts: {} };
}

/** The file an edit makes: Claude Code's Edit and MultiEdit, Gemini CLI's replace. Undefined when an old text is not there. */
function editedContent(call: HookCall, before: string): string | undefined {
  const edits = Array.isArray(call.input['edits']) ? (call.input['edits'] as unknown[]) : [call.input];
  let content = before;
  for (const edit of edits) {
    if (typeof edit !== 'object' || edit === null) return undefined;
    const e = edit as Record<string, unknown>;
    const oldText = e['old_string'];
    const newText = e['new_string'];
    if (typeof oldText !== 'string' || typeof newText !== 'string' || oldText === '' || !content.includes(oldText)) return undefined;
    const all = e['replace_all'] === true || (typeof e['expected_replacements'] === 'number' && e['expected_replacements'] > 1);
    content = all ? content.split(oldText).join(newText) : content.replace(oldText, () => newText);
  }
  return content;
}

function diffOf(disk: { content?: string; state: FileState }, after: string, target: string, found: string[]): { diff: string } | { diff_not_shown: string } {
  if (disk.content === undefined) {
    found.push('the file on disk cannot be shown (too large, not text or unreadable): only its hash is bound');
    return { diff_not_shown: `the file on disk is ${disk.state.size ?? 0} bytes` };
  }
  const diff = unifiedDiff(disk.content, after, { from: `a${target}`, to: `b${target}` });
  return diff === undefined ? { diff_not_shown: 'the file has too many lines to diff' } : { diff: diff === '' ? '(no change)' : diff };
}

async function patchCall(call: HookCall, kind: ToolKind, ctx: PathContext, base: Record<string, unknown>): Promise<PreparedCall> {
  const patch = text(call.input, 'command', 'patch', 'input');
  if (patch === undefined) throw new CountersignError('ERR_ARGUMENT_INVALID', 'tool_input of apply_patch: expected the patch text in "command"');
  const parsed = parseApplyPatch(patch);
  const files: FileState[] = [];
  const found: string[] = [];
  const shown: Array<Record<string, unknown>> = [];
  for (const file of parsed) {
    const target = path.resolve(call.cwd, file.path);
    const targets = file.action === 'update' && file.moveTo !== undefined ? [target, path.resolve(call.cwd, file.moveTo)] : [target];
    for (const t of targets) for (const f of pathFindings(t, ctx)) found.push(`${t}: ${f}`);
    const disk = await readState(target);
    files.push(disk.state);
    if (disk.state.state === 'symlink') found.push(`${target}: the path is a symbolic link to ${disk.state.link_target ?? '?'}`);
    shown.push(patchFileArguments(file, target, targets[1], disk, found));
  }
  return { kind, arguments: { files: shown, ...findings(found), countersign_files: files.map(describeState), ...base }, files, facts: {} };
}

function patchFileArguments(file: PatchFile, target: string, moveTo: string | undefined, disk: { content?: string; state: FileState }, found: string[]): Record<string, unknown> {
  if (file.action === 'delete') return { action: 'delete', path: target };
  if (file.action === 'create') {
    if (disk.state.state !== 'absent') found.push(`${target}: the file already exists and will be replaced`);
    return { action: 'create', path: target, content: file.content };
  }
  const after = disk.content === undefined ? undefined : applyHunks(disk.content, file.hunks);
  const move = moveTo === undefined ? {} : { move_to: moveTo };
  if (after === undefined || disk.content === undefined) {
    found.push(`${target}: the patch does not apply to the file as it is now: shown as written`);
    const hunks = file.hunks.map((h) => [`@@${h.context === '' ? '' : ` ${h.context}`}`, ...h.lines.map((l) => `${l.op}${l.text}`)].join('\n'));
    return { action: 'update', path: target, ...move, hunks };
  }
  return { action: 'update', path: target, ...move, ...diffOf(disk, after, target, found) };
}

/** The paths a read-only tool names, resolved in the project. */
function readPaths(call: HookCall): string[] {
  const names = ['file_path', 'path', 'absolute_path', 'dir_path', 'notebook_path'];
  const listed = Array.isArray(call.input['paths']) ? (call.input['paths'] as unknown[]).filter((p) => typeof p === 'string') : [];
  return [...names.map((n) => call.input[n]).filter((p) => typeof p === 'string'), ...listed].map((p) => path.resolve(call.cwd, p));
}

/** What is at `target` now, without following a final symbolic link for the state (its target's content is read). */
export async function readState(target: string, depth = 0): Promise<{ state: FileState; content?: string }> {
  let st;
  try {
    st = await fsp.lstat(target);
  } catch {
    return { state: { path: target, state: 'absent' } };
  }
  if (st.isSymbolicLink()) {
    const linkTarget = await fsp.readlink(target).catch(() => '?');
    // A chain of links is followed a few steps; a loop ends as a link whose content is not shown.
    const through = depth >= MAX_LINK_DEPTH ? undefined : await readState(path.resolve(path.dirname(target), linkTarget), depth + 1).catch(() => undefined);
    return { state: { path: target, state: 'symlink', link_target: linkTarget, ...(through?.state.sha256 === undefined ? {} : { sha256: through.state.sha256 }) }, ...(through?.content === undefined ? {} : { content: through.content }) };
  }
  if (!st.isFile()) return { state: { path: target, state: 'other' } };
  const bytes = await fsp.readFile(target);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const state: FileState = { path: target, state: 'file', sha256, size: bytes.length };
  if (bytes.length > MAX_DIFF_FILE_BYTES || bytes.includes(0)) return { state };
  const content = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  return { state, content };
}

function describeState(s: FileState): Record<string, unknown> {
  if (s.state === 'absent') return { path: s.path, on_disk: 'absent' };
  return { path: s.path, on_disk: s.state, ...(s.link_target === undefined ? {} : { link_target: s.link_target }), ...(s.sha256 === undefined ? {} : { sha256: s.sha256 }) };
}

/**
 * Before allowing: the tool input is the one approved, and every file is as it was when the card
 * was made (the same kind, link target and content). Returns what differs, or undefined.
 */
export async function stillTheSame(call: HookCall, prepared: PreparedCall): Promise<string | undefined> {
  if (inputDigest(call.input) !== prepared.arguments['countersign_input_sha256']) return 'the tool input is not the one you approved';
  for (const before of prepared.files) {
    const now = (await readState(before.path)).state;
    if (!sameJson(describeState(now), describeState(before))) return `${before.path} changed after Countersign showed it (${before.state} then, ${now.state} now)`;
  }
  return undefined;
}
