/**
 * The approval queue under load, in Debian Chromium with the real extension, bridge and SDK
 * (src/extension/approval-queue.ts, src/extension/store.ts). Three measurements, each against a
 * baseline taken in the same browser in the same run:
 * - intake: 20 paired agents ask 50 approvals each at once; how long until each ask past the
 *   limit of 20 hears ERR_THROTTLED (p50, p99), against one refused ask with nothing else going
 *   on (goal: p99 ≤ 1 s); and until the 400 that are kept all wait in the store;
 * - re-attach: the bridge is killed with 50 approvals waiting; the agents connect to the new
 *   bridge and ask again; how long until all 50 show their agent connected again, against the
 *   same 50 asked the first time (goal about 200 ms);
 * - Decline all of 155 waiting, until every agent holds its decline, per item against Decline all
 *   of 10 (goal: 1.6–2.4 s or better for the 155).
 * Nothing is asserted. Run alone with `npm run bench -- queue`.
 */
import type { Page } from '@playwright/test';
import { Stack, jacketOperation, pageMessage, STORMLINE, EXCHANGE_REQUEST } from '../test/e2e/support/stack';
import { isCountersignError } from '../src/protocol/errors';
import type { ApprovalResult, Companion } from '../src/agent/index.ts';
import { formatMs as fmt, quantile } from './quantile';
import type { BenchResult } from './run';

const AGENTS = 20;
const ASKS = 50;
const LIMIT = 20;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let opCounter = 0;

type Operation = ReturnType<typeof jacketOperation>;
interface Waiting {
  key: string;
  state: string;
  agentConnected: boolean;
  operation: { operation_id: string };
}

const newOperation = (): Operation => jacketOperation('r1', 30 * 60_000, { operation_id: `bench_q_${++opCounter}` });

function ask(agent: Companion, operation: Operation): Promise<ApprovalResult> {
  const answer = agent.requestApproval({ company: STORMLINE, operation, request: EXCHANGE_REQUEST, session: { kind: 'this_session' } });
  // A refusal or an unavailable bridge is a result here, read by the caller; never an unhandled rejection.
  answer.catch(() => undefined);
  return answer;
}

/**
 * Stamps the moment each of `answers` is refused with ERR_THROTTLED; `refused(n)` resolves once
 * `n` have been. An ask that is kept waits for the person, so it never settles here.
 */
function refusals(answers: Array<Promise<unknown>>, t0: number): { times: number[]; refusedIndexes: Set<number>; refused(n: number): Promise<void> } {
  const times: number[] = [];
  const refusedIndexes = new Set<number>();
  let wake: () => void = () => undefined;
  for (const [i, answer] of answers.entries()) {
    answer.catch((error: unknown) => {
      if (!isCountersignError(error, 'ERR_THROTTLED')) return;
      times.push(performance.now() - t0);
      refusedIndexes.add(i);
      wake();
    });
  }
  const refused = async (n: number) => {
    const deadline = performance.now() + 60_000;
    while (times.length < n) {
      if (performance.now() > deadline) throw new Error(`${times.length} of ${n} asks past the limit heard ERR_THROTTLED within 60 s`);
      await new Promise<void>((r) => {
        wake = r;
        setTimeout(r, 100);
      });
    }
  };
  return { times, refusedIndexes, refused };
}

/**
 * How many approvals wait now (and of `ids`, how many with their agent connected), counted in the
 * page: only two numbers cross to the bench, not the whole snapshot of a long queue, whose
 * serializing would compete with the work being timed.
 */
function waiting(page: Page, ids: ReadonlySet<string> = new Set()): Promise<{ pending: number; connected: number }> {
  return page.evaluate(async (wanted) => {
    const runtime = (globalThis as unknown as { chrome: { runtime: { sendMessage(m: unknown): Promise<{ active: Waiting[] }> } } }).chrome.runtime;
    const snap = await runtime.sendMessage({ type: 'countersign/snapshot' });
    const pending = snap.active.filter((v) => v.state === 'pending');
    return { pending: pending.length, connected: pending.filter((v) => v.agentConnected && wanted.includes(v.operation.operation_id)).length };
  }, [...ids]);
}

/**
 * Milliseconds from `t0` until every operation of `ids` waits with its agent connected. Polled
 * every 25 ms: each poll still builds a whole snapshot in the background, so the first ask and the
 * re-attach pay for it alike.
 */
async function untilConnected(page: Page, ids: ReadonlySet<string>, t0: number, answers: Array<Promise<unknown>> = []): Promise<number> {
  let failure: unknown;
  for (const answer of answers) answer.catch((error: unknown) => (failure ??= error));
  const deadline = t0 + 120_000;
  let seen = 0;
  while (performance.now() < deadline && failure === undefined) {
    seen = (await waiting(page, ids)).connected;
    if (seen === ids.size) return performance.now() - t0;
    await sleep(25);
  }
  throw new Error(`${seen} of ${ids.size} approvals waited with their agent connected${failure === undefined ? ' after 120 s' : `; an ask failed: ${failure instanceof Error ? failure.message : JSON.stringify(failure)}`}`);
}

/** Milliseconds of one "Decline all" until every one of `answers` holds its decline. */
async function declineAll(page: Page, answers: Array<Promise<ApprovalResult>>): Promise<number> {
  const t0 = performance.now();
  await pageMessage(page, { type: 'countersign/decline-all', trusted: true });
  const results = await Promise.all(answers);
  const elapsed = performance.now() - t0;
  const notDeclined = results.filter((r) => r.status !== 'declined').length;
  if (notDeclined > 0) throw new Error(`${notDeclined} of ${results.length} were not declined`);
  return elapsed;
}

/** `count` approvals from `agents`, at most LIMIT each, asked at once; resolves once all wait. */
async function fill(page: Page, agents: Companion[], count: number): Promise<{ operations: Array<{ agent: Companion; operation: Operation }>; answers: Array<Promise<ApprovalResult>>; ms: number }> {
  const operations = Array.from({ length: count }, (_, i) => ({ agent: agents[Math.floor(i / LIMIT)]!, operation: newOperation() }));
  const t0 = performance.now();
  const answers = operations.map(({ agent, operation }) => ask(agent, operation));
  const ms = await untilConnected(page, new Set(operations.map((o) => o.operation.operation_id)), t0, answers);
  return { operations, answers, ms };
}

/** The agent, connected again once the new bridge listens (the killed one may have left its socket file). */
async function reconnect(stack: Stack, name: string): Promise<Companion> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await stack.agent(name);
    } catch (error) {
      if (attempt > 500) throw error;
      await sleep(10);
    }
  }
}

/**
 * An agent paired as a person pairs it, then the window closed: the next pairing opens its own,
 * never a window that is closing itself (its queue empty) as the next pairing starts.
 */
async function paired(stack: Stack, name: string): Promise<Companion> {
  const agent = await stack.pairedAgent(name);
  for (const page of stack.context.pages().filter((p) => p.url().includes('/approve.html'))) await page.close();
  return agent;
}

export async function run(): Promise<BenchResult[]> {
  const stack = await Stack.start();
  const agents: Companion[] = [];
  try {
    const names = Array.from({ length: AGENTS }, (_, i) => `Queue agent ${i + 1}`);
    for (const name of names) agents.push(await paired(stack, name));
    const page = await stack.extensionPage('/options.html');

    // Baseline of the intake: one refused ask while its agent waits on LIMIT and nothing else runs.
    const full = await fill(page, agents.slice(0, 1), LIMIT);
    const lone: number[] = [];
    for (let i = 0; i < 9; i++) {
      const one = refusals([ask(agents[0]!, newOperation())], performance.now());
      await one.refused(1);
      lone.push(one.times[0]!);
    }
    await declineAll(page, full.answers);

    // Intake under load: every agent asks ASKS at once.
    const t0 = performance.now();
    const burst = agents.flatMap((agent) => Array.from({ length: ASKS }, () => ask(agent, newOperation())));
    const refused = refusals(burst, t0);
    await refused.refused(AGENTS * (ASKS - LIMIT));
    let settled = Number.NaN;
    while (Number.isNaN(settled)) {
      if ((await waiting(page)).pending >= AGENTS * LIMIT) settled = performance.now() - t0;
      else await sleep(20);
    }
    await declineAll(page, burst.filter((_, i) => !refused.refusedIndexes.has(i)));

    // Re-attach: 50 waiting from 3 agents, the bridge killed, asked again of the new bridge.
    const first = await fill(page, agents.slice(0, 3), 50);
    const killedAt = performance.now();
    stack.killBridge();
    await Promise.all(first.answers);
    // The kill took every agent's connection with it: all of them connect again.
    for (const a of agents) await a.close();
    const reconnected = await Promise.all(names.map((name) => reconnect(stack, name)));
    const bridgeBack = performance.now() - killedAt;
    agents.splice(0, agents.length, ...reconnected);
    const r0 = performance.now();
    const again = first.operations.map(({ operation }, i) => ask(agents[Math.floor(i / LIMIT)]!, operation));
    const reattached = await untilConnected(page, new Set(first.operations.map((o) => o.operation.operation_id)), r0, again);
    await declineAll(page, again);

    // Decline all: of 10, then of 155 (each agent holds at most LIMIT).
    const few = await fill(page, agents, 10);
    const declineFew = await declineAll(page, few.answers);
    const many = await fill(page, agents, 155);
    const declineMany = await declineAll(page, many.answers);

    return [
      {
        name: `intake under load (${AGENTS} agents × ${ASKS} asks at once): refusal p99`,
        baseline: 'one refused ask, nothing else running',
        ratio: quantile(refused.times, 0.99) / quantile(lone, 0.5),
        goal: 'p99 ≤ 1 s',
        detail:
          `${refused.times.length} refused: p50 ${fmt(quantile(refused.times, 0.5))}, p99 ${fmt(quantile(refused.times, 0.99))} vs ${fmt(quantile(lone, 0.5))} alone (n=${lone.length}); ` +
          `the ${AGENTS * LIMIT} kept all waiting after ${fmt(settled)}`,
      },
      {
        name: 're-attach after a bridge kill, 50 waiting',
        baseline: 'the same 50 asked the first time',
        ratio: reattached / first.ms,
        goal: 'about 200 ms',
        detail: `${fmt(reattached)} vs ${fmt(first.ms)}; from the kill until the agents reached the new bridge ${fmt(bridgeBack)}`,
      },
      {
        name: 'Decline all of 155, per item',
        baseline: 'Decline all of 10, per item',
        ratio: declineMany / 155 / (declineFew / 10),
        goal: '155 in 1.6–2.4 s or better',
        detail: `${fmt(declineMany)} for 155 (${fmt(declineMany / 155)} each) vs ${fmt(declineFew)} for 10 (${fmt(declineFew / 10)} each)`,
      },
    ];
  } finally {
    for (const a of agents) await a.close().catch(() => undefined);
    await stack.close();
  }
}
