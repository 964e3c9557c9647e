import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BROWSER_IDS, type BrowserId } from '../../src/bridge/browsers';
import { codeCacheFile } from '../../src/node-start/code-cache';
import { install, launcherScript, parseLauncher, readRecord, uninstall, type InstallContext } from '../../src/bridge/install';
import type { CommandRunner, Platform } from '../../src/bridge/system';
import { isCountersignError } from '../../src/protocol/errors';
import { FakeRegistry, MemoryFs, jailedFs } from './memory-fs';
import { removeDir, tempDir } from './helpers';

// The installer for every browser on every OS. Linux and macOS run in a temporary home on the
// real file system; Windows in an in-memory file system with a fake reg.exe.

const homes: string[] = [];
afterEach(() => {
  for (const h of homes.splice(0)) removeDir(h);
});

const noCommands: CommandRunner = (command, args) => {
  throw new Error(`no command may run on Unix: ${command} ${args.join(' ')}`);
};

/** Every file and folder under `root`, with modes, for before/after comparisons. */
function tree(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const p = path.join(dir, name);
      const st = statSync(p);
      out.push(`${path.relative(root, p)} ${st.isDirectory() ? 'dir' : 'file'} ${(st.mode & 0o777).toString(8)}`);
      if (st.isDirectory()) walk(p);
    }
  };
  walk(root);
  return out;
}

function unixContext(platform: Platform, opts: { home?: string; execPath?: string } = {}): InstallContext & { home: string } {
  const home = opts.home ?? tempDir('cs-home-');
  homes.push(home);
  const bundlePath = path.join(home, 'src-bundle', 'countersign-bridge.mjs');
  mkdirSync(path.dirname(bundlePath), { recursive: true });
  writeFileSync(bundlePath, 'process.stdout.write(JSON.stringify(process.argv.slice(2)));\n');
  return { home, platform, homedir: home, env: {}, fs: jailedFs([home]), run: noCommands, execPath: opts.execPath ?? '/usr/local/bin/node', bundlePath, bridgeVersion: '0.1.0' };
}

// The expected locations, written out here (not computed from src) so the test checks the table.
const LINUX: Record<BrowserId, string> = {
  chrome: '.config/google-chrome/NativeMessagingHosts',
  chromium: '.config/chromium/NativeMessagingHosts',
  edge: '.config/microsoft-edge/NativeMessagingHosts',
  brave: '.config/BraveSoftware/Brave-Browser/NativeMessagingHosts',
  vivaldi: '.config/vivaldi/NativeMessagingHosts',
  firefox: '.mozilla/native-messaging-hosts',
};
const MAC: Record<BrowserId, string> = {
  chrome: 'Library/Application Support/Google/Chrome/NativeMessagingHosts',
  chromium: 'Library/Application Support/Chromium/NativeMessagingHosts',
  edge: 'Library/Application Support/Microsoft Edge/NativeMessagingHosts',
  brave: 'Library/Application Support/BraveSoftware/Brave-Browser/NativeMessagingHosts',
  vivaldi: 'Library/Application Support/Vivaldi/NativeMessagingHosts',
  firefox: 'Library/Application Support/Mozilla/NativeMessagingHosts',
};
const WINDOWS_KEYS: Record<BrowserId, string> = {
  chrome: 'HKCU\\Software\\Google\\Chrome\\NativeMessagingHosts\\dev.countersign.bridge',
  chromium: 'HKCU\\Software\\Chromium\\NativeMessagingHosts\\dev.countersign.bridge',
  edge: 'HKCU\\Software\\Microsoft\\Edge\\NativeMessagingHosts\\dev.countersign.bridge',
  brave: 'HKCU\\Software\\BraveSoftware\\Brave-Browser\\NativeMessagingHosts\\dev.countersign.bridge',
  vivaldi: 'HKCU\\Software\\Vivaldi\\NativeMessagingHosts\\dev.countersign.bridge',
  firefox: 'HKCU\\Software\\Mozilla\\NativeMessagingHosts\\dev.countersign.bridge',
};

function expectManifest(file: string, browser: BrowserId, launcher: string, read: (p: string) => string = (p) => readFileSync(p, 'utf8')): void {
  const manifest = JSON.parse(read(file)) as Record<string, unknown>;
  expect(manifest).toMatchObject({ name: 'dev.countersign.bridge', type: 'stdio', path: launcher });
  if (browser === 'firefox') {
    expect(manifest['allowed_extensions']).toEqual(['countersign@countersign.dev']);
    expect(manifest).not.toHaveProperty('allowed_origins');
  } else {
    // The trailing slash: without it Chromium says "Specified native messaging host not found."
    expect(manifest['allowed_origins']).toEqual(['chrome-extension://mlfaahkflpghlfdpkpmonibnlhieinil/']);
    expect(manifest).not.toHaveProperty('allowed_extensions');
  }
}

describe.each([
  ['linux', LINUX, '.local/share/countersign'],
  ['darwin', MAC, 'Library/Application Support/Countersign'],
] as const)('install on %s', (platform, table, dataRel) => {
  it.each(BROWSER_IDS)('%s: manifest, executable launcher, bundle copy; uninstall leaves the home as it was', (browser) => {
    const ctx = unixContext(platform);
    const before = tree(ctx.home);
    const report = install(ctx, { browsers: [browser] });
    const data = path.join(ctx.home, dataRel);
    const launcher = path.join(data, 'countersign-bridge');
    const manifest = path.join(ctx.home, table[browser], 'dev.countersign.bridge.json');
    expect(report).toMatchObject({ launcher, bundle: path.join(data, 'countersign-bridge.mjs'), entries: [{ browser, manifest }] });
    expectManifest(manifest, browser, launcher);
    expect(statSync(launcher).mode & 0o777).toBe(0o755);
    expect(path.isAbsolute(launcher)).toBe(true);
    expect(readFileSync(launcher, 'utf8')).toBe(launcherScript(platform, '/usr/local/bin/node', path.join(data, 'countersign-bridge.mjs')));
    expect(readFileSync(path.join(data, 'countersign-bridge.mjs'), 'utf8')).toBe(readFileSync(ctx.bundlePath, 'utf8'));
    uninstall(ctx);
    expect(tree(ctx.home)).toEqual(before);
  });
});

describe('install on Linux', () => {
  it('writes a launcher that really runs the absolute node, with spaces and quotes in paths', () => {
    const root = tempDir('cs-home-');
    const home = path.join(root, "Jane's home dir");
    mkdirSync(home);
    homes.push(root);
    const ctx = unixContext('linux', { home, execPath: process.execPath });
    const report = install(ctx, { browsers: ['chromium'] });
    // Run it the way the browser does, with no PATH at all.
    const out = execFileSync(report.launcher, ['chrome-extension://mlfaahkflpghlfdpkpmonibnlhieinil/'], { env: {}, encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual(['chrome-extension://mlfaahkflpghlfdpkpmonibnlhieinil/']);
    expect(parseLauncher('linux', readFileSync(report.launcher, 'utf8'))).toEqual({ execPath: process.execPath, bundlePath: report.bundle });
  });

  it('installs for every browser found when none is named, and fails clearly when none is found', () => {
    const ctx = unixContext('linux');
    expect(() => install(ctx)).toThrow(expect.objectContaining({ code: 'ERR_INSTALL_FAILED' }));
    mkdirSync(path.join(ctx.home, '.config', 'chromium'), { recursive: true });
    mkdirSync(path.join(ctx.home, '.mozilla'), { recursive: true });
    const before = tree(ctx.home);
    expect(install(ctx, { browsers: 'all' }).entries.map((e) => e.browser)).toEqual(['chromium', 'firefox']);
    uninstall(ctx);
    expect(tree(ctx.home)).toEqual(before);
  });

  it('honours XDG_CONFIG_HOME for Chromium browsers but not for Firefox, and XDG_DATA_HOME for its own files', () => {
    const ctx = unixContext('linux');
    const env = { XDG_CONFIG_HOME: path.join(ctx.home, 'cfg'), XDG_DATA_HOME: path.join(ctx.home, 'data') };
    const report = install({ ...ctx, env }, { browsers: ['chrome', 'firefox'] });
    expect(report.launcher).toBe(path.join(ctx.home, 'data', 'countersign', 'countersign-bridge'));
    expect(report.entries.map((e) => e.manifest)).toEqual([
      path.join(ctx.home, 'cfg', 'google-chrome', 'NativeMessagingHosts', 'dev.countersign.bridge.json'),
      path.join(ctx.home, '.mozilla', 'native-messaging-hosts', 'dev.countersign.bridge.json'),
    ]);
  });

  it('writes into DIR/NativeMessagingHosts for a custom Chromium profile, with a custom extension id', () => {
    const ctx = unixContext('linux');
    const profile = path.join(ctx.home, 'profile');
    const report = install(ctx, { userDataDir: profile, extensionId: 'abcdefghijklmnopabcdefghijklmnop' });
    const manifest = path.join(profile, 'NativeMessagingHosts', 'dev.countersign.bridge.json');
    expect(report.entries).toEqual([{ browser: 'chromium', manifest, userDataDir: profile, extensionId: 'abcdefghijklmnopabcdefghijklmnop' }]);
    expect(JSON.parse(readFileSync(manifest, 'utf8'))['allowed_origins']).toEqual(['chrome-extension://abcdefghijklmnopabcdefghijklmnop/']);
    expect(readRecord(ctx)?.entries[0]).toMatchObject({ user_data_dir: profile });
  });

  it('refuses bad options with typed errors and writes nothing', () => {
    const ctx = unixContext('linux');
    const before = tree(ctx.home);
    const cases: Array<[Parameters<typeof install>[1], string]> = [
      [{ browsers: ['chromium'], extensionId: 'NOT-AN-ID' }, 'ERR_ARGUMENT_INVALID'],
      [{ userDataDir: 'relative/dir' }, 'ERR_ARGUMENT_INVALID'],
      [{ userDataDir: '/abs', browsers: ['firefox'] }, 'ERR_ARGUMENT_INVALID'],
      [{ userDataDir: '/abs', browsers: ['chrome', 'edge'] }, 'ERR_ARGUMENT_INVALID'],
    ];
    for (const [options, code] of cases) {
      let caught: unknown;
      try {
        install(ctx, options);
      } catch (e) {
        caught = e;
      }
      expect(isCountersignError(caught, code as never), JSON.stringify(options)).toBe(true);
    }
    expect(() => install({ ...ctx, bundlePath: '/nonexistent/bundle.mjs' }, { browsers: ['chrome'] })).toThrow(expect.objectContaining({ code: 'ERR_INSTALL_FAILED' }));
    expect(() => install({ ...ctx, execPath: 'node' }, { browsers: ['chrome'] })).toThrow(expect.objectContaining({ code: 'ERR_INSTALL_FAILED' }));
    expect(tree(ctx.home)).toEqual(before);
  });

  it('re-installs in place; a partial uninstall keeps the rest; the last removes everything', () => {
    const ctx = unixContext('linux');
    const before = tree(ctx.home);
    install(ctx, { browsers: ['chrome', 'firefox'] });
    install(ctx, { browsers: ['chrome'] });
    const chrome = path.join(ctx.home, LINUX.chrome, 'dev.countersign.bridge.json');
    const firefox = path.join(ctx.home, LINUX.firefox, 'dev.countersign.bridge.json');
    uninstall(ctx, { browsers: ['chrome'] });
    expect(() => statSync(chrome)).toThrow();
    expect(statSync(firefox).isFile()).toBe(true);
    expect(readRecord(ctx)?.entries.map((e) => e.browser)).toEqual(['firefox']);
    uninstall(ctx);
    expect(tree(ctx.home)).toEqual(before);
    expect(uninstall(ctx)).toEqual({ removed: [], kept: [] });
  });

  it("removes the code caches the copy's runs left beside it, a half-written one too, and keeps a stranger's file", () => {
    const ctx = unixContext('linux');
    const before = tree(ctx.home);
    const report = install(ctx, { browsers: ['chromium'] });
    const cache = codeCacheFile(report.bundle, 'its-code');
    writeFileSync(cache, 'cache');
    writeFileSync(`${cache}.4242.part`, 'half');
    const removed = uninstall(ctx).removed;
    expect(removed).toEqual(expect.arrayContaining([report.bundle, cache, `${cache}.4242.part`]));
    expect(tree(ctx.home)).toEqual(before);

    const again = install(ctx, { browsers: ['chromium'] });
    const stranger = path.join(path.dirname(again.bundle), 'notes.txt');
    writeFileSync(stranger, 'mine');
    expect(uninstall(ctx).kept).toContain(`${path.dirname(again.bundle)} (not empty)`);
    expect(readFileSync(stranger, 'utf8')).toBe('mine');
  });

  it('keeps a manifest someone replaced since install, and the folders that still hold something', () => {
    const ctx = unixContext('linux');
    install(ctx, { browsers: ['chromium'] });
    const manifest = path.join(ctx.home, LINUX.chromium, 'dev.countersign.bridge.json');
    writeFileSync(manifest, '{"name":"someone.else"}');
    const report = uninstall(ctx);
    expect(report.kept.some((k) => k.startsWith(manifest))).toBe(true);
    expect(readFileSync(manifest, 'utf8')).toBe('{"name":"someone.else"}');
  });

  it('with --link points the launcher at the running bundle and copies nothing', () => {
    const ctx = unixContext('linux');
    const report = install(ctx, { browsers: ['chromium'], link: true });
    expect(report.bundle).toBe(ctx.bundlePath);
    expect(readdirSync(path.dirname(report.launcher))).toEqual(['countersign-bridge', 'install.json']);
  });

  it('refuses a damaged install record instead of guessing', () => {
    const ctx = unixContext('linux');
    install(ctx, { browsers: ['chromium'] });
    writeFileSync(path.join(ctx.home, '.local/share/countersign/install.json'), '{"version":2}');
    expect(() => uninstall(ctx)).toThrow(expect.objectContaining({ code: 'ERR_INSTALL_FAILED' }));
  });
});

describe('install on Windows (in-memory file system, fake reg.exe)', () => {
  function windowsContext(): { ctx: InstallContext; fs: MemoryFs; reg: FakeRegistry } {
    const fs = new MemoryFs();
    for (const d of ['C:\\Users', 'C:\\Users\\Jane', 'C:\\Users\\Jane\\AppData', 'C:\\Users\\Jane\\AppData\\Local', 'C:\\Users\\Jane\\AppData\\Roaming', 'C:\\tools']) fs.mkdir(d);
    fs.writeFile('C:\\tools\\countersign-bridge.mjs', '// bundle', 0o644);
    const reg = new FakeRegistry();
    const ctx: InstallContext = {
      platform: 'win32',
      homedir: 'C:\\Users\\Jane',
      env: { LOCALAPPDATA: 'C:\\Users\\Jane\\AppData\\Local', APPDATA: 'C:\\Users\\Jane\\AppData\\Roaming' },
      fs,
      run: reg.run,
      execPath: 'C:\\Program Files\\nodejs\\node.exe',
      bundlePath: 'C:\\tools\\countersign-bridge.mjs',
      bridgeVersion: '0.1.0',
    };
    return { ctx, fs, reg };
  }

  it.each(BROWSER_IDS)('%s: manifest file, registry value through reg add, .bat launcher; uninstall deletes them', (browser) => {
    const { ctx, fs, reg } = windowsContext();
    const before = fs.snapshot();
    const report = install(ctx, { browsers: [browser] });
    const data = 'C:\\Users\\Jane\\AppData\\Local\\Countersign';
    const manifest = `${data}\\manifests\\${browser}\\dev.countersign.bridge.json`;
    const launcher = `${data}\\countersign-bridge.bat`;
    expect(report.entries).toEqual([{ browser, manifest, registryKey: WINDOWS_KEYS[browser], extensionId: browser === 'firefox' ? 'countersign@countersign.dev' : 'mlfaahkflpghlfdpkpmonibnlhieinil' }]);
    expect(reg.calls).toEqual([['reg', 'add', WINDOWS_KEYS[browser], '/ve', '/t', 'REG_SZ', '/d', manifest, '/f']]);
    expectManifest(manifest, browser, launcher, (p) => fs.readText(p));
    expect(fs.readText(launcher)).toBe(
      '@echo off\r\nrem Generated by "countersign-bridge install" for dev.countersign.bridge. Run install again instead of editing.\r\n' +
        'set NODE_EXTRA_CA_CERTS=\r\nset NODE_OPTIONS=\r\n' +
        `"C:\\Program Files\\nodejs\\node.exe" "${data}\\countersign-bridge.mjs" %*\r\n`,
    );
    uninstall(ctx);
    expect(reg.calls.at(-1)).toEqual(['reg', 'delete', WINDOWS_KEYS[browser], '/f']);
    expect(reg.values.size).toBe(0);
    expect(fs.snapshot()).toEqual(before);
  });

  it('keeps the shared manifests folder until the last browser is uninstalled', () => {
    const { ctx, fs } = windowsContext();
    const before = fs.snapshot();
    install(ctx, { browsers: ['chrome', 'edge'] });
    uninstall(ctx, { browsers: ['chrome'] });
    expect(fs.stat('C:\\Users\\Jane\\AppData\\Local\\Countersign\\manifests\\edge\\dev.countersign.bridge.json')?.isFile).toBe(true);
    uninstall(ctx, { browsers: ['edge'] });
    expect(fs.snapshot()).toEqual(before);
  });

  it('escapes % in .bat paths and refuses a custom profile folder (Chromium uses the registry there)', () => {
    const { ctx } = windowsContext();
    expect(launcherScript('win32', 'C:\\100%\\node.exe', 'C:\\b.mjs')).toContain('"C:\\100%%\\node.exe"');
    expect(parseLauncher('win32', launcherScript('win32', 'C:\\100%\\node.exe', 'C:\\b.mjs'))).toEqual({ execPath: 'C:\\100%\\node.exe', bundlePath: 'C:\\b.mjs' });
    expect(() => install(ctx, { userDataDir: 'C:\\profile' })).toThrow(expect.objectContaining({ code: 'ERR_UNSUPPORTED_PLATFORM' }));
  });

  it('reports a failed reg add as ERR_INSTALL_FAILED, and records what it wrote so uninstall removes it', () => {
    const { ctx, fs, reg } = windowsContext();
    const before = fs.snapshot();
    // The first browser's value is written; the second is refused.
    const failing: CommandRunner = (command, args) =>
      args[1]?.includes('Microsoft') ? { status: 1, stdout: '', stderr: 'ERROR: Access is denied.' } : reg.run(command, args);
    expect(() => install({ ...ctx, run: failing }, { browsers: ['chrome', 'edge'] })).toThrow(
      expect.objectContaining({ code: 'ERR_INSTALL_FAILED', message: expect.stringContaining('Access is denied') }),
    );
    expect(readRecord(ctx)?.entries.map((e) => [e.browser, e.registry_key !== undefined])).toEqual([['chrome', true], ['edge', false]]);
    uninstall(ctx);
    expect(reg.values.size).toBe(0);
    expect(fs.snapshot()).toEqual(before);
  });
});

describe('launcher scripts', () => {
  it('quote every shell-special character literally', () => {
    const odd = `/opt/it's $HOME "x" \`y\` \\z/node`;
    const script = launcherScript('linux', odd, '/b.mjs');
    expect(parseLauncher('linux', script)).toEqual({ execPath: odd, bundlePath: '/b.mjs' });
    expect(script.startsWith('#!/bin/sh\n')).toBe(true);
  });

  it('run node without the CA bundle and the options of the environment the browser gave them', () => {
    const home = tempDir();
    homes.push(home);
    const bundle = path.join(home, 'print-env.mjs');
    writeFileSync(bundle, 'process.stdout.write(JSON.stringify([process.env.NODE_EXTRA_CA_CERTS ?? null, process.env.NODE_OPTIONS ?? null, process.env.KEPT, process.argv.slice(2)]));\n');
    const launcher = path.join(home, 'launcher.sh');
    writeFileSync(launcher, launcherScript('linux', process.execPath, bundle), { mode: 0o755 });
    const env = { ...process.env, NODE_EXTRA_CA_CERTS: path.join(home, 'missing.pem'), NODE_OPTIONS: '--no-such-option', KEPT: 'yes' };
    const out = execFileSync(launcher, ['chrome-extension://abc/'], { env, encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual([null, null, 'yes', ['chrome-extension://abc/']]);
  });

  it('clear the same variables in a .bat launcher', () => {
    const script = launcherScript('win32', 'C:\\node.exe', 'C:\\b.mjs');
    expect(script.split('\r\n').slice(2, 4)).toEqual(['set NODE_EXTRA_CA_CERTS=', 'set NODE_OPTIONS=']);
    expect(parseLauncher('win32', script)).toEqual({ execPath: 'C:\\node.exe', bundlePath: 'C:\\b.mjs' });
  });
});
