import { CountersignError } from '../protocol/errors';

/**
 * Codex's `apply_patch` input, read into the files it changes (docs/coding-agents.md, "Codex
 * apply_patch"). The format is Codex's own:
 *
 *   *** Begin Patch
 *   *** Add File: <path>          then every line `+<text>`
 *   *** Delete File: <path>
 *   *** Update File: <path>       optionally `*** Move to: <path>`, then hunks:
 *   @@ [<context line>]           lines ` <kept>`, `-<removed>`, `+<added>`, optionally `*** End of File`
 *   *** End Patch
 *
 * A patch that does not follow it is refused (ERR_ARGUMENT_INVALID): the card must show what
 * Codex will do, and a patch we cannot read is one we cannot show.
 */

export type PatchFile =
  | { action: 'create'; path: string; content: string }
  | { action: 'delete'; path: string }
  | { action: 'update'; path: string; moveTo?: string; hunks: PatchHunk[] };

export interface PatchHunk {
  /** The text after `@@ `, if any: a line Codex looks for before the hunk. */
  context: string;
  lines: Array<{ op: ' ' | '-' | '+'; text: string }>;
  endOfFile: boolean;
}

const BEGIN = '*** Begin Patch';
const END = '*** End Patch';
const ADD = '*** Add File: ';
const DELETE = '*** Delete File: ';
const UPDATE = '*** Update File: ';
const MOVE = '*** Move to: ';
const END_OF_FILE = '*** End of File';

function invalid(line: number, what: string): CountersignError {
  return new CountersignError('ERR_ARGUMENT_INVALID', `apply_patch: line ${line}: ${what}`);
}

export function parseApplyPatch(patch: string): PatchFile[] {
  const lines = patch.replace(/\r\n/g, '\n').split('\n');
  while (lines.length > 0 && lines[lines.length - 1]?.trim() === '') lines.pop();
  if (lines[0]?.trim() !== BEGIN) throw invalid(1, `expected "${BEGIN}"`);
  if (lines[lines.length - 1]?.trim() !== END) throw invalid(lines.length, `expected "${END}" as the last line`);
  const files: PatchFile[] = [];
  let i = 1;
  while (i < lines.length - 1) {
    const line = lines[i] as string;
    if (line.startsWith(ADD)) {
      const content: string[] = [];
      for (i++; i < lines.length - 1 && !(lines[i] as string).startsWith('*** '); i++) {
        if (!(lines[i] as string).startsWith('+')) throw invalid(i + 1, 'expected a line starting with "+" in an added file');
        content.push((lines[i] as string).slice(1));
      }
      files.push({ action: 'create', path: pathOf(line, ADD, i), content: content.length === 0 ? '' : `${content.join('\n')}\n` });
    } else if (line.startsWith(DELETE)) {
      files.push({ action: 'delete', path: pathOf(line, DELETE, i + 1) });
      i++;
    } else if (line.startsWith(UPDATE)) {
      const read = readUpdate(lines, i);
      files.push(read.file);
      i = read.next;
    } else {
      throw invalid(i + 1, 'expected "*** Add File:", "*** Delete File:" or "*** Update File:"');
    }
  }
  if (files.length === 0) throw invalid(1, 'expected at least one file');
  return files;
}

function readUpdate(lines: readonly string[], at: number): { file: PatchFile; next: number } {
  const path = pathOf(lines[at] as string, UPDATE, at + 1);
  let i = at + 1;
  let moveTo: string | undefined;
  if ((lines[i] ?? '').startsWith(MOVE)) moveTo = pathOf(lines[i++] as string, MOVE, i);
  const hunks: PatchHunk[] = [];
  while (i < lines.length - 1 && !isFileHeader(lines[i] as string)) {
    const header = lines[i] as string;
    let hunk: PatchHunk;
    if (header === '@@' || header.startsWith('@@ ')) {
      hunk = { context: header.slice(3), lines: [], endOfFile: false };
      i++;
    } else if (hunks.length === 0) {
      // Codex accepts a first hunk without its "@@" line.
      hunk = { context: '', lines: [], endOfFile: false };
    } else {
      throw invalid(i + 1, 'expected "@@" to start a hunk');
    }
    for (; i < lines.length - 1; i++) {
      const text = lines[i] as string;
      if (text === END_OF_FILE) {
        hunk.endOfFile = true;
        i++;
        break;
      }
      if (text === '@@' || text.startsWith('@@ ') || isFileHeader(text)) break;
      const op = text[0] ?? ' ';
      if (op !== ' ' && op !== '-' && op !== '+') throw invalid(i + 1, 'expected a hunk line starting with " ", "-" or "+"');
      hunk.lines.push({ op, text: text.slice(1) });
    }
    if (hunk.lines.length === 0) throw invalid(i, 'expected at least one line in a hunk');
    hunks.push(hunk);
  }
  if (hunks.length === 0 && moveTo === undefined) throw invalid(at + 1, 'expected a hunk or "*** Move to:" for an updated file');
  return { file: { action: 'update', path, ...(moveTo === undefined ? {} : { moveTo }), hunks }, next: i };
}

function isFileHeader(line: string): boolean {
  return line.startsWith(ADD) || line.startsWith(DELETE) || line.startsWith(UPDATE);
}

function pathOf(line: string, prefix: string, lineNumber: number): string {
  const path = line.slice(prefix.length).trim();
  if (path === '') throw invalid(lineNumber, `expected a path after "${prefix.trim()}"`);
  return path;
}

/**
 * The file an update makes, given what is on disk: each hunk's removed and kept lines found in
 * order (after its context line) and replaced. Undefined when a hunk does not match: Codex would
 * refuse the patch then, and the card shows the hunks as written instead.
 */
export function applyHunks(before: string, hunks: readonly PatchHunk[]): string | undefined {
  const lines = before === '' ? [] : before.replace(/\n$/, '').split('\n');
  let at = 0;
  for (const hunk of hunks) {
    if (hunk.context !== '') {
      const found = lines.findIndex((l, i) => i >= at && l.trim() === hunk.context.trim());
      if (found < 0) return undefined;
      at = found + 1;
    }
    const old = hunk.lines.filter((l) => l.op !== '+').map((l) => l.text);
    const replacement = hunk.lines.filter((l) => l.op !== '-').map((l) => l.text);
    const start = hunk.endOfFile ? lines.length - old.length : findRun(lines, old, at);
    if (start < 0 || !old.every((l, k) => lines[start + k] === l)) return undefined;
    lines.splice(start, old.length, ...replacement);
    at = start + replacement.length;
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

function findRun(lines: readonly string[], run: readonly string[], from: number): number {
  for (let i = from; i + run.length <= lines.length; i++) if (run.every((l, k) => lines[i + k] === l)) return i;
  return -1;
}
