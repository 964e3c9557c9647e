import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_DIFF_LINES, unifiedDiff } from '../../src/hook/unified-diff';

/** GNU diff -u on the same texts: the format people read, and the reference. */
function gnuDiff(before: string, after: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cs-diff-'));
  writeFileSync(path.join(dir, 'a'), before);
  writeFileSync(path.join(dir, 'b'), after);
  try {
    execFileSync('diff', ['-u', '--label', 'a', '--label', 'b', path.join(dir, 'a'), path.join(dir, 'b')]);
    return '';
  } catch (error) {
    return String((error as { stdout: Buffer }).stdout).replace(/\n$/, '');
  }
}

/** `before` with `diff` applied by GNU patch. */
function patched(before: string, diff: string): string {
  if (diff === '') return before;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cs-patch-'));
  writeFileSync(path.join(dir, 'f'), before);
  execFileSync('patch', ['-s', path.join(dir, 'f')], { input: `${diff}\n` });
  return readFileSync(path.join(dir, 'f'), 'utf8');
}

describe('Unified diff: what a write or an edit does to a file, as diff -u shows it', () => {
  const cases: Array<[string, string, string]> = [
    ['one changed line', 'a\nb\nc\n', 'a\nB\nc\n'],
    ['a new file', '', 'x\ny\n'],
    ['a file emptied', 'x\ny\n', ''],
    ['two changes far apart are two hunks', Array.from({ length: 20 }, (_, i) => `${i}`).join('\n') + '\n', Array.from({ length: 20 }, (_, i) => (i === 2 || i === 16 ? 'X' : `${i}`)).join('\n') + '\n'],
    ['two changes close together are one hunk', '1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n', '1\n2\nX\n4\n5\n6\n7\nY\n9\n10\n'],
    ['no newline at the end', 'a\nb', 'a\nc'],
    ['only the final newline removed', 'a\nb\n', 'a\nb'],
  ];
  for (const [what, before, after] of cases) it(what, () => expect(unifiedDiff(before, after, { from: 'a', to: 'b' })).toBe(gnuDiff(before, after)));
  it('equal texts have no diff', () => expect(unifiedDiff('a\n', 'a\n', { from: 'a', to: 'b' })).toBe(''));
  it('a text above the line limit is not diffed', () => expect(unifiedDiff('x\n'.repeat(MAX_DIFF_LINES + 1), 'y\n', { from: 'a', to: 'b' })).toBeUndefined());
  it('on random small texts, is as short as diff -u and applies with patch to the new text', () => {
    const text = fc.array(fc.constantFrom('a', 'b', 'c', ''), { maxLength: 12 }).map((lines) => lines.map((l) => `${l}\n`).join(''));
    const changes = (diff: string) => diff.split('\n').filter((l) => /^[-+](?![-+]{2} )/.test(l)).length;
    fc.assert(
      fc.property(text, text, (before, after) => {
        const ours = unifiedDiff(before, after, { from: 'a', to: 'b' }) as string;
        return changes(ours) === changes(gnuDiff(before, after)) && patched(before, ours) === after;
      }),
      { numRuns: 40 },
    );
  });
});
