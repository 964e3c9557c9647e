import { CountersignError } from './errors';

/**
 * How each claim of a signed decision is verified (docs/bridge-protocol.md, section 10: "every
 * claim is checked"). A kind of decision keeps one table with an entry for every member of its
 * claims schema (`ClaimChecks`), so a claim added to the schema without saying how it is checked
 * does not compile, and the verifier runs the table rather than a list that could miss one.
 */
export type ClaimCheck<Claims, Expected> =
  /**
   * Compared with what the verifier asked about: `differs` gives the path of the member that is
   * not what was asked (`nonce`, `company.name`), or false; the claim is refused with
   * ERR_DECISION_MISMATCH naming that path and `against`.
   */
  | { against: string; differs: (claims: Claims, expected: Expected) => string | false | Promise<string | false> }
  /**
   * Settled by another step of the verification: the claims schema (`v`, a well-formed `jti`),
   * the time check (`iat` against the clock and `expires_at`), or the caller, which is handed the
   * claim to act on (`status`: an approval is sent only when it says "approved").
   */
  | { settledBy: 'schema' | 'time' | 'caller'; why: string };

/** One check for every claim, optional claims included. */
export type ClaimChecks<Claims, Expected> = { readonly [K in keyof Claims]-?: ClaimCheck<Claims, Expected> };

/** ERR_DECISION_MISMATCH for a claim that differs from what the verifier asked about. */
export function decisionMismatch(field: string, what: string): CountersignError {
  return new CountersignError('ERR_DECISION_MISMATCH', `decision.${field}: does not match ${what}`);
}

/** Runs every comparison of `checks`, in the table's order; the first claim that differs is the error. */
export async function checkClaims<Claims, Expected>(checks: ClaimChecks<Claims, Expected>, claims: Claims, expected: Expected): Promise<void> {
  for (const check of Object.values<ClaimCheck<Claims, Expected>>(checks)) {
    if (!('differs' in check)) continue;
    const path = await check.differs(claims, expected);
    if (path !== false) throw decisionMismatch(path, check.against);
  }
}
