import { CountersignError } from '../../../src/protocol/errors';
import type { ApprovalCompanion } from '../../../src/agent/perform';
import type { ApprovalResult, OutcomeReport, RequestApprovalInput } from '../../../src/agent/companion';
import type { Approval } from '../../../src/protocol/approval';

/**
 * An in-process stand-in for `Companion` (the ApprovalCompanion subset perform uses), for
 * unit-level tests of perform: the person is a function. It keeps the Companion's promises that
 * perform relies on, so a perform bug shows up here as it would against the real one:
 * - a decided revision is answered from memory, never asked twice;
 * - while an approved revision of an operation has no known outcome, asking about another
 *   revision of it throws ERR_OUTCOME_PENDING (section 7), and is counted as a violation;
 * - markSent is false for a withdrawn approval and true once sent;
 * - only approvals it gave can be marked sent.
 */

export type Answer = 'approve' | 'decline' | 'withdraw' | 'expired' | 'unavailable';

export interface Prompt {
  input: RequestApprovalInput;
  at: number;
}

export class FakeCompanion implements ApprovalCompanion {
  readonly prompts: Prompt[] = [];
  readonly sent: Approval[] = [];
  readonly outcomes: OutcomeReport[] = [];
  /** Asks about a new revision while another of the same operation was open: must stay empty. */
  readonly violations: string[] = [];
  private readonly decided = new Map<string, 'approved' | 'declined'>();
  private readonly withdrawn = new Set<string>();
  private readonly marked = new Set<string>();
  private readonly outcome = new Map<string, OutcomeReport['outcome']>();

  constructor(
    public decide: (input: RequestApprovalInput) => Answer | Promise<Answer> = () => 'approve',
    readonly configDir?: string,
  ) {}

  private key(operationId: string, revision: string): string {
    return `${operationId} ${revision}`;
  }

  /** The person withdraws an approval (before it is sent, it sticks; after, it is ignored). */
  withdraw(approval: Approval): void {
    const key = this.key(approval.operation_id, approval.revision);
    if (!this.marked.has(key)) this.withdrawn.add(key);
  }

  promptsFor(operationId: string): Prompt[] {
    return this.prompts.filter((p) => p.input.operation.operation_id === operationId);
  }

  async requestApproval(input: RequestApprovalInput): Promise<ApprovalResult> {
    const { operation_id, revision } = input.operation;
    const key = this.key(operation_id, revision);
    if (this.withdrawn.has(key)) return { status: 'withdrawn' };
    const stored = this.decided.get(key);
    if (stored === 'approved') return { status: 'approved', approval: { operation_id, revision }, decision: {} as never, jws: 'stored', stored: true };
    if (stored === 'declined') return { status: 'declined', decision: {} as never, jws: 'stored', stored: true };
    for (const [other, status] of this.decided) {
      const [op, rev] = other.split(' ');
      if (op !== operation_id || rev === revision || status !== 'approved' || this.withdrawn.has(other)) continue;
      const known = this.outcome.get(other);
      if (known === undefined || known === 'unknown') {
        this.violations.push(`asked about ${operation_id} ${revision} while ${rev} was open`);
        throw new CountersignError('ERR_OUTCOME_PENDING', `operation ${operation_id}: revision ${rev} was approved and its outcome is not known`);
      }
    }
    this.prompts.push({ input, at: Date.now() });
    const answer = await this.decide(input);
    switch (answer) {
      case 'approve':
        this.decided.set(key, 'approved');
        return { status: 'approved', approval: { operation_id, revision }, decision: {} as never, jws: 'fake', stored: false };
      case 'decline':
        this.decided.set(key, 'declined');
        return { status: 'declined', decision: {} as never, jws: 'fake', stored: false };
      case 'withdraw':
        this.decided.set(key, 'approved');
        this.withdrawn.add(key);
        return { status: 'withdrawn' };
      case 'expired':
        return { status: 'expired' };
      case 'unavailable':
        return { status: 'unavailable' };
    }
  }

  async markSent(approval: Approval): Promise<boolean> {
    const key = this.key(approval.operation_id, approval.revision);
    if (this.decided.get(key) !== 'approved') throw new CountersignError('ERR_ARGUMENT_INVALID', `no approval of ${key}`);
    if (this.withdrawn.has(key)) return false;
    if (!this.marked.has(key)) {
      this.marked.add(key);
      this.sent.push(approval);
    }
    return true;
  }

  async reportOutcome(report: OutcomeReport): Promise<boolean> {
    this.outcomes.push(report);
    this.outcome.set(this.key(report.operation_id, report.revision), report.outcome);
    return true;
  }

  isWithdrawn(operationId: string, revision: string): boolean {
    return this.withdrawn.has(this.key(operationId, revision));
  }
}
