import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { runCachedScript } from './code-cache';

/**
 * Entry point of the bundle, dist/countersign-bridge.mjs. The bridge's code (from
 * src/bridge/run-bridge-process.ts) is inlined by scripts/bundle-node.mjs as a script text, and
 * compiled here with the code cache beside the bundle; a start that found none, or one V8 refused,
 * writes it as the process exits, when it holds everything this run compiled.
 */

declare const __COUNTERSIGN_BODY__: string;
declare const __COUNTERSIGN_BODY_DIGEST__: string;

const self = fileURLToPath(import.meta.url);
const run = runCachedScript({ source: __COUNTERSIGN_BODY__, digest: __COUNTERSIGN_BODY_DIGEST__, bundlePath: self, require: createRequire(self) });
if (run.cache !== 'accepted') process.once('exit', run.save);
const { runBridgeProcess } = run.exports as { runBridgeProcess?: unknown };
if (typeof runBridgeProcess !== 'function') throw new TypeError(`${self}: the bundled code exports no runBridgeProcess`);
await (runBridgeProcess as (self: string) => Promise<void>)(self);
