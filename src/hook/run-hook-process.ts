import { runHookCli } from './hook-cli';

/**
 * The real process wired into runHookCli; nothing else lives here. Started by src/hook/main.ts
 * from source, and by src/hook/bundle-main.ts in the package's bundle.
 */
export async function runHookProcess(): Promise<void> {
  const code = await runHookCli({ argv: process.argv.slice(2), env: process.env, cwd: process.cwd(), stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });
  // Exit as soon as the answer is written: the CLI waits for this process before it runs the call,
  // and an open handle (stdin on a terminal, a socket being closed) must not keep it waiting.
  process.stdout.write('', () => process.exit(code));
}
