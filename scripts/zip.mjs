#!/usr/bin/env node
// `npm run zip`: the store packages. Builds Chrome and Firefox with COUNTERSIGN_STORE=1 (no
// manifest `key`: the store assigns the ID), zips them, and zips the sources Mozilla's reviewers
// rebuild the Firefox package from (the allow-list is SOURCE_FILES in wxt.config.ts). Then it
// opens every zip it wrote and refuses what must never ship (a `key` in a store manifest, a private
// key, a browser profile, build output or node_modules in the sources), and prints the sizes.
//
//   node scripts/zip.mjs [--out-dir DIR]     (default .output)
//
// Importable too: test/package/packages.test.ts (through its helpers) uses readZip and checkPackages.
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { inflateRawSync } from 'node:zlib';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export const STORE_BROWSERS = ['chrome', 'firefox'];

/**
 * The entries of a zip file (no zip64, no encryption: what WXT writes), by name. Reads the central
 * directory, so names and sizes are the ones an unzip tool sees.
 * @param {Uint8Array} bytes
 * @returns {Map<string, Buffer>}
 */
export function readZip(bytes) {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // End of central directory: 22 bytes plus a comment of up to 65535 bytes, at the end.
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 0xffff); i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error('not a zip file (no end of central directory)');
  const count = buf.readUInt16LE(eocd + 10);
  let at = buf.readUInt32LE(eocd + 16);
  const entries = new Map();
  for (let n = 0; n < count; n++) {
    if (buf.readUInt32LE(at) !== 0x02014b50) throw new Error(`zip: bad central directory entry ${n}`);
    const method = buf.readUInt16LE(at + 10);
    const compressed = buf.readUInt32LE(at + 20);
    const size = buf.readUInt32LE(at + 24);
    const nameLength = buf.readUInt16LE(at + 28);
    const extraLength = buf.readUInt16LE(at + 30);
    const commentLength = buf.readUInt16LE(at + 32);
    const local = buf.readUInt32LE(at + 42);
    const name = buf.toString('utf8', at + 46, at + 46 + nameLength);
    at += 46 + nameLength + extraLength + commentLength;
    if (buf.readUInt32LE(local) !== 0x04034b50) throw new Error(`zip: bad local header for ${name}`);
    const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    const raw = buf.subarray(start, start + compressed);
    let data;
    if (method === 0) data = Buffer.from(raw);
    else if (method === 8) data = inflateRawSync(raw);
    else throw new Error(`zip: ${name} uses compression method ${method}`);
    if (data.length !== size) throw new Error(`zip: ${name} is ${data.length} bytes, the directory says ${size}`);
    if (!name.endsWith('/')) entries.set(name, data);
  }
  return entries;
}

/** Paths that must never be in a package or the sources zip, with the reason. */
const FORBIDDEN = [
  [/(^|\/)node_modules\//, 'node_modules'],
  [/(^|\/)\.[^/]+(\/|$)/, 'a hidden file or folder (.git, .wxt, .output, .tmp, ...)'],
  [/(^|\/)(test|tests|test-results|playwright-report|dist|bench)\//, 'tests, test output or other build output'],
  [/\.(pem|key|p12|pfx|crx|xpi|zip)$/i, 'a private key or a package'],
  [/(^|\/)(Default|Local State|NativeMessagingHosts)(\/|$)/, 'a browser profile'],
];

/**
 * Check the zips `npm run zip` wrote. Returns the problems found (empty when all is well).
 * @param {{ browser: string, zip: Map<string, Buffer>, sources?: Map<string, Buffer> }[]} packages
 */
export function checkPackages(packages) {
  const problems = [];
  for (const { browser, zip, sources } of packages) {
    const manifestBytes = zip.get('manifest.json');
    if (manifestBytes === undefined) {
      problems.push(`${browser}: no manifest.json in the package`);
      continue;
    }
    const manifest = JSON.parse(manifestBytes.toString('utf8'));
    if ('key' in manifest) problems.push(`${browser}: the store manifest has a "key" (build with COUNTERSIGN_STORE=1)`);
    if (browser === 'firefox' && manifest.browser_specific_settings?.gecko?.id === undefined) problems.push('firefox: no gecko id in the manifest');
    for (const [name, what] of [...zip.keys()].flatMap((n) => FORBIDDEN.filter(([re]) => re.test(n)).map(([, w]) => [n, w]))) {
      problems.push(`${browser} package: ${name} is ${what}`);
    }
    if (sources === undefined) continue;
    for (const [name, what] of [...sources.keys()].flatMap((n) => FORBIDDEN.filter(([re]) => re.test(n)).map(([, w]) => [n, w]))) {
      problems.push(`${browser} sources: ${name} is ${what}`);
    }
    for (const needed of ['package.json', 'package-lock.json', 'wxt.config.ts', 'README.md']) {
      if (!sources.has(needed)) problems.push(`${browser} sources: ${needed} is missing (reviewers cannot rebuild without it)`);
    }
  }
  return problems;
}

function kib(bytes) {
  return `${(bytes / 1024).toFixed(1)} KiB`;
}

/**
 * Build and zip every store package into `outDir`. Sets COUNTERSIGN_STORE=1 for this process,
 * before WXT loads wxt.config.ts.
 * @param {{ outDir?: string, log?: (line: string) => void }} [options]
 * @returns {Promise<{ browser: string, files: string[] }[]>}
 */
export async function zipAll({ outDir = path.join(root, '.output'), log = (line) => process.stdout.write(`${line}\n`) } = {}) {
  process.env.COUNTERSIGN_STORE = '1';
  const { zip } = await import('wxt');
  const made = [];
  for (const browser of STORE_BROWSERS) {
    const files = await zip({ root, browser, outDir, logger: quietLogger() });
    made.push({ browser, files });
  }
  const packages = [];
  for (const { browser, files } of made) {
    const [artifact, sourcesZip] = files;
    packages.push({
      browser,
      zip: readZip(await readFile(artifact)),
      ...(sourcesZip === undefined ? {} : { sources: readZip(await readFile(sourcesZip)) }),
    });
  }
  const problems = checkPackages(packages);
  if (problems.length > 0) throw new Error(`refusing these packages:\n  ${problems.join('\n  ')}`);
  const all = made.flatMap((m) => m.files);
  const width = Math.max(...all.map((f) => path.basename(f).length));
  const shown = path.relative(process.cwd(), outDir);
  log(`packages in ${shown === '' ? '.' : shown.startsWith('..') ? outDir : shown}:`);
  for (const file of all) log(`  ${path.basename(file).padEnd(width)}  ${kib((await stat(file)).size).padStart(10)}`);
  return made;
}

/** WXT's logger, with its per-file listing and progress lines left out: we print our own summary. */
function quietLogger() {
  const noop = () => {};
  const say = (...args) => process.stderr.write(`${args.map(String).join(' ')}\n`);
  return { debug: noop, log: noop, info: noop, success: noop, warn: say, error: say, fatal: say, box: noop, level: 3 };
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const i = args.indexOf('--out-dir');
  if (args.length > 0 && (i !== 0 || args.length !== 2)) {
    process.stderr.write('usage: node scripts/zip.mjs [--out-dir DIR]\n');
    process.exit(2);
  }
  try {
    await zipAll(i === 0 ? { outDir: path.resolve(args[1]) } : {});
  } catch (error) {
    process.stderr.write(`zip: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
