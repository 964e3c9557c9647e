/**
 * The bridge's own version, reported in `bridge_ready` and `bridge_info`. scripts/build-bridge.mjs
 * defines __COUNTERSIGN_BRIDGE_VERSION__ from package.json; run from source (tsx, tests) it is
 * absent and the version says so.
 */
declare const __COUNTERSIGN_BRIDGE_VERSION__: string | undefined;

export const BRIDGE_VERSION: string =
  typeof __COUNTERSIGN_BRIDGE_VERSION__ === 'string' ? __COUNTERSIGN_BRIDGE_VERSION__ : '0.0.0-source';
