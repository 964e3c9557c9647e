import type { MessageText } from '../summary/message-text.ts';
import type { Severity } from '../summary/text-inspection.ts';

export type { MessageText, Severity };

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
  /** A value of the terms `Intl` cannot format (more than 100 decimals): shown exactly as written, a danger. */
  | 'fact-unformatted'
  /** Only the part of the summary shown by default was checked. */
  | 'summary-truncated'
  /** Two different sets of terms under one revision (section 3, "New terms"). */
  | 'revision-reused'
  /** A new revision that changes nothing. */
  | 'no-change'
  /**
   * The summary presents an amount that is not in the terms (nor their total, nor a price per
   * unit of a count in them): "$7.00" when the terms say 700.00 USD. A danger when the terms
   * hold money, a warning when they hold none.
   */
  | 'amount-not-in-terms'
  /** The summary presents an amount in a currency no amount of the terms is in ("€700.00" for 700.00 USD). */
  | 'currency-not-in-terms'
  /** The terms charge, and the summary says free, waived, no charge, $0.00, refund, credit or money back. */
  | 'contradicts-charge'
  /** Two different amounts presented as the total or what the person pays. */
  | 'second-total'
  /** An amount of the terms presented the other way round: a charge as money to the person, or a refund as a charge. */
  | 'direction-reversed';

/**
 * What `reviewOperation` checked and found true. A statement is listed only when it holds;
 * none of them, nor all of them, means that the terms "agree" with the summary: the review reads
 * literally and in English, so a summary can mislead in ways it does not see.
 */
export type CheckCode =
  /** Every `{ amount, currency }` of the terms is in the summary with its currency. */
  | 'amounts-stated'
  /** Every date of the terms is in the summary. */
  | 'dates-stated'
  /** Every other value of the terms (IDs, numbers, text) is in the summary or is what the agent asked for. */
  | 'values-stated'
  /** Every value the agent asked for is in the terms, unchanged. */
  | 'request-confirmed'
  /** The summary presents no amount other than the terms' own (or their total, or a unit price). */
  | 'no-other-amounts'
  /** No money word of the summary (free, waived, refund ...) goes against the direction of the terms' money. */
  | 'no-contradicting-words'
  /** The summary presents at most one amount as the total to pay. */
  | 'single-total'
  /** No key or text value of the terms holds hidden characters. */
  | 'no-hidden-characters';

export interface CheckedStatement {
  code: CheckCode;
  /** One plain sentence, true of this operation. */
  message: string;
  /** The same sentence as a messages.json name and its data, for the browser's language. */
  text: MessageText;
}

export interface ReviewFinding {
  severity: Severity;
  code: ReviewCode;
  /** Where in `terms`, e.g. `price_difference.amount`, `items[0].sku`; '' for the whole. */
  path: string;
  /** One plain sentence for the person deciding. Company text in it has hidden characters made visible. */
  message: string;
  /** The same sentence as a messages.json name and its data (`substitutions` as in `message`), for the browser's language. */
  text: MessageText;
}
