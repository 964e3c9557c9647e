import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

interface Bin {
  name: string;
}

/**
 * Bundles one of the package's commands (scripts/build-package.mjs `BINS`) with the package's own
 * options, so that its entry compiles its body with the code cache as the shipped file does, into
 * `outfile` or else a folder of its own; returns the file.
 */
export async function bundleCommand(name: string, { outfile, version = '0.0.0-test' }: { outfile?: string; version?: string } = {}): Promise<string> {
  const { bundleNode } = (await import(path.join(ROOT, 'scripts', 'bundle-node.mjs'))) as { bundleNode: (o: Record<string, unknown>) => Promise<unknown> };
  const { BINS, binOptions } = (await import(path.join(ROOT, 'scripts', 'build-package.mjs'))) as { BINS: Bin[]; binOptions: (bin: Bin) => Record<string, unknown> };
  const bin = BINS.find((b) => b.name === name);
  if (bin === undefined) throw new Error(`scripts/build-package.mjs lists no ${name}`);
  const file = outfile ?? path.join(await mkdtemp(path.join(os.tmpdir(), `cs-${name}-bin-`)), `${name}.mjs`);
  await bundleNode({ ...binOptions(bin), outfile: file, define: { __COUNTERSIGN_VERSION__: JSON.stringify(version) } });
  return file;
}

/**
 * For a test file of one command's bundle: bundles it once before the file's tests, and gives each
 * test folders of its own, all removed after the file. `copy(prefix)` puts a copy of the bundle,
 * under its shipped name, in a new folder: a first start there finds no cache.
 */
export function bundledForTests(name: string): { copy(prefix: string): string; own(prefix: string): string } {
  const dirs: string[] = [];
  let built = '';
  beforeAll(async () => {
    built = await bundleCommand(name);
    dirs.push(path.dirname(built));
  }, 60_000);
  afterAll(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const own = (prefix: string) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };
  return {
    own,
    copy: (prefix) => {
      const bundle = path.join(own(prefix), `${name}.mjs`);
      copyFileSync(built, bundle);
      return bundle;
    },
  };
}
