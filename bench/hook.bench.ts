/**
 * countersign-hook benchmark (README, "Benchmarks"): what the hook adds to a coding agent's tool
 * call that the policy allows (a `Read` inside the project, the most frequent call), measured as
 * the CLI pays it: spawn the hook, write the hook input on stdin, read its one JSON answer.
 * Baseline, in the same run and interleaved: the smallest hook there is, a Node process that
 * reads its stdin and answers `{}`. The difference is the hook's own work (loading its bundle,
 * parsing, policy). A call that asks is not timed: the person's click dominates it.
 * Nothing is asserted.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { BenchResult } from './run';

/** The built hook (npm run bench builds it); COUNTERSIGN_HOOK_BENCH_BIN measures another bundle. */
const HOOK = resolve(process.env['COUNTERSIGN_HOOK_BENCH_BIN'] ?? 'dist/countersign-hook.mjs');
const MINIMAL_HOOK = "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>process.stdout.write('{}\\n'))";

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};

function timeOnce(args: string[], input: string, cwd: string): Promise<number> {
  return new Promise((done, fail) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { cwd, env: { HOME: cwd, PATH: process.env['PATH'] ?? '/usr/bin:/bin' }, stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.on('error', fail);
    child.on('close', () => (out.includes('{') ? done(performance.now() - t0) : fail(new Error(`no answer: ${out}`))));
    child.stdin.end(input);
  });
}

export async function run(): Promise<BenchResult[]> {
  const project = mkdtempSync(join(tmpdir(), 'cs-bench-hook-'));
  const input = JSON.stringify({ session_id: 's', cwd: project, hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: { file_path: join(project, 'README.md') }, tool_use_id: 't' });
  const hook = [HOOK, '--agent', 'claude-code', '--config-dir', join(project, 'config')];
  const minimal = ['-e', MINIMAL_HOOK];
  for (let i = 0; i < 5; i++) {
    await timeOnce(hook, input, project);
    await timeOnce(minimal, input, project);
  }
  const viaHook: number[] = [];
  const viaMinimal: number[] = [];
  for (let block = 0; block < 10; block++) {
    for (let i = 0; i < 5; i++) viaHook.push(await timeOnce(hook, input, project));
    for (let i = 0; i < 5; i++) viaMinimal.push(await timeOnce(minimal, input, project));
  }
  const p50 = [quantile(viaHook, 0.5), quantile(viaMinimal, 0.5)] as const;
  const p90 = [quantile(viaHook, 0.9), quantile(viaMinimal, 0.9)] as const;
  return [
    {
      name: 'countersign-hook: policy-allowed call, spawn to answer p50',
      baseline: 'a minimal Node hook answering {}',
      ratio: p50[0] / p50[1],
      goal: '≤ 3x',
      detail: `p50 ${p50[0].toFixed(0)} ms vs ${p50[1].toFixed(0)} ms; p90 ${p90[0].toFixed(0)} ms vs ${p90[1].toFixed(0)} ms; 50 runs each, interleaved in blocks of 5`,
    },
  ];
}
