import type { Severity } from '../summary/text-inspection.ts';

export type { Severity };

/**
 * An operation as spec section 3 defines it. Structural on purpose: src/protocol's parsed
 * `Operation` fits it, and so does any object with these members.
 */
export interface OperationLike {
  operation_id: string;
  revision: string;
  summary: string;
  terms?: Record<string, unknown> | undefined;
  expires_at: string;
}

export type ReviewCode =
  /** `terms` is absent: nothing could be checked (section 3: `terms` is optional). */
  | 'terms-absent'
  /** `terms` is an empty object: nothing to check. */
  | 'terms-empty'
  /** What the agent asked for was not given: the terms could not be compared with it. */
  | 'request-absent'
  /** Terms and request both have this key, with different values (section 5). */
  | 'request-mismatch'
  /** An amount in the terms that the summary does not state with its currency (section 3). */
  | 'amount-not-in-summary'
  /** A date in the terms that the summary does not state (section 3). */
  | 'date-not-in-summary'
  /** Another value in the terms that the summary does not state and the request does not confirm. */
  | 'not-in-summary'
  /** A true/false or null value: the summary can only say it in words, which we can't check. */
  | 'unverifiable-value'
  /** A key or text value of the terms holds hidden characters (bidi controls, invisible ones). */
  | 'hidden-characters'
  /** Terms too deep or too large to check in full. */
  | 'terms-too-large'
  /** Only the part of the summary shown by default was checked. */
  | 'summary-truncated'
  /** Two different sets of terms under one revision (section 3, "New terms"). */
  | 'revision-reused'
  /** A new revision that changes nothing. */
  | 'no-change';

export interface ReviewFinding {
  severity: Severity;
  code: ReviewCode;
  /** Where in `terms`, e.g. `price_difference.amount`, `items[0].sku`; '' for the whole. */
  path: string;
  /** One plain sentence for the person deciding. Company text in it has hidden characters made visible. */
  message: string;
}
