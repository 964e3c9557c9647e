import { runHookProcess } from './run-hook-process';

/**
 * Entry point of `countersign-hook` run from source (tsx). The package's bundle,
 * dist/countersign-hook.mjs, starts from src/hook/bundle-main.ts instead, which compiles the same
 * process with V8's code cache (src/node-start/code-cache.ts).
 */
await runHookProcess();
