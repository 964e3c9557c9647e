import { writeFile } from 'node:fs/promises';
import { runChaos } from './chaos-runner';

/**
 * One chaos worker process: `node --import tsx chaos-worker.ts '<json options>' <report file>`.
 * Runs its slice of the seed's runs (chaos-runner.ts) and writes the report as JSON.
 */
const [options, out] = process.argv.slice(2);
if (options === undefined || out === undefined) {
  console.error('usage: chaos-worker.ts <options json> <report file>');
  process.exit(2);
}
const report = await runChaos(JSON.parse(options) as Parameters<typeof runChaos>[0]);
await writeFile(out, JSON.stringify(report));
process.exit(0);
