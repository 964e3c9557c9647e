/**
 * `npm run bench`: every benchmark measures itself against a baseline taken in the same run
 * and prints the ratio (and its goal). Nothing here asserts: speed is read, not tested.
 */
import { readdir } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

export interface BenchResult {
  name: string;
  baseline: string;
  ratio: number;
  detail: string;
  goal?: string;
}

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = (await readdir(here)).filter((f) => f.endsWith('.bench.ts')).sort();
let failed = 0;
for (const file of files) {
  if (only.length > 0 && !only.some((o) => file.includes(o))) continue;
  const mod = (await import(pathToFileURL(join(here, file)).href)) as { run(): Promise<BenchResult[]> };
  console.log(`\n# ${file}`);
  try {
    for (const r of await mod.run()) {
      const goal = r.goal ? `  (goal ${r.goal})` : '';
      console.log(`${r.name.padEnd(58)} ${r.ratio.toFixed(2).padStart(7)}x vs ${r.baseline}${goal}\n    ${r.detail}`);
    }
  } catch (error) {
    failed++;
    console.error(`${file} failed:`, error);
  }
}
if (failed) process.exitCode = 1;
