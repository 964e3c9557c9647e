import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { accountName } from '../protocol/bridge';
import { runCli } from './cli';
import { nodeFs, nodeRunner, type Platform } from './system';

/**
 * The real process wired into runCli: `self` is the file node was asked to run (the bundle, or
 * src/bridge/main.ts under tsx). Nothing else lives here.
 */
export async function runBridgeProcess(self: string): Promise<void> {
  // Bundled, we are the bundle. From source (tsx), the bundle is the build output, if it exists.
  const built = path.resolve(path.dirname(self), '..', '..', 'dist', 'countersign-bridge.mjs');
  const bundlePath = self.endsWith('.mjs') ? self : existsSync(built) ? built : undefined;

  process.on('uncaughtException', (error) => {
    // A bug, not bad input (input never throws): say so on stderr and exit, so that the browser
    // reports the port as closed and the extension starts a fresh bridge.
    process.stderr.write(`countersign-bridge error: ${error.stack ?? error.message}\n`);
    process.exit(70);
  });

  const code = await runCli({
    argv: process.argv.slice(2),
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    platform: platform(),
    homedir: os.homedir(),
    uid: typeof process.getuid === 'function' ? process.getuid() : 0,
    username: accountName(os.userInfo, process.env),
    cwd: process.cwd(),
    execPath: process.execPath,
    bundlePath,
    selfCommand: [process.execPath, ...process.execArgv, self],
    fs: nodeFs,
    run: nodeRunner,
    onSignal: (stop) => {
      for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.once(signal, stop);
    },
  });
  process.exitCode = code;
  // Let stdout drain (pipes are asynchronous on macOS), but never hang on a handle left open.
  setTimeout(() => process.exit(code), 2000).unref();
}

function platform(): Platform {
  if (process.platform === 'win32' || process.platform === 'darwin') return process.platform;
  // Every other Unix keeps its manifests where Linux does (the browsers' own rule).
  return 'linux';
}
