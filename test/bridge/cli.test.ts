import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { hostInvocation, runCli, type CliDeps } from '../../src/bridge/cli';
import { jailedFs } from './memory-fs';
import { THUMBPRINT, removeDir, tempDir } from './helpers';

const homes: string[] = [];
afterEach(() => {
  for (const h of homes.splice(0)) removeDir(h);
});

function deps(argv: string[], over: Partial<CliDeps> = {}): { deps: CliDeps; out: () => string; err: () => string; home: string } {
  const home = tempDir('cs-cli-');
  homes.push(home);
  const bundlePath = path.join(home, 'bundle.mjs');
  writeFileSync(bundlePath, '//');
  let out = '';
  let err = '';
  const stdout = new PassThrough();
  stdout.on('data', (d: Buffer) => (out += d.toString()));
  const d: CliDeps = {
    argv,
    stdin: new PassThrough(),
    stdout,
    stderr: { write: (t: string) => (err += t) },
    env: {},
    platform: 'linux',
    homedir: home,
    uid: 1000,
    username: 'jane',
    cwd: home,
    execPath: process.execPath,
    bundlePath,
    selfCommand: [process.execPath, bundlePath],
    run: () => ({ status: 1, stdout: '', stderr: '' }),
    ...over,
    // This machine's browsers, /proc and sockets stay out of sight: only the test's homes exist.
    fs: over.fs ?? jailedFs([home, over.homedir ?? home, process.execPath]),
  };
  return { deps: d, out: () => out, err: () => err, home };
}

describe('how the browser starts the bridge', () => {
  it.each([
    [['chrome-extension://mlfaahkflpghlfdpkpmonibnlhieinil/'], 'chromium'],
    [['chrome-extension://mlfaahkflpghlfdpkpmonibnlhieinil/', '--parent-window=1234'], 'chromium'],
    [['/home/u/.mozilla/native-messaging-hosts/dev.countersign.bridge.json', 'countersign@countersign.dev'], 'firefox'],
    [['C:\\Users\\u\\AppData\\Local\\Countersign\\manifests\\firefox\\dev.countersign.bridge.json', 'countersign@countersign.dev'], 'firefox'],
    [['chrome-extension://mlfaahkflpghlfdpkpmonibnlhieinil'], undefined],
    [['chrome-extension://MLFAAHKFLPGHLFDPKPMONIBNLHIEINIL/'], undefined],
    [['install'], undefined],
    [[], undefined],
  ] as const)('%j → %s', (argv, expected) => {
    expect(hostInvocation(argv)).toBe(expected);
  });
});

describe('runCli', () => {
  it('install, doctor, uninstall', async () => {
    const first = deps(['install', '--browser', 'chromium,firefox']);
    expect(await runCli(first.deps)).toBe(0);
    expect(first.out()).toContain(path.join(first.home, '.config/chromium/NativeMessagingHosts/dev.countersign.bridge.json'));
    const home = first.home;
    const doctor = deps(['doctor', '--browser=chromium', '--json'], { homedir: home });
    expect(await runCli(doctor.deps)).toBe(0);
    expect(JSON.parse(doctor.out())).toEqual([
      expect.objectContaining({ subject: 'chromium', severity: 'ok' }),
      expect.objectContaining({ subject: 'socket', severity: 'info', message: expect.stringContaining('no bridge is running') }),
    ]);
    const un = deps(['uninstall'], { homedir: home });
    expect(await runCli(un.deps)).toBe(0);
    expect(un.out()).toContain('removed ');
    const again = deps(['uninstall'], { homedir: home });
    expect(await runCli(again.deps)).toBe(0);
    expect(again.out()).toBe('nothing to uninstall\n');
  });

  it('doctor exits 1 when something is wrong', async () => {
    const d = deps(['doctor']);
    mkdirSync(path.join(d.home, '.mozilla'));
    expect(await runCli(d.deps)).toBe(1);
    expect(d.out()).toMatch(/^firefox +error/m);
  });

  it('resolves --user-data-dir against the working folder', async () => {
    const d = deps(['install', '--user-data-dir', 'profile']);
    expect(await runCli(d.deps)).toBe(0);
    expect(d.out()).toContain(path.join(d.home, 'profile', 'NativeMessagingHosts', 'dev.countersign.bridge.json'));
  });

  it('install --flatpak: refused clearly when no Flatpak browser is found; uninstall --flatpak accepted', async () => {
    const d = deps(['install', '--flatpak']);
    expect(await runCli(d.deps)).toBe(1);
    expect(d.err()).toContain('ERR_INSTALL_FAILED: no Flatpak browser found');
    const both = deps(['install', '--flatpak', '--user-data-dir', '/x']);
    expect(await runCli(both.deps)).toBe(1);
    expect(both.err()).toContain('choose one');
    const un = deps(['uninstall', '--flatpak']);
    expect(await runCli(un.deps)).toBe(0);
    expect(un.out()).toBe('nothing to uninstall\n');
  });

  it('prints the socket path candidates', async () => {
    const d = deps(['socket-path', THUMBPRINT], { env: { XDG_RUNTIME_DIR: '/run/user/1000' } });
    expect(await runCli(d.deps)).toBe(0);
    expect(d.out()).toBe(`/run/user/1000/countersign/${THUMBPRINT}.sock\n/tmp/countersign-1000/${THUMBPRINT}.sock\n`);
  });

  it('answers usage errors with exit 2 and typed errors with exit 1', async () => {
    for (const argv of [['install', '--browser', 'netscape'], ['install', '--bogus'], ['doctor', 'extra'], ['frobnicate'], [], ['install', '--extension-id']]) {
      const d = deps(argv);
      expect(await runCli(d.deps), argv.join(' ')).toBe(2);
      expect(d.err()).toContain('Usage:');
    }
    const bad = deps(['install', '--browser', 'chrome', '--extension-id', 'nope']);
    expect(await runCli(bad.deps)).toBe(1);
    expect(bad.err()).toContain('ERR_ARGUMENT_INVALID');
    const nobundle = deps(['install', '--browser', 'chrome'], { bundlePath: undefined });
    expect(await runCli(nobundle.deps)).toBe(1);
    expect(nobundle.err()).toContain('build:bridge');
    const socket = deps(['socket-path', '../etc']);
    expect(await runCli(socket.deps)).toBe(1);
  });

  it('prints its version and help', async () => {
    const v = deps(['--version']);
    expect(await runCli(v.deps)).toBe(0);
    expect(v.out()).toMatch(/^\d+\.\d+\.\d+/);
    const h = deps(['--help']);
    expect(await runCli(h.deps)).toBe(0);
    expect(h.out()).toContain('countersign-bridge install');
  });
});
