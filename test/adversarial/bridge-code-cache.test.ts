import { copyFileSync, lstatSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { codeCacheFile, isCodeCacheOf } from '../../src/bridge/code-cache';
import { buildOnce, removeDir, spawnBridge, tempDir, type SpawnedBridge } from '../bridge/helpers';

/**
 * The bridge's code cache (src/bridge/code-cache.ts) is a file the bridge reads at every start and
 * writes beside its bundle. What is found there must never stop the bridge, never be run when it
 * was made for other code or another node, and never make the bridge write anywhere but its own
 * cache. The real bundle, started as a browser starts it, in a folder of its own.
 */

let built = '';
const dirs: string[] = [];
const running: SpawnedBridge[] = [];

beforeAll(async () => {
  built = await buildOnce();
}, 60_000);
afterEach(() => {
  for (const b of running.splice(0)) b.child.kill('SIGKILL');
});
afterAll(() => {
  for (const d of dirs.splice(0)) removeDir(d);
  if (built) removeDir(path.dirname(built));
});

/** A copy of the bundle in a folder of its own. */
function bundleCopy(): { bundle: string; dir: string } {
  const dir = tempDir('cs-cc-');
  dirs.push(dir);
  const bundle = path.join(dir, 'countersign-bridge.mjs');
  copyFileSync(built, bundle);
  return { bundle, dir };
}

/** Start the bridge from `bundle`, see it answer bridge_hello with bridge_ready, and let it exit. */
async function startAndStop(bundle: string): Promise<void> {
  const runtime = tempDir();
  dirs.push(runtime);
  const b = spawnBridge(bundle, { XDG_RUNTIME_DIR: runtime, COUNTERSIGN_BRIDGE_LOG: 'warn' });
  running.push(b);
  expect(await b.extension.hello()).toMatchObject({ type: 'bridge_ready' });
  b.extension.end();
  expect(await b.exit).toBe(0);
}

const caches = (dir: string) => readdirSync(dir).filter((name) => isCodeCacheOf('countersign-bridge.mjs', name, { partial: true }));

/** A bundle copy after its first run: the one cache that run wrote. */
async function afterFirstRun(): Promise<{ bundle: string; dir: string; name: string; cache: string }> {
  const { bundle, dir } = bundleCopy();
  await startAndStop(bundle);
  const [name, ...more] = caches(dir);
  expect(more).toEqual([]);
  return { bundle, dir, name: name!, cache: path.join(dir, name!) };
}

describe('the bridge code cache, attacked', () => {
  it('a damaged cache (random bytes under the right name) is refused by V8: the bridge starts, and replaces it', async () => {
    const { bundle, dir, name, cache } = await afterFirstRun();
    const garbage = Buffer.from(Array.from({ length: 65_536 }, (_, i) => (i * 7919) % 251));
    writeFileSync(cache, garbage);
    await startAndStop(bundle);
    expect(readFileSync(cache).equals(garbage)).toBe(false);
    expect(caches(dir)).toEqual([name]);
  }, 30_000);

  it("a cache under another node's or another bundle's name is never read, and the next save removes it", async () => {
    const { bundle, dir, name, cache } = await afterFirstRun();
    const other = [codeCacheFile(bundle, 'older-code'), codeCacheFile(bundle, name.split('.')[2]!, { version: 'v22.0.0', arch: 'x64' })];
    // Garbage under those names: were either read, V8 would refuse it and the bridge would save (rename) its own again.
    for (const f of other) writeFileSync(f, 'not for this code');
    const before = lstatSync(cache).ino;
    await startAndStop(bundle);
    expect(lstatSync(cache).ino).toBe(before);
    // Removed only by a save: damage ours so that the next run saves.
    writeFileSync(cache, 'damaged');
    await startAndStop(bundle);
    expect(caches(dir)).toEqual([name]);
  }, 30_000);

  it("a link planted under the cache's name is read as a damaged cache and replaced, never written through", async () => {
    const { bundle, dir, cache } = await afterFirstRun();
    const personal = path.join(dir, 'notes.txt');
    writeFileSync(personal, 'the person');
    removeDir(cache);
    symlinkSync(personal, cache);
    await startAndStop(bundle);
    expect(readFileSync(personal, 'utf8')).toBe('the person');
    expect(lstatSync(cache).isSymbolicLink()).toBe(false);
    expect(lstatSync(cache).size).toBeGreaterThan(1000);
  }, 30_000);
});
