import { readFileSync, readdirSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';

/**
 * V8's code cache for a bundle that something waits for at every start. A browser starts a new
 * bridge for every service worker that connects (each browser start, each worker the browser
 * stopped), and the request that woke the worker waits for that start; a coding agent starts
 * countersign-hook for every tool call and waits for its answer. Compiling the bundle is a large
 * part of either command's own share of that wait. Node 22 caches compiled modules itself
 * (`module.enableCompileCache`), the Node 20 that package.json allows does not: `vm.Script`'s
 * `cachedData` is the same V8 cache, by hand. The bundle carries its code as a script text
 * (scripts/bundle-node.mjs, `body`) so that it can be compiled here with the cache.
 *
 * The cache sits beside the bundle: the bridge's in the folder install made for it, the hook's in
 * the package's dist/ (or wherever a bundle was run from). It is code: whoever can write it can
 * also rewrite the bundle beside it, so it is trusted exactly as far as the bundle is. V8 reads it
 * only if it was made by the same V8 with the same flags, for a source of the same length; the
 * file's name carries a digest of the code (taken by the build, so a start does not hash 400 kB)
 * and the node that made it, so a cache never meets other code of that length.
 */

/** How a cache file's name ends. */
export const CODE_CACHE_EXTENSION = '.v8-code-cache';

/** The node a cache was made by (process.version and process.arch): another node's V8 cannot read it. */
export interface CodeCacheRuntime {
  version: string;
  arch: string;
}

/**
 * The cache file for the code of digest `digest` beside `bundlePath`:
 * `<bundle name>.<digest>.<node version>-<arch>.v8-code-cache`.
 */
export function codeCacheFile(bundlePath: string, digest: string, runtime: CodeCacheRuntime = { version: process.version, arch: process.arch }): string {
  return `${bundlePath}.${digest}.${runtime.version}-${runtime.arch}${CODE_CACHE_EXTENSION}`;
}

/**
 * Whether `name` (a file name, not a path) is a code cache of the bundle named `bundleName`;
 * with `partial`, also one a process was still writing (or died writing).
 */
export function isCodeCacheOf(bundleName: string, name: string, { partial = false } = {}): boolean {
  if (!name.startsWith(`${bundleName}.`)) return false;
  if (name.endsWith(CODE_CACHE_EXTENSION)) return true;
  const at = name.lastIndexOf(`${CODE_CACHE_EXTENSION}.`);
  return partial && at > 0 && /^\.\d+\.part$/.test(name.slice(at + CODE_CACHE_EXTENSION.length));
}

/** What a cached run found: the cache was read, was there but V8 refused it, or was not there. */
export type CodeCacheState = 'accepted' | 'rejected' | 'absent';

export interface CachedRun {
  /** What the script put on `module.exports`. */
  exports: unknown;
  cache: CodeCacheState;
  /**
   * Write the cache from everything compiled so far (call it late: functions V8 compiled lazily
   * since the start go in too), then remove the caches of other code beside it (older bundles);
   * another node's cache of this same code stays, so that two nodes running one bundle (two CLIs'
   * hooks installed with different nodes) do not each make the other compile again. Never throws:
   * a folder it cannot write costs the next start its cache, nothing else.
   */
  save: () => void;
}

export interface CachedRunOptions {
  /**
   * A CommonJS module's code wrapped as a function expression:
   * `(function (exports, require, module, __filename, __dirname) { … })`.
   */
  source: string;
  /** A digest of `source`, different for any other code (scripts/bundle-node.mjs takes it). */
  digest: string;
  /** The bundle that carries the code: stack traces name it, and its cache sits beside it. */
  bundlePath: string;
  require: NodeJS.Require;
  runtime?: CodeCacheRuntime;
}

/** Compile `source` with its cache beside the bundle when V8 accepts it, and run it. */
export function runCachedScript(options: CachedRunOptions): CachedRun {
  const cacheFile = codeCacheFile(options.bundlePath, options.digest, options.runtime);
  const cachedData = readCache(cacheFile);
  const script = new vm.Script(options.source, { filename: options.bundlePath, ...(cachedData === undefined ? {} : { cachedData }) });
  const cache: CodeCacheState = cachedData === undefined ? 'absent' : script.cachedDataRejected === true ? 'rejected' : 'accepted';
  const wrapper: unknown = script.runInThisContext();
  if (typeof wrapper !== 'function') throw new TypeError(`${options.bundlePath}: the cached script is not a function expression`);
  const module = { exports: {} as unknown };
  (wrapper as (...args: unknown[]) => void)(module.exports, options.require, module, options.bundlePath, path.dirname(options.bundlePath));
  return { exports: module.exports, cache, save: () => saveCache(script, cacheFile, path.basename(options.bundlePath), options.digest) };
}

function readCache(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

function saveCache(script: vm.Script, file: string, bundleName: string, digest: string): void {
  // Written aside and renamed, so that a run starting meanwhile (another browser's bridge, the hook
  // of a tool call made at the same time) reads the old cache or the new one, never half of one.
  // The aside file must be new ('wx'): a name that exists (a link planted there, a run that died)
  // is never followed or written through.
  const aside = `${file}.${String(process.pid)}.part`;
  try {
    writeFileSync(aside, script.createCachedData(), { mode: 0o644, flag: 'wx' });
    renameSync(aside, file);
  } catch (error) {
    // Not ours to remove when it was there before.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') removeQuietly(aside);
    return;
  }
  const dir = path.dirname(file);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  const sameCode = `${bundleName}.${digest}.`;
  for (const name of names) if (isCodeCacheOf(bundleName, name) && !name.startsWith(sameCode)) removeQuietly(path.join(dir, name));
}

function removeQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // Gone already, or held open by another process (Windows): the next save tries again.
  }
}
