import type { ToolCall } from '../../protocol/tool-call.ts';
import { inspectText } from '../../summary/text-inspection.ts';

/**
 * What a tool call will do, in the words a person who does not program reads first (docs/ui.md,
 * "A tool call"): create, replace, change, delete or move a file, run a command, read or fetch
 * something, or, when nothing says more, use the tool. Read from data Countersign can trust to
 * say what it says: the arguments a coding agent's hook wrote (`action` and `path`, `command`,
 * `files`), then the tool's name and the arguments it names. A server's own hints
 * (`annotations`) only ever add caution: `destructiveHint` marks the call destructive,
 * `readOnlyHint` changes nothing here. The card still lists every argument whole below this
 * line: the line is a reading of the call, the arguments are what is signed.
 */
export type ToolActionVerb = 'create' | 'replace' | 'createOrReplace' | 'change' | 'changeFiles' | 'delete' | 'move' | 'run' | 'read' | 'fetch' | 'use';

export interface ToolAction {
  verb: ToolActionVerb;
  /** What it acts on, whole, hidden characters shown as tokens: a path, a URL, a command, a tool's name, or a count of files. */
  target: string;
  /** For a file: its last path segment, for the heading; the whole path is `target`. */
  short?: string;
  /** For a move: where to. */
  to?: string;
  /** A delete, or the server's `destructiveHint`: data may be lost, and the card raises a danger. */
  destructive: boolean;
}

type Call = Pick<ToolCall, 'tool' | 'arguments'> & { annotations?: { destructiveHint?: boolean | undefined } | undefined };

const PATH_NAMES = ['path', 'file_path', 'filePath', 'filename', 'file', 'target', 'destination', 'uri', 'notebook_path'];
const SOURCE_NAMES = ['source', 'from', 'src', 'old_path', 'source_path'];
const TARGET_NAMES = ['destination', 'to', 'dest', 'new_path', 'target', 'destination_path'];
const COMMAND_NAMES = ['command', 'cmd', 'script'];
const URL_NAMES = ['url', 'uri', 'href'];

/** The verbs of tool names, by what they do to a person's data. */
const VERBS: Array<[ToolActionVerb, ReadonlySet<string>]> = [
  ['delete', new Set(['delete', 'remove', 'rm', 'unlink', 'erase', 'drop', 'destroy', 'purge', 'trash', 'wipe'])],
  ['move', new Set(['move', 'rename', 'mv'])],
  ['run', new Set(['run', 'exec', 'execute', 'bash', 'shell', 'command', 'eval', 'terminal', 'spawn'])],
  ['createOrReplace', new Set(['write', 'create', 'save', 'put', 'upload', 'overwrite', 'new', 'mkdir'])],
  ['change', new Set(['edit', 'update', 'modify', 'patch', 'replace', 'append', 'insert', 'set', 'change'])],
  ['fetch', new Set(['fetch', 'download', 'browse', 'navigate', 'http', 'curl'])],
  ['read', new Set(['read', 'get', 'list', 'search', 'find', 'view', 'show', 'query', 'describe', 'grep', 'glob', 'cat', 'ls', 'stat', 'info'])],
];

function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
}

function text(args: Record<string, unknown>, names: readonly string[]): string | undefined {
  for (const name of names) {
    const value = args[name];
    if (typeof value === 'string' && value !== '') return value;
    // Codex and some servers write a command as its argument vector.
    if (Array.isArray(value) && value.length > 0 && value.every((w) => typeof w === 'string')) return value.join(' ');
  }
  return undefined;
}

function shown(value: string): string {
  return inspectText(value, { singleLine: true }).display;
}

function fileAction(verb: ToolActionVerb, path: string, destructive: boolean): ToolAction {
  const whole = shown(path);
  const short = whole.split('/').filter((s) => s !== '').at(-1) ?? whole;
  return { verb, target: whole, short, destructive };
}

/** The hook's own words for a file change (docs/coding-agents.md, "What the card shows"). */
const HOOK_ACTIONS: Record<string, ToolActionVerb> = { create: 'create', replace: 'replace', edit: 'change', update: 'change', delete: 'delete' };

export function toolCallAction(call: Call): ToolAction {
  const args = call.arguments;
  const hinted = call.annotations?.destructiveHint === true;
  const hookVerb = typeof args['action'] === 'string' ? HOOK_ACTIONS[args['action']] : undefined;
  const path = text(args, PATH_NAMES);
  if (hookVerb && path !== undefined) {
    if (typeof args['move_to'] === 'string') return { ...fileAction('move', path, hinted), to: shown(args['move_to']) };
    return fileAction(hookVerb, path, hinted || hookVerb === 'delete');
  }
  const files = args['files'];
  if (Array.isArray(files) && files.length > 0 && files.every((f) => typeof f === 'object' && f !== null && typeof (f as Record<string, unknown>)['path'] === 'string')) {
    const list = files as Array<Record<string, unknown>>;
    if (list.length === 1) return toolCallAction({ ...call, arguments: list[0] as ToolCall['arguments'] });
    return { verb: 'changeFiles', target: String(list.length), destructive: hinted || list.some((f) => f['action'] === 'delete') };
  }
  const toolWords = words(call.tool);
  const verb = VERBS.find(([, set]) => toolWords.some((w) => set.has(w)))?.[0];
  const command = text(args, COMMAND_NAMES);
  if (command !== undefined && (verb === 'run' || verb === undefined || 'working_directory' in args)) return { verb: 'run', target: shown(command), destructive: hinted };
  if (verb === 'move') {
    const from = text(args, SOURCE_NAMES);
    const to = text(args, TARGET_NAMES);
    if (from !== undefined && to !== undefined) return { ...fileAction('move', from, hinted), to: shown(to) };
  }
  if (verb === 'fetch') {
    const url = text(args, URL_NAMES);
    if (url !== undefined) return { verb, target: shown(url), destructive: hinted };
  }
  if (verb !== undefined && verb !== 'run' && verb !== 'fetch' && verb !== 'move' && path !== undefined) return fileAction(verb, path, hinted || verb === 'delete');
  return { verb: 'use', target: shown(call.tool), destructive: hinted };
}
