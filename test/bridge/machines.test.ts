import { describe, expect, it } from 'vitest';
import { doctor, formatFindings, type Finding } from '../../src/bridge/doctor';
import { install, uninstall, type InstallContext } from '../../src/bridge/install';
import type { CommandRunner } from '../../src/bridge/system';
import { FakeRegistry, MemoryFs } from './memory-fs';

// The installer and doctor on simulated machines: a Linux with system folders (/usr/bin, /snap,
// /var/lib/flatpak, /proc, the runtime folder), a Mac, and a Windows with a fake reg.exe. Each
// case README "Troubleshooting" lists for doctor is produced here from the machine state that
// causes it.

const ID = 'mlfaahkflpghlfdpkpmonibnlhieinil';
const FIREFOX_ID = 'countersign@countersign.dev';
const HOST = 'dev.countersign.bridge.json';
const SELF = ['/usr/bin/node', '/opt/countersign/countersign-bridge.mjs'];
const T1 = 'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k';
const T2 = 'vsLAVcBec9S_ypx8huZjTqmt1xxSep2F33sUoSbaX90';
const T3 = 'A'.repeat(42) + 'E';

const noCommands: CommandRunner = (command, args) => {
  throw new Error(`no command may run here: ${command} ${args.join(' ')}`);
};

type Ctx = InstallContext & { fs: MemoryFs };

function linux(options: { execPath?: string } = {}): Ctx {
  const fs = MemoryFs.posix(['/home/jane', '/usr/bin', '/proc', '/run/user/1000', '/tmp']);
  const execPath = options.execPath ?? '/usr/bin/node';
  fs.put(execPath, 'ELF', 0o755);
  fs.put('/opt/countersign/countersign-bridge.mjs', '// bundle');
  return {
    fs,
    platform: 'linux',
    homedir: '/home/jane',
    env: { XDG_RUNTIME_DIR: '/run/user/1000', PATH: '/usr/local/bin:/usr/bin:/bin' },
    run: noCommands,
    execPath,
    bundlePath: '/opt/countersign/countersign-bridge.mjs',
    bridgeVersion: '0.1.0',
    uid: 1000,
  };
}

function of(findings: Finding[], subject: string, manifestPart?: string): Finding {
  const f = findings.find((x) => x.subject === subject && (manifestPart === undefined || x.manifest?.includes(manifestPart) === true));
  if (!f) throw new Error(`no finding for ${subject} ${manifestPart ?? ''}:\n${formatFindings(findings)}`);
  return f;
}

function editJson(fs: MemoryFs, file: string, change: (m: Record<string, unknown>) => void): void {
  const m = JSON.parse(fs.readText(file)) as Record<string, unknown>;
  change(m);
  fs.writeFile(file, JSON.stringify(m), 0o644);
}

const CHROMIUM_MANIFEST = `/home/jane/.config/chromium/NativeMessagingHosts/${HOST}`;
const FIREFOX_MANIFEST = `/home/jane/.mozilla/native-messaging-hosts/${HOST}`;

describe('which browsers are installed (Linux)', () => {
  it('install --browser all writes a manifest for every browser found (profile folder or program) and uninstall removes exactly that', () => {
    const ctx = linux();
    ctx.fs.put('/usr/bin/chromium', 'ELF', 0o755); // installed, never started by jane
    ctx.fs.mkdirp('/home/jane/.mozilla/firefox'); // Firefox, used
    ctx.fs.put('/opt/google/chrome/chrome', 'ELF', 0o755); // Chrome from Google's .deb
    ctx.fs.put('/usr/local/bin/vivaldi', 'not executable', 0o644); // not a program
    ctx.fs.put('/usr/bin/brave-browser', '#!/bin/sh\nexec /snap/bin/brave "$@"\n', 0o755); // the Snap, via a wrapper
    const before = ctx.fs.snapshot();
    const report = install(ctx, { browsers: 'all' });
    expect(report.entries.map((e) => e.browser)).toEqual(['chrome', 'chromium', 'firefox']);
    expect(report.entries.map((e) => e.manifest)).toEqual([`/home/jane/.config/google-chrome/NativeMessagingHosts/${HOST}`, CHROMIUM_MANIFEST, FIREFOX_MANIFEST]);
    const written = ctx.fs.snapshot().filter((l) => !before.includes(l));
    expect(written).toEqual(
      [
        'dir /home/jane/.config',
        'dir /home/jane/.config/chromium',
        'dir /home/jane/.config/chromium/NativeMessagingHosts',
        'dir /home/jane/.config/google-chrome',
        'dir /home/jane/.config/google-chrome/NativeMessagingHosts',
        'dir /home/jane/.local',
        'dir /home/jane/.local/share',
        'dir /home/jane/.local/share/countersign',
        'dir /home/jane/.mozilla/native-messaging-hosts',
        `file ${CHROMIUM_MANIFEST} 644`,
        `file /home/jane/.config/google-chrome/NativeMessagingHosts/${HOST} 644`,
        'file /home/jane/.local/share/countersign/countersign-bridge 755',
        'file /home/jane/.local/share/countersign/countersign-bridge.mjs 644',
        'file /home/jane/.local/share/countersign/install.json 644',
        `file ${FIREFOX_MANIFEST} 644`,
      ].sort(),
    );
    // Something of jane's put next to ours survives uninstall, and keeps its folder.
    ctx.fs.put('/home/jane/.config/chromium/Local State', '{}');
    expect(uninstall(ctx).kept).toEqual(['/home/jane/.config/chromium (not empty)', '/home/jane/.config (not empty)']);
    expect(ctx.fs.snapshot()).toEqual([...before, 'dir /home/jane/.config', 'dir /home/jane/.config/chromium', 'file /home/jane/.config/chromium/Local State 644'].sort());
  });

  it('fails clearly when no browser is found, and mentions Snap and Flatpak browsers it leaves alone', () => {
    const ctx = linux();
    expect(() => install(ctx, { browsers: 'all' })).toThrow(expect.objectContaining({ code: 'ERR_INSTALL_FAILED', message: expect.stringContaining('no browser found') }));
    ctx.fs.mkdirp('/snap/chromium');
    ctx.fs.mkdirp('/var/lib/flatpak/app/com.brave.Browser');
    ctx.fs.mkdirp('/home/jane/.config/chromium');
    const report = install(ctx, { browsers: 'all' });
    expect(report.entries.map((e) => e.browser)).toEqual(['chromium']);
    expect(report.notes.join('\n')).toMatch(/chromium as a Snap cannot start native messaging hosts/);
    expect(report.notes.join('\n')).toMatch(/brave as a Flatpak \(com\.brave\.Browser\) was left alone/);
  });
});

describe('doctor on Linux', () => {
  it('missing manifest: an error for a browser in use, a warning for one only installed, nothing for one absent', () => {
    const ctx = linux();
    ctx.fs.mkdirp('/home/jane/.config/chromium');
    ctx.fs.put('/usr/bin/firefox-esr', 'ELF', 0o755);
    const findings = doctor(ctx, { selfCommand: SELF });
    expect(of(findings, 'chromium')).toEqual({
      subject: 'chromium',
      severity: 'error',
      manifest: CHROMIUM_MANIFEST,
      message: `no host manifest at ${CHROMIUM_MANIFEST}; the browser reports "Specified native messaging host not found."`,
      fix: '/usr/bin/node /opt/countersign/countersign-bridge.mjs install --browser chromium',
    });
    expect(of(findings, 'firefox')).toMatchObject({ severity: 'warn', message: expect.stringContaining('installed, not yet used'), fix: expect.stringContaining('install --browser firefox') });
    expect(of(findings, 'edge').severity).toBe('skip');
  });

  it('wrong path: relative, missing, a folder', () => {
    const ctx = linux();
    ctx.fs.mkdirp('/home/jane/.config/chromium');
    install(ctx, { browsers: ['chromium'] });
    expect(of(doctor(ctx, { selfCommand: SELF }), 'chromium').severity).toBe('ok');
    const cases: Array<[string, RegExp]> = [
      ['countersign-bridge', /is relative; the browser reports "Specified native messaging host not found\."/],
      ['/home/jane/old/countersign-bridge', /does not exist \(a moved or deleted install\?\); the browser reports "Native host has exited\."/],
      ['/home/jane', /is a folder, not the launcher/],
    ];
    for (const [value, message] of cases) {
      editJson(ctx.fs, CHROMIUM_MANIFEST, (m) => (m['path'] = value));
      const f = of(doctor(ctx, { selfCommand: SELF }), 'chromium');
      expect(f, value).toMatchObject({ severity: 'error', message: expect.stringMatching(message), fix: `${SELF.join(' ')} install --browser chromium` });
    }
  });

  it('launcher not executable: chmod; node gone from the recorded path: install again with this node', () => {
    const ctx = linux();
    const report = install(ctx, { browsers: ['firefox'] });
    ctx.fs.chmod(report.launcher, 0o644);
    expect(of(doctor(ctx, { selfCommand: SELF, browsers: ['firefox'] }), 'firefox')).toMatchObject({
      severity: 'error',
      message: expect.stringContaining('is not executable'),
      fix: "chmod 755 '/home/jane/.local/share/countersign/countersign-bridge'",
    });
    ctx.fs.chmod(report.launcher, 0o755);
    ctx.fs.unlink('/usr/bin/node');
    const f = of(doctor(ctx, { selfCommand: ['/home/jane/.nvm/versions/node/v20.20.2/bin/node', SELF[1] as string], browsers: ['firefox'] }), 'firefox');
    expect(f.message).toContain('node is gone from /usr/bin/node, the path install recorded in /home/jane/.local/share/countersign/countersign-bridge');
    expect(f.fix).toBe('/home/jane/.nvm/versions/node/v20.20.2/bin/node /opt/countersign/countersign-bridge.mjs install --browser firefox');
  });

  it('wrong allowed_origins (other id, no trailing slash) and allowed_extensions', () => {
    const ctx = linux();
    install(ctx, { browsers: ['chromium', 'firefox'] });
    editJson(ctx.fs, CHROMIUM_MANIFEST, (m) => (m['allowed_origins'] = ['chrome-extension://abcdefghijklmnopabcdefghijklmnop/']));
    editJson(ctx.fs, FIREFOX_MANIFEST, (m) => (m['allowed_extensions'] = ['someone@example.org']));
    let findings = doctor(ctx, { selfCommand: SELF, browsers: ['chromium', 'firefox'] });
    expect(of(findings, 'chromium').message).toBe(`"allowed_origins" does not contain chrome-extension://${ID}/; the browser reports "Access to the specified native messaging host is forbidden."`);
    expect(of(findings, 'firefox').message).toContain(`"allowed_extensions" does not contain ${FIREFOX_ID}`);
    editJson(ctx.fs, CHROMIUM_MANIFEST, (m) => (m['allowed_origins'] = [`chrome-extension://${ID}`]));
    findings = doctor(ctx, { selfCommand: SELF, browsers: ['chromium'] });
    expect(of(findings, 'chromium').message).toContain('without the trailing slash');
  });

  it('a Chromium running with --user-data-dir: reads that folder only; the fix installs there', () => {
    const ctx = linux();
    ctx.fs.mkdirp('/home/jane/.config/chromium');
    install(ctx, { browsers: ['chromium'] });
    ctx.fs.put('/proc/4242/cmdline', '/usr/lib/chromium/chromium\0--user-data-dir=/home/jane/work\0--no-first-run\0');
    ctx.fs.put('/proc/4242/status', 'Name:\tchromium\nPPid:\t1\n');
    // Its helpers carry the flag too, but are not browsers.
    ctx.fs.put('/proc/4250/cmdline', '/usr/lib/chromium/chromium\0--type=renderer\0--user-data-dir=/home/jane/work\0');
    // A relative folder is resolved against the browser's working folder.
    ctx.fs.put('/proc/4300/cmdline', 'google-chrome\0--user-data-dir=p2\0');
    ctx.fs.putLink('/proc/4300/cwd', '/home/jane/tmp');
    const findings = doctor(ctx, { selfCommand: SELF });
    expect(of(findings, 'chromium', '/.config/').severity).toBe('ok');
    expect(of(findings, 'chromium', '/work/')).toEqual({
      subject: 'chromium',
      severity: 'error',
      manifest: `/home/jane/work/NativeMessagingHosts/${HOST}`,
      message: `chromium is running with --user-data-dir=/home/jane/work, so it reads host manifests from that folder only: no host manifest at /home/jane/work/NativeMessagingHosts/${HOST}; the browser reports "Specified native messaging host not found."`,
      fix: `${SELF.join(' ')} install --browser chromium --user-data-dir /home/jane/work`,
    });
    expect(of(findings, 'chrome', '/tmp/p2/').fix).toBe(`${SELF.join(' ')} install --browser chrome --user-data-dir /home/jane/tmp/p2`);
    // After the fix, the custom profile is recorded and checked from then on.
    install(ctx, { userDataDir: '/home/jane/work' });
    expect(of(doctor(ctx, { selfCommand: SELF }), 'chromium', '/work/').severity).toBe('ok');
  });

  it('Snap Chromium: cannot start hosts at all, says so; a Snap wrapper in /usr/bin is not a native Chromium', () => {
    const ctx = linux();
    ctx.fs.mkdirp('/snap/chromium/current');
    ctx.fs.put('/usr/bin/chromium-browser', '#!/bin/sh\nexec /snap/bin/chromium "$@"\n', 0o755);
    const findings = doctor(ctx, { selfCommand: SELF });
    expect(of(findings, 'chromium').severity).toBe('skip');
    const snap = of(findings, 'sandbox');
    expect(snap.severity).toBe('warn');
    expect(snap.message).toContain('a Snap chromium cannot start native messaging hosts outside its confinement');
    expect(snap.message).toContain('.deb/.rpm');
    expect(snap.fix).toBe(`${SELF.join(' ')} install --browser all`);
  });

  it('Snap Firefox: installed like any Firefox (the portal reads ~/.mozilla), and told how to reset the portal', () => {
    const ctx = linux();
    ctx.fs.mkdirp('/snap/firefox/current');
    ctx.fs.put('/usr/bin/firefox', '#!/bin/sh\nexec /snap/bin/firefox "$@"\n', 0o755);
    let findings = doctor(ctx, { selfCommand: SELF });
    expect(of(findings, 'firefox')).toMatchObject({ severity: 'error', manifest: FIREFOX_MANIFEST });
    expect(of(findings, 'sandbox')).toMatchObject({ severity: 'info', message: expect.stringContaining('XDG WebExtensions portal'), fix: "rm -f '/home/jane/.local/share/flatpak/db/webextensions'" });
    expect(install(ctx, { browsers: 'all' }).entries.map((e) => e.manifest)).toEqual([FIREFOX_MANIFEST]);
    findings = doctor(ctx, { selfCommand: SELF });
    expect(of(findings, 'firefox').severity).toBe('ok');
  });

  describe('Flatpak', () => {
    const APP = 'org.chromium.Chromium';
    const INSIDE = `/home/jane/.var/app/${APP}/config/chromium/NativeMessagingHosts/${HOST}`;
    const NVM_NODE = '/home/jane/.nvm/versions/node/v20.20.2/bin/node';
    const OVERRIDE = `/home/jane/.local/share/flatpak/overrides/${APP}`;
    const openSandbox = `flatpak override --user --filesystem=/home/jane/.local/share/countersign:ro --filesystem=/home/jane/.nvm/versions/node/v20.20.2:ro --filesystem=xdg-run/countersign:create ${APP}`;

    it('a Flatpak in use with no manifest inside it: the fix opens the sandbox and installs inside', () => {
      const ctx = linux({ execPath: NVM_NODE });
      ctx.fs.mkdirp(`/var/lib/flatpak/app/${APP}`);
      ctx.fs.mkdirp(`/home/jane/.var/app/${APP}/config/chromium`);
      const f = of(doctor(ctx, { selfCommand: [NVM_NODE, SELF[1] as string] }), 'chromium', '.var/app');
      expect(f).toMatchObject({ severity: 'error', manifest: INSIDE, message: expect.stringContaining(`installed as a Flatpak (${APP}): it reads host manifests inside its own home and starts the host inside its sandbox`) });
      expect(f.fix).toBe(`${openSandbox} && ${NVM_NODE} /opt/countersign/countersign-bridge.mjs install --browser chromium --flatpak`);
    });

    it('install --flatpak writes inside the app home; doctor wants the sandbox opened, then is satisfied; uninstall --flatpak undoes it', () => {
      const ctx = linux({ execPath: NVM_NODE });
      ctx.fs.mkdirp(`/var/lib/flatpak/app/${APP}`);
      ctx.fs.mkdirp('/home/jane/.config/chromium');
      const before = ctx.fs.snapshot();
      install(ctx, { browsers: ['chromium'] });
      const report = install(ctx, { flatpak: true });
      expect(report.entries).toEqual([{ browser: 'chromium', manifest: INSIDE, flatpakApp: APP, extensionId: ID }]);
      let f = of(doctor(ctx, { selfCommand: SELF }), 'chromium', '.var/app');
      expect(f).toMatchObject({ severity: 'error', message: expect.stringContaining('cannot reach /home/jane/.local/share/countersign, /home/jane/.nvm/versions/node/v20.20.2, $XDG_RUNTIME_DIR/countersign') });
      expect(f.fix).toBe(openSandbox);
      // What `flatpak override --user ...` writes.
      ctx.fs.put(OVERRIDE, '[Context]\nfilesystems=/home/jane/.local/share/countersign:ro;/home/jane/.nvm/versions/node/v20.20.2:ro;xdg-run/countersign:create;\n');
      f = of(doctor(ctx, { selfCommand: SELF }), 'chromium', '.var/app');
      expect(f).toMatchObject({ severity: 'ok', message: expect.stringContaining(`(Flatpak ${APP})`) });
      // "home" covers both folders; the runtime folder still has to be shared.
      ctx.fs.writeFile(OVERRIDE, '[Context]\nfilesystems=home;\n', 0o644);
      expect(of(doctor(ctx, { selfCommand: SELF }), 'chromium', '.var/app').message).toMatch(/cannot reach \$XDG_RUNTIME_DIR\/countersign/);
      ctx.fs.unlink(OVERRIDE);
      ctx.fs.rmdir('/home/jane/.local/share/flatpak/overrides');
      ctx.fs.rmdir('/home/jane/.local/share/flatpak');
      uninstall(ctx, { flatpak: true });
      expect(ctx.fs.stat(INSIDE)).toBeUndefined();
      expect(ctx.fs.stat(CHROMIUM_MANIFEST)?.isFile).toBe(true);
      uninstall(ctx);
      expect(ctx.fs.snapshot()).toEqual(before);
    });

    it('node from /usr cannot run inside a Flatpak: says to use a node under the home folder', () => {
      const ctx = linux();
      ctx.fs.mkdirp('/var/lib/flatpak/app/org.mozilla.firefox');
      const report = install(ctx, { flatpak: true, browsers: ['firefox'] });
      expect(report.entries[0]?.manifest).toBe(`/home/jane/.var/app/org.mozilla.firefox/.mozilla/native-messaging-hosts/${HOST}`);
      const f = of(doctor(ctx, { selfCommand: SELF }), 'firefox', '.var/app');
      expect(f.severity).toBe('error');
      expect(f.message).toContain("/usr/bin is the Flatpak runtime's, not yours: node /usr/bin/node does not exist in there");
      expect(f.fix).toContain('install --browser firefox --flatpak');
    });
  });

  describe('agent sockets: one per extension key', () => {
    const DIR = '/run/user/1000/countersign';
    function unixTable(entries: Array<[string, string]>): string {
      const head = 'Num       RefCount Protocol Flags    Type St Inode Path\n';
      return head + entries.map(([inode, p]) => `0000000000000000: 00000002 00000000 00010000 0001 01 ${inode} ${p}`).join('\n') + '\n0000000000000000: 00000003 00000000 00000000 0001 03 999 \n';
    }

    it('two profiles, two sockets: which key and which browser profile each belongs to; a stale one to remove', () => {
      const ctx = linux();
      for (const t of [T1, T2, T3]) ctx.fs.putSocket(`${DIR}/${t}.sock`);
      ctx.fs.put('/proc/net/unix', unixTable([['111', `${DIR}/${T1}.sock`], ['222', `${DIR}/${T2}.sock`]]));
      // Bridge 500, started by Chromium 400 with a custom profile.
      ctx.fs.put('/proc/500/cmdline', `/usr/bin/node\0/home/jane/.local/share/countersign/countersign-bridge.mjs\0chrome-extension://${ID}/\0`);
      ctx.fs.put('/proc/500/status', 'PPid:\t400\n');
      ctx.fs.putLink('/proc/500/fd/0', 'pipe:[1]');
      ctx.fs.putLink('/proc/500/fd/7', 'socket:[111]');
      ctx.fs.put('/proc/400/cmdline', '/usr/lib/chromium/chromium\0--user-data-dir=/home/jane/p2\0');
      ctx.fs.put('/proc/400/status', 'PPid:\t1\n');
      // Bridge 600, started by Firefox 700.
      ctx.fs.put('/proc/600/cmdline', `/usr/bin/node\0/x/countersign-bridge.mjs\0${FIREFOX_MANIFEST}\0${FIREFOX_ID}\0`);
      ctx.fs.put('/proc/600/status', 'PPid:\t700\n');
      ctx.fs.putLink('/proc/600/fd/9', 'socket:[222]');
      ctx.fs.put('/proc/700/cmdline', '/usr/lib/firefox-esr/firefox-esr\0');
      ctx.fs.put('/proc/700/status', 'PPid:\t1\n');
      const sockets = doctor(ctx, { selfCommand: SELF }).filter((f) => f.subject === 'socket');
      expect(sockets[0]).toMatchObject({ severity: 'warn', message: expect.stringContaining('2 bridges are running, one per extension key') });
      expect(sockets.slice(1)).toEqual([
        {
          subject: 'socket',
          severity: 'warn',
          message: `${DIR}/${T3}.sock: no bridge listens (left by a bridge that stopped); the next bridge for extension key ${T3} replaces it, and agents skip it`,
          fix: `rm '${DIR}/${T3}.sock'`,
        },
        {
          subject: 'socket',
          severity: 'warn',
          message: `${DIR}/${T1}.sock: extension key ${T1}; bridge pid 500 started by chromium (pid 400, profile /home/jane/p2) for chrome-extension://${ID}/`,
          fix: `${SELF.join(' ')} socket-path ${T1}`,
        },
        {
          subject: 'socket',
          severity: 'warn',
          message: `${DIR}/${T2}.sock: extension key ${T2}; bridge pid 600 started by firefox-esr (pid 700, its default profile) for ${FIREFOX_ID}`,
          fix: `${SELF.join(' ')} socket-path ${T2}`,
        },
      ].sort((a, b) => (a.message < b.message ? -1 : 1)));
    });

    it('one bridge: fine; none: says the browser starts one; sockets in /tmp/countersign-<uid> too', () => {
      const ctx = linux();
      expect(doctor(ctx, { selfCommand: SELF }).filter((f) => f.subject === 'socket')).toEqual([
        { subject: 'socket', severity: 'info', message: 'no bridge is running now (the browser starts one when the extension connects)' },
      ]);
      ctx.fs.putSocket(`/tmp/countersign-1000/${T1}.sock`);
      ctx.fs.put(`/tmp/countersign-1000/not-a-socket.txt`, '');
      ctx.fs.put('/proc/net/unix', unixTable([['111', `/tmp/countersign-1000/${T1}.sock`]]));
      expect(doctor(ctx, { selfCommand: SELF }).filter((f) => f.subject === 'socket')).toEqual([
        { subject: 'socket', severity: 'ok', message: `/tmp/countersign-1000/${T1}.sock: extension key ${T1}` },
      ]);
    });
  });
});

describe('macOS (simulated)', () => {
  function mac(): Ctx {
    const fs = MemoryFs.posix(['/Users/jane', '/Applications', '/usr/local/bin']);
    fs.put('/usr/local/bin/node', 'MACHO', 0o755);
    fs.put('/opt/countersign/countersign-bridge.mjs', '//');
    return { fs, platform: 'darwin', homedir: '/Users/jane', env: {}, run: noCommands, execPath: '/usr/local/bin/node', bundlePath: '/opt/countersign/countersign-bridge.mjs', bridgeVersion: '0.1.0' };
  }
  const CHROME = `/Users/jane/Library/Application Support/Google/Chrome/NativeMessagingHosts/${HOST}`;
  const FIREFOX = `/Users/jane/Library/Application Support/Mozilla/NativeMessagingHosts/${HOST}`;

  it('finds browsers by profile folder or app bundle, installs for all, and doctor checks each', () => {
    const ctx = mac();
    ctx.fs.mkdirp('/Users/jane/Library/Application Support/Google/Chrome');
    ctx.fs.mkdirp('/Applications/Firefox.app/Contents');
    let findings = doctor(ctx, { selfCommand: SELF });
    expect(of(findings, 'chrome')).toMatchObject({ severity: 'error', manifest: CHROME });
    expect(of(findings, 'firefox')).toMatchObject({ severity: 'warn', manifest: FIREFOX });
    expect(findings.some((f) => f.subject === 'sandbox')).toBe(false);
    const before = ctx.fs.snapshot();
    expect(install(ctx, { browsers: 'all' }).entries.map((e) => e.manifest)).toEqual([CHROME, FIREFOX]);
    findings = doctor(ctx, { selfCommand: SELF });
    expect([of(findings, 'chrome').severity, of(findings, 'firefox').severity]).toEqual(['ok', 'ok']);
    expect(ctx.fs.readText('/Users/jane/Library/Application Support/Countersign/countersign-bridge')).toContain("exec '/usr/local/bin/node' '/Users/jane/Library/Application Support/Countersign/countersign-bridge.mjs'");
    editJson(ctx.fs, CHROME, (m) => (m['allowed_origins'] = ['chrome-extension://abcdefghijklmnopabcdefghijklmnop/']));
    expect(of(doctor(ctx, { selfCommand: SELF }), 'chrome').message).toContain('forbidden');
    uninstall(ctx);
    expect(ctx.fs.snapshot()).toEqual(before);
  });
});

describe('Windows (simulated file system and registry)', () => {
  const LOCAL = 'C:\\Users\\Jane\\AppData\\Local';
  const NODE = 'C:\\Program Files\\nodejs\\node.exe';
  const KEY = 'HKCU\\Software\\Google\\Chrome\\NativeMessagingHosts\\dev.countersign.bridge';
  const FKEY = 'HKCU\\Software\\Mozilla\\NativeMessagingHosts\\dev.countersign.bridge';
  const WIN_SELF = [NODE, 'C:\\tools\\countersign-bridge.mjs'];

  function windows(): InstallContext & { fs: MemoryFs; reg: FakeRegistry } {
    const fs = new MemoryFs();
    for (const d of ['C:\\Users\\Jane\\AppData\\Roaming\\Mozilla\\Firefox', `${LOCAL}\\Google\\Chrome\\User Data`, 'C:\\Program Files\\nodejs', 'C:\\tools']) fs.mkdirp(d);
    fs.writeFile(NODE, 'MZ', 0o755);
    fs.writeFile('C:\\tools\\countersign-bridge.mjs', '//', 0o644);
    const reg = new FakeRegistry();
    return {
      fs,
      reg,
      platform: 'win32',
      homedir: 'C:\\Users\\Jane',
      env: { LOCALAPPDATA: LOCAL, APPDATA: 'C:\\Users\\Jane\\AppData\\Roaming' },
      run: reg.run,
      execPath: NODE,
      bundlePath: 'C:\\tools\\countersign-bridge.mjs',
      bridgeVersion: '0.1.0',
    };
  }

  it('install --browser all: one registry value and one manifest per browser found; uninstall leaves nothing', () => {
    const ctx = windows();
    const before = ctx.fs.snapshot();
    const report = install(ctx, { browsers: 'all' });
    expect(report.entries.map((e) => [e.browser, e.registryKey])).toEqual([
      ['chrome', KEY],
      ['firefox', FKEY],
    ]);
    expect([...ctx.reg.values.keys()].sort()).toEqual([KEY.toLowerCase(), FKEY.toLowerCase()].sort());
    expect(doctor(ctx, { selfCommand: WIN_SELF }).filter((f) => f.severity !== 'skip').map((f) => [f.subject, f.severity])).toEqual([
      ['chrome', 'ok'],
      ['firefox', 'ok'],
    ]);
    uninstall(ctx);
    expect(ctx.reg.values.size).toBe(0);
    expect(ctx.fs.snapshot()).toEqual(before);
  });

  it('registry value pointing at a missing file, a relative path, node gone, wrong allowed_extensions', () => {
    const ctx = windows();
    install(ctx, { browsers: ['chrome', 'firefox'] });
    const chromeManifest = `${LOCAL}\\Countersign\\manifests\\chrome\\${HOST}`;
    const firefoxManifest = `${LOCAL}\\Countersign\\manifests\\firefox\\${HOST}`;
    ctx.reg.values.set(KEY.toLowerCase(), 'C:\\gone\\dev.countersign.bridge.json');
    let chrome = of(doctor(ctx, { selfCommand: WIN_SELF }), 'chrome');
    expect(chrome).toMatchObject({ severity: 'error', message: expect.stringContaining('no host manifest at C:\\gone\\dev.countersign.bridge.json'), fix: `"${NODE}" C:\\tools\\countersign-bridge.mjs install --browser chrome` });
    ctx.reg.values.set(KEY.toLowerCase(), chromeManifest);
    editJson(ctx.fs, chromeManifest, (m) => (m['path'] = 'countersign-bridge.bat'));
    chrome = of(doctor(ctx, { selfCommand: WIN_SELF }), 'chrome');
    expect(chrome.message).toContain('is relative');
    editJson(ctx.fs, firefoxManifest, (m) => (m['allowed_extensions'] = ['other@example.org']));
    expect(of(doctor(ctx, { selfCommand: WIN_SELF }), 'firefox').message).toContain(`"allowed_extensions" does not contain ${FIREFOX_ID}`);
    ctx.fs.unlink(NODE);
    editJson(ctx.fs, firefoxManifest, (m) => (m['allowed_extensions'] = [FIREFOX_ID]));
    expect(of(doctor(ctx, { selfCommand: WIN_SELF }), 'firefox').message).toContain(`node is gone from ${NODE}`);
    // No Snap, Flatpak, /proc or Unix sockets on Windows.
    expect(doctor(ctx, { selfCommand: WIN_SELF }).filter((f) => f.subject === 'sandbox' || f.subject === 'socket')).toEqual([]);
  });
});
