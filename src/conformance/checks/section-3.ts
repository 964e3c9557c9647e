import { canonicalJson, type Operation } from '../../protocol/index';
import type { Answer, Thread, Variant } from '../answer';
import { approvalOf, describeAnswer, type Check, type CheckContext } from '../check';
import type { Action, SeenOperation } from '../conformance-run';
import { PerformWatch } from './performs';

/** Section 3, "The operation". */

/** How long a User needs at least to read the terms and decide (section 3, "Expiry"; docs/conformance.md). */
export const MIN_DECISION_SECONDS = 120;

function sameTerms(a: Operation, b: Operation): boolean {
  return a.summary === b.summary && canonicalJson(a.terms ?? null) === canonicalJson(b.terms ?? null);
}

/** Pairs of operations seen in this run that share a revision and differ in `differ`. */
function sharedRevisions(seen: SeenOperation[], differ: (a: Operation, b: Operation) => boolean): Array<[SeenOperation, SeenOperation]> {
  const pairs: Array<[SeenOperation, SeenOperation]> = [];
  const byRevision = new Map<string, SeenOperation>();
  for (const item of seen) {
    const first = byRevision.get(item.operation.revision);
    if (first === undefined) byRevision.set(item.operation.revision, item);
    else if (differ(first.operation, item.operation)) pairs.push([first, item]);
  }
  return pairs;
}

interface Offer {
  thread: Thread;
  variant: Variant;
  operation: Operation;
  answer: Answer;
}

/**
 * The operations one action gets: through each interface of the scenario, and (API, MCP) for its
 * new terms too. A conversation's new terms replace its first offer, so there only the first.
 */
async function revisionsOfOneAction(context: CheckContext, action: Action): Promise<Offer[]> {
  const offers: Offer[] = [];
  for (const iface of context.run.interfaces()) {
    const thread = action.thread(iface);
    const variants: Variant[] = iface !== 'conversation' && context.run.scenario[iface]?.newTerms !== undefined ? ['operation', 'newTerms'] : ['operation'];
    for (const variant of variants) {
      const answer = await thread.ask(variant);
      if (answer.operation !== undefined) offers.push({ thread, variant, operation: answer.operation, answer });
    }
  }
  return offers;
}

/** Whether `times` approvals of one revision, sent at once on a fresh action, perform it more than once. */
async function oneRevisionPerformsTwice(context: CheckContext, times: number): Promise<boolean> {
  const action = await context.run.action();
  const watch = await PerformWatch.start(action);
  const thread = action.thread(context.iface);
  const { operation } = await context.operation(thread);
  await Promise.all(Array.from({ length: times }, () => thread.ask('operation', { approval: approvalOf(operation) })));
  return ((await watch.delta()) ?? 0) > 1;
}

async function operationAndNewTerms(context: CheckContext): Promise<{ first: Operation; second: Operation; answers: Answer[] }> {
  context.requireVariant('newTerms');
  const action = await context.run.action();
  const thread = action.thread(context.iface);
  const first = await context.operation(thread);
  const second = await context.operation(thread, 'newTerms');
  return { first: first.operation, second: second.operation, answers: [first.answer, second.answer] };
}

export const section3: Check[] = [
  {
    id: '3-operation-id-same',
    section: '3',
    level: 'MUST',
    sentence: 'It stays the same when the terms change',
    scope: 'each',
    async run(context) {
      const { first, second, answers } = await operationAndNewTerms(context);
      if (first.operation_id !== second.operation_id) context.breaks(`newTerms: expected operation_id ${first.operation_id} again, got ${second.operation_id}`, ...answers);
    },
  },
  {
    id: '3-operation-id-one-action',
    section: '3',
    level: 'MUST NOT',
    sentence: 'the Company MUST NOT use it for another action',
    scope: 'each',
    async run(context) {
      const action = await context.run.action();
      const thread = action.thread(context.iface);
      const first = await context.operation(thread);
      const sameResource = (context.run.scenario[context.iface] as { otherAction?: unknown } | undefined)?.otherAction !== undefined;
      const other = sameResource ? await context.operation(thread, 'otherAction') : await context.operation((await context.run.action()).thread(context.iface));
      if (first.operation.operation_id === other.operation.operation_id) return context.breaks(`another action: expected another operation_id, got ${first.operation.operation_id} for both`, first.answer, other.answer);
      if (!sameResource) return;
      // The next action on the same resource once the first is done: a Company that keys its
      // operations by the order, say, must not hand the performed one's ID on.
      const done = await thread.ask('operation', { approval: approvalOf(first.operation) });
      if (done.kind !== (context.iface === 'conversation' ? 'message' : 'done')) return;
      const next = await thread.ask('otherAction');
      if (next.operation?.operation_id === first.operation.operation_id) {
        context.breaks(`the other action on the same resource, after ${first.operation.operation_id} was performed: expected another operation_id, got the performed one's`, first.answer, done, next);
      }
    },
  },
  {
    id: '3-revision-per-terms',
    section: '3',
    level: 'MUST NOT',
    sentence: 'It MUST NOT give two different sets of terms the same revision, so an approval of one revision never applies to other terms.',
    scope: 'each',
    async run(context) {
      const { first, second, answers } = await operationAndNewTerms(context);
      if (first.revision === second.revision && !sameTerms(first, second)) context.breaks(`newTerms: other summary and terms, same revision ${first.revision}`, ...answers);
      for (const [a, b] of sharedRevisions(context.run.seen.filter((s) => s.where.startsWith(context.iface)), (x, y) => !sameTerms(x, y))) {
        context.breaks(`${a.where} and ${b.where}: other summary or terms, same revision ${a.operation.revision}`, a.exchange, b.exchange);
      }
    },
  },
  {
    id: '3-at-most-once-any-revision',
    section: '3',
    level: 'MUST',
    sentence: 'Whichever revision is approved, the Company MUST perform each operation at most once',
    scope: 'once',
    async run(context) {
      const action = await context.run.action();
      const watch = await PerformWatch.start(action);
      if (!watch.counted) context.notExercised('the scenario has no outcome request, so performs cannot be counted from outside');
      const offers = await revisionsOfOneAction(context, action);
      const revisions = new Set(offers.map((o) => o.operation.revision));
      if (revisions.size < 2) context.notExercised(`one action got ${revisions.size} revision through ${context.run.interfaces().join(', ')}: nothing to approve side by side`);
      // Every revision approved at once, each through the interface and request that returned it.
      const answers = await Promise.all(offers.map((o) => o.thread.ask(o.variant, { approval: approvalOf(o.operation) })));
      const performs = await watch.delta();
      const what = offers.map((o) => `${o.thread.interface} ${o.variant} (${o.operation.revision})`).join(', ');
      if (performs === 0) context.notExercised(`${what} approved at once: nothing was performed (see 6-performs)`);
      if (performs === undefined || performs <= 1) return;
      // Is it the revisions? One revision approved as many times at once, on another action: if
      // that performs twice too, the Company has no lock at all, which 7-at-most-once-concurrent reports.
      if (await oneRevisionPerformsTwice(context, offers.length)) context.notExercised('one revision approved as many times at once performs more than once too (see 7-at-most-once-concurrent)');
      context.breaks(`${what} approved at once: expected one perform at most, the outcome counts ${performs}`, ...offers.map((o) => o.answer), ...answers);
    },
  },
  {
    id: '3-revision-per-expiry',
    section: '3',
    level: 'MUST',
    sentence: 'which the Company changes whenever the summary, terms, or expires_at change',
    scope: 'each',
    late: true,
    async run(context) {
      const action = await context.run.action();
      const thread = action.thread(context.iface);
      const first = await context.operation(thread);
      await context.run.advanceClock(2 * 60_000);
      const later = await context.operation(thread);
      if (first.operation.expires_at !== later.operation.expires_at && first.operation.revision === later.operation.revision && sameTerms(first.operation, later.operation)) {
        context.breaks(`two minutes later: expires_at ${first.operation.expires_at} became ${later.operation.expires_at}, the revision stayed ${first.operation.revision}`, first.answer, later.answer);
      }
    },
  },
  {
    id: '3-not-before-approval',
    section: '3',
    level: 'MUST NOT',
    sentence: 'MUST NOT start the action before it receives an approval for it',
    scope: 'each',
    async run(context) {
      const action = await context.run.action();
      const before = await action.tally();
      const thread = action.thread(context.iface);
      const first = await context.operation(thread);
      const again = await thread.ask('operation');
      // Every counter: starting the action may show in one of them only (a card hold, not the order).
      const changes = (await action.tally()).changesSince(before);
      if (changes !== '') context.breaks(`asked twice without an approval: the outcome changed (${changes})`, first.answer, again);
    },
  },
  {
    id: '3-expiry-time-to-decide',
    section: '3',
    level: 'SHOULD',
    sentence: 'expires_at SHOULD leave the User long enough to read the terms and decide',
    scope: 'each',
    async run(context) {
      const action = await context.run.action();
      const received = Date.now();
      const { operation, answer } = await context.operation(action.thread(context.iface));
      const seconds = Math.round((Date.parse(operation.expires_at) - received) / 1000);
      if (seconds < MIN_DECISION_SECONDS) context.breaks(`expires_at ${operation.expires_at}: ${seconds} s after it arrived, expected at least ${MIN_DECISION_SECONDS} s`, answer);
    },
  },
  {
    id: '3-signed-out-one-session',
    section: '3',
    level: 'MUST',
    sentence: 'An operation returned in a signed-out Session can be approved only in that Session.',
    scope: 'each',
    async run(context) {
      const action = await context.run.action('signed-out');
      const { operation, answer } = await context.operation(action.thread(context.iface));
      const other = action.thread(context.iface, context.run.caller('signed-out'));
      const plain = await other.ask('operation');
      const watch = await PerformWatch.start(action);
      const withApproval = await other.ask('operation', { approval: approvalOf(operation) });
      const performs = await watch.delta();
      if (withApproval.kind === 'done' || (performs ?? 0) > 0) {
        return context.breaks(`another signed-out Session sent the approval: expected it handled as without one, got ${describeAnswer(withApproval)}${performs === undefined ? '' : `, ${performs} performed`}`, answer, withApproval);
      }
      if (context.iface === 'conversation') {
        // An approval message is not the request for the action, so "as if it had no approval" has no plain twin to compare with.
        if (!watch.counted) context.notExercised('a conversation reply does not say whether it performed, and the scenario has no outcome request');
        return;
      }
      // Check 1 (section 6): "the Company handles the request as if it had no approval".
      if (withApproval.kind !== plain.kind) context.breaks(`another signed-out Session: without an approval it got ${describeAnswer(plain)}, with the first Session's approval ${describeAnswer(withApproval)}`, plain, withApproval);
    },
  },
  {
    id: '3-account-any-session',
    section: '3',
    level: 'MUST',
    sentence: 'any Session of the same Personal Agent and User can approve it while signed in to the same account',
    scope: 'each',
    only: ['api', 'mcp'],
    async run(context) {
      const action = await context.run.action('signed-in');
      const { operation, answer } = await context.operation(action.thread(context.iface));
      const other = await action.thread(context.iface, context.run.caller('signed-in')).ask('operation', { approval: approvalOf(operation) });
      if (other.kind !== 'done') context.breaks(`another Session signed in to the same account sent the approval: expected the action done, got ${describeAnswer(other)}`, answer, other);
    },
  },
  {
    id: '3-signed-out-challenge',
    section: '3',
    level: 'MUST',
    sentence: 'A signed-out Session of the same Personal Agent and User gets a challenge for the account',
    scope: 'each',
    only: ['api', 'mcp'],
    async run(context) {
      if (!context.run.scenario.signedOut) context.notExercised('the scenario says its requests need a signed-in Session');
      const action = await context.run.action('signed-in');
      const { operation, answer } = await context.operation(action.thread(context.iface));
      const out = await action.thread(context.iface, action.owner.signedOut(`${action.owner.label}, signed out`)).ask('operation', { approval: approvalOf(operation) });
      // The challenge of core 7 (docs/core-assumptions.md): HTTP 401, as for any request that needs the account.
      if (out.status !== 401) context.breaks(`the same Session signed out sent the approval: expected a challenge (HTTP 401), got ${describeAnswer(out)}`, answer, out);
    },
  },
];
