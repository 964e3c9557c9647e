import { createCompany } from './server';

/**
 * `countersign-company [--port N] [--host H]`: run the reference Company until interrupted. The
 * first line on stdout is its base URL (`http://127.0.0.1:PORT`), for scripts to read; `--port 0`
 * (the default) takes any free port. Run it with `npm run company -- --port 8787`.
 */

const USAGE = 'usage: countersign-company [--port N] [--host H]   (N = 0 picks any free port)';

function parseArgs(argv: readonly string[]): { port: number; host: string } | string {
  let port = 0;
  let host = '127.0.0.1';
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [name, inline] = arg?.startsWith('--') && arg.includes('=') ? (arg.split('=', 2) as [string, string]) : [arg, undefined];
    const value = (): string | undefined => inline ?? argv[++i];
    if (name === '--port') {
      const text = value();
      const n = Number(text);
      if (text === undefined || !/^[0-9]+$/.test(text) || n > 65535) return `--port: expected 0-65535, got ${text ?? 'nothing'}`;
      port = n;
    } else if (name === '--host') {
      const text = value();
      if (text === undefined || text === '') return '--host: expected a host name or address';
      host = text;
    } else if (name === '--help' || name === '-h') {
      return USAGE;
    } else {
      return `unknown argument ${arg ?? ''}\n${USAGE}`;
    }
  }
  return { port, host };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (typeof args === 'string') {
    process.stderr.write(`${args}\n`);
    process.exitCode = args === USAGE ? 0 : 2;
    return;
  }
  const company = await createCompany({ port: args.port, host: args.host });
  process.stdout.write(`${company.url}\n`);
  process.stderr.write(`Stormline Outfitters (reference Company): poppy.json at ${company.url}/.well-known/poppy.json, MCP at ${company.url}/mcp\n`);
  const stop = (): void => {
    void company.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((cause: unknown) => {
  process.stderr.write(`countersign-company: ${cause instanceof Error ? cause.message : String(cause)}\n`);
  process.exit(1);
});
