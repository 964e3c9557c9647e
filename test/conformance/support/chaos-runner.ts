import { performApi, performConversation, performTool, type ApprovalCompanion, type Companion, type FetchLike, type PerformResult } from '../../../src/agent/index';
import { createCompany, type Company } from '../../../src/company/index';
import { Person, startAgents, type Choice } from './person';
import { ALEX, Clock, EXCHANGE_L, EXCHANGE_M, SIGNED_IN, referenceFindOutcome } from './shop';

/**
 * The chaos runs, without a test framework: chaos-worker.ts runs a slice of them in a
 * process of its own, and chaos.test.ts checks what every run saw. Two workers, two halves: the
 * agent, the extension services and the Company are all CPU work, and a test file gets one core.
 *
 * One run = one action (an exchange or a cancellation) through one interface (API, MCP,
 * conversation), with a fresh reference Company on a real port, and:
 * - faults between the agent and the Company (a fault-injecting fetch): a request lost on the
 *   way, an answer lost after the Company handled it, an answer that comes too late (the
 *   attempt times out), a 503 with Retry-After from something in between;
 * - the Company's own fault switches: drop the answer after performing, 503 while performing,
 *   crash between performing and answering and not know for a while;
 * - sometimes the Company's clock moves past `expires_at` just before the approval goes out, so
 *   the approval is answered with a new revision;
 * - a person who approves, declines, or approves and withdraws at once.
 *
 * Real code paths only: the SDK's perform functions and Companion, the extension services
 * (ApprovalQueue, Store over fake-indexeddb, signed Ed25519 decisions) behind the bridge's
 * socket protocol, the reference Company. Only the person and the network faults are simulated.
 */

export type Iface = 'api' | 'mcp' | 'conversation';
export type NetFault = 'drop_request' | 'drop_response' | 'timeout' | 'fake_503';

export interface Plan {
  run: number;
  iface: Iface;
  action: 'exchange' | 'cancel';
  size: 'm' | 'l';
  choice: Exclude<Choice, 'wait'>;
  /** Network faults still to inject, and how likely each request is to get the next one. */
  netFaults: NetFault[];
  netRate: number;
  /** Company switches. */
  dropAfterPerform: number;
  holdPerformMs: number;
  crashAfterPerform: number;
  crashUnknownMs: number;
  /** Move the Company's clock past expires_at just before the first approval goes out. */
  expireBeforeSend: boolean;
}

/** What one run saw: enough for the invariants, in JSON. */
export interface RunRecord {
  plan: Plan;
  origin: string;
  /** perform's result statuses, call after call. */
  statuses: string[];
  /** Every operation ID the results named (unique to the run: each Company has its own secret). */
  operationIds: string[];
  /** Outcomes the agent reported to the extension. */
  reported: Array<{ operation_id: string; revision: string; outcome: string }>;
  /** `company.state.performed` at the end. */
  performed: Array<[string, number]>;
  /** The injected faults, in order. */
  log: string[];
  ms: number;
}

export interface PromptRecord {
  operationId: string;
  revision: string;
  /** Revisions of the operation that were approved, sent or unknown when this prompt appeared. */
  openSiblings: string[];
}

export interface ChaosReport {
  runs: RunRecord[];
  prompts: PromptRecord[];
  /** Prompts the extension had to hold (a new revision asked for while an outcome was open). */
  held: number;
  failures: string[];
  companyErrors: string[];
  elapsedMs: number;
}

export const DEFAULT_SEED = 0x5eed0006;
export const DEFAULT_RUNS = 1000;
const LANES = 8;
/** A lane's agent is replaced after this many runs, so its decision journal stays small. */
const RUNS_PER_AGENT = 10;
/** Calls of perform for one action before the run counts as stuck. */
const MAX_CALLS = 12;
/** A run that takes longer than this is a hang: reported with its plan instead of stalling the suite. */
const RUN_LIMIT_MS = 20_000;
/** Short delays: Retry-After (the reference Company says 1 s) is capped at 10 ms. */
const RETRY = { attempts: 4, timeoutMs: 250, backoffMs: 2, maxBackoffMs: 10, maxRetryAfterMs: 10 };

/** mulberry32: a small seeded PRNG. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function makePlan(run: number, random: () => number): Plan {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const iface = pick(['api', 'mcp', 'conversation'] as const);
  const roll = random();
  const faultCount = Math.floor(random() * 4);
  return {
    run,
    iface,
    action: iface === 'conversation' ? 'exchange' : random() < 0.7 ? 'exchange' : 'cancel',
    size: random() < 0.5 ? 'm' : 'l',
    choice: roll < 0.84 ? 'approve' : roll < 0.92 ? 'decline' : 'withdraw',
    netFaults: Array.from({ length: faultCount }, () => pick(['drop_request', 'drop_response', 'drop_response', 'timeout', 'fake_503'] as const)),
    netRate: 0.2 + random() * 0.4,
    dropAfterPerform: random() < 0.25 ? 1 + Math.floor(random() * 2) : 0,
    holdPerformMs: random() < 0.2 ? 10 + Math.floor(random() * 40) : 0,
    crashAfterPerform: random() < 0.15 ? 1 : 0,
    crashUnknownMs: 10 + Math.floor(random() * 40),
    expireBeforeSend: random() < 0.1,
  };
}

/** Every plan of the seed, run i always the same run. */
export function plans(seed: number, runs: number): Plan[] {
  const master = prng(seed);
  return Array.from({ length: runs }, (_, run) => makePlan(run, master));
}

function carriesApproval(init: RequestInit | undefined): boolean {
  const headers = new Headers(init?.headers);
  const body = typeof init?.body === 'string' ? init.body : '';
  return headers.has('poppy-approval') || body.includes('personalagentprotocol.org/approval') || body.includes('"approval":');
}

/** The network between the agent and the Company, with faults from the plan. */
function faultyFetch(plan: Plan, random: () => number, clock: Clock, log: string[], trace: boolean): FetchLike {
  let expired = false;
  return async (input, init) => {
    if (plan.expireBeforeSend && !expired && carriesApproval(init)) {
      expired = true;
      clock.advance(20 * 60_000);
      log.push('clock+20min');
    }
    const fault = plan.netFaults.length > 0 && random() < plan.netRate ? plan.netFaults.shift() : undefined;
    if (fault !== undefined) log.push(`${fault} ${init?.method ?? 'GET'} ${new URL(String(input)).pathname}${carriesApproval(init) ? ' +approval' : ''}`);
    if (trace) console.error(`fetch ${fault ?? 'ok'} ${init?.method ?? 'GET'} ${String(input)} ${typeof init?.body === 'string' ? init.body.slice(0, 200) : ''}`);
    switch (fault) {
      case 'drop_request':
        throw new TypeError('fetch failed', { cause: new Error('connect ECONNRESET (injected)') });
      case 'fake_503':
        return new Response(JSON.stringify({ error: 'temporarily_unavailable' }), { status: 503, headers: { 'Retry-After': '1', 'Content-Type': 'application/json' } });
      case 'drop_response': {
        const response = await fetch(input, init);
        await response.arrayBuffer().catch(() => undefined);
        throw new TypeError('fetch failed', { cause: new Error('socket hang up (injected)') });
      }
      case 'timeout': {
        const response = await fetch(input, init);
        await response.arrayBuffer().catch(() => undefined);
        // The answer never arrives before the caller gives up.
        const signal = init?.signal;
        await new Promise((_, reject) => {
          if (signal === undefined || signal === null) return setTimeout(() => reject(new TypeError('fetch failed (injected timeout)')), 1_000);
          if (signal.aborted) return reject(signal.reason);
          signal.addEventListener('abort', () => reject(signal.reason), { once: true });
        });
        throw new Error('unreachable');
      }
      default:
        return fetch(input, init);
    }
  };
}

function watchdog<T>(promise: Promise<T>, plan: Plan): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`run ${plan.run} did not finish within ${RUN_LIMIT_MS} ms`)), RUN_LIMIT_MS);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

async function oneRun(plan: Plan, real: Companion, seed: number, companyErrors: string[], register: (origin: string) => void, trace: boolean): Promise<RunRecord> {
  const started = Date.now();
  const random = prng(seed ^ Math.imul(plan.run + 1, 2654435761));
  const clock = new Clock();
  const company: Company = await createCompany({ now: clock.now, log: (line) => companyErrors.push(`run ${plan.run}: ${line}`) });
  // The person looks the run's plan up by the Company's origin; nothing is asked before this.
  register(company.url);
  const log: string[] = [];
  // The real Companion, its outcome reports observed on the way through.
  const reported: RunRecord['reported'] = [];
  const companion: ApprovalCompanion = {
    configDir: real.configDir,
    requestApproval: (input) => real.requestApproval(input),
    markSent: (approval) => real.markSent(approval),
    isWithdrawn: (operationId, revision) => real.isWithdrawn(operationId, revision),
    reportOutcome: (report) => {
      reported.push({ operation_id: report.operation_id, revision: report.revision, outcome: report.outcome });
      return real.reportOutcome(report);
    },
  };
  try {
    company.faults.dropAfterPerform = plan.dropAfterPerform;
    company.faults.holdPerformMs = plan.holdPerformMs;
    company.faults.crashAfterPerform = plan.crashAfterPerform;
    company.faults.crashUnknownMs = plan.crashUnknownMs;
    const fetcher = faultyFetch(plan, random, clock, log, trace);
    const common = {
      ...(trace ? { onProgress: (e: unknown) => console.error(`progress ${JSON.stringify(e)}`) } : {}),
      companion,
      company: { origin: company.url },
      session: SIGNED_IN,
      headers: ALEX,
      fetch: fetcher,
      retry: RETRY,
      // Finding out goes over the same faulty network: it may fail too (then: unknown, try later).
      findOutcome: referenceFindOutcome(company, ALEX, fetcher),
    };
    let conversationId = '';
    if (plan.iface === 'conversation') {
      const response = await fetch(`${company.url}/conversations`, { method: 'POST', headers: { ...ALEX, 'Content-Type': 'application/json' }, body: '{}' });
      conversationId = ((await response.json()) as { id: string }).id;
    }
    const body = plan.size === 'm' ? EXCHANGE_M : EXCHANGE_L;
    const call = (): Promise<PerformResult<unknown>> => {
      switch (plan.iface) {
        case 'api':
          return plan.action === 'exchange'
            ? performApi({ ...common, request: { method: 'POST', url: `${company.url}/orders/ord_7Hk2/exchanges`, body, headers: { 'Idempotency-Key': `run-${plan.run}` } } })
            : performApi({ ...common, request: { method: 'POST', url: `${company.url}/subscriptions/sub_3Fp9/cancel`, body: { at_period_end: plan.size === 'm' }, headers: { 'Idempotency-Key': `run-${plan.run}` } } });
        case 'mcp':
          return plan.action === 'exchange'
            ? performTool({ ...common, tool: 'exchange_item', arguments: { order_id: 'ord_7Hk2', ...body } })
            : performTool({ ...common, tool: 'cancel_subscription', arguments: { subscription_id: 'sub_3Fp9', at_period_end: plan.size === 'm' } });
        case 'conversation':
          return performConversation({
            ...common,
            replyTimeoutMs: 150,
            conversationId,
            message: { id: `msg_run_${plan.run}`, text: `I want to exchange my jacket for the insulated one, size ${plan.size.toUpperCase()}.` },
          });
      }
    };
    const statuses: string[] = [];
    const operationIds = new Set<string>();
    for (let calls = 0; calls < MAX_CALLS; calls++) {
      const result = await call();
      statuses.push(result.status);
      if ('operation' in result && result.operation !== undefined) operationIds.add(result.operation.operation_id);
      // Not known yet, or a new revision to ask about, or the network ate the request: the agent
      // calls again for the same action, as an agent would later.
      if (result.status === 'unknown' || result.status === 'new_revision') continue;
      if (result.status === 'answered' && plan.choice !== 'decline') continue;
      break;
    }
    return { plan, origin: company.url, statuses, operationIds: [...operationIds], reported, performed: [...company.state.performed], log, ms: Date.now() - started };
  } finally {
    await company.close();
  }
}

/**
 * Runs `[from, to)` of the seed's plans on `lanes` concurrent agents, with the extension services
 * and a person in this process. `only`: just that run (with a trace on stderr).
 */
export async function runChaos(options: { seed: number; runs: number; from: number; to: number; lanes?: number; only?: number }): Promise<ChaosReport> {
  const all = plans(options.seed, options.runs).slice(options.from, options.to).filter((p) => options.only === undefined || p.run === options.only);
  const lanes = options.lanes ?? LANES;
  const agents = await startAgents({ bridge: false, memoryDisk: true });
  const plansByOrigin = new Map<string, Plan>();
  const person = new Person(agents.ext, (record) => plansByOrigin.get(record.company.origin)?.choice ?? 'wait');
  const runs: RunRecord[] = [];
  const failures: string[] = [];
  const companyErrors: string[] = [];
  const started = Date.now();
  try {
    await Promise.all(
      Array.from({ length: lanes }, async (_, lane) => {
        let companion: Companion | undefined;
        let used = 0;
        for (let i = lane; i < all.length; i += lanes) {
          if (companion === undefined || used === RUNS_PER_AGENT) {
            companion = await agents.paired({ ackWindowMs: 2 });
            used = 0;
          }
          used += 1;
          const plan = all[i] as Plan;
          try {
            runs.push(await watchdog(oneRun(plan, companion, options.seed, companyErrors, (origin) => plansByOrigin.set(origin, plan), options.only !== undefined), plan));
          } catch (error) {
            failures.push(`run ${plan.run} (${JSON.stringify(plan)}): ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
          }
        }
      }),
    );
    const elapsedMs = Date.now() - started;
    const held = (await agents.ext.store.byState('held')).length;
    const prompts = person.prompts.map((p) => ({ operationId: p.operationId, revision: p.revision, openSiblings: p.openSiblings }));
    return { runs, prompts, held, failures, companyErrors, elapsedMs };
  } finally {
    await person.stop();
    await agents.dispose();
  }
}
