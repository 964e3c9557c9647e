import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { isCountersignError } from '../protocol/errors';
import { PACKAGE_VERSION } from '../protocol/package-version';
import { STATUS_LABEL, formatReport } from './report-text';
import { formatJunit } from './report-junit';
import { runConformance, type ConformanceReport } from './run-conformance';
import { parseScenario } from './scenario';

/**
 * `countersign conformance --company <origin> --scenario <file>`: the kit's command line
 * (docs/conformance.md). Exit code 0 when no sentence breaks, 1 when one does, 2 when the kit
 * could not run (bad arguments, a bad scenario, a kit error).
 */

export const USAGE = `countersign: tests a Company's Poppy operations v2 (API, MCP, conversations) from outside,
sentence by sentence of the spec. It performs real actions: run it against a test Company.

Usage:
  countersign conformance --company <origin> --scenario <file> [options]

Options:
  --company <origin>        the Company, e.g. http://127.0.0.1:8787
  --scenario <file>         how to reach it and make operations (JSON; see docs/conformance.md)
  --json                    print the report as JSON instead of text
  --junit <file>            also write the report as JUnit XML
  --only <check id>         run only this check (repeatable)
  --i-own-this-company      needed for an origin that is not this machine
  --quiet                   no progress lines on stderr
  --help, --version`;

export interface CliIo {
  argv: readonly string[];
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

type Parsed = { help: true } | { version: true } | { company: string; scenario: string; json: boolean; junit?: string; only?: string[]; owns: boolean; quiet: boolean };

function parse(argv: readonly string[]): Parsed {
  const [command, ...rest] = argv;
  if (command === '--help' || command === '-h' || command === undefined) return { help: true };
  if (command === '--version') return { version: true };
  if (command !== 'conformance') throw new UsageError(`unknown command ${command}`);
  const { values } = parseArgs({
    args: [...rest],
    strict: true,
    allowPositionals: false,
    options: {
      company: { type: 'string' },
      scenario: { type: 'string' },
      json: { type: 'boolean', default: false },
      junit: { type: 'string' },
      only: { type: 'string', multiple: true },
      'i-own-this-company': { type: 'boolean', default: false },
      quiet: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return { help: true };
  if (values.company === undefined) throw new UsageError('--company: expected an origin, got nothing');
  if (values.scenario === undefined) throw new UsageError('--scenario: expected a file, got nothing');
  return {
    company: values.company,
    scenario: values.scenario,
    json: values.json,
    owns: values['i-own-this-company'],
    quiet: values.quiet,
    ...(values.junit === undefined ? {} : { junit: values.junit }),
    ...(values.only === undefined ? {} : { only: values.only }),
  };
}

class UsageError extends Error {}

async function run(args: Exclude<Parsed, { help: true } | { version: true }>, io: CliIo): Promise<ConformanceReport> {
  let text: string;
  try {
    text = await readFile(args.scenario, 'utf8');
  } catch (cause) {
    throw new UsageError(`--scenario: cannot read ${args.scenario} (${(cause as NodeJS.ErrnoException).code ?? String(cause)})`);
  }
  const scenario = parseScenario(text, args.scenario);
  return runConformance({
    company: args.company,
    scenario,
    ownsCompany: args.owns,
    ...(args.only === undefined ? {} : { only: args.only }),
    onProgress: ({ index, total, check, result }) => {
      if (args.quiet) return;
      const where = `[${String(index + 1).padStart(String(total).length)}/${total}] ${check.id}`;
      io.stderr.write(result === undefined ? `${where} …\n` : `${where}: ${STATUS_LABEL[result.status]} (${result.ms} ms)\n`);
    },
  });
}

/** Runs the command; returns the exit code. */
export async function runConformanceCli(io: CliIo): Promise<number> {
  try {
    const args = parse(io.argv);
    if ('help' in args) {
      io.stdout.write(`${USAGE}\n`);
      return 0;
    }
    if ('version' in args) {
      io.stdout.write(`countersign ${PACKAGE_VERSION}\n`);
      return 0;
    }
    const report = await run(args, io);
    io.stdout.write(args.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
    if (args.junit !== undefined) await writeFile(args.junit, formatJunit(report));
    if (report.summary.breaks > 0) return 1;
    return report.summary.error > 0 ? 2 : 0;
  } catch (cause) {
    if (cause instanceof UsageError || (cause instanceof Error && 'code' in cause && String(cause.code).startsWith('ERR_PARSE_ARGS'))) {
      io.stderr.write(`countersign: ${cause.message}\n\n${USAGE}\n`);
      return 2;
    }
    if (isCountersignError(cause)) {
      io.stderr.write(`countersign: ${cause.code}: ${cause.message}\n`);
      return 2;
    }
    throw cause;
  }
}
