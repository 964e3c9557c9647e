// One esbuild configuration for every Node file this repository ships (the bridge, the package's
// other commands and the agent SDK), so that they cannot drift apart: platform node, ES module,
// the oldest Node that package.json "engines" allows, and every import bundled in. Nothing is
// external, so a bundle runs without node_modules: the bridge installer copies its bundle
// anywhere, and the npm package needs no runtime dependencies.
import { chmod, mkdir, readFile } from 'node:fs/promises';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { build } from 'esbuild';

/**
 * Bundle `entry` into `outfile`. `bin: true` adds the shebang and the executable bit. Returns
 * esbuild's metafile, whose inputs say which packages went into the bundle.
 *
 * `body` (the bridge): that module is bundled first as CommonJS and inlined into `entry` as the
 * text of a function expression, `__COUNTERSIGN_BODY__`, which the entry compiles with V8's code
 * cache (src/bridge/code-cache.ts says why). One file still: the installer copies one bundle.
 */
export async function bundleNode({ entry, outfile, bin = false, define = {}, minify = false, body }) {
  await mkdir(path.dirname(outfile), { recursive: true });
  const common = {
    bundle: true,
    platform: 'node',
    target: 'node20',
    // ES module builds first (jsonc-parser's "main" is a UMD file that require()s its own parts).
    mainFields: ['module', 'main'],
    minify,
    sourcemap: false,
    legalComments: 'eof',
    // Nothing is external. The code must import no browser-only module (esbuild would not stop it).
    external: [],
    metafile: true,
    logLevel: 'warning',
  };
  let inlined;
  if (body !== undefined) {
    inlined = await build({ ...common, entryPoints: [body], outfile, format: 'cjs', define, write: false });
    const text = inlined.outputFiles[0].text;
    // The body's require is node:module's createRequire: anything but a Node built-in would fail
    // in a user's process, and only when that code path runs. Fail here instead.
    const required = [...text.matchAll(/\brequire\(\s*["']([^"']+)["']/g)].map((m) => m[1]).filter((name) => !isBuiltin(name));
    if (required.length > 0) throw new Error(`${path.basename(outfile)}: its body requires ${[...new Set(required)].join(', ')} at run time, which is not a Node built-in`);
    define = { ...define, __COUNTERSIGN_BODY__: JSON.stringify(`(function (exports, require, module, __filename, __dirname) {${text}\n})`) };
  }
  const result = await build({
    ...common,
    entryPoints: [entry],
    outfile,
    format: 'esm',
    // The MCP SDK's stdio transport spawns servers through cross-spawn, a CommonJS module that
    // require()s Node built-ins: a real `require` (node:module's createRequire) lets it run.
    banner: { js: `${bin ? '#!/usr/bin/env node\n' : ''}import { createRequire as __countersignRequire } from 'node:module';\nconst require = __countersignRequire(import.meta.url);` },
    define,
  });
  // A CommonJS dependency that require()s a module becomes `__require("x")`, which the banner's
  // `require` serves for Node built-ins only: anything else would fail in a user's process, and
  // only when that code path runs. Fail here instead.
  const dynamic = [...(await readFile(outfile, 'utf8')).matchAll(/\b__require\(\s*["']([^"']+)["']/g)].map((m) => m[1]).filter((name) => !isBuiltin(name));
  if (dynamic.length > 0) throw new Error(`${path.basename(outfile)}: a bundled CommonJS module requires ${[...new Set(dynamic)].join(', ')} at run time, which is not a Node built-in`);
  if (bin) await chmod(outfile, 0o755);
  if (inlined === undefined) return result.metafile;
  // One metafile for both builds: the notices must name what the body bundles too.
  return { inputs: { ...inlined.metafile.inputs, ...result.metafile.inputs }, outputs: result.metafile.outputs };
}
