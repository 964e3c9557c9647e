import { randomBytes } from 'node:crypto';
import type { Operation } from '../protocol/index';
import type { Answer, AskOptions, Thread, Variant } from './answer';
import { ApiThread } from './api-thread';
import { Caller } from './caller';
import { send, type Exchange } from './company-http';
import { ConversationThread } from './conversation-thread';
import { McpThread } from './mcp-thread';
import { atPointer, expand, INTERFACES, outcomeCounters, type InterfaceName, type OutcomeCounter, type RequestTemplate, type Scenario, type Variables } from './scenario';
import type { SessionSigner } from './session-token';

/**
 * What every check shares during one run: the scenario, the Sessions the kit plays, fresh
 * actions (one per check that may perform, so that one check's perform never changes what
 * another observes), the outcome reader, the cooperation hooks, and every operation seen, for
 * the rules that span the whole run (section 3: a revision never names two sets of terms).
 */

export type SessionKind = 'signed-out' | 'signed-in';

/** Why a check could not run to its end; reported as "not exercised", never as "holds". */
export class NotExercised extends Error {}

export interface SeenOperation {
  operation: Operation;
  where: string;
  exchange: Exchange | undefined;
}

/** A fresh action (one fixture) and the Session it was made for. */
export class Action {
  readonly owner: Caller;
  readonly variables: Variables;
  readonly #run: ConformanceRun;

  constructor(run: ConformanceRun, owner: Caller, variables: Variables) {
    this.#run = run;
    this.owner = owner;
    this.variables = variables;
  }

  thread(iface: InterfaceName, caller: Caller = this.owner): Thread {
    return this.#run.thread(iface, caller, this.variables);
  }

  /** What the scenario's outcome counters read now; NotExercised without one. */
  async tally(): Promise<Tally> {
    return this.#run.tally(this.owner, this.variables);
  }
}

/**
 * What every outcome counter of the scenario read at one moment. Each counts one thing the action
 * does (its record, a card hold, an email): a perform raises each by one at most, and nothing may
 * raise any of them before the approval (section 3: "MUST NOT start the action before it receives
 * an approval for it").
 */
export class Tally {
  readonly names: readonly string[];
  readonly counts: readonly number[];

  constructor(names: readonly string[], counts: readonly number[]) {
    this.names = names;
    this.counts = counts;
  }

  /** Performs since `earlier`: the most any counter grew. A counter that went down counts nothing. */
  performsSince(earlier: Tally): number {
    return Math.max(0, ...this.counts.map((count, i) => count - (earlier.counts[i] ?? 0)));
  }

  /** `card holds 0 → 1`: the counters that differ from `earlier`, or `''` when none does. */
  changesSince(earlier: Tally): string {
    return this.counts
      .flatMap((count, i) => (count === earlier.counts[i] ? [] : [`${this.names[i]} ${earlier.counts[i]} → ${count}`]))
      .join(', ');
  }
}

export class ConformanceRun {
  readonly scenario: Scenario;
  readonly origin: URL;
  readonly seen: SeenOperation[] = [];
  readonly #signer: SessionSigner;
  readonly #run = randomBytes(6).toString('base64url');
  #sessions = 0;
  #fixtures = 0;

  constructor(options: { scenario: Scenario; origin: URL; signer: SessionSigner }) {
    this.scenario = options.scenario;
    this.origin = options.origin;
    this.#signer = options.signer;
  }

  interfaces(): InterfaceName[] {
    return INTERFACES.filter((name) => this.scenario[name] !== undefined);
  }

  /** The kind of Session the operation requests are made in by default. */
  get primaryKind(): SessionKind {
    return this.scenario.signedOut ? 'signed-out' : 'signed-in';
  }

  /** A new Session (its own `sid`), signed out or signed in to the scenario's account. */
  caller(kind: SessionKind = this.primaryKind): Caller {
    this.#sessions += 1;
    const account = this.scenario.account;
    if (kind === 'signed-in' && account === undefined) throw new NotExercised('the scenario has no account to sign in to');
    if (kind === 'signed-out' && !this.scenario.signedOut) throw new NotExercised('the scenario says its operation requests need a signed-in Session');
    return new Caller({
      label: `${kind} Session ${this.#sessions}`,
      sid: `conformance_${this.#run}_${this.#sessions}`,
      origin: this.origin,
      signer: this.#signer,
      accountHeaders: kind === 'signed-in' ? account?.headers : undefined,
    });
  }

  async #sendTemplate(caller: Caller, template: RequestTemplate, variables: Variables, declare?: string | false): Promise<Exchange> {
    const request = expand(template, variables);
    return send({ method: request.method, url: caller.url(request.path), headers: { ...(await caller.headers(declare)), ...request.headers }, body: request.body });
  }

  /** A fresh action for `owner`: the scenario's setup request, or its next fixture. */
  async action(kind: SessionKind = this.primaryKind): Promise<Action> {
    const owner = this.caller(kind);
    const base: Variables = { run: this.#run };
    const { setup, fixtures } = this.scenario;
    if (setup !== undefined) {
      const exchange = await this.#sendTemplate(owner, setup.request, base);
      const captured: Record<string, string | number> = {};
      for (const [name, pointer] of Object.entries(setup.capture)) {
        const value = atPointer(exchange.response?.body, pointer);
        if (typeof value !== 'string' && typeof value !== 'number') throw new NotExercised(`setup: ${pointer} is not in the response (${exchange.error ?? `HTTP ${exchange.response?.status}`})`);
        captured[name] = value;
      }
      return new Action(this, owner, { ...base, ...captured });
    }
    if (fixtures !== undefined) {
      const fixture = fixtures[this.#fixtures];
      if (fixture === undefined) throw new NotExercised(`the scenario's ${fixtures.length} fixtures are used up`);
      this.#fixtures += 1;
      return new Action(this, owner, { ...base, ...fixture });
    }
    return new Action(this, owner, base);
  }

  thread(iface: InterfaceName, caller: Caller, variables: Variables): Thread {
    const thread = this.#makeThread(iface, caller, variables);
    return { interface: iface, ask: (variant: Variant, options?: AskOptions) => this.#observe(thread, variant, options) };
  }

  #makeThread(iface: InterfaceName, caller: Caller, variables: Variables): Thread {
    const { api, mcp, conversation } = this.scenario;
    if (iface === 'api' && api !== undefined) return new ApiThread(caller, api, variables);
    if (iface === 'mcp' && mcp !== undefined) return new McpThread(caller, mcp.path, mcp, variables);
    if (iface === 'conversation' && conversation !== undefined) return new ConversationThread(caller, conversation, variables);
    throw new NotExercised(`the scenario does not describe the ${iface} interface`);
  }

  async #observe(thread: Thread, variant: Variant, options?: AskOptions): Promise<Answer> {
    const answer = await thread.ask(variant, options);
    if (answer.operation !== undefined) this.seen.push({ operation: answer.operation, where: `${thread.interface} ${variant}`, exchange: answer.exchanges.at(-1) });
    return answer;
  }

  /** Every outcome counter of the scenario, read one after the other. */
  async tally(caller: Caller, variables: Variables): Promise<Tally> {
    const counters = outcomeCounters(this.scenario);
    if (counters.length === 0) throw new NotExercised('the scenario has no outcome request, so performs cannot be counted from outside');
    const counts: number[] = [];
    for (const counter of counters) counts.push(await this.#count(caller, variables, counter));
    return new Tally(
      counters.map((c) => c.name ?? c.count),
      counts,
    );
  }

  async #count(caller: Caller, variables: Variables, counter: OutcomeCounter): Promise<number> {
    const exchange = await this.#sendTemplate(caller, counter.request, variables);
    const value = atPointer(exchange.response?.body, counter.count);
    if (Array.isArray(value)) return value.length;
    if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
    const label = counter.name === undefined ? 'outcome' : `outcome "${counter.name}"`;
    throw new NotExercised(`${label}: ${counter.count} is not an array or a count (${exchange.error ?? `HTTP ${exchange.response?.status}`})`);
  }

  /** Moves the Company's clock (cooperation.advanceClock) and returns its time after the move. */
  async advanceClock(ms: number): Promise<number> {
    const hook = this.scenario.cooperation?.advanceClock;
    if (hook === undefined) throw new NotExercised("the scenario gives no way to move the Company's clock (cooperation.advanceClock)");
    const exchange = await this.#sendTemplate(this.caller(), hook.request, { run: this.#run, ms: Math.max(0, Math.round(ms)) });
    const now = atPointer(exchange.response?.body, hook.now);
    const nowMs = typeof now === 'string' ? Date.parse(now) : typeof now === 'number' ? now : Number.NaN;
    if (!Number.isFinite(nowMs)) throw new NotExercised(`cooperation.advanceClock: ${hook.now} is not a time (${exchange.error ?? `HTTP ${exchange.response?.status}`})`);
    return nowMs;
  }

  /** Makes each perform take `ms` (cooperation.performDelay); 0 turns it off. */
  async performDelay(ms: number): Promise<void> {
    const hook = this.scenario.cooperation?.performDelay;
    if (hook === undefined) throw new NotExercised('the scenario gives no way to make a perform take time (cooperation.performDelay)');
    const exchange = await this.#sendTemplate(this.caller(), hook.request, { run: this.#run, ms });
    const status = exchange.response?.status ?? 0;
    if (status < 200 || status >= 300) throw new NotExercised(`cooperation.performDelay: HTTP ${status || exchange.error}`);
  }

  async poppyJson(): Promise<Exchange> {
    return send({ method: 'GET', url: new URL('/.well-known/poppy.json', this.origin).href, headers: {} });
  }
}
