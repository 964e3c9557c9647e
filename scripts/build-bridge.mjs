#!/usr/bin/env node
// Bundles src/bridge/bundle-main.ts into dist/countersign-bridge.mjs: one file with no runtime
// dependencies (zod is inlined; everything else is a Node built-in), so the installer can copy it
// anywhere and a launcher can run it with an absolute node. Importable (tests build into a temp
// folder) and runnable (`npm run build:bridge`). The npm package ships the same bundle, built
// from the same entry in the BINS list of scripts/build-package.mjs.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BINS, ROOT, binOptions } from './build-package.mjs';
import { bundleNode } from './bundle-node.mjs';

const BRIDGE = BINS.find((b) => b.name === 'countersign-bridge');

/** Build the bridge bundle; returns the path written. */
export async function buildBridge({ outfile = path.join(ROOT, 'dist', 'countersign-bridge.mjs'), minify = false } = {}) {
  await bundleNode({ ...binOptions(BRIDGE), outfile, minify });
  return outfile;
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = await buildBridge();
  process.stdout.write(`built ${path.relative(process.cwd(), out)}\n`);
}
