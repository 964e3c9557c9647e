import { fileURLToPath } from 'node:url';
import { runBridgeProcess } from './run-bridge-process';

/**
 * Entry point of `countersign-bridge` run from source (tsx). The bundle,
 * dist/countersign-bridge.mjs, starts from src/bridge/bundle-main.ts instead, which compiles the
 * same process with V8's code cache (src/node-start/code-cache.ts).
 */
await runBridgeProcess(fileURLToPath(import.meta.url));
