import { runBundledBody } from '../node-start/run-bundled-body';

/**
 * Entry point of the bundle, dist/countersign-bridge.mjs: the bridge's process
 * (src/bridge/run-bridge-process.ts), inlined by the build and compiled with V8's code cache
 * (src/node-start/code-cache.ts says why).
 */
await runBundledBody(import.meta.url, 'runBridgeProcess');
