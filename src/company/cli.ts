import { SPEC_BREAKS, isSpecBreak, type SpecBreak } from './faults';
import { createCompany } from './server';

/**
 * `countersign-company [--port N] [--host H] [--testing] [--break NAME]...`: run the reference
 * Company until interrupted. The first line on stdout is its base URL (`http://127.0.0.1:PORT`),
 * for scripts to read; `--port 0` (the default) takes any free port. Run it with
 * `npm run company -- --port 8787`.
 *
 * - `--testing`: testing mode, the `/testing/*` routes (testing-routes.ts).
 * - `--break NAME`, repeatable: turn on a spec-breaking switch (faults.ts, SPEC_BREAKS), to show
 *   that a conformance kit reports the one sentence it breaks. It implies nothing else: a kit
 *   that needs the testing routes also passes `--testing`.
 */

const USAGE = [
  'usage: countersign-company [--port N] [--host H] [--testing] [--break NAME]...',
  '  --port N      port to listen on; 0 (the default) picks any free port',
  '  --host H      address to listen on (default 127.0.0.1)',
  '  --testing     testing mode: POST /testing/orders, /testing/clock, /testing/perform-delay',
  '  --break NAME  break one sentence of the operations extension on purpose (repeatable); NAME is one of:',
  ...SPEC_BREAKS.map((name) => `                  ${name}`),
].join('\n');

interface CliOptions {
  port: number;
  host: string;
  testing: boolean;
  breaks: SpecBreak[];
}

function parseArgs(argv: readonly string[]): CliOptions | string {
  const options: CliOptions = { port: 0, host: '127.0.0.1', testing: false, breaks: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [name, inline] = arg?.startsWith('--') && arg.includes('=') ? (arg.split('=', 2) as [string, string]) : [arg, undefined];
    const value = (): string | undefined => inline ?? argv[++i];
    if (name === '--port') {
      const text = value();
      const n = Number(text);
      if (text === undefined || !/^[0-9]+$/.test(text) || n > 65535) return `--port: expected 0-65535, got ${text ?? 'nothing'}`;
      options.port = n;
    } else if (name === '--host') {
      const text = value();
      if (text === undefined || text === '') return '--host: expected a host name or address';
      options.host = text;
    } else if (name === '--testing') {
      options.testing = true;
    } else if (name === '--break') {
      const text = value();
      if (text === undefined || !isSpecBreak(text)) return `--break: expected one of the names below, got ${text ?? 'nothing'}\n${USAGE}`;
      options.breaks.push(text);
    } else if (name === '--help' || name === '-h') {
      return USAGE;
    } else {
      return `unknown argument ${arg ?? ''}\n${USAGE}`;
    }
  }
  return options;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (typeof args === 'string') {
    process.stderr.write(`${args}\n`);
    process.exitCode = args === USAGE ? 0 : 2;
    return;
  }
  const company = await createCompany({ port: args.port, host: args.host, testing: args.testing });
  for (const name of args.breaks) company.faults.breaks.add(name);
  process.stdout.write(`${company.url}\n`);
  process.stderr.write(`Stormline Outfitters (reference Company): poppy.json at ${company.url}/.well-known/poppy.json, MCP at ${company.url}/mcp\n`);
  if (args.testing) process.stderr.write(`testing mode: ${company.url}/testing/orders, /testing/clock, /testing/perform-delay\n`);
  if (args.breaks.length > 0) process.stderr.write(`NOT CONFORMANT on purpose, breaking: ${args.breaks.join(', ')}\n`);
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
