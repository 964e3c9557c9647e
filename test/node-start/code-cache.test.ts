import { lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CODE_CACHE_EXTENSION, codeCacheFile, isCodeCacheOf, runCachedScript } from '../../src/node-start/code-cache';
import { removeDir, tempDir } from '../bridge/helpers';

// V8's code cache of a bundle (the bridge's, the hook's), with real scripts compiled by this node and real files.

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) removeDir(d);
});

function bundleIn(): string {
  const dir = tempDir('cs-cache-');
  dirs.push(dir);
  return path.join(dir, 'countersign-bridge.mjs');
}

// Big enough that V8 has functions to cache, and a value to check that the code ran.
const SOURCE = `(function (exports, require, module, __filename, __dirname) {
  ${Array.from({ length: 50 }, (_, i) => `function f${i}(x) { return x + ${i}; }`).join('\n  ')}
  exports.answer = f41(1);
  exports.file = __filename;
  exports.joined = require('node:path').join('a', 'b');
})`;

// The build takes a digest of the code it inlines; here each source is given a name of its own.
const DIGEST = 'first-code_digest';
const run = (bundlePath: string, source = SOURCE, digest = DIGEST) => runCachedScript({ source, digest, bundlePath, require: createRequire(import.meta.url) });

describe('code cache: the file it lives in', () => {
  it("is named after the bundle, the code's digest and the node that made it", () => {
    const file = codeCacheFile('/opt/cs/countersign-bridge.mjs', DIGEST, { version: 'v20.20.2', arch: 'x64' });
    expect(file).toBe('/opt/cs/countersign-bridge.mjs.first-code_digest.v20.20.2-x64.v8-code-cache');
    expect(codeCacheFile('/opt/cs/countersign-bridge.mjs', 'other-code', { version: 'v20.20.2', arch: 'x64' })).not.toBe(file);
    expect(codeCacheFile('/opt/cs/countersign-bridge.mjs', DIGEST, { version: 'v22.12.0', arch: 'x64' })).not.toBe(file);
    expect(codeCacheFile('/opt/cs/countersign-bridge.mjs', DIGEST, { version: 'v20.20.2', arch: 'arm64' })).not.toBe(file);
  });

  it('is told from other files beside the bundle, and a half-written one only when asked', () => {
    const name = path.basename(codeCacheFile('/x/countersign-bridge.mjs', DIGEST));
    expect(isCodeCacheOf('countersign-bridge.mjs', name)).toBe(true);
    expect(isCodeCacheOf('other.mjs', name)).toBe(false);
    expect(isCodeCacheOf('countersign-bridge.mjs', 'countersign-bridge.mjs')).toBe(false);
    expect(isCodeCacheOf('countersign-bridge.mjs', `notes${CODE_CACHE_EXTENSION}`)).toBe(false);
    expect(isCodeCacheOf('countersign-bridge.mjs', `${name}.4242.part`)).toBe(false);
    expect(isCodeCacheOf('countersign-bridge.mjs', `${name}.4242.part`, { partial: true })).toBe(true);
    expect(isCodeCacheOf('countersign-bridge.mjs', `${name}.x.part`, { partial: true })).toBe(false);
  });
});

describe('code cache: a run', () => {
  it('compiles without a cache the first time, saves one, and the next run is compiled from it', () => {
    const bundle = bundleIn();
    const first = run(bundle);
    expect(first.cache).toBe('absent');
    expect(first.exports).toEqual({ answer: 42, file: bundle, joined: path.join('a', 'b') });
    first.save();
    const saved = codeCacheFile(bundle, DIGEST);
    expect(statSync(saved).size).toBeGreaterThan(0);
    const second = run(bundle);
    expect(second.cache).toBe('accepted');
    expect(second.exports).toEqual(first.exports);
  });

  it('runs without the cache V8 refuses (damaged), and its save mends it', () => {
    const bundle = bundleIn();
    const file = codeCacheFile(bundle, DIGEST);
    writeFileSync(file, Buffer.alloc(4096, 7));
    const damaged = run(bundle);
    expect(damaged.cache).toBe('rejected');
    expect(damaged.exports).toMatchObject({ answer: 42 });
    damaged.save();
    expect(readFileSync(file).equals(Buffer.alloc(4096, 7))).toBe(false);
    expect(run(bundle).cache).toBe('accepted');
  });

  it("never reads another source's cache: a new bundle beside the old one starts without it", () => {
    const bundle = bundleIn();
    run(bundle).save();
    const changed = SOURCE.replace('f41(1)', 'f40(2)');
    const next = run(bundle, changed, 'changed-code');
    expect(next.cache).toBe('absent');
    expect(next.exports).toMatchObject({ answer: 42 });
  });

  it("a save removes the older bundles' caches beside it, and nothing else: not another node's cache of the same code", () => {
    const bundle = bundleIn();
    const dir = path.dirname(bundle);
    run(bundle, SOURCE.replace('f41(1)', 'f40(2)'), 'older-code').save();
    writeFileSync(bundle, '// the bundle itself');
    writeFileSync(path.join(dir, `other.mjs.abc.v20.20.2-x64${CODE_CACHE_EXTENSION}`), 'another bundle');
    writeFileSync(path.join(dir, 'notes.txt'), 'the person');
    const otherNode = codeCacheFile(bundle, DIGEST, { version: 'v22.12.0', arch: 'x64' });
    writeFileSync(otherNode, 'what node 22 compiled');
    run(bundle).save();
    expect(readdirSync(dir).sort()).toEqual(
      [path.basename(bundle), path.basename(codeCacheFile(bundle, DIGEST)), path.basename(otherNode), 'notes.txt', `other.mjs.abc.v20.20.2-x64${CODE_CACHE_EXTENSION}`].sort(),
    );
    // And this node's save leaves that cache as it was: the two nodes never make each other compile again.
    expect(readFileSync(otherNode, 'utf8')).toBe('what node 22 compiled');
  });

  it('a folder it cannot write costs the cache, not the run', () => {
    const bundle = bundleIn();
    const gone = path.join(path.dirname(bundle), 'gone', 'countersign-bridge.mjs');
    const r = run(gone);
    expect(() => r.save()).not.toThrow();
    expect(run(gone).cache).toBe('absent');
    // A folder in the cache's place: the write fails, and nothing half-written stays.
    mkdirSync(codeCacheFile(bundle, DIGEST), { recursive: true });
    expect(() => run(bundle).save()).not.toThrow();
    expect(readdirSync(path.dirname(bundle)).filter((n) => n.endsWith('.part'))).toEqual([]);
  });

  it('never writes through a name planted where it writes aside (a link to a file of the person)', () => {
    const bundle = bundleIn();
    const target = path.join(path.dirname(bundle), 'notes.txt');
    writeFileSync(target, 'the person');
    symlinkSync(target, `${codeCacheFile(bundle, DIGEST)}.${String(process.pid)}.part`);
    expect(() => run(bundle).save()).not.toThrow();
    expect(readFileSync(target, 'utf8')).toBe('the person');
    expect(lstatSync(`${codeCacheFile(bundle, DIGEST)}.${String(process.pid)}.part`).isSymbolicLink()).toBe(true);
    expect(run(bundle).cache).toBe('absent');
  });

  it('refuses a source that is not a function expression, with the bundle named', () => {
    expect(() => run(bundleIn(), '42')).toThrow(/countersign-bridge\.mjs: the cached script is not a function expression/);
  });
});
