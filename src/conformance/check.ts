import type { Approval, Operation } from '../protocol/index';
import type { Answer, Thread, Variant } from './answer';
import type { Exchange } from './company-http';
import { NotExercised, type ConformanceRun } from './conformance-run';
import type { InterfaceName } from './scenario';

/**
 * One check of the kit: one sentence of the spec (quoted as the spec writes it), what the kit
 * does to observe it from outside, and the verdict per interface. A check that cannot observe
 * its sentence (the scenario lacks a hook, the Company returned no operation to work with)
 * reports "not exercised" with the reason, never "holds".
 */

export type Level = 'MUST' | 'MUST NOT' | 'SHOULD';
export type Status = 'holds' | 'breaks' | 'not_exercised' | 'error';

export interface Evidence {
  why: string;
  exchanges: Exchange[];
}

export interface Finding {
  /** Undefined for a check made once for the whole Company. */
  interface?: InterfaceName;
  status: Status;
  /** For not_exercised and error. */
  reason?: string;
  evidence: Evidence[];
}

export interface CheckResult {
  id: string;
  section: string;
  level: Level;
  sentence: string;
  status: Status;
  findings: Finding[];
  ms: number;
}

export interface Check {
  id: string;
  section: string;
  level: Level;
  /** The spec's own words, verbatim (a test compares them with the spec text). */
  sentence: string;
  /** `each`: once per interface of the scenario (`only` narrows them); `once`: for the whole Company. */
  scope: 'each' | 'once';
  only?: readonly InterfaceName[];
  /** Checks that move the clock or slow performs run last, so they change nothing the others see. */
  late?: boolean;
  run(context: CheckContext): Promise<void>;
}

/** What a check's `run` gets: the conformance run, its interface, and a way to report a break. */
export class CheckContext {
  readonly run: ConformanceRun;
  readonly iface: InterfaceName;
  readonly evidence: Evidence[] = [];

  constructor(run: ConformanceRun, iface: InterfaceName) {
    this.run = run;
    this.iface = iface;
  }

  /** Record a break with what shows it; the check goes on (several breaks can be reported). */
  breaks(why: string, ...shown: Array<Answer | Exchange | undefined>): void {
    const exchanges: Exchange[] = [];
    for (const item of shown) {
      if (item === undefined) continue;
      if ('exchanges' in item) exchanges.push(...item.exchanges);
      else exchanges.push(item);
    }
    this.evidence.push({ why, exchanges });
  }

  notExercised(reason: string): never {
    throw new NotExercised(reason);
  }

  /** Ask for `variant` and require an operation back; otherwise the check can't go on. */
  async operation(thread: Thread, variant: Variant = 'operation'): Promise<{ operation: Operation; answer: Answer }> {
    const answer = await thread.ask(variant);
    if (answer.operation === undefined) {
      const got = answer.operationProblem === undefined ? describeAnswer(answer) : `an operation that is not valid (${answer.operationProblem})`;
      throw new NotExercised(`${thread.interface} ${variant}: expected an operation, got ${got}`);
    }
    return { operation: answer.operation, answer };
  }

  /** The variant must exist in the scenario for this interface. */
  requireVariant(variant: Variant): void {
    const scenario = this.run.scenario[this.iface] as Record<string, unknown> | undefined;
    if (scenario?.[variant] === undefined) throw new NotExercised(`the scenario has no ${this.iface}.${variant}`);
  }
}

export function approvalOf(operation: Operation): Approval {
  return { operation_id: operation.operation_id, revision: operation.revision };
}

/** A short description of an answer, for reasons and evidence. */
export function describeAnswer(answer: Answer): string {
  const status = answer.status === undefined ? '' : ` (HTTP ${answer.status})`;
  switch (answer.kind) {
    case 'operation':
      return `an operation${status}`;
    case 'done':
      return `the action's ordinary answer${status}`;
    case 'message':
      return 'a Company message without an operation';
    case 'busy':
      return `HTTP 503${answer.exchanges.at(-1)?.response?.headers['retry-after'] === undefined ? ' without Retry-After' : ''}`;
    case 'extension_required':
      return `extension_required${status}`;
    case 'refused':
      return `an error${status}`;
    case 'silent':
      return answer.exchanges.at(-1)?.error === undefined ? 'no answer' : `no answer (${answer.exchanges.at(-1)?.error})`;
  }
}
