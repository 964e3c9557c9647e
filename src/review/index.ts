/**
 * Checks on an operation before the person decides (spec section 5): the terms against the
 * summary and against what the agent asked for, and what changed from the previous revision
 * (section 3, "New terms"); and the key facts of the terms, from their data alone, for the
 * window's "You approve" line. Isomorphic; no DOM needed.
 */
export { reviewOperation, reviewTerms, sameValue, type OperationReview, type ReviewInput, type ReviewOptions } from './terms.ts';
export { KEY_FACTS_LIMIT, factChanges, factFindings, keyFacts, youApproveLine, type KeyFact, type KeyFactChange, type KeyFactKind, type KeyFactsOptions } from './key-facts.ts';
export { moneyDirection, termsMoney, type MoneyDirection, type TermsAmount, type TermsMoney } from './money.ts';
export {
  WORD_DIFF_BUDGET,
  diffExpiry,
  diffRevisions,
  diffTerms,
  wordDiff,
  wordTokens,
  type ExpiryChange,
  type RevisionDiff,
  type TermChange,
  type WordDiff,
  type WordPart,
} from './diff.ts';
export { REVIEW_MESSAGES, reviewChromeMessages, type ReviewMessageKey } from './messages.ts';
export type { CheckCode, CheckedStatement, MessageText, OperationLike, ReviewCode, ReviewFinding, Severity } from './types.ts';
