import { isCountersignError, type Approval } from '../protocol/index';
import type { PasskeyCredential } from '../protocol/passkey';
import { verifyPasskeyProof, type PasskeyProof } from '../protocol/passkey-proof';
import type { ActionPlan } from './operations';
import type { Caller } from './session';

/**
 * Passkey proofs, when the reference Company is started with passkeys registered for accounts
 * (`createCompany({ passkeys })`, `--passkeys <file>`; docs/reference-company.md, "Passkey
 * proofs"): an approval for such an account performs only with a proof that the person's passkey,
 * user verification passed, signed exactly this revision's claims (src/protocol/passkey-proof.ts).
 * This is the Company's own policy beyond the operations extension (spec section 8.1: "Approvals
 * the User signs are an open topic"); without the option nothing changes.
 *
 * The proof is checked before the operations engine decides, because a decision to perform must
 * be carried out in the same turn (operations.ts); the engine's checks still come first in the
 * answer: only a request that would perform is refused for its proof.
 */

export interface PasskeyRefusal {
  status: number;
  error: 'passkey_required';
  description: string;
}

export class CompanyPasskeys {
  readonly #byAccount: ReadonlyMap<string, PasskeyCredential>;
  readonly #signCounts = new Map<string, number>();

  constructor(passkeys: Record<string, PasskeyCredential>) {
    this.#byAccount = new Map(Object.entries(passkeys));
  }

  /** Whether an approval by this caller needs a passkey proof. */
  requires(caller: Caller): boolean {
    return caller.accountId !== null && this.#byAccount.has(caller.accountId);
  }

  /**
   * Check the proof that came with an approval, against the revision the approval names as this
   * request describes it. Undefined when it holds (or none is needed), else why not.
   */
  async check(caller: Caller, approval: Approval | undefined, proof: PasskeyProof | Error | undefined, plan: ActionPlan, nowMs: number): Promise<PasskeyRefusal | undefined> {
    const account = caller.accountId;
    const credential = account === null ? undefined : this.#byAccount.get(account);
    if (credential === undefined || account === null || approval === undefined) return undefined;
    if (proof === undefined) return refusal('this account approves with a passkey: send the passkey proof with the approval');
    if (proof instanceof Error) return refusal(proof.message);
    const described = plan.describe(nowMs, approval.operation_id);
    if (!described.ok) return undefined;
    try {
      const { signCount } = await verifyPasskeyProof(proof, {
        credential,
        approval,
        summary: described.description.summary,
        terms: described.description.terms,
        previousSignCount: this.#signCounts.get(account) ?? 0,
      });
      this.#signCounts.set(account, signCount);
      return undefined;
    } catch (cause) {
      if (!isCountersignError(cause)) throw cause;
      return refusal(cause.message);
    }
  }
}

function refusal(description: string): PasskeyRefusal {
  return { status: 403, error: 'passkey_required', description: `${description}. Nothing was done` };
}
