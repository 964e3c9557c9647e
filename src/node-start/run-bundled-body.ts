import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { runCachedScript } from './code-cache';

/**
 * What the entry of a bundle whose code is inlined as a script text does (scripts/bundle-node.mjs,
 * `body`): compile that code with the code cache beside the bundle, then call its export
 * `startName` with the bundle's own path. A run that found no cache, or one V8 refused, writes it
 * as the process exits, when it holds everything this run compiled.
 *
 * `__COUNTERSIGN_BODY__` and its digest are put in by the build; run from source (tsx), a command
 * starts from its own main.ts and never calls this.
 */

declare const __COUNTERSIGN_BODY__: string;
declare const __COUNTERSIGN_BODY_DIGEST__: string;

export async function runBundledBody(entryUrl: string, startName: string): Promise<void> {
  const self = fileURLToPath(entryUrl);
  const run = runCachedScript({ source: __COUNTERSIGN_BODY__, digest: __COUNTERSIGN_BODY_DIGEST__, bundlePath: self, require: createRequire(self) });
  if (run.cache !== 'accepted') process.once('exit', run.save);
  const start = (run.exports as Record<string, unknown>)[startName];
  if (typeof start !== 'function') throw new TypeError(`${self}: the bundled code exports no ${startName}`);
  await (start as (self: string) => Promise<void>)(self);
}
