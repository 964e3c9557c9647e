#!/usr/bin/env node
// Builds what the npm package ships, into dist/ (run by `npm pack` through "prepack", or by
// `npm run build:package`). The browser extension is not in the package: WXT builds it and
// `npm run zip` packages it for the stores.
//
//   dist/<bin>.mjs          each command in BINS below (package.json "bin"): one bundle each
//   dist/agent.mjs          `countersign/agent`, the SDK, bundled
//   dist/agent.d.ts         its declarations, self-contained (scripts/build-declarations.mjs)
//   dist/THIRD-PARTY-NOTICES.md  the licences of the packages bundled into those files
//
// No runtime dependencies. Every bundle carries the packages it uses (scripts/bundle-node.mjs),
// and the declarations name none of them, so package.json "dependencies" stays empty: the
// extension's libraries, the ones the Node code bundles (zod, jose, structured-headers, the MCP
// SDK) and the tools are all devDependencies. A consumer installs one package and nothing else,
// offline from the tarball, and no version of theirs can change what was tested here. This script
// refuses to pack with a "dependencies" entry; should one ever be needed (a native module cannot
// be bundled), list it in RUNTIME_DEPENDENCIES with the reason. Some exported types are written
// with zod and the MCP SDK (`RequestContext`, `PerformResult<CallToolResult>`); instead of keeping
// those two as dependencies for their types alone (the MCP SDK would install express, hono and ajv
// into every consumer), the declarations spell those types out, derived from the source at each
// build (scripts/build-declarations.mjs says how).
//
// In-repository imports of `countersign/agent` (tests) keep running on the TypeScript source,
// with no build: package.json "exports" puts the custom condition "countersign-source" first,
// pointing at src/. tsconfig.json ("customConditions", for tsc, tsgo and typescript-eslint) and
// vitest.config.ts ("ssr.resolve.conditions", which vitest also passes to its workers as
// --conditions) turn it on; for tsx, run `tsx --conditions=countersign-source`. Everyone else,
// consumers included, never sets it and gets "types" and "default", the built files. A condition
// rather than a source path in "default" because the package must work without a TypeScript
// loader, and rather than TypeScript's outDir-to-source mapping because that needs an outDir in
// the tsconfig that typechecks.
//
// The dev setup `wxt prepare` runs as "prepare", not "postinstall": npm runs a package's
// postinstall in every consumer's install too, where WXT is not installed, while "prepare" runs
// only in this repository (npm ci, npm install). The tarball's package.json has no "prepare"
// either: npm warns about it in every consumer's install ("install-scripts ... not yet covered by
// allowScripts"). npm packs package.json as it is on disk, so "prepack" (`--prepack`) takes the
// dev-only scripts (DEV_ONLY_SCRIPTS) out of it right before npm reads the files, and "postpack"
// (`--postpack`) puts them back where they were. What was taken out is kept in PACKING_FILE
// meanwhile, so a pack that stopped before its postpack is mended by the next run of this script.
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleNode } from './bundle-node.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PKG = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));

/**
 * The package's commands, each bundled from its entry into dist/<name>.mjs and declared in
 * package.json "bin". A listed entry that does not exist stops the build: a package must not
 * ship without a command it declares. To add one, add it here and to "bin".
 */
export const BINS = [
  // These entries compile their bodies with V8's code cache (scripts/bundle-node.mjs, `body`): a browser
  // waits for the bridge at each worker start, an MCP client for the gateway at each session's start,
  // a coding agent for the hook at each tool call.
  { name: 'countersign-bridge', entry: 'src/bridge/bundle-main.ts', body: 'src/bridge/run-bridge-process.ts' },
  { name: 'countersign-mcp', entry: 'src/gateway/bundle-main.ts', body: 'src/gateway/run-gateway-process.ts' },
  { name: 'countersign', entry: 'src/conformance/main.ts' },
  { name: 'countersign-hook', entry: 'src/hook/bundle-main.ts', body: 'src/hook/run-hook-process.ts' },
];

/** The package's library entry points: package.json "exports" subpath, source, built files. */
export const LIBRARIES = [{ subpath: './agent', entry: 'src/agent/index.ts', js: 'dist/agent.mjs', types: 'dist/agent.d.ts' }];

/** The condition in "exports" under which this repository's own imports get the TypeScript source. */
export const SOURCE_CONDITION = 'countersign-source';

/** Runtime dependencies the package may declare, each with its reason. None: everything is bundled. */
const RUNTIME_DEPENDENCIES = [];

/** npm runs these in every consumer's install, where this repository's tools are absent. */
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall'];

/** Scripts for this repository only, not in the tarball's package.json: npm would warn about each in a consumer's install. */
export const DEV_ONLY_SCRIPTS = ['prepare'];

/** Where the scripts taken out for a pack wait for "postpack" (outside the packed files). */
const PACKING_FILE = path.join(ROOT, 'node_modules', '.cache', 'countersign-pack', 'dev-only-scripts.json');

export const NOTICES_FILE = 'dist/THIRD-PARTY-NOTICES.md';

/** esbuild options of one command: each reports the package's version (src/protocol/package-version.ts). */
export function binOptions(bin) {
  return {
    entry: path.join(ROOT, bin.entry),
    ...(bin.body === undefined ? {} : { body: path.join(ROOT, bin.body) }),
    outfile: path.join(ROOT, 'dist', `${bin.name}.mjs`),
    bin: true,
    define: { __COUNTERSIGN_VERSION__: JSON.stringify(PKG.version) },
  };
}

/** What package.json must say for the files this script builds; returns the problems found. */
export function manifestProblems(pkg) {
  const problems = [];
  const expectedBin = Object.fromEntries(BINS.map((b) => [b.name, `dist/${b.name}.mjs`]));
  if (JSON.stringify(pkg.bin ?? {}) !== JSON.stringify(expectedBin)) problems.push(`"bin" must be ${JSON.stringify(expectedBin)} (the BINS list), is ${JSON.stringify(pkg.bin)}`);
  for (const lib of LIBRARIES) {
    const expected = { [SOURCE_CONDITION]: `./${lib.entry}`, types: `./${lib.types}`, default: `./${lib.js}` };
    if (JSON.stringify(pkg.exports?.[lib.subpath]) !== JSON.stringify(expected)) problems.push(`"exports"["${lib.subpath}"] must be ${JSON.stringify(expected)}`);
  }
  for (const name of Object.keys(pkg.dependencies ?? {})) {
    if (!RUNTIME_DEPENDENCIES.includes(name)) problems.push(`"dependencies" has ${name}: the bundles carry what they use, so it belongs in "devDependencies" (or in RUNTIME_DEPENDENCIES of scripts/build-package.mjs, with the reason)`);
  }
  for (const name of INSTALL_SCRIPTS) if (pkg.scripts?.[name] !== undefined) problems.push(`"scripts"."${name}" would run in every consumer's install`);
  if (!(pkg.files ?? []).includes('dist/')) problems.push('"files" must include "dist/"');
  return problems;
}

/** package.json as it is now, and its text written back the way npm writes it (two spaces, one final newline). */
async function readManifest() {
  const file = path.join(ROOT, 'package.json');
  const text = await readFile(file, 'utf8');
  const pkg = JSON.parse(text);
  // Guard: only a file in npm's own layout is rewritten, so taking out and putting back change nothing else.
  if (`${JSON.stringify(pkg, null, 2)}\n` !== text) throw new Error('package.json is not formatted as npm writes it (JSON, two spaces, one final newline): format it before packing');
  return { pkg, write: (next) => writeFile(file, `${JSON.stringify(next, null, 2)}\n`) };
}

/** Before npm reads the files to pack: package.json without DEV_ONLY_SCRIPTS, and what was taken out kept in PACKING_FILE. */
export async function takeOutDevOnlyScripts() {
  await putBackDevOnlyScripts();
  const { pkg, write } = await readManifest();
  const names = Object.keys(pkg.scripts ?? {});
  const taken = names.flatMap((name, at) => (DEV_ONLY_SCRIPTS.includes(name) ? [{ name, at, command: pkg.scripts[name] }] : []));
  if (taken.length === 0) return;
  await mkdir(path.dirname(PACKING_FILE), { recursive: true });
  await writeFile(PACKING_FILE, JSON.stringify(taken));
  await write({ ...pkg, scripts: Object.fromEntries(Object.entries(pkg.scripts).filter(([name]) => !DEV_ONLY_SCRIPTS.includes(name))) });
}

/** After the pack (or a pack that stopped before its postpack): the scripts put back, each where it was. */
export async function putBackDevOnlyScripts() {
  if (!existsSync(PACKING_FILE)) return;
  const taken = JSON.parse(await readFile(PACKING_FILE, 'utf8'));
  const { pkg, write } = await readManifest();
  // Re-read, not a saved copy: a change made to package.json while packing is kept.
  const entries = Object.entries(pkg.scripts ?? {}).filter(([name]) => !taken.some((t) => t.name === name));
  for (const t of taken) entries.splice(Math.min(t.at, entries.length), 0, [t.name, t.command]);
  await write({ ...pkg, scripts: Object.fromEntries(entries) });
  await rm(PACKING_FILE, { force: true });
}

/** Build dist/ for the package; returns the files written, relative to the repository. */
export async function buildPackage() {
  const problems = manifestProblems(PKG);
  for (const bin of BINS) for (const file of [bin.entry, bin.body]) if (file !== undefined && !existsSync(path.join(ROOT, file))) problems.push(`${bin.name}: its ${file === bin.body ? 'body' : 'entry'} ${file} does not exist`);
  for (const lib of LIBRARIES) if (!existsSync(path.join(ROOT, lib.entry))) problems.push(`${lib.subpath}: its entry ${lib.entry} does not exist`);
  if (problems.length > 0) throw new Error(`cannot build the package:\n  ${problems.join('\n  ')}`);

  // From scratch: whatever an earlier build left in dist/ would otherwise be packed.
  await rm(path.join(ROOT, 'dist'), { recursive: true, force: true });
  // Loaded here, not at the top: scripts/build-bridge.mjs imports BINS from this file and has no
  // use for TypeScript and rollup.
  const { buildDeclarations } = await import('./build-declarations.mjs');
  // Bundles and declarations side by side; all settle before a failure is thrown, so that the
  // declarations' temporary folder is gone when the process exits.
  const settled = await Promise.allSettled([
    Promise.all([
      ...BINS.map((bin) => bundleNode(binOptions(bin))),
      ...LIBRARIES.map((lib) => bundleNode({ entry: path.join(ROOT, lib.entry), outfile: path.join(ROOT, lib.js) })),
    ]),
    ...LIBRARIES.map((lib) => buildDeclarations({ root: ROOT, entry: path.join(ROOT, lib.entry), outfile: path.join(ROOT, lib.types) })),
  ]);
  for (const result of settled) if (result.status === 'rejected') throw result.reason;
  const metafiles = settled[0].value;
  await writeFile(path.join(ROOT, NOTICES_FILE), await thirdPartyNotices(metafiles));
  return [...BINS.map((b) => `dist/${b.name}.mjs`), ...LIBRARIES.flatMap((l) => [l.js, l.types]), NOTICES_FILE];
}

/** The folder of the installed package an esbuild input path (relative to the cwd) belongs to, if any. */
function packageDirOf(input) {
  const parts = input.split('/');
  const at = parts.lastIndexOf('node_modules');
  if (at < 0) return undefined;
  const name = parts[at + 1]?.startsWith('@') ? parts.slice(at + 1, at + 3) : parts.slice(at + 1, at + 2);
  return path.resolve(...parts.slice(0, at + 1), ...name);
}

/**
 * The licence texts of every package bundled into dist/: their licences (MIT, ISC, BSD) ask that
 * the notice travel with copies of the code, and the bundles are copies.
 */
async function thirdPartyNotices(metafiles) {
  const dirs = new Set(metafiles.flatMap((m) => Object.keys(m.inputs)).map(packageDirOf).filter((d) => d !== undefined));
  const sections = [];
  for (const dir of [...dirs].sort()) {
    const pkg = JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8'));
    const licenceFile = (await readdir(dir)).find((f) => /^(licen[cs]e|copying)(\.(md|txt))?$/i.test(f));
    const text = licenceFile === undefined ? `(the package ships no licence file; its package.json says ${pkg.license})` : (await readFile(path.join(dir, licenceFile), 'utf8')).trim();
    sections.push(`## ${pkg.name} ${pkg.version} (${pkg.license})\n\n${text}\n`);
  }
  const key = (s) => s.split('\n', 1)[0];
  const unique = [...new Map(sections.map((s) => [key(s), s])).values()];
  return `# Third-party notices\n\nThe files in dist/ bundle these packages. Their licences follow.\n\n${unique.join('\n')}`;
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const step = process.argv[2];
  if (step === '--postpack') {
    await putBackDevOnlyScripts();
    process.exit(0);
  }
  await putBackDevOnlyScripts();
  const files = await buildPackage();
  if (step === '--prepack') await takeOutDevOnlyScripts();
  for (const f of files) process.stderr.write(`  ${f.padEnd(32)} ${((await stat(path.join(ROOT, f))).size / 1024).toFixed(1)} KiB\n`);
}
