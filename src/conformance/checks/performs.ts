import type { Operation } from '../../protocol/index';
import type { Answer, Thread } from '../answer';
import type { CheckContext } from '../check';
import { NotExercised, type Action, type Tally } from '../conformance-run';

/**
 * Whether a request performed the action, as seen from outside: from the scenario's outcome
 * request when it has one (the count before and after), else from the answer (an API's 2xx or an
 * MCP result without isError is the action's ordinary answer, section 6). A conversation reply
 * says nothing the kit can read, so without an outcome request its performs are unknown.
 */
export class PerformWatch {
  readonly #action: Action;
  #tally: Tally | undefined;

  private constructor(action: Action, tally: Tally | undefined) {
    this.#action = action;
    this.#tally = tally;
  }

  static async start(action: Action): Promise<PerformWatch> {
    return new PerformWatch(action, await optionalTally(action));
  }

  get counted(): boolean {
    return this.#tally !== undefined;
  }

  /**
   * How many performs since the last call (or start): the most any outcome counter grew, each
   * counting one thing a perform does once. Undefined when the outcome can't be read.
   */
  async delta(): Promise<number | undefined> {
    if (this.#tally === undefined) return undefined;
    const now = await this.#action.tally();
    const delta = now.performsSince(this.#tally);
    this.#tally = now;
    return delta;
  }

  /** Did `answer` perform the action? `undefined`: can't tell (a conversation without an outcome request). */
  async performed(answer: Answer): Promise<boolean | undefined> {
    const delta = await this.delta();
    if (delta !== undefined) return delta > 0 || answer.kind === 'done';
    if (answer.kind === 'done') return true;
    if (answer.interface === 'conversation' && answer.kind !== 'operation') return undefined;
    return false;
  }
}

async function optionalTally(action: Action): Promise<Tally | undefined> {
  try {
    return await action.tally();
  } catch (cause) {
    if (cause instanceof NotExercised) return undefined;
    throw cause;
  }
}

/** A probe that must not perform: a break when it did, NotExercised when nobody can tell. */
export async function mustNotPerform(context: CheckContext, watch: PerformWatch, what: string, answer: Answer, ...before: Answer[]): Promise<boolean> {
  const performed = await watch.performed(answer);
  if (performed === undefined) context.notExercised('a conversation reply does not say whether it performed, and the scenario has no outcome request');
  if (performed) context.breaks(`${what}: expected nothing performed, but it was (${answer.kind === 'done' ? "the action's ordinary answer" : 'the outcome counts a perform'})`, ...before, answer);
  return performed;
}

/**
 * A fresh action's operation, with its performs counted from before the first request, so that an
 * action started before its approval (section 3) is counted once, not hidden.
 */
export async function countedOperation(context: CheckContext): Promise<{ action: Action; watch: PerformWatch; thread: Thread; operation: Operation; first: Answer }> {
  const action = await context.run.action();
  const watch = await PerformWatch.start(action);
  const thread = action.thread(context.iface);
  const { operation, answer } = await context.operation(thread);
  return { action, watch, thread, operation, first: answer };
}
