import { chmodSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/bridge/cli';
import { BROWSER_REPORTS, doctor, formatFindings, type Finding } from '../../src/bridge/doctor';
import { install, type InstallContext } from '../../src/bridge/install';

import { FakeRegistry, MemoryFs, jailedFs } from './memory-fs';
import { removeDir, tempDir } from './helpers';

// doctor: one finding per browser, saying what is wrong, what the browser reports, and the fix.

const homes: string[] = [];
afterEach(() => {
  for (const h of homes.splice(0)) removeDir(h);
});

const SELF = ['/usr/bin/node', '/opt/countersign/countersign-bridge.mjs'];

function linux(): InstallContext & { home: string } {
  const home = tempDir('cs-doc-');
  homes.push(home);
  const bundlePath = path.join(home, 'bundle.mjs');
  writeFileSync(bundlePath, '// bundle');
  return { home, platform: 'linux', homedir: home, env: {}, fs: jailedFs([home, process.execPath]), run: () => ({ status: 1, stdout: '', stderr: '' }), execPath: process.execPath, bundlePath, bridgeVersion: '0.1.0' };
}

function byBrowser(findings: Finding[], subject: string): Finding {
  const f = findings.find((x) => x.subject === subject);
  if (!f) throw new Error(`no finding for ${subject}: ${JSON.stringify(findings)}`);
  return f;
}

function manifestOf(ctx: { home: string }): string {
  return path.join(ctx.home, '.config', 'chromium', 'NativeMessagingHosts', 'dev.countersign.bridge.json');
}

function editManifest(ctx: { home: string }, change: (m: Record<string, unknown>) => void): void {
  const file = manifestOf(ctx);
  const m = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  change(m);
  writeFileSync(file, JSON.stringify(m));
}

describe('doctor', () => {
  it('skips browsers that are not installed and flags a used browser with no manifest', () => {
    const ctx = linux();
    const findings = doctor(ctx, { selfCommand: SELF }).filter((f) => f.subject !== 'socket');
    expect(findings.map((f) => f.severity)).toEqual(['skip', 'skip', 'skip', 'skip', 'skip', 'skip']);
    mkdirSync(path.join(ctx.home, '.config', 'chromium'), { recursive: true });
    const chromium = byBrowser(doctor(ctx, { selfCommand: SELF }), 'chromium');
    expect(chromium.severity).toBe('error');
    expect(chromium.message).toContain('Specified native messaging host not found.');
    expect(chromium.fix).toBe('/usr/bin/node /opt/countersign/countersign-bridge.mjs install --browser chromium');
  });

  it('reports ready after install', () => {
    const ctx = linux();
    install(ctx, { browsers: ['chromium', 'firefox'] });
    const findings = doctor(ctx, { selfCommand: SELF });
    expect(byBrowser(findings, 'chromium')).toMatchObject({ severity: 'ok' });
    expect(byBrowser(findings, 'firefox')).toMatchObject({ severity: 'ok' });
    expect(formatFindings(findings)).toMatch(/^chromium +ok +ready: /m);
  });

  it('finds a relative path', () => {
    const ctx = linux();
    install(ctx, { browsers: ['chromium'] });
    editManifest(ctx, (m) => (m['path'] = 'countersign-bridge'));
    expect(byBrowser(doctor(ctx, { selfCommand: SELF }), 'chromium')).toMatchObject({ severity: 'error', message: expect.stringContaining('relative') });
  });

  it('finds a launcher that is not executable, and says to chmod it', () => {
    const ctx = linux();
    const report = install(ctx, { browsers: ['chromium'] });
    chmodSync(report.launcher, 0o644);
    const f = byBrowser(doctor(ctx, { selfCommand: SELF }), 'chromium');
    expect(f).toMatchObject({ severity: 'error', message: expect.stringContaining('not executable') });
    expect(f.fix).toBe(`chmod 755 '${report.launcher}'`);
  });

  it('finds a launcher whose node is gone (a removed nvm version)', () => {
    const ctx = linux();
    install({ ...ctx, execPath: '/home/u/.nvm/versions/node/v18.0.0/bin/node' }, { browsers: ['chromium'] });
    expect(byBrowser(doctor(ctx, { selfCommand: SELF }), 'chromium')).toMatchObject({ severity: 'error', message: expect.stringContaining('node is gone') });
  });

  it('finds a missing launcher and a missing bundle', () => {
    const ctx = linux();
    const report = install(ctx, { browsers: ['chromium'] });
    unlinkSync(report.bundle);
    expect(byBrowser(doctor(ctx, { selfCommand: SELF }), 'chromium').message).toContain('bundle');
    unlinkSync(report.launcher);
    expect(byBrowser(doctor(ctx, { selfCommand: SELF }), 'chromium').message).toContain('does not exist');
  });

  it('finds allowed_origins without the trailing slash, and a wrong extension id', () => {
    const ctx = linux();
    install(ctx, { browsers: ['chromium'] });
    editManifest(ctx, (m) => (m['allowed_origins'] = ['chrome-extension://mlfaahkflpghlfdpkpmonibnlhieinil']));
    expect(byBrowser(doctor(ctx, { selfCommand: SELF }), 'chromium').message).toContain('trailing slash');
    editManifest(ctx, (m) => (m['allowed_origins'] = ['chrome-extension://abcdefghijklmnopabcdefghijklmnop/']));
    const f = byBrowser(doctor(ctx, { selfCommand: SELF }), 'chromium');
    expect(f.message).toContain('Access to the specified native messaging host is forbidden.');
    // The id the user says they run wins: then that one is expected, and the fix names it.
    const custom = byBrowser(doctor(ctx, { selfCommand: SELF, extensionId: 'abcdefghijklmnopabcdefghijklmnop' }), 'chromium');
    expect(custom.severity).toBe('ok');
  });

  it('finds a Firefox manifest without our add-on id, and a wrong name', () => {
    const ctx = linux();
    install(ctx, { browsers: ['firefox'] });
    const file = path.join(ctx.home, '.mozilla', 'native-messaging-hosts', 'dev.countersign.bridge.json');
    const m = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    writeFileSync(file, JSON.stringify({ ...m, allowed_extensions: ['other@example.com'] }));
    expect(byBrowser(doctor(ctx, { selfCommand: SELF }), 'firefox').message).toContain('allowed_extensions');
    writeFileSync(file, JSON.stringify({ ...m, name: 'dev.other' }));
    expect(byBrowser(doctor(ctx, { selfCommand: SELF }), 'firefox').message).toContain('"name"');
    writeFileSync(file, 'not json');
    expect(byBrowser(doctor(ctx, { selfCommand: SELF }), 'firefox').message).toContain('not a JSON object');
  });

  it('checks custom profiles that install recorded, and names them in the fix', () => {
    const ctx = linux();
    const profile = path.join(ctx.home, 'p1');
    const report = install(ctx, { userDataDir: profile });
    chmodSync(report.launcher, 0o600);
    const f = doctor(ctx, { selfCommand: SELF }).filter((x) => x.manifest?.startsWith(profile));
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ severity: 'error', message: expect.stringContaining(`(profile ${profile})`) });
    chmodSync(report.launcher, 0o755);
    unlinkSync(path.join(profile, 'NativeMessagingHosts', 'dev.countersign.bridge.json'));
    const missing = doctor(ctx, { selfCommand: SELF, userDataDir: profile });
    expect(missing[0]?.fix).toBe(`/usr/bin/node /opt/countersign/countersign-bridge.mjs install --browser chromium --user-data-dir ${profile}`);
  });

  it('reads the registry on Windows', () => {
    const fs = new MemoryFs();
    for (const d of ['C:\\Users', 'C:\\Users\\Jane', 'C:\\Users\\Jane\\AppData', 'C:\\Users\\Jane\\AppData\\Local', 'C:\\Program Files', 'C:\\Program Files\\nodejs']) fs.mkdir(d);
    for (const d of ['Google', 'Google\\Chrome', 'Google\\Chrome\\User Data']) fs.mkdir(`C:\\Users\\Jane\\AppData\\Local\\${d}`);
    fs.writeFile('C:\\Program Files\\nodejs\\node.exe', 'MZ', 0o755);
    fs.writeFile('C:\\Users\\Jane\\b.mjs', '//', 0o644);
    const reg = new FakeRegistry();
    const ctx: InstallContext = {
      platform: 'win32',
      homedir: 'C:\\Users\\Jane',
      env: { LOCALAPPDATA: 'C:\\Users\\Jane\\AppData\\Local' },
      fs,
      run: reg.run,
      execPath: 'C:\\Program Files\\nodejs\\node.exe',
      bundlePath: 'C:\\Users\\Jane\\b.mjs',
      bridgeVersion: '0.1.0',
    };
    const winSelf = ['C:\\Program Files\\nodejs\\node.exe', 'C:\\Users\\Jane\\b.mjs'];
    const missing = byBrowser(doctor(ctx, { selfCommand: winSelf }), 'chrome');
    expect(missing).toMatchObject({ severity: 'error', message: expect.stringContaining('no registry value at HKCU\\Software\\Google\\Chrome\\NativeMessagingHosts\\dev.countersign.bridge') });
    expect(missing.fix).toBe('"C:\\Program Files\\nodejs\\node.exe" C:\\Users\\Jane\\b.mjs install --browser chrome');
    install(ctx, { browsers: ['chrome'] });
    expect(byBrowser(doctor(ctx, { selfCommand: winSelf }), 'chrome')).toMatchObject({ severity: 'ok' });
    expect(reg.calls.some((c) => c[1] === 'query')).toBe(true);
  });
});

describe('doctor quotes the browser it checks', () => {
  const CHROMIUM_WORDS = Object.values(BROWSER_REPORTS.chromium);
  const firefoxManifest = (ctx: { home: string }) => path.join(ctx.home, '.mozilla', 'native-messaging-hosts', 'dev.countersign.bridge.json');

  function firefoxFinding(ctx: InstallContext): Finding {
    return byBrowser(doctor(ctx, { selfCommand: SELF, browsers: ['firefox'] }), 'firefox');
  }

  function expectFirefoxWords(f: Finding, words: string): void {
    expect(f.severity).toBe('error');
    expect(f.message).toContain(`the browser reports "${words}"`);
    for (const chromium of CHROMIUM_WORDS) expect(f.message).not.toContain(chromium);
  }

  it('Firefox: a missing manifest, a relative path and a foreign add-on id are all "No such native application dev.countersign.bridge"', () => {
    const ctx = linux();
    mkdirSync(path.join(ctx.home, '.mozilla'));
    expectFirefoxWords(firefoxFinding(ctx), 'No such native application dev.countersign.bridge');
    install(ctx, { browsers: ['firefox'] });
    const m = JSON.parse(readFileSync(firefoxManifest(ctx), 'utf8')) as Record<string, unknown>;
    writeFileSync(firefoxManifest(ctx), JSON.stringify({ ...m, path: 'countersign-bridge' }));
    expectFirefoxWords(firefoxFinding(ctx), 'No such native application dev.countersign.bridge');
    writeFileSync(firefoxManifest(ctx), JSON.stringify({ ...m, allowed_extensions: ['other@example.com'] }));
    expectFirefoxWords(firefoxFinding(ctx), 'No such native application dev.countersign.bridge');
  });

  it('Firefox: a launcher that cannot start is "An unexpected error occurred", never "Native host has exited."', () => {
    const ctx = linux();
    const report = install(ctx, { browsers: ['firefox'] });
    chmodSync(report.launcher, 0o644);
    expectFirefoxWords(firefoxFinding(ctx), 'An unexpected error occurred');
    chmodSync(report.launcher, 0o755);
    unlinkSync(report.bundle);
    expectFirefoxWords(firefoxFinding(ctx), 'An unexpected error occurred');
  });

  it('Chromium keeps its own words for the same problems', () => {
    const ctx = linux();
    const report = install(ctx, { browsers: ['chromium'] });
    editManifest(ctx, (m) => (m['path'] = 'countersign-bridge'));
    expect(byBrowser(doctor(ctx, { selfCommand: SELF }), 'chromium').message).toContain('the browser reports "Specified native messaging host not found."');
    editManifest(ctx, (m) => (m['path'] = report.launcher));
    chmodSync(report.launcher, 0o644);
    const f = byBrowser(doctor(ctx, { selfCommand: SELF }), 'chromium');
    expect(f.message).toContain('the browser reports "Native host has exited."');
    expect(f.message).not.toContain('No such native application');
  });
});

describe('doctor and a launcher that is not this installation\'s', () => {
  it('a manifest pointing at a script elsewhere is an error that names it, with the install fix', () => {
    const ctx = linux();
    const report = install(ctx, { browsers: ['chromium'] });
    const script = path.join(ctx.home, 'bin', 'bridge.sh');
    mkdirSync(path.dirname(script));
    writeFileSync(script, '#!/bin/sh\nexec /usr/bin/python3 /tmp/x.py\n', { mode: 0o755 });
    editManifest(ctx, (m) => (m['path'] = script));
    const f = byBrowser(doctor(ctx, { selfCommand: SELF }), 'chromium');
    expect(f.severity).toBe('error');
    expect(f.message).toContain(`"path" is ${script} (a program "countersign-bridge install" did not write), not this installation's launcher ${report.launcher}`);
    expect(f.fix).toBe(`${SELF.join(' ')} install --browser chromium`);
  });

  it('our launcher replaced by an arbitrary script is an error, not a warning', () => {
    const ctx = linux();
    const report = install(ctx, { browsers: ['chromium'] });
    writeFileSync(report.launcher, '#!/bin/sh\nexec /usr/bin/python3 /tmp/x.py\n');
    const f = byBrowser(doctor(ctx, { selfCommand: SELF }), 'chromium');
    expect(f).toMatchObject({ severity: 'error', message: expect.stringContaining('was not written by "countersign-bridge install"'), fix: `${SELF.join(' ')} install --browser chromium` });
  });

  it('a launcher another checkout wrote (install --link there) is an error that names the bundle it runs', () => {
    const ctx = linux();
    const other = path.join(ctx.home, 'other-checkout', 'dist', 'countersign-bridge.mjs');
    mkdirSync(path.dirname(other), { recursive: true });
    writeFileSync(other, '// another bundle');
    const report = install({ ...ctx, bundlePath: other }, { browsers: ['chromium'], link: true });
    const f = byBrowser(doctor(ctx, { selfCommand: SELF }), 'chromium');
    expect(f.severity).toBe('error');
    expect(f.message).toContain(`launcher ${report.launcher} runs ${other}, not this installation's bridge`);
    expect(f.fix).toBe(`${SELF.join(' ')} install --browser chromium`);
  });

  it('a launcher this program wrote with --link, bundled or from source, is its own', () => {
    const ctx = linux();
    install(ctx, { browsers: ['chromium'], link: true });
    expect(byBrowser(doctor(ctx, { selfCommand: [process.execPath, ctx.bundlePath] }), 'chromium').severity).toBe('ok');
    // From source main.ts runs, and --link points at the build output two folders up.
    const built = path.join(ctx.home, 'checkout', 'dist', 'countersign-bridge.mjs');
    mkdirSync(path.dirname(built), { recursive: true });
    writeFileSync(built, '// bundle');
    install({ ...ctx, bundlePath: built }, { browsers: ['chromium'], link: true });
    const fromSource = [process.execPath, '--import', 'tsx', path.join(ctx.home, 'checkout', 'src', 'bridge', 'main.ts')];
    expect(byBrowser(doctor(ctx, { selfCommand: fromSource }), 'chromium').severity).toBe('ok');
  });

  it('countersign-bridge doctor exits 1 for a foreign launcher', async () => {
    const ctx = linux();
    const other = path.join(ctx.home, 'other-checkout', 'countersign-bridge.mjs');
    mkdirSync(path.dirname(other));
    writeFileSync(other, '// another bundle');
    install({ ...ctx, bundlePath: other }, { browsers: ['chromium'], link: true });
    let out = '';
    const stdout = new PassThrough();
    stdout.on('data', (d: Buffer) => (out += d.toString()));
    const code = await runCli({
      argv: ['doctor', '--browser', 'chromium'],
      stdin: new PassThrough(),
      stdout,
      stderr: { write: () => true },
      env: {},
      platform: 'linux',
      homedir: ctx.home,
      uid: 1000,
      username: 'jane',
      cwd: ctx.home,
      execPath: process.execPath,
      bundlePath: ctx.bundlePath,
      selfCommand: [process.execPath, ctx.bundlePath],
      fs: ctx.fs,
      run: ctx.run,
    });
    expect(code).toBe(1);
    expect(out).toMatch(/^chromium +error +launcher /m);
    expect(out).toContain(`runs ${other}, not this installation's bridge`);
  });
});

describe('doctor right after each documented install (README "Install", docs/bridge-protocol.md section 14)', () => {
  /** A person who has used Chromium, Chrome and Firefox (their profile folders exist), running one command after another. */
  function usedBrowsers() {
    const ctx = linux();
    for (const dir of [['.config', 'chromium'], ['.config', 'google-chrome'], ['.mozilla']]) mkdirSync(path.join(ctx.home, ...dir), { recursive: true });
    const cli = async (argv: string[]) => {
      let out = '';
      const stdout = new PassThrough();
      stdout.on('data', (d: Buffer) => (out += d.toString()));
      const code = await runCli({ argv, stdin: new PassThrough(), stdout, stderr: { write: () => true }, env: {}, platform: 'linux', homedir: ctx.home, uid: 1000, username: 'jane', cwd: ctx.home, execPath: process.execPath, bundlePath: ctx.bundlePath, selfCommand: [process.execPath, ctx.bundlePath], fs: ctx.fs, run: ctx.run });
      return { code, out };
    };
    return { ctx, cli };
  }

  it.each([
    ['install', []],
    ['install --browser all', ['--browser', 'all']],
    ['install --browser chromium,firefox', ['--browser', 'chromium,firefox']],
    ['install --user-data-dir DIR', ['--user-data-dir', 'countersign-profile']],
    ['install --browser chrome --user-data-dir DIR', ['--browser', 'chrome', '--user-data-dir', 'countersign-profile']],
    ['install --browser chromium --extension-id ID (a build of your own)', ['--browser', 'chromium', '--extension-id', 'abcdefghijklmnopabcdefghijklmnop']],
    ['install --link (development)', ['--link']],
  ])('countersign-bridge %s, then doctor: exit 0, no "error"', async (_form, args) => {
    const { cli } = usedBrowsers();
    expect((await cli(['install', ...args])).code).toBe(0);
    const doctor = await cli(['doctor']);
    expect(doctor.out).not.toMatch(/^\S+ +error /m);
    expect(doctor.code).toBe(0);
  });

  it('after install --user-data-dir DIR, the profile is ready and the browser\'s usual profile, not installed for, is a warning that says so with its fix', async () => {
    const { ctx, cli } = usedBrowsers();
    await cli(['install', '--user-data-dir', 'countersign-profile']);
    const { out } = await cli(['doctor']);
    expect(out).toMatch(new RegExp(`^chromium +ok +ready: ${path.join(ctx.home, 'countersign-profile')}`, 'm'));
    expect(out).toMatch(/^chromium +warn +no host manifest at .*\/\.config\/chromium\/NativeMessagingHosts\/dev\.countersign\.bridge\.json \(install was not run for it: .*\)/m);
    expect(out).toContain(`fix: ${process.execPath} ${ctx.bundlePath} install --browser chromium`);
  });

  it('a registration that install wrote and that is gone since is still an error', async () => {
    const { ctx, cli } = usedBrowsers();
    await cli(['install', '--browser', 'chromium']);
    unlinkSync(manifestOf(ctx));
    const doctor = await cli(['doctor']);
    expect(doctor.out).toMatch(/^chromium +error +no host manifest at /m);
    expect(doctor.code).toBe(1);
  });
});
