import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

/**
 * What the installer and doctor touch of the machine, as parameters: the file system, a command
 * runner (for `reg` on Windows), the platform, the home folder and the environment. Tests run
 * every OS's install in a temporary folder on Linux by passing their own.
 */

export type Platform = 'linux' | 'darwin' | 'win32';

export interface FileInfo {
  isFile: boolean;
  isDirectory: boolean;
  /** A Unix domain socket (the bridge's agent socket). */
  isSocket?: boolean;
  /** Permission bits (mode & 0o777). Meaningless on Windows. */
  mode: number;
  /** Bytes, for files. */
  size?: number;
}

/** The few synchronous file operations the installer needs. Paths are absolute, in the target OS's syntax. */
export interface FsLike {
  stat(path: string): FileInfo | undefined;
  readText(path: string): string;
  readBytes(path: string): Uint8Array;
  /** Create or replace a file with exactly `mode`. */
  writeFile(path: string, data: string | Uint8Array, mode: number): void;
  /** Create one folder level; the parent exists. */
  mkdir(path: string): void;
  chmod(path: string, mode: number): void;
  /** Remove a file. */
  unlink(path: string): void;
  /** Remove an empty folder. */
  rmdir(path: string): void;
  readdir(path: string): string[];
  /** The target of a symbolic link (also /proc's fd and exe links), or undefined when `path` is none or unreadable. */
  readlink?(path: string): string | undefined;
}

export interface CommandResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a program with arguments, no shell: nothing in a path can become a command. */
export type CommandRunner = (command: string, args: readonly string[]) => CommandResult;

export interface SystemContext {
  platform: Platform;
  homedir: string;
  env: Readonly<Record<string, string | undefined>>;
  fs: FsLike;
  run: CommandRunner;
  /** The absolute node the launcher will exec (process.execPath). */
  execPath: string;
  /** The numeric user id, on Unix: doctor looks for this user's agent sockets with it. */
  uid?: number;
}

export const nodeFs: FsLike = {
  stat(path) {
    try {
      const st = fs.statSync(path);
      return { isFile: st.isFile(), isDirectory: st.isDirectory(), isSocket: st.isSocket(), mode: st.mode & 0o777, size: st.size };
    } catch {
      return undefined;
    }
  },
  readText: (path) => fs.readFileSync(path, 'utf8'),
  readBytes: (path) => fs.readFileSync(path),
  writeFile(path, data, mode) {
    fs.writeFileSync(path, data, { mode });
    // writeFileSync applies the umask and leaves an existing file's mode alone: set it exactly.
    fs.chmodSync(path, mode);
  },
  mkdir: (path) => fs.mkdirSync(path),
  chmod: (path, mode) => fs.chmodSync(path, mode),
  unlink: (path) => fs.unlinkSync(path),
  rmdir: (path) => fs.rmdirSync(path),
  readdir: (path) => fs.readdirSync(path),
  readlink(path) {
    try {
      return fs.readlinkSync(path);
    } catch {
      return undefined;
    }
  },
};

export const nodeRunner: CommandRunner = (command, args) => {
  const result = spawnSync(command, [...args], { encoding: 'utf8', windowsHide: true });
  return { status: result.status, stdout: result.stdout ?? '', stderr: result.error ? String(result.error.message) : (result.stderr ?? '') };
};
