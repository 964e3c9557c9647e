import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_EXTENSION_ID, FIREFOX_EXTENSION_ID, MANIFEST_PUBLIC_KEY } from '../../src/protocol/extension-identity';
import { ROOT, devEnv, extractTo, listFiles, readJson, runNode, webExtLint, wxtBuild, zipModule, type LintMessage, type LintReport, type ZipModule } from './helpers';

// `npm run zip` for real, into a temporary folder: the store packages, the sources zip, and what
// a Mozilla reviewer does with it (rebuild, compare, lint). About 20 s on two cores, most of it
// four WXT builds.

const version = (readJson(path.join(ROOT, 'package.json')) as { version: string }).version;
const names = {
  chrome: `countersign-${version}-chrome-mv3.zip`,
  firefox: `countersign-${version}-firefox-mv3.zip`,
  sources: `countersign-${version}-firefox-mv3-sources.zip`,
};

let tmp: string;
let zipOut: { code: number; stdout: string; stderr: string };
let z: ZipModule;
let chromeZip: Map<string, Buffer>;
let firefoxZip: Map<string, Buffer>;
let sourcesZip: Map<string, Buffer>;
let devChrome: string;
let rebuilt: string;
let lint: LintReport;
let lintedDir: string;

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'cs-pkg-'));
  z = await zipModule();
  // Two at a time (two cores): the script as `npm run zip` runs it (it sets COUNTERSIGN_STORE=1
  // itself), and a development build of Chrome.
  const outDir = path.join(tmp, 'out');
  [zipOut, devChrome] = await Promise.all([
    runNode([path.join(ROOT, 'scripts', 'zip.mjs'), '--out-dir', outDir], { cwd: ROOT, env: devEnv() }),
    wxtBuild(ROOT, 'chrome', path.join(tmp, 'dev')),
  ]);
  if (zipOut.code !== 0) throw new Error(`npm run zip failed:\n${zipOut.stdout}\n${zipOut.stderr}`);
  const read = (name: string) => z.readZip(readFileSync(path.join(outDir, name)));
  chromeZip = read(names.chrome);
  firefoxZip = read(names.firefox);
  sourcesZip = read(names.sources);
  // A reviewer's rebuild from what the sources zip holds (plus the installed node_modules), while
  // web-ext lints the fresh Firefox build the script made in the temporary folder.
  const src = path.join(tmp, 'src');
  extractTo(sourcesZip, src);
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(src, 'node_modules'), 'dir');
  lintedDir = path.join(outDir, 'firefox-mv3-store');
  [rebuilt, lint] = await Promise.all([wxtBuild(src, 'firefox', path.join(src, '.output')), webExtLint(lintedDir)]);
}, 240_000);

afterAll(() => {
  if (tmp !== undefined) rmSync(tmp, { recursive: true, force: true });
});

describe('npm run zip', () => {
  it('writes the three zips, named with browser and manifest version, and prints their sizes', () => {
    for (const name of Object.values(names)) expect(zipOut.stdout).toMatch(new RegExp(`^  ${name.replace(/\./g, '\\.')} +[0-9.]+ KiB$`, 'm'));
    expect(listFiles(path.join(tmp, 'out')).filter((f) => f.endsWith('.zip'))).toEqual([names.chrome, names.firefox, names.sources].sort());
  });

  it('leaves the manifest key out of the Chrome store package; the development build keeps it', () => {
    const store = JSON.parse(chromeZip.get('manifest.json')!.toString('utf8')) as Record<string, unknown>;
    const dev = readJson(path.join(devChrome, 'manifest.json'));
    expect(store).not.toHaveProperty('key');
    expect(dev['key']).toBe(MANIFEST_PUBLIC_KEY);
    // Nothing else differs: the store package is the extension the tests load, minus the key.
    const { key: _key, ...devWithoutKey } = dev;
    expect(store).toEqual(devWithoutKey);
    expect(CHROMIUM_EXTENSION_ID).toMatch(/^[a-p]{32}$/);
  });

  it('builds the store packages beside the development builds, never over them', () => {
    expect(listFiles(path.join(tmp, 'out')).some((f) => f.startsWith('chrome-mv3-store/'))).toBe(true);
    expect(listFiles(path.join(tmp, 'out')).some((f) => f.startsWith('chrome-mv3/'))).toBe(false);
  });

  it('gives the Firefox package its gecko id and no key', () => {
    const manifest = JSON.parse(firefoxZip.get('manifest.json')!.toString('utf8')) as Record<string, unknown>;
    expect(manifest).not.toHaveProperty('key');
    expect(manifest).toMatchObject({ manifest_version: 3, browser_specific_settings: { gecko: { id: FIREFOX_EXTENSION_ID } } });
  });

  it('puts only the allow-listed sources in the sources zip: no keys, profiles, tests, builds or node_modules', () => {
    const files = [...sourcesZip.keys()];
    const allowed = [/^README\.md$/, /^package(-lock)?\.json$/, /^tsconfig\.json$/, /^wxt\.config\.ts$/, /^scripts\/zip\.mjs$/, /^entrypoints\//, /^public\//, /^src\/(extension|protocol|review|summary)\//];
    expect(files.filter((f) => !allowed.some((re) => re.test(f)))).toEqual([]);
    expect(files).toEqual(expect.arrayContaining(['package.json', 'package-lock.json', 'wxt.config.ts', 'entrypoints/background.ts']));
    expect(z.checkPackages([{ browser: 'firefox', zip: firefoxZip, sources: sourcesZip }, { browser: 'chrome', zip: chromeZip }])).toEqual([]);
  });

  it('rebuilds, from the sources zip alone, exactly the Firefox package', () => {
    const files = listFiles(rebuilt);
    expect(files).toEqual([...firefoxZip.keys()].sort());
    for (const f of files) expect(readFileSync(path.join(rebuilt, f)).equals(firefoxZip.get(f)!), f).toBe(true);
  });
});

  // docs/ui.md, "Opening fast": a cold worker waits on the bridge's start, so its port opens
  // before the worker evaluates its schemas and the rest. A bundle's top-level statements run in
  // the order they are written, so the first `connectNative(` call comes before zod's code.
  it.each([
    ['chrome', () => chromeZip],
    ['firefox', () => firefoxZip],
  ])('opens the port to the bridge before the rest of the %s background script is evaluated', (_browser, zip) => {
    const script = zip().get('background.js')!.toString('utf8');
    const opened = script.indexOf('connectNative(');
    const zod = script.indexOf('ZodString');
    expect(opened).toBeGreaterThan(0);
    expect(zod).toBeGreaterThan(0);
    expect(opened).toBeLessThan(zod);
    expect(opened / script.length).toBeLessThan(0.01);
  });

describe('the package guard in scripts/zip.mjs', () => {
  const manifest = (m: object) => Buffer.from(JSON.stringify(m));
  it('refuses a key in a store manifest, private keys, profiles, node_modules and hidden files', () => {
    const bad = new Map<string, Buffer>([
      ['manifest.json', manifest({ key: 'MIIB' })],
      ['signing.pem', Buffer.from('')],
    ]);
    const sources = new Map<string, Buffer>([
      ['package.json', Buffer.from('{}')],
      ['node_modules/x/index.js', Buffer.from('')],
      ['.env', Buffer.from('')],
      ['test/e2e/profile/Default/Preferences', Buffer.from('')],
      ['.output/chrome-mv3/manifest.json', Buffer.from('')],
    ]);
    const problems = z.checkPackages([{ browser: 'chrome', zip: bad, sources }]).join('\n');
    for (const expected of ['has a "key"', 'signing.pem', 'node_modules/x/index.js', '.env', 'test/e2e/profile', '.output/chrome-mv3', 'package-lock.json is missing']) {
      expect(problems).toContain(expected);
    }
  });

  it('reads the zips WXT writes (stored and deflated entries)', () => {
    expect(chromeZip.get('manifest.json')!.length).toBeGreaterThan(100);
    expect(chromeZip.get('icon/128.png')!.subarray(1, 4).toString('latin1')).toBe('PNG');
  });
});

/**
 * The warnings `web-ext lint` may give, each explained in README.md ("Firefox lint warnings").
 * A warning is known when its code matches and the built code around it is the known construct
 * (libraries are pinned, so the constructs are stable); anything else fails this test: look at
 * it, fix it or explain it in the README and here.
 */
const KNOWN_WARNINGS: Array<{ code: string; what: string; near?: RegExp }> = [
  { code: 'KEY_FIREFOX_ANDROID_UNSUPPORTED_BY_MIN_VERSION', what: 'data_collection_permissions needs Firefox for Android 142; Countersign does not target Android' },
  { code: 'DANGEROUS_EVAL', what: "zod's Function('') probe, skipped under z.config({ jitless: true })", near: /jitless[^]{0,200}Function\(``\)/ },
  { code: 'UNSAFE_VAR_ASSIGNMENT', what: 'decode-named-character-reference: an entity name into a detached element', near: /innerHTML=[^]{0,80}textContent/ },
  { code: 'UNSAFE_VAR_ASSIGNMENT', what: "micromark's parser: document().write is its tokenizer, not the DOM", near: /\.document\(\)\.write\(/ },
  { code: 'UNSAFE_VAR_ASSIGNMENT', what: "DOMPurify parsing into its own inert document", near: /createDocument\([^]{0,120}documentElement\.innerHTML=/ },
];

function around(dir: string, m: LintMessage): string {
  if (m.file === undefined || m.line === undefined || m.column === undefined) return '';
  const line = readFileSync(path.join(dir, m.file), 'utf8').split('\n')[m.line - 1] ?? '';
  return line.slice(Math.max(0, m.column - 300), m.column + 300);
}

describe('web-ext lint on a fresh Firefox build (the store build, identical to the development one)', () => {
  it('has no errors', () => {
    expect(lint.errors.map((e) => `${e.code} ${e.file ?? ''}: ${e.message}`)).toEqual([]);
    expect(lint.summary.errors).toBe(0);
  });

  it('has only the warnings the README explains', () => {
    const unknown = lint.warnings.filter((w) => !KNOWN_WARNINGS.some((k) => k.code === w.code && (k.near === undefined || k.near.test(around(lintedDir, w)))));
    expect(unknown.map((w) => `${w.code} ${w.file ?? ''}:${w.line ?? ''}:${w.column ?? ''} ${w.message}`)).toEqual([]);
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Firefox lint warnings'));
    expect(readme).toContain('## Firefox lint warnings');
    for (const code of new Set(lint.warnings.map((w) => w.code))) expect(section, code).toContain(code);
  });
});
