import path from 'node:path';
import type { CommandResult, FileInfo, FsLike } from '../../src/bridge/system';

/**
 * An in-memory file system with Windows path syntax, so the Windows installer (C:\ paths,
 * .bat launcher, manifests under %LOCALAPPDATA%) runs on Linux. Strict like a real one: a
 * parent must exist, a folder must be empty to be removed.
 */
export class MemoryFs implements FsLike {
  readonly files = new Map<string, { data: Uint8Array; mode: number }>();
  readonly dirs = new Set<string>();
  private readonly p = path.win32;

  constructor(roots: string[] = ['C:\\']) {
    for (const r of roots) this.dirs.add(r);
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
    if (f) return { isFile: true, isDirectory: false, mode: f.mode };
    if (this.dirs.has(n)) return { isFile: false, isDirectory: true, mode: 0o755 };
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
    if (!this.files.delete(this.norm(p))) this.fail('ENOENT', p);
  }

  rmdir(p: string): void {
    const n = this.norm(p);
    if (!this.dirs.has(n)) this.fail('ENOENT', p);
    if (this.readdir(n).length > 0) this.fail('ENOTEMPTY', p);
    this.dirs.delete(n);
  }

  readdir(p: string): string[] {
    const n = this.norm(p);
    const children = [...this.files.keys(), ...this.dirs].filter((x) => x !== n && this.p.dirname(x) === n);
    return children.map((x) => this.p.basename(x));
  }

  /** Everything, for before/after comparisons. */
  snapshot(): string[] {
    return [...[...this.dirs].map((d) => `dir ${d}`), ...[...this.files.keys()].map((f) => `file ${f}`)].sort();
  }
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
