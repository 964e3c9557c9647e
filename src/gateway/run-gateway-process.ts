import { runGatewayCli } from './gateway-cli';

/**
 * The real process wired into runGatewayCli; nothing else lives here. Started by
 * src/gateway/main.ts from source, and by src/gateway/bundle-main.ts in the package's bundle.
 */
export async function runGatewayProcess(): Promise<void> {
  const stopped = new Promise<void>((resolve) => {
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.once(signal, () => resolve());
    // The client closing our stdin is the usual way an MCP stdio server is told to stop.
    process.stdin.once('end', () => resolve());
  });
  const code = await runGatewayCli({ argv: process.argv.slice(2), env: process.env, stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, stopped });
  process.exitCode = code;
  // Never hang on a handle an upstream left open.
  setTimeout(() => process.exit(code), 2000).unref();
}
