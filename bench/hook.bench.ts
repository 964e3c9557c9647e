/**
 * countersign-hook benchmark (README, "Benchmarks"): what the hook adds to a coding agent's tool
 * call that the policy allows (a `Read` inside the project, the most frequent call), measured as
 * the CLI pays it: spawn the hook, write the hook input on stdin, read its one JSON answer.
 * Baseline, in the same run and interleaved: the smallest hook there is, a Node process that
 * reads its stdin and answers `{}`. The difference is the hook's own work (loading its bundle,
 * parsing, policy). Interleaved with both, the same call with the hook's code cache removed first:
 * what compiling from the cache saves each call.
 *
 * Two more rows run the real Claude Code CLI (the version package.json pins), headless and offline
 * against the scripted model of the real-CLI tests (test/coding-agents/), for a run that makes one
 * Bash call, interleaved: with no hook (the CLI's own permission rule allows the call: the
 * baseline), with countersign-hook and a policy that allows the call, and with countersign-hook
 * asking the real bridge and extension services (test/agent/harness.ts), where a scripted person
 * approves as soon as it sees the prompt stored (it looks every 25 ms). The last is the hook's
 * cost of a call that asks, without the person's reading and clicking. Nothing is asserted.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Companion } from '../src/agent/companion';
import { FakeExtension } from '../test/agent/harness';
import { install, runAgent, timesRan, workspace, type Workspace } from '../test/coding-agents/support/clients';
import { person } from '../test/coding-agents/support/coding-agent-suite';
import { ModelServer, type ScriptedCall } from '../test/coding-agents/support/model-server';
import { removeCodeCaches } from './code-caches';
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

/** The one tool call of each CLI run: a Bash command whose marker line says it ran. */
const CALL: ScriptedCall[] = [{ name: 'Bash', input: { command: 'echo ran >> bash.marker', description: 'leave a marker' } }];
const RUNS = 5;

type Setup = 'none' | 'allowed' | 'asked';

/** One workspace per setup; the two with the hook share one config folder, paired once. */
async function cliWorkspace(setup: Setup, model: ModelServer, configDir: string): Promise<Workspace> {
  const ws = await workspace('claude-code', model, configDir);
  if (setup === 'none') {
    // Without a hook, headless Claude Code refuses Bash unless its own settings allow it.
    const settings = join(ws.home, '.claude', 'settings.json');
    await writeFile(settings, JSON.stringify({ ...JSON.parse(await readFile(settings, 'utf8')), permissions: { allow: ['Bash'] } }));
    return ws;
  }
  const installed = await install(HOOK, ws);
  if (installed.code !== 0) throw new Error(`countersign-hook install failed: ${installed.stderr}`);
  return ws;
}

/** One `claude -p` run, spawn to exit, after its policy file is in place; fails unless the Bash call ran once more. */
async function timeCli(ws: Workspace, model: ModelServer, ext: FakeExtension, setup: Setup): Promise<{ ms: number; prompts: number }> {
  const policy = join(ws.configDir, 'policy.json');
  if (setup === 'allowed') await writeFile(policy, JSON.stringify({ allow: ['Bash'] }));
  else await rm(policy, { force: true });
  const marker = join(ws.project, 'bash.marker');
  const before = await timesRan(marker);
  const asked = person(ext, 'approve');
  const t0 = performance.now();
  const result = await runAgent(ws, model, CALL, { XDG_RUNTIME_DIR: ext.runtimeDir });
  const ms = performance.now() - t0;
  const prompts = (await asked.stop()).length;
  if ((await timesRan(marker)) !== before + 1) throw new Error(`claude (${setup}) did not run the call once: ${result.stdout}${result.stderr}`);
  return { ms, prompts };
}

/** The real CLI's run with no hook, with the hook allowing by policy, with the hook asking and approved at once. */
async function cliRows(): Promise<BenchResult[]> {
  const [model, ext] = await Promise.all([ModelServer.start(), FakeExtension.start()]);
  try {
    const configDir = await mkdtemp(join(tmpdir(), 'cs-bench-hook-config-'));
    const companion = await Companion.connect({ agentName: 'countersign-hook', configDir, socketPath: ext.socketPath });
    await ext.pairConfirmed(companion);
    await companion.close();
    const setups: Setup[] = ['none', 'allowed', 'asked'];
    const spaces = await Promise.all(setups.map((s) => cliWorkspace(s, model, configDir)));
    const times: Record<Setup, number[]> = { none: [], allowed: [], asked: [] };
    const prompts: Record<Setup, number> = { none: 0, allowed: 0, asked: 0 };
    for (let i = 0; i <= RUNS; i++) {
      for (const [k, setup] of setups.entries()) {
        const t = await timeCli(spaces[k]!, model, ext, setup);
        if (i === 0) continue; // warm-up
        times[setup].push(t.ms);
        prompts[setup] += t.prompts;
      }
    }
    if (prompts.allowed !== 0 || prompts.asked !== RUNS) throw new Error(`prompts: ${prompts.allowed} allowed, ${prompts.asked} asked`);
    await Promise.all([configDir, ...spaces.map((ws) => join(ws.home, '..'))].map((d) => rm(d, { recursive: true, force: true })));
    const base = quantile(times.none, 0.5);
    const row = (setup: Setup, name: string): BenchResult => {
      const p50 = quantile(times[setup], 0.5);
      return {
        name,
        baseline: 'the same claude -p run with no hook',
        ratio: p50 / base,
        goal: 'printed',
        detail: `p50 ${p50.toFixed(0)} ms vs ${base.toFixed(0)} ms (+${(p50 - base).toFixed(0)} ms); one Bash call per run, ${RUNS} runs each after a warm-up, interleaved${setup === 'asked' ? '; includes the scripted approver\'s ≤ 25 ms poll' : ''}`,
      };
    };
    return [row('allowed', 'claude -p + countersign-hook: policy-allowed call p50'), row('asked', 'claude -p + countersign-hook: asked, approved at once p50')];
  } finally {
    await Promise.all([model.close(), ext.dispose()]);
  }
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
  const withoutCache: number[] = [];
  for (let block = 0; block < 10; block++) {
    for (let i = 0; i < 5; i++) viaHook.push(await timeOnce(hook, input, project));
    for (let i = 0; i < 5; i++) viaMinimal.push(await timeOnce(minimal, input, project));
    for (let i = 0; i < 5; i++) {
      removeCodeCaches(HOOK);
      withoutCache.push(await timeOnce(hook, input, project));
    }
  }
  // Leave it as a coding agent's later calls find it.
  await timeOnce(hook, input, project);
  const p50 = [quantile(viaHook, 0.5), quantile(viaMinimal, 0.5)] as const;
  const p90 = [quantile(viaHook, 0.9), quantile(viaMinimal, 0.9)] as const;
  const uncached = quantile(withoutCache, 0.5);
  return [
    {
      name: 'countersign-hook: policy-allowed call, spawn to answer p50',
      baseline: 'a minimal Node hook answering {}',
      ratio: p50[0] / p50[1],
      goal: '≤ 3x',
      detail: `p50 ${p50[0].toFixed(0)} ms vs ${p50[1].toFixed(0)} ms; p90 ${p90[0].toFixed(0)} ms vs ${p90[1].toFixed(0)} ms; 50 runs each, interleaved in blocks of 5`,
    },
    {
      name: 'countersign-hook: the same call from its code cache',
      baseline: 'the same with the cache removed before each run',
      ratio: p50[0] / uncached,
      goal: 'printed',
      detail: `p50 ${p50[0].toFixed(0)} ms vs ${uncached.toFixed(0)} ms; without the cache the hook compiles its bundle, and writes the cache as it exits (its first call after an install or a new node); the hook's own time over the minimal hook: ${(p50[0] - p50[1]).toFixed(0)} ms vs ${(uncached - p50[1]).toFixed(0)} ms`,
    },
    ...(await cliRows()),
  ];
}
