import { copyFileSync, lstatSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { codeCacheFile, isCodeCacheOf } from '../../src/node-start/code-cache';
import { buildOnce, removeDir, spawnBridge, tempDir, type SpawnedBridge } from '../bridge/helpers';
import { bundleHook, hookOnRead, READ_ALLOWED } from '../coding-agents/support/clients';
import { gatewaySession } from '../gateway/support/gateway-session';
import { bundleCommand } from '../node-start/support/bundle-command';

/**
 * The code cache (src/node-start/code-cache.ts) is a file a bundle reads at every start and writes
 * beside itself: the bridge's, in the folder install made for it, and the hook's and the gateway's,
 * in the package a coding agent or an MCP client runs them from. What is found there must never
 * stop the command or change what it answers, never be run when it was made for other code or
 * another node, and never make the command write anywhere but its own cache. Each real bundle,
 * started as its users start it, from a folder of its own.
 */

const dirs: string[] = [];
const running: SpawnedBridge[] = [];

afterEach(() => {
  for (const b of running.splice(0)) b.child.kill('SIGKILL');
});
afterAll(() => {
  for (const d of dirs.splice(0)) removeDir(d);
});

function ownDir(prefix: string): string {
  const dir = tempDir(prefix);
  dirs.push(dir);
  return dir;
}

/** The bridge as a browser starts it: it answers bridge_hello with bridge_ready, then exits when the browser goes. */
async function bridgeRun(bundle: string): Promise<void> {
  const b = spawnBridge(bundle, { XDG_RUNTIME_DIR: ownDir('cs-cc-rt-'), COUNTERSIGN_BRIDGE_LOG: 'warn' });
  running.push(b);
  expect(await b.extension.hello()).toMatchObject({ type: 'bridge_ready' });
  b.extension.end();
  expect(await b.exit).toBe(0);
}

/** The hook as a coding agent starts it for a Read inside the project: its policy allows it, in the same words every run. */
async function hookRun(bundle: string): Promise<void> {
  const project = ownDir('cs-cc-project-');
  writeFileSync(path.join(project, 'README.md'), 'a file to read\n');
  const answered = await hookOnRead(bundle, project, ownDir('cs-cc-home-'));
  expect(answered.code).toBe(0);
  expect(JSON.parse(answered.stdout)).toEqual(READ_ALLOWED);
}

/** The gateway as an MCP client launches it for a session: it lists the upstream's one tool and relays its read-only call. */
async function gatewayRun(bundle: string): Promise<void> {
  expect(await gatewaySession([bundle], ownDir('cs-cc-mcp-config-'))).toEqual({ tools: ['client_capabilities'], answer: { roots: {} } });
}

const targets = [
  { command: 'countersign-bridge', build: buildOnce, run: bridgeRun },
  { command: 'countersign-hook', build: bundleHook, run: hookRun },
  { command: 'countersign-mcp', build: () => bundleCommand('countersign-mcp'), run: gatewayRun },
];

describe.each(targets)('the code cache of $command, attacked', ({ command, build, run }) => {
  const file = `${command}.mjs`;
  let built = '';
  beforeAll(async () => {
    built = await build();
    dirs.push(path.dirname(built));
  }, 60_000);

  const caches = (dir: string) => readdirSync(dir).filter((name) => isCodeCacheOf(file, name, { partial: true }));

  /** A copy of the bundle in a folder of its own, after its first run: the one cache that run wrote. */
  async function afterFirstRun(): Promise<{ bundle: string; dir: string; name: string; cache: string }> {
    const dir = ownDir('cs-cc-');
    const bundle = path.join(dir, file);
    copyFileSync(built, bundle);
    await run(bundle);
    const [name, ...more] = caches(dir);
    expect(more).toEqual([]);
    return { bundle, dir, name: name!, cache: path.join(dir, name!) };
  }

  it('a damaged cache (random bytes under the right name) is refused by V8: the command answers as before, and replaces it', async () => {
    const { bundle, dir, name, cache } = await afterFirstRun();
    const garbage = Buffer.from(Array.from({ length: 65_536 }, (_, i) => (i * 7919) % 251));
    writeFileSync(cache, garbage);
    await run(bundle);
    expect(readFileSync(cache).equals(garbage)).toBe(false);
    expect(caches(dir)).toEqual([name]);
  }, 30_000);

  it("a cache under another node's or another bundle's name is never read; the next save removes the other bundle's and leaves the other node's", async () => {
    const { bundle, dir, name, cache } = await afterFirstRun();
    const olderBundle = codeCacheFile(bundle, 'older-code');
    const otherNode = codeCacheFile(bundle, name.split('.')[2]!, { version: 'v22.0.0', arch: 'x64' });
    // Garbage under those names: were either read, V8 would refuse it and the command would save (rename) its own again.
    for (const f of [olderBundle, otherNode]) writeFileSync(f, 'not for this code');
    const before = lstatSync(cache).ino;
    await run(bundle);
    expect(lstatSync(cache).ino).toBe(before);
    // Removed only by a save: damage ours so that the next run saves.
    writeFileSync(cache, 'damaged');
    await run(bundle);
    expect(caches(dir).sort()).toEqual([name, path.basename(otherNode)].sort());
    expect(readFileSync(otherNode, 'utf8')).toBe('not for this code');
  }, 30_000);

  it("a link planted under the cache's name is read as a damaged cache and replaced, never written through", async () => {
    const { bundle, dir, cache } = await afterFirstRun();
    const personal = path.join(dir, 'notes.txt');
    writeFileSync(personal, 'the person');
    removeDir(cache);
    symlinkSync(personal, cache);
    await run(bundle);
    expect(readFileSync(personal, 'utf8')).toBe('the person');
    expect(lstatSync(cache).isSymbolicLink()).toBe(false);
    expect(lstatSync(cache).size).toBeGreaterThan(1000);
  }, 30_000);
});
