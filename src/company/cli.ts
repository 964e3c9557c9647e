import { COMPANY_USAGE, parseCompanyArgs } from './company-args';
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

async function main(): Promise<void> {
  const args = parseCompanyArgs(process.argv.slice(2));
  if ('help' in args) {
    process.stderr.write(`${COMPANY_USAGE}\n`);
    return;
  }
  if ('error' in args) {
    process.stderr.write(`${args.error}\n`);
    process.exitCode = 2;
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
