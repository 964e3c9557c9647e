import { runGatewayProcess } from './run-gateway-process';

/**
 * Entry point of `countersign-mcp` run from source (tsx). The package's bundle,
 * dist/countersign-mcp.mjs, starts from src/gateway/bundle-main.ts instead, which compiles the
 * same process with V8's code cache (src/node-start/code-cache.ts).
 */
await runGatewayProcess();
