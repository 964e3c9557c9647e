import { runBundledBody } from '../node-start/run-bundled-body';

/**
 * Entry point of the bundle, dist/countersign-hook.mjs: a coding agent starts the hook for every
 * tool call and waits for its answer, so its code is inlined by the build and compiled with V8's
 * code cache (src/node-start/code-cache.ts says why).
 */
await runBundledBody(import.meta.url, 'runHookProcess');
