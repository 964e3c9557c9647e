import { describe, expect, it } from 'vitest';
import { applyHunks, parseApplyPatch, type PatchFile } from '../../src/hook/apply-patch';

const patch = (...lines: string[]) => ['*** Begin Patch', ...lines, '*** End Patch', ''].join('\n');

describe('Codex apply_patch: the files a patch changes', () => {
  it('an added file is its + lines', () => expect(parseApplyPatch(patch('*** Add File: a.txt', '+one', '+two'))).toEqual([{ action: 'create', path: 'a.txt', content: 'one\ntwo\n' }]));
  it('an empty added file', () => expect(parseApplyPatch(patch('*** Add File: empty.txt'))).toEqual([{ action: 'create', path: 'empty.txt', content: '' }]));
  it('a deleted file', () => expect(parseApplyPatch(patch('*** Delete File: old.txt'))).toEqual([{ action: 'delete', path: 'old.txt' }]));
  it('an update with a context line and kept, removed and added lines', () =>
    expect(parseApplyPatch(patch('*** Update File: src/x.ts', '@@ function f() {', ' keep', '-old', '+new'))).toEqual([
      { action: 'update', path: 'src/x.ts', hunks: [{ context: 'function f() {', endOfFile: false, lines: [{ op: ' ', text: 'keep' }, { op: '-', text: 'old' }, { op: '+', text: 'new' }] }] },
    ]));
  it('an update moved to another path', () => expect(parseApplyPatch(patch('*** Update File: a.txt', '*** Move to: b.txt', '@@', '-x', '+y'))[0]).toMatchObject({ action: 'update', path: 'a.txt', moveTo: 'b.txt' }));
  it('several hunks and an end of file marker', () => {
    const [file] = parseApplyPatch(patch('*** Update File: a.txt', '@@', '-1', '+one', '@@', '-9', '+nine', '*** End of File'));
    expect(file).toMatchObject({ hunks: [{ lines: [{ op: '-' }, { op: '+' }] }, { endOfFile: true }] });
  });
  it('several files in one patch, in order', () =>
    expect(parseApplyPatch(patch('*** Add File: n.txt', '+n', '*** Delete File: d.txt', '*** Update File: u.txt', '@@', '-a', '+b')).map((f) => [f.action, f.path])).toEqual([
      ['create', 'n.txt'],
      ['delete', 'd.txt'],
      ['update', 'u.txt'],
    ]));
  it('a first hunk without its @@ line, as Codex accepts', () => expect(parseApplyPatch(patch('*** Update File: a.txt', '-a', '+b'))[0]).toMatchObject({ hunks: [{ context: '' }] }));
  it('CRLF line ends', () => expect(parseApplyPatch(patch('*** Add File: a.txt', '+x').replace(/\n/g, '\r\n'))).toEqual([{ action: 'create', path: 'a.txt', content: 'x\n' }]));
});

describe('Codex apply_patch: a patch we cannot read is refused (the card could not show it)', () => {
  const cases: Array<[string, string]> = [
    ['no Begin Patch', '*** Add File: a\n+x\n*** End Patch\n'],
    ['no End Patch', '*** Begin Patch\n*** Add File: a\n+x\n'],
    ['no file', patch()],
    ['an unknown header', patch('*** Rename File: a')],
    ['a line of an added file without +', patch('*** Add File: a', 'x')],
    ['a path missing', patch('*** Delete File: ')],
    ['a hunk line with another first character', patch('*** Update File: a', '@@', '*x')],
    ['an update with nothing in it', patch('*** Update File: a')],
  ];
  for (const [what, text] of cases) it(what, () => expect(() => parseApplyPatch(text)).toThrow(expect.objectContaining({ code: 'ERR_ARGUMENT_INVALID', message: expect.stringMatching(/^apply_patch: line \d+/) })));
});

describe('Codex apply_patch: the file an update makes', () => {
  const hunks = (text: string) => (parseApplyPatch(patch('*** Update File: f', ...text.split('\n')))[0] as Extract<PatchFile, { action: 'update' }>).hunks;
  it('replaces the removed lines in place', () => expect(applyHunks('a\nb\nc\n', hunks('@@\n a\n-b\n+B\n c'))).toBe('a\nB\nc\n'));
  it('finds the context line first', () => expect(applyHunks('x\nf\nx\n', hunks('@@ f\n-x\n+y'))).toBe('x\nf\ny\n'));
  it('an end-of-file hunk changes the last lines', () => expect(applyHunks('x\ny\nx\n', hunks('@@\n-x\n+z\n*** End of File'))).toBe('x\ny\nz\n'));
  it('is undefined when the removed lines are not there', () => expect(applyHunks('a\n', hunks('@@\n-b\n+c'))).toBeUndefined());
  it('is undefined when the context line is not there', () => expect(applyHunks('a\n', hunks('@@ nowhere\n-a\n+c'))).toBeUndefined());
});
