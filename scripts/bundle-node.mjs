// One esbuild configuration for every Node file this repository ships (the bridge, the package's
// other commands and the agent SDK), so that they cannot drift apart: platform node, ES module,
// the oldest Node that package.json "engines" allows, and every import bundled in. Nothing is
// external, so a bundle runs without node_modules: the bridge installer copies its bundle
// anywhere, and the npm package needs no runtime dependencies.
import { createHash } from 'node:crypto';
import { chmod, mkdir, readFile } from 'node:fs/promises';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { build } from 'esbuild';

/**
 * Bundle `entry` into `outfile`. `bin: true` adds the shebang and the executable bit. Returns
 * esbuild's metafile, whose inputs say which packages went into the bundle.
 *
 * `body` (the bridge, the gateway, the hook): that module is bundled first as CommonJS and
 * inlined into `entry` as the text of a function expression, `__COUNTERSIGN_BODY__`, which the
 * entry compiles with V8's code cache (src/node-start/code-cache.ts says why). One file still: the
 * installer copies one bundle, and a CLI's hook or MCP server command names one file.
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
    // The body's require is node:module's createRequire, as the banner's is below.
    refuseNonBuiltinRequires(outfile, 'its body', text, 'require');
    const source = `(function (exports, require, module, __filename, __dirname) {${text}\n})`;
    // The digest names the code cache's file; taken here, so that no start hashes the body.
    const digest = createHash('sha256').update(source).digest('base64url').slice(0, 22);
    define = { ...define, __COUNTERSIGN_BODY__: JSON.stringify(source), __COUNTERSIGN_BODY_DIGEST__: JSON.stringify(digest) };
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
  // A CommonJS dependency that require()s a module becomes `__require("x")`, served by the banner's `require`.
  refuseNonBuiltinRequires(outfile, 'a bundled CommonJS module', await readFile(outfile, 'utf8'), '__require');
  if (bin) await chmod(outfile, 0o755);
  if (inlined === undefined) return result.metafile;
  // One metafile for both builds: the notices must name what the body bundles too.
  return { inputs: { ...inlined.metafile.inputs, ...result.metafile.inputs }, outputs: result.metafile.outputs };
}

/**
 * The `require` a bundle runs with is node:module's createRequire, which finds Node built-ins
 * only (nothing is installed beside a bundle): any other name would fail in a user's process, and
 * only when that code path runs. Fail the build instead.
 */
function refuseNonBuiltinRequires(outfile, who, text, callee) {
  // A call right after a quote is the text of code, not code: ajv keeps such text for the modules
  // its standalone mode would generate (`'require("ajv/dist/runtime/equal").default'`); run in
  // the process it never is, since nothing here asks ajv for standalone code.
  const names = [...text.matchAll(new RegExp(`(?<![\`'"])\\b${callee}\\(\\s*["']([^"']+)["']`, 'g'))].map((m) => m[1]).filter((name) => !isBuiltin(name));
  if (names.length > 0) throw new Error(`${path.basename(outfile)}: ${who} requires ${[...new Set(names)].join(', ')} at run time, which is not a Node built-in`);
}
