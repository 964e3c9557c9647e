import { canonicalJson, type Operation } from '../../protocol/index';
import { type Answer, type Thread } from '../answer';
import { isObject } from '../../protocol/issues';
import { approvalOf, describeAnswer, type Check, type CheckContext } from '../check';
import type { Action } from '../conformance-run';
import { countedOperation, type PerformWatch } from './performs';

/** Section 7, "Retries and at most once". */

/** Section 7's first rule, observed two ways: retries one after the other, and approvals at once. */
const AT_MOST_ONCE = 'The Company MUST perform each operation at most once, however many times its approval is sent.';

/** How many approvals the concurrency check sends at once. */
export const PARALLEL_APPROVALS = 6;
/** How long a perform takes while the kit checks the answers given meanwhile (cooperation.performDelay). */
export const PERFORM_DELAY_MS = 1_500;

/** `a` says the same as `b` when every member of `b` is in `a` with the same value (members may be added). */
function saysTheSame(a: unknown, b: unknown): boolean {
  if (isObject(a) && isObject(b)) return Object.entries(b).every(([k, v]) => k in a && saysTheSame(a[k], v));
  return canonicalJson(a ?? null) === canonicalJson(b ?? null);
}

/** Whether a repeated answer says the same as the first (section 7), per interface. */
export function sameResponse(first: Answer, again: Answer): string | undefined {
  if (again.interface === 'conversation') {
    // "A new message with the same approval adds nothing": no Company message at all after it,
    // read for as long as a reply may take (docs/conformance.md, "Conversations").
    return again.kind === 'silent' ? undefined : `expected nothing added, got ${describeAnswer(again)}`;
  }
  if (again.kind !== 'done') return `expected the action's ordinary answer again, got ${describeAnswer(again)}`;
  if (first.interface !== again.interface) return undefined;
  if (again.interface === 'mcp') return saysTheSame(again.result?.structuredContent, first.result?.structuredContent) ? undefined : 'expected the same structuredContent as the first time, got other content';
  if (again.status !== first.status) return `expected HTTP ${first.status} as the first time, got ${describeAnswer(again)}`;
  return saysTheSame(again.body, first.body) ? undefined : 'expected the body of the first time, got another';
}

async function performed(context: CheckContext): Promise<{ action: Action; thread: Thread; operation: Operation; first: Answer; done: Answer; watch: PerformWatch }> {
  const { action, watch, thread, operation, first } = await countedOperation(context);
  const done = await thread.ask('operation', { approval: approvalOf(operation) });
  const delta = await watch.delta();
  if (done.kind !== (context.iface === 'conversation' ? 'message' : 'done') || (delta !== undefined && delta !== 1)) context.notExercised(`the approval did not perform the action (see 6-performs): ${describeAnswer(done)}`);
  return { action, thread, operation, first, done, watch };
}

/** Counted from before the first request, so an action started early (section 3) is not counted twice. */
function atMostOnce(context: CheckContext, performs: number | undefined, what: string, ...shown: Answer[]): void {
  if (performs === 0) context.notExercised(`${what}: nothing was performed (see 6-performs)`);
  if (performs !== undefined && performs > 1) context.breaks(`${what}: expected one perform at most, the outcome counts ${performs}`, ...shown);
}

async function requireCount(watch: PerformWatch, context: CheckContext): Promise<void> {
  if (!watch.counted) context.notExercised('the scenario has no outcome request, so performs cannot be counted from outside');
}

export const section7: Check[] = [
  {
    id: '7-at-most-once-retries',
    section: '7',
    level: 'MUST',
    sentence: AT_MOST_ONCE,
    scope: 'each',
    async run(context) {
      const { watch, thread, operation, first } = await countedOperation(context);
      await requireCount(watch, context);
      // In a conversation new terms supersede the first offer, so there they are left out.
      const hasNewTerms = context.iface !== 'conversation' && context.run.scenario[context.iface]?.newTerms !== undefined;
      const newer = hasNewTerms ? await thread.ask('newTerms') : undefined;
      const answers: Answer[] = [];
      for (let i = 0; i < 4; i++) answers.push(await thread.ask('operation', { approval: approvalOf(operation), expectReply: i === 0 }));
      // "Whichever revision is approved, the Company MUST perform each operation at most once" (section 3).
      if (newer?.operation !== undefined && newer.operation.operation_id === operation.operation_id) answers.push(await thread.ask('newTerms', { approval: approvalOf(newer.operation), expectReply: false }));
      atMostOnce(context, await watch.delta(), `the approval sent 4 times${newer === undefined ? '' : ', then the new terms approved'}`, first, ...answers);
    },
  },
  {
    id: '7-at-most-once-concurrent',
    section: '7',
    level: 'MUST',
    sentence: AT_MOST_ONCE,
    scope: 'each',
    async run(context) {
      const { watch, thread, operation, first } = await countedOperation(context);
      await requireCount(watch, context);
      const answers = await Promise.all(Array.from({ length: PARALLEL_APPROVALS }, () => thread.ask('operation', { approval: approvalOf(operation) })));
      atMostOnce(context, await watch.delta(), `${PARALLEL_APPROVALS} approvals at once`, first, ...answers);
    },
  },
  {
    id: '7-first-response',
    section: '7',
    level: 'MUST',
    sentence: 'A request with the approval of an operation already performed gets the response the Company gave the first time, or one that says the same, for as long as the Company remembers the operation.',
    scope: 'each',
    async run(context) {
      const { action, thread, operation, done, first } = await performed(context);
      // In a conversation the kit waits the whole reply timeout: a late reply is something added.
      const again = await thread.ask('operation', { approval: approvalOf(operation) });
      const problem = sameResponse(done, again);
      if (problem !== undefined) context.breaks(`the same approval again: ${problem}`, first, done, again);
      if (context.iface === 'conversation') return;
      // The same approval through the other of API and MCP: check 2 (performed already) comes
      // before check 3 (the request that returned it), so it too gets an answer that says the same.
      const other = context.iface === 'api' ? 'mcp' : 'api';
      if (context.run.scenario[other] === undefined) return;
      const across = await action.thread(other).ask('operation', { approval: approvalOf(operation) });
      const acrossProblem = sameResponse(done, across);
      if (acrossProblem !== undefined) context.breaks(`the same approval through ${other}: ${acrossProblem}`, first, done, across);

    },
  },
  {
    id: '7-remembers-until-expiry',
    section: '7',
    level: 'MUST',
    sentence: "The Company MUST remember that it performed an operation at least until the approved revision's expires_at, and while it is being performed.",
    scope: 'each',
    late: true,
    async run(context) {
      const { thread, operation, done, first, watch } = await performed(context);
      // Each read for the whole reply timeout, so a late reply to one is not taken for the other's.
      const early = await thread.ask('operation', { approval: approvalOf(operation) });
      const now = await context.run.advanceClock(0);
      await context.run.advanceClock(Date.parse(operation.expires_at) - now - 5_000);
      const late = await thread.ask('operation', { approval: approvalOf(operation) });
      // Compared with the answer right after the perform, so that this check is about remembering only.
      const problem = early.kind === 'done' ? sameResponse(early, late) : early.kind === late.kind && early.status === late.status ? undefined : `right after the perform it got ${describeAnswer(early)}, now ${describeAnswer(late)}`;
      const delta = await watch.delta();
      if (problem !== undefined || (delta ?? 0) > 0) context.breaks(`the approval again 5 s before expires_at ${operation.expires_at}: ${problem ?? `it performed again (${delta})`}`, first, done, early, late);
    },
  },
  {
    id: '7-after-forgetting',
    section: '7',
    level: 'MUST',
    sentence: "A retry then fails check 3 or is handled as a request without an approval, so it gets a new revision and the action still isn't performed twice.",
    scope: 'each',
    late: true,
    async run(context) {
      const { thread, operation, done, first, watch } = await performed(context);
      await requireCount(watch, context);
      const now = await context.run.advanceClock(0);
      await context.run.advanceClock(Date.parse(operation.expires_at) - now + 60_000);
      const late = await thread.ask('operation', { approval: approvalOf(operation), expectReply: false });
      const delta = await watch.delta();
      if ((delta ?? 0) > 0) context.breaks(`the approval a minute after expires_at ${operation.expires_at}: performed again (${delta})`, first, done, late);
    },
  },
  {
    id: '7-not-failed-while-performing',
    section: '7',
    level: 'MUST NOT',
    sentence: "While an operation is being performed, or the Company doesn't know whether it took effect, for example after a timeout in one of its own systems, the Company MUST NOT respond as if it failed.",
    scope: 'each',
    only: ['api', 'mcp'],
    late: true,
    async run(context) {
      const action = await context.run.action();
      const thread = action.thread(context.iface);
      const { operation, answer: first } = await context.operation(thread);
      await context.run.performDelay(PERFORM_DELAY_MS);
      try {
        const performing = thread.ask('operation', { approval: approvalOf(operation) });
        await new Promise((resolve) => setTimeout(resolve, PERFORM_DELAY_MS / 4));
        const meanwhile = await thread.ask('operation', { approval: approvalOf(operation) });
        const done = await performing;
        // "An API or MCP server responds with HTTP 503 and a Retry-After header, or as it does for work that hasn't finished."
        const retryAfter = meanwhile.exchanges.at(-1)?.response?.headers['retry-after'];
        if (meanwhile.kind === 'busy' && retryAfter === undefined) context.breaks('while it was performed: HTTP 503 without Retry-After', first, meanwhile);
        else if (meanwhile.kind !== 'busy' && meanwhile.kind !== 'done') context.breaks(`while it was performed: expected HTTP 503 with Retry-After or the result, got ${describeAnswer(meanwhile)}`, first, meanwhile, done);
      } finally {
        await context.run.performDelay(0);
      }
    },
  },
];
