import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Comments say why and point at where the rest is written (a spec section, a file in docs/, the
 * test that checks a rule). A pointer to a file that was renamed or never written sends the next
 * reader nowhere: every repository path a source, test, bench or script file names must exist,
 * and so must every one the README and docs/ name.
 */

const root = resolve(import.meta.dirname, '..');
const PATH = /\b(?:src|docs|test|bench|scripts|entrypoints|public)\/[A-Za-z0-9_./-]+\.(?:ts|md|json|mjs|css|html)\b/g;

/** The files under `dir` whose names match `kind`, outside packages, screenshots and external corpora. */
function files(dir: string, kind: RegExp): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name.endsWith('-snapshots') || name === 'fixtures') return [];
    if (statSync(path).isDirectory()) return files(path, kind);
    return kind.test(name) ? [path] : [];
  });
}

/** The comment part of a line of code: after `//`, or a line of a block comment; empty when it has none. */
function commentOf(line: string): string {
  if (/^\s*(\*|\/\*)/.test(line)) return line;
  const at = line.indexOf('// ');
  return at < 0 ? '' : line.slice(at);
}

/** Repository paths named in the comments of a text, with their line numbers (test data in strings is not a reference). */
function namedPaths(text: string): Array<{ line: number; path: string }> {
  return text.split('\n').flatMap((line, i) => [...commentOf(line).matchAll(PATH)].map((m) => ({ line: i + 1, path: m[0] })));
}

describe('file references in comments', () => {
  it('finds the paths a comment names, and not those in strings', () => {
    // Written with the comment marker spliced in, so this file's own lines name nothing.
    const c = '/'.repeat(2);
    expect(namedPaths(`${c} see docs/ui.md and test/bridge/hygiene.test.ts.\nconst x = 1;\n * and bench/run.ts\nwrite("src/x" + ".ts"); ${c} not docs/gone` + '.md')).toEqual([
      { line: 1, path: 'docs/ui.md' },
      { line: 1, path: 'test/bridge/hygiene.test.ts' },
      { line: 3, path: 'bench/run.ts' },
      { line: 4, path: 'docs/gone.md' },
    ]);
  });

  it('every repository path a source, test, bench or script file names exists', () => {
    const missing = ['src', 'entrypoints', 'test', 'bench', 'scripts']
      .flatMap((dir) => files(join(root, dir), /\.(ts|mjs)$/))
      .flatMap((file) => namedPaths(readFileSync(file, 'utf8')).map((ref) => ({ file, ...ref })))
      .filter((ref) => !existsSync(join(root, ref.path)))
      .map((ref) => `${relative(root, ref.file)}:${ref.line} names ${ref.path}`);
    expect(missing).toEqual([]);
  });
});

describe('file references in the pages', () => {
  it('every repository path README.md and docs/ name exists, a placeholder aside (`section-N.ts`)', () => {
    const pages = ['README.md', ...files(join(root, 'docs'), /\.md$/).map((file) => relative(root, file))];
    const missing = pages.flatMap((page) =>
      readFileSync(join(root, page), 'utf8')
        .split('\n')
        .flatMap((line, i) => [...line.matchAll(PATH)].filter((m) => !isInsideLongerPath(line, m.index)).map((m) => ({ line: i + 1, path: m[0] })))
        .filter((ref) => !/-N\.[a-z]+$/.test(ref.path) && !existsSync(join(root, ref.path)))
        .map((ref) => `${page}:${ref.line} names ${ref.path}`),
    );
    expect(missing).toEqual([]);
  });
});

/** A path inside a longer one (a package's folder under node_modules, a folder in a home) names no file of this repository. */
function isInsideLongerPath(line: string, at: number): boolean {
  return at > 0 && /[/.\w~-]/.test(line[at - 1]!);
}
