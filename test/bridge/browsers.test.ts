import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BROWSERS, BROWSER_IDS, CHROMIUM_BROWSER_IDS, browserRecord, chromiumBrowserOf, isBrowserId } from '../../src/bridge/browsers';
import { USAGE } from '../../src/bridge/cli';
import { install } from '../../src/bridge/install';
import { isCountersignError } from '../../src/protocol/errors';
import { MemoryFs } from './memory-fs';

// BROWSERS (src/bridge/browsers.ts) is the one list of browsers. These tests hold the places that
// have to say it in words (docs/bridge-protocol.md section 14, README "Install the bridge" and
// "Troubleshooting", the --browser help) to exactly its ids, keep the rest of src/bridge from
// naming browsers by hand, and catch an entry copied from another without changing it.

const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
const doc = read('docs/bridge-protocol.md');
const readme = read('README.md');

/** The text of a `## title` section, up to the next `## `. */
function section(text: string, title: string): string {
  const start = text.indexOf(`\n## ${title}\n`);
  expect(start, title).toBeGreaterThanOrEqual(0);
  const end = text.indexOf('\n## ', start + 4);
  return text.slice(start, end < 0 ? undefined : end);
}

/** Every `--browser X` in a text, X split at `,` and `|`, placeholders left out. */
function browserArguments(text: string): string[] {
  return [...text.matchAll(/--browser[ =]([A-Za-z0-9|,<>-]+)/g)].flatMap((m) => m[1]!.split(/[|,]/)).filter((b) => !/^<.*>$|^B$/.test(b));
}

describe('BROWSERS, the record per browser', () => {
  it('BROWSER_IDS are its keys in order, and CHROMIUM_BROWSER_IDS the Chromium family among them', () => {
    expect(BROWSER_IDS).toEqual(Object.keys(BROWSERS));
    expect(CHROMIUM_BROWSER_IDS).toEqual(BROWSER_IDS.filter((b) => browserRecord(b).family === 'chromium'));
    for (const id of BROWSER_IDS) expect(isBrowserId(id)).toBe(true);
    for (const other of ['all', 'netscape', 'toString', '']) expect(isBrowserId(other)).toBe(false);
  });

  it('no two browsers share a folder, a registry key, a program, a Flatpak id or a Snap', () => {
    const unique = (what: string, values: string[]) => expect(new Set(values).size, `${what}: ${values.join(', ')}`).toBe(values.length);
    const records = BROWSER_IDS.map((b) => browserRecord(b));
    const folder = (r: (typeof records)[number], os: 'linux' | 'mac' | 'windows') => (r.family === 'chromium' ? r[os].userData : r[os].profile).join('/');
    for (const os of ['linux', 'mac', 'windows'] as const) unique(`${os} folders`, records.map((r) => folder(r, os)));
    unique('registry keys', records.map((r) => r.windows.registry));
    unique('Linux programs', records.flatMap((r) => [...r.linux.programs, ...r.linux.programPaths]));
    unique('macOS apps', records.map((r) => r.mac.app));
    unique('Flatpak ids', records.map((r) => r.flatpak));
    unique('Snaps', records.flatMap((r) => (r.snap === undefined ? [] : [r.snap.name])));
  });

  it('a running Chromium-family program is recognized as its own browser, and only as it', () => {
    for (const browser of CHROMIUM_BROWSER_IDS) {
      const { programs, programPaths } = BROWSERS[browser].linux;
      for (const program of [...programs, ...programPaths]) expect(chromiumBrowserOf(program), program).toBe(browser);
    }
    for (const program of BROWSERS.firefox.linux.programs) expect(chromiumBrowserOf(program), program).toBeUndefined();
  });
});

describe('every list of browsers says exactly BROWSER_IDS', () => {
  it('docs/bridge-protocol.md section 14: the --browser synopsis', () => {
    const installing = section(doc, '14. Installing the bridge (for reference)');
    const synopsis = /--browser ([a-z|]+)\]/.exec(installing)?.[1];
    expect(synopsis?.split('|')).toEqual([...BROWSER_IDS, 'all']);
    for (const b of browserArguments(doc)) expect([...BROWSER_IDS, 'all'], b).toContain(b);
  });

  it('README "Install the bridge": the Linux folder of each Chromium browser, and the --browser examples', () => {
    const installing = section(readme, 'Install the bridge');
    const list = /for Chromium browsers on Linux\s*\(([^)]*)\)/.exec(installing)?.[1];
    const folders = [...(list ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1]);
    expect(folders).toEqual(CHROMIUM_BROWSER_IDS.map((b) => BROWSERS[b].linux.userData.join('/')));
    expect(browserArguments(installing).length).toBeGreaterThan(0);
    for (const b of browserArguments(installing)) expect([...BROWSER_IDS, 'all'], b).toContain(b);
  });

  it('README "Troubleshooting": each doctor transcript reports on every browser, in BROWSER_IDS order', () => {
    const transcripts = [...section(readme, 'Troubleshooting').matchAll(/```text\n\$ npx countersign-bridge doctor\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(transcripts.length).toBeGreaterThan(0);
    for (const transcript of transcripts) {
      const subjects = transcript.split('\n').map((line) => /^(\S+)\s/.exec(line)?.[1]).filter((s): s is string => s !== undefined && s !== 'socket' && s !== 'sandbox');
      for (const s of subjects) expect(BROWSER_IDS as readonly string[], s).toContain(s);
      expect([...new Set(subjects)]).toEqual(BROWSER_IDS);
    }
  });

  it('README and docs show no folder of the machine they were written on', () => {
    for (const [name, text] of [['README.md', section(readme, 'Troubleshooting') + section(readme, 'Install the bridge')], ['docs/bridge-protocol.md', doc]] as const) {
      expect(text, name).not.toMatch(/\/work\/main|\/root\/|\/home\/[a-z]+\/|\/tmp\/cs-/);
    }
  });

  it('--browser help lists BROWSER_IDS, then all', () => {
    const line = /^\s*B: (.*) or all \(/m.exec(USAGE)?.[1];
    expect(line?.split(', ')).toEqual(BROWSER_IDS);
  });

  it("install's --user-data-dir error names exactly the Chromium-family browsers", () => {
    const fs = MemoryFs.posix(['/home/jane', '/opt/countersign']);
    fs.put('/opt/countersign/countersign-bridge.mjs', '// bundle');
    const ctx = { platform: 'linux' as const, homedir: '/home/jane', env: {}, fs, run: () => ({ status: 1, stdout: '', stderr: '' }), execPath: '/usr/bin/node', bundlePath: '/opt/countersign/countersign-bridge.mjs', bridgeVersion: '0.1.0' };
    const firefox = BROWSER_IDS.filter((b) => browserRecord(b).family === 'firefox');
    let message = '';
    try {
      install(ctx, { userDataDir: '/tmp/profile', browsers: firefox });
    } catch (error) {
      expect(isCountersignError(error) && error.code).toBe('ERR_ARGUMENT_INVALID');
      message = (error as Error).message;
    }
    const named = /name one Chromium browser \(([^)]*)\)/.exec(message)?.[1]?.split(/, | or /);
    expect(named).toEqual(CHROMIUM_BROWSER_IDS);
  });
});

describe('the rest of src/bridge reads browsers from BROWSERS', () => {
  const dir = new URL('../../src/bridge/', import.meta.url);
  const files = readdirSync(dir).filter((f) => f.endsWith('.ts') && f !== 'browsers.ts');
  // 'chromium' and 'firefox' are also the family names, which other files rightly use.
  const familyNames = new Set<string>(BROWSER_IDS.map((b) => browserRecord(b).family));

  it('names no browser id that is not a family name as a string', () => {
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) {
      const text = readFileSync(new URL(file, dir), 'utf8');
      for (const id of BROWSER_IDS.filter((b) => !familyNames.has(b))) expect(text, `${file}: '${id}'`).not.toMatch(new RegExp(`['"\`]${id}['"\`]`));
    }
  });

  it('writes no list of browsers by hand', () => {
    const ids = BROWSER_IDS.join('|');
    const handList = new RegExp(`\\b(${ids})\\b(\\s*(,|\\||or)\\s*\\b(${ids})\\b){2,}`);
    for (const file of files) expect(readFileSync(new URL(file, dir), 'utf8'), file).not.toMatch(handList);
  });
});
