import { parseArgs } from 'node:util';
import { SPEC_BREAKS, isSpecBreak, type SpecBreak } from './faults';

/**
 * The command line of `countersign-company [--port N] [--host H] [--testing] [--break NAME]...`
 * (cli.ts), through `node:util` parseArgs like the other commands of the package, so `--x=y`
 * and `--x y` mean the same everywhere and a value may itself hold "=".
 */

export const COMPANY_USAGE = [
  'usage: countersign-company [--port N] [--host H] [--testing] [--break NAME]...',
  '  --port N      port to listen on; 0 (the default) picks any free port',
  '  --host H      address to listen on (default 127.0.0.1)',
  '  --testing     testing mode: POST /testing/orders, /testing/clock, /testing/perform-delay',
  '  --break NAME  break one sentence of the operations extension on purpose (repeatable); NAME is one of:',
  ...SPEC_BREAKS.map((name) => `                  ${name}`),
].join('\n');

export interface CompanyOptions {
  port: number;
  host: string;
  testing: boolean;
  breaks: SpecBreak[];
}

/** The options, `{ help: true }` for --help, or the message that says what is wrong. */
export function parseCompanyArgs(argv: readonly string[]): CompanyOptions | { help: true } | { error: string } {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        testing: { type: 'boolean' },
        break: { type: 'string', multiple: true },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (cause) {
    return { error: `${cause instanceof Error ? cause.message : String(cause)}\n${COMPANY_USAGE}` };
  }
  if (values.help === true) return { help: true };
  const options: CompanyOptions = { port: 0, host: '127.0.0.1', testing: values.testing === true, breaks: [] };
  if (values.port !== undefined) {
    const n = Number(values.port);
    if (!/^[0-9]+$/.test(values.port) || n > 65535) return { error: `--port: expected 0-65535, got ${values.port}` };
    options.port = n;
  }
  if (values.host !== undefined) {
    if (values.host === '') return { error: '--host: expected a host name or address' };
    options.host = values.host;
  }
  for (const name of values.break ?? []) {
    if (!isSpecBreak(name)) return { error: `--break: expected one of the names below, got ${name}\n${COMPANY_USAGE}` };
    options.breaks.push(name);
  }
  return options;
}
