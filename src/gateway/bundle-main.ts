import { runBundledBody } from '../node-start/run-bundled-body';

/**
 * Entry point of the bundle, dist/countersign-mcp.mjs: an MCP client starts the gateway with each
 * session and waits for its answer to `initialize` before the session's tools exist, and most of
 * the gateway's own start is compiling its megabyte of bundled code; so that code is inlined by the
 * build and compiled with V8's code cache (src/node-start/code-cache.ts says why).
 */
await runBundledBody(import.meta.url, 'runGatewayProcess');
