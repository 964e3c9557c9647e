#!/usr/bin/env node
// Bundles src/bridge/main.ts into dist/countersign-bridge.mjs: one file with no runtime
// dependencies (zod is inlined; everything else is a Node built-in), so the installer can copy it
// anywhere and a launcher can run it with an absolute node. Importable (tests build into a temp
// folder) and runnable (`npm run build:bridge`).
import { chmod, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Build the bridge bundle; returns the path written. */
export async function buildBridge({ outfile = path.join(root, 'dist', 'countersign-bridge.mjs'), minify = false } = {}) {
  const pkg = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8'));
  await build({
    entryPoints: [path.join(root, 'src', 'bridge', 'main.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    minify,
    sourcemap: false,
    legalComments: 'eof',
    banner: { js: '#!/usr/bin/env node' },
    define: { __COUNTERSIGN_BRIDGE_VERSION__: JSON.stringify(pkg.version) },
    // Nothing is external: every import is bundled in, so the file runs without node_modules. The
    // bridge is a Node process: it must import no browser-only code (esbuild would not stop it).
    external: [],
    logLevel: 'warning',
  });
  await chmod(outfile, 0o755);
  return outfile;
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = await buildBridge();
  process.stdout.write(`built ${path.relative(process.cwd(), out)}\n`);
}
