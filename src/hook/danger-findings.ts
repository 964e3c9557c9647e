import path from 'node:path';

/**
 * What a person should notice before approving a coding agent's tool call, said as data in the
 * card's arguments (`countersign_findings`, docs/coding-agents.md "Findings"). Findings never
 * decide anything on their own (the policy does): they make the risky part of a call impossible
 * to miss. Heuristics over text: a command can hide what it does in ways no pattern catches,
 * which is why a shell call always asks.
 */

const COMMAND_FINDINGS: ReadonlyArray<{ pattern: RegExp; finding: string }> = [
  { pattern: /(^|[\s;&|(`])sudo(\s|$)/, finding: 'runs a command as root (sudo)' },
  { pattern: /(^|[\s;&|(`])doas(\s|$)/, finding: 'runs a command as root (doas)' },
  { pattern: /(^|[\s;&|(`])rm\s+(-[A-Za-z]*[rR][A-Za-z]*\s+-?[A-Za-z]*[fF]|-[A-Za-z]*[fF][A-Za-z]*\s+-?[A-Za-z]*[rR]|-[A-Za-z]*([rR][A-Za-z]*[fF]|[fF][A-Za-z]*[rR])|--recursive|--force)/, finding: 'deletes files recursively without asking (rm -rf)' },
  { pattern: /\b(curl|wget|fetch)\b[^|;&]*\|\s*(sudo\s+)?(ba|z|da|k|c|fi)?sh\b/, finding: 'downloads a script and runs it (curl | sh)' },
  { pattern: /\b(curl|wget)\b[^|;&]*\|\s*(sudo\s+)?(python3?|node|perl|ruby)\b/, finding: 'downloads code and runs it (curl | interpreter)' },
  { pattern: /\bgit\b[^|;&\n]*\spush\b/, finding: 'pushes to a git remote (git push)' },
  { pattern: /\bgit\b[^|;&\n]*\sreset\s+--hard\b/, finding: 'discards uncommitted work (git reset --hard)' },
  { pattern: /\bchmod\s+(-R\s+)?[0-7]*7[0-7]{0,2}\s|\bchmod\s+(-R\s+)?[ao]?\+[rwx]*w/, finding: 'makes files writable by others (chmod)' },
  { pattern: /\bmkfs(\.\w+)?\b|\bdd\s+[^|;&]*of=\/dev\//, finding: 'writes a disk or file system directly' },
  { pattern: /(~|\$HOME|\$\{HOME\})\/\.[A-Za-z]/, finding: 'touches a dotfile in the home folder' },
];

/** Findings of a shell command, in the order listed above; at most one of each. */
export function commandFindings(command: string): string[] {
  const found = COMMAND_FINDINGS.filter((f) => f.pattern.test(command)).map((f) => f.finding);
  // eslint-disable-next-line no-control-regex -- control characters are what this looks for
  if (/[\u0000-\u0008\u000B-\u001F\u007F\u0080-\u009F\u200B-\u200F\u202A-\u202E\u2066-\u2069]/.test(command)) found.push('contains control or invisible characters that a terminal may not show');
  return found;
}

export interface PathContext {
  /** The project: the folder the agent works in. */
  cwd: string;
  home: string | undefined;
}

/** Findings of a path a tool writes, reads or patches (already absolute). */
export function pathFindings(target: string, ctx: PathContext): string[] {
  const found: string[] = [];
  const inProject = isInside(target, ctx.cwd);
  if (!inProject) found.push(`the path is outside the project (${ctx.cwd})`);
  if (ctx.home !== undefined && isInside(target, ctx.home)) {
    const rel = path.relative(ctx.home, target).split(path.sep);
    if (rel.some((part) => part.startsWith('.'))) found.push('the path is a dotfile or in a dot folder of the home folder');
  }
  const parts = path.relative(ctx.cwd, target).split(path.sep);
  if (inProject && parts.includes('.git')) found.push("the path is inside the project's .git folder (hooks there run code)");
  if (inProject && parts.some((p) => ['.claude', '.codex', '.gemini'].includes(p))) found.push("the path is a coding agent's settings (it can change what runs without asking)");
  return found;
}

/** True when `target` is `folder` or inside it. */
export function isInside(target: string, folder: string): boolean {
  const rel = path.relative(folder, target);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}
