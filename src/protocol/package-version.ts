/**
 * The version of this package, for the commands to report (`countersign-bridge --version`,
 * `bridge_info`, `countersign-mcp --version` and its MCP `serverInfo`). scripts/build-package.mjs
 * defines __COUNTERSIGN_VERSION__ from package.json in every bundle; run from source (tsx, tests)
 * it is absent and the version says so.
 */
declare const __COUNTERSIGN_VERSION__: string | undefined;

export const PACKAGE_VERSION: string = typeof __COUNTERSIGN_VERSION__ === 'string' ? __COUNTERSIGN_VERSION__ : '0.0.0-source';
