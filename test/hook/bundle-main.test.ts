import { readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeCacheFile } from '../../src/node-start/code-cache';
import { hookOnRead, READ_ALLOWED } from '../coding-agents/support/clients';
import { bundledForTests } from '../node-start/support/bundle-command';

// The package's countersign-hook bundle (src/hook/bundle-main.ts), run as a coding agent runs it
// for each tool call, from a folder of its own: it compiles its code with V8's code cache beside it.

const command = bundledForTests('countersign-hook');

describe('countersign-hook bundle: its code cache', () => {
  it('the first call writes the cache beside the bundle as it exits; the next calls read it, leave it, and answer the same', async () => {
    const bundle = command.copy('cs-hook-cc-');
    const dir = path.dirname(bundle);
    const project = command.own('cs-hook-cc-project-');
    writeFileSync(path.join(project, 'README.md'), 'a file to read\n');
    const home = command.own('cs-hook-cc-home-');

    const first = await hookOnRead(bundle, project, home);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual(READ_ALLOWED);
    const [name, ...more] = readdirSync(dir).filter((n) => n !== 'countersign-hook.mjs');
    expect(more).toEqual([]);
    // Named for this bundle's code and this node: no other code or node ever reads it.
    const cache = path.join(dir, name!);
    expect(cache).toBe(codeCacheFile(bundle, name!.split('.')[2]!));
    const written = statSync(cache);

    for (let i = 0; i < 2; i++) {
      const next = await hookOnRead(bundle, project, home);
      expect(next.code).toBe(0);
      expect(next.stdout).toBe(first.stdout);
    }
    const after = statSync(cache);
    expect([after.ino, after.mtimeMs]).toEqual([written.ino, written.mtimeMs]);
  }, 30_000);
});
