import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RUNS, DEFAULT_SEED, type ChaosReport, type RunRecord } from './support/chaos-runner';

/**
 * Chaos: 1,000 randomised runs with dropped requests, dropped responses, timeouts and
 * 503s between the agent and the Company, and the Company's own faults (support/chaos-runner.ts
 * says what one run is). Two worker processes run half each, so both cores work; this test
 * checks what every run saw:
 *
 * - every approved operation is performed exactly once (`company.state.performed`); a declined
 *   one never; one approved and withdrawn at once is performed once or never, as its end says;
 * - no second prompt while an outcome is unknown (section 7): no prompt appeared while another
 *   revision of its operation was approved, sent or unknown, and the extension never had to hold
 *   a request for one;
 * - one revision, one prompt: an operation's prompts = 1 + the new revisions it was answered with.
 *
 * CHAOS_SEED=<n> and CHAOS_RUNS=<n> change the set; CHAOS_ONLY=<run> replays one run with a trace.
 */

const SEED = Number(process.env['CHAOS_SEED'] ?? DEFAULT_SEED);
const RUNS = Number(process.env['CHAOS_RUNS'] ?? DEFAULT_RUNS);
const ONLY = process.env['CHAOS_ONLY'] === undefined ? undefined : Number(process.env['CHAOS_ONLY']);
const WORKER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'support', 'chaos-worker.ts');
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

async function worker(from: number, to: number, out: string): Promise<ChaosReport> {
  const options = JSON.stringify({ seed: SEED, runs: RUNS, from, to, ...(ONLY === undefined ? {} : { only: ONLY }) });
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER, options, out], { cwd: ROOT, stdio: ['ignore', 'inherit', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
    if (ONLY !== undefined) process.stderr.write(chunk);
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`chaos worker ${from}-${to} exited ${code}: ${stderr.slice(-4000)}`);
  return JSON.parse(await readFile(out, 'utf8')) as ChaosReport;
}

function where(run: RunRecord): string {
  const p = run.plan;
  return `run ${p.run} ${p.iface} ${p.action} ${p.choice} → ${run.statuses.join(',')} [${run.log.join('; ')}]`;
}

describe(`chaos: ${RUNS} randomised runs (seed ${SEED})`, () => {
  it('every approved operation is performed exactly once, and no second prompt while an outcome is unknown (7)', { timeout: 150_000 }, async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'chaos-'));
    try {
      const half = Math.ceil(RUNS / 2);
      const started = Date.now();
      const reports = await Promise.all([worker(0, half, path.join(dir, 'a.json')), worker(half, RUNS, path.join(dir, 'b.json'))]);
      const elapsed = Date.now() - started;
      const runs = reports.flatMap((r) => r.runs);
      const prompts = reports.flatMap((r) => r.prompts);

      expect(reports.flatMap((r) => r.failures)).toEqual([]);
      expect(reports.flatMap((r) => r.companyErrors)).toEqual([]);
      expect(runs).toHaveLength(ONLY === undefined ? RUNS : 1);

      const violations: string[] = [];
      const counts: Record<string, number> = {};
      for (const run of runs) {
        const final = run.statuses.at(-1) as string;
        counts[final] = (counts[final] ?? 0) + 1;
        const performed = run.performed.reduce((sum, [, n]) => sum + n, 0);
        for (const [id, n] of run.performed) if (n !== 1) violations.push(`${where(run)}: ${id} performed ${n} times`);
        switch (run.plan.choice) {
          case 'approve':
            if (final !== 'performed' || performed !== 1) violations.push(`${where(run)}: approved, ended ${final}, performed ${performed} times`);
            break;
          case 'decline':
            if (final !== 'declined' || performed !== 0) violations.push(`${where(run)}: declined, ended ${final}, performed ${performed} times`);
            break;
          case 'withdraw':
            // Withdrawn right after approving: it wins unless the agent had already marked it sent.
            if (!((final === 'withdrawn' && performed === 0) || (final === 'performed' && performed === 1))) violations.push(`${where(run)}: withdrawn, ended ${final}, performed ${performed} times`);
            break;
        }
        const mine = prompts.filter((p) => run.operationIds.includes(p.operationId));
        const newRevisions = run.reported.filter((r) => r.outcome === 'new_revision').length;
        if (mine.length !== 1 + newRevisions) violations.push(`${where(run)}: ${mine.length} prompts for ${newRevisions} new revisions`);
        for (const p of mine) if (p.openSiblings.length > 0) violations.push(`${where(run)}: prompt for ${p.revision} while ${p.openSiblings.join(',')} was open`);
      }
      console.info(`chaos: ${runs.length} runs in ${elapsed} ms (workers ${reports.map((r) => r.elapsedMs).join(' + ')} ms), seed ${SEED}: ${JSON.stringify(counts)}; ${prompts.length} prompts`);
      expect(violations).toEqual([]);
      expect(reports.reduce((sum, r) => sum + r.held, 0)).toBe(0);
      if (ONLY === undefined && RUNS >= 200) {
        // The set exercises what it is meant to: retries after faults, new revisions, every interface and answer.
        expect(counts['performed']).toBeGreaterThan(RUNS * 0.8);
        expect(runs.filter((r) => r.reported.some((o) => o.outcome === 'new_revision')).length).toBeGreaterThan(RUNS * 0.03);
        expect(runs.filter((r) => r.statuses.includes('unknown')).length).toBeGreaterThan(0);
        expect(runs.filter((r) => r.log.length > 0).length).toBeGreaterThan(RUNS * 0.4);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
