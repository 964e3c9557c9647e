import path from 'node:path';
import { nodeFs, type CommandResult, type FileInfo, type FsLike } from '../../src/bridge/system';

/**
 * An in-memory file system, with Windows path syntax by default, so the Windows installer (C:\
 * paths, .bat launcher, manifests under %LOCALAPPDATA%) runs on Linux; with `posix`, a Linux or
 * macOS machine with whatever system folders a test needs (/proc, /snap, /var/lib/flatpak).
 * Strict like a real one: a parent must exist, a folder must be empty to be removed.
 */
export class MemoryFs implements FsLike {
  readonly files = new Map<string, { data: Uint8Array; mode: number }>();
  readonly dirs = new Set<string>();
  /** Symbolic links (and /proc's fd, cwd and exe links): path → target. */
  readonly links = new Map<string, string>();
  readonly sockets = new Set<string>();
  private readonly p: path.PlatformPath;

  constructor(roots: string[] = ['C:\\'], options: { posix?: boolean } = {}) {
    this.p = options.posix === true ? path.posix : path.win32;
    for (const r of roots) this.dirs.add(r);
  }

  /** A POSIX file system with `/` and every folder in `dirs` (parents included). */
  static posix(dirs: string[] = []): MemoryFs {
    const fs = new MemoryFs(['/'], { posix: true });
    for (const d of dirs) fs.mkdirp(d);
    return fs;
  }

  /** Create a folder and its missing parents. */
  mkdirp(p: string): void {
    const n = this.norm(p);
    if (this.dirs.has(n)) return;
    this.mkdirp(this.p.dirname(n));
    this.dirs.add(n);
  }

  /** Write a file, creating its folder. */
  put(p: string, data: string | Uint8Array, mode = 0o644): void {
    this.mkdirp(this.p.dirname(this.norm(p)));
    this.writeFile(p, data, mode);
  }

  /** A Unix socket file (an agent socket), creating its folder. */
  putSocket(p: string): void {
    this.mkdirp(this.p.dirname(this.norm(p)));
    this.sockets.add(this.norm(p));
  }

  /** A symbolic link, creating its folder. */
  putLink(p: string, target: string): void {
    this.mkdirp(this.p.dirname(this.norm(p)));
    this.links.set(this.norm(p), target);
  }

  readlink(p: string): string | undefined {
    return this.links.get(this.norm(p));
  }

  private norm(p: string): string {
    return this.p.normalize(p);
  }

  private parentExists(p: string): boolean {
    return this.dirs.has(this.p.dirname(this.norm(p)));
  }

  private fail(code: string, p: string): never {
    throw Object.assign(new Error(`${code}: ${p}`), { code });
  }

  stat(p: string): FileInfo | undefined {
    const n = this.norm(p);
    const f = this.files.get(n);
    if (f) return { isFile: true, isDirectory: false, isSocket: false, mode: f.mode, size: f.data.length };
    if (this.dirs.has(n)) return { isFile: false, isDirectory: true, isSocket: false, mode: 0o755 };
    if (this.sockets.has(n)) return { isFile: false, isDirectory: false, isSocket: true, mode: 0o600 };
    return undefined;
  }

  readBytes(p: string): Uint8Array {
    const f = this.files.get(this.norm(p));
    if (!f) this.fail('ENOENT', p);
    return f.data;
  }

  readText(p: string): string {
    return new TextDecoder().decode(this.readBytes(p));
  }

  writeFile(p: string, data: string | Uint8Array, mode: number): void {
    if (!this.parentExists(p)) this.fail('ENOENT', p);
    if (this.dirs.has(this.norm(p))) this.fail('EISDIR', p);
    this.files.set(this.norm(p), { data: typeof data === 'string' ? new TextEncoder().encode(data) : new Uint8Array(data), mode });
  }

  mkdir(p: string): void {
    const n = this.norm(p);
    if (this.dirs.has(n) || this.files.has(n)) this.fail('EEXIST', p);
    if (!this.parentExists(p)) this.fail('ENOENT', p);
    this.dirs.add(n);
  }

  chmod(p: string, mode: number): void {
    const f = this.files.get(this.norm(p));
    if (f) f.mode = mode;
  }

  unlink(p: string): void {
    if (!this.files.delete(this.norm(p)) && !this.sockets.delete(this.norm(p))) this.fail('ENOENT', p);
  }

  rmdir(p: string): void {
    const n = this.norm(p);
    if (!this.dirs.has(n)) this.fail('ENOENT', p);
    if (this.readdir(n).length > 0) this.fail('ENOTEMPTY', p);
    this.dirs.delete(n);
  }

  readdir(p: string): string[] {
    const n = this.norm(p);
    if (!this.dirs.has(n)) this.fail('ENOENT', p);
    const children = [...this.files.keys(), ...this.dirs, ...this.sockets, ...this.links.keys()].filter((x) => x !== n && this.p.dirname(x) === n);
    return [...new Set(children.map((x) => this.p.basename(x)))];
  }

  /** Everything, for before/after comparisons. */
  snapshot(): string[] {
    return [
      ...[...this.dirs].map((d) => `dir ${d}`),
      ...[...this.files].map(([f, { mode }]) => `file ${f} ${mode.toString(8)}`),
      ...[...this.sockets].map((s) => `socket ${s}`),
      ...[...this.links].map(([l, t]) => `link ${l} -> ${t}`),
    ].sort();
  }
}

/**
 * The real file system, but only inside `allowed` (folders or files): everything else looks
 * absent. Tests on a temporary home use it so that this machine's own browsers (/usr/bin/chromium),
 * /proc and Snap folders cannot change what the installer and doctor see.
 */
export function jailedFs(allowed: readonly string[]): FsLike {
  const inside = (p: string) => allowed.some((a) => p === a || p.startsWith(`${a}/`));
  // The folders above them exist too (installers walk up to find what to create).
  const above = (p: string) => allowed.some((a) => a.startsWith(p === '/' ? '/' : `${p}/`));
  const refuse = (p: string): never => {
    throw Object.assign(new Error(`ENOENT (outside the test's folders): ${p}`), { code: 'ENOENT' });
  };
  return {
    stat: (p) => (inside(p) || above(p) ? nodeFs.stat(p) : undefined),
    readText: (p) => (inside(p) ? nodeFs.readText(p) : refuse(p)),
    readBytes: (p) => (inside(p) ? nodeFs.readBytes(p) : refuse(p)),
    writeFile: (p, data, mode) => (inside(p) ? nodeFs.writeFile(p, data, mode) : refuse(p)),
    mkdir: (p) => (inside(p) ? nodeFs.mkdir(p) : refuse(p)),
    chmod: (p, mode) => (inside(p) ? nodeFs.chmod(p, mode) : refuse(p)),
    unlink: (p) => (inside(p) ? nodeFs.unlink(p) : refuse(p)),
    rmdir: (p) => (inside(p) ? nodeFs.rmdir(p) : refuse(p)),
    readdir: (p) => (inside(p) ? nodeFs.readdir(p) : refuse(p)),
    readlink: (p) => (inside(p) ? nodeFs.readlink?.(p) : undefined),
  };
}

/** A fake `reg.exe`: keeps values in a map and records every call. */
export class FakeRegistry {
  readonly calls: string[][] = [];
  readonly values = new Map<string, string>();

  readonly run = (command: string, args: readonly string[]): CommandResult => {
    this.calls.push([command, ...args]);
    if (command !== 'reg') return { status: 1, stdout: '', stderr: 'not found' };
    const [verb, key] = args;
    if (key === undefined) return { status: 1, stdout: '', stderr: 'ERROR: Invalid syntax.' };
    switch (verb) {
      case 'add': {
        const d = args.indexOf('/d');
        this.values.set(key.toLowerCase(), args[d + 1] ?? '');
        return { status: 0, stdout: 'The operation completed successfully.\r\n', stderr: '' };
      }
      case 'delete':
        return this.values.delete(key.toLowerCase())
          ? { status: 0, stdout: 'The operation completed successfully.\r\n', stderr: '' }
          : { status: 1, stdout: '', stderr: 'ERROR: The system was unable to find the specified registry key or value.' };
      case 'query': {
        const value = this.values.get(key.toLowerCase());
        if (value === undefined) return { status: 1, stdout: '', stderr: 'ERROR: The system was unable to find the specified registry key or value.' };
        return { status: 0, stdout: `\r\n${key}\r\n    (Default)    REG_SZ    ${value}\r\n\r\n`, stderr: '' };
      }
      default:
        return { status: 1, stdout: '', stderr: 'ERROR: Invalid syntax.' };
    }
  };
}
