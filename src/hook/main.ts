import { runHookCli } from './hook-cli';

/**
 * Entry point of `countersign-hook` (bundled into the package by scripts/build-package.mjs):
 * wires the real process into runHookCli; nothing else lives here.
 */

const code = await runHookCli({ argv: process.argv.slice(2), env: process.env, cwd: process.cwd(), stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });
process.exitCode = code;
// Never hang on a handle left open once the answer is written.
setTimeout(() => process.exit(code), 1000).unref();
