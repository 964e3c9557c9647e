/**
 * Checks on an operation before the person decides (spec section 5): the terms against the
 * summary and against what the agent asked for, and what changed from the previous revision
 * (section 3, "New terms"). Isomorphic; no DOM needed.
 */
export { reviewTerms, sameValue, type ReviewInput, type ReviewOptions } from './terms.ts';
export {
  WORD_DIFF_BUDGET,
  diffExpiry,
  diffRevisions,
  diffTerms,
  wordDiff,
  type ExpiryChange,
  type RevisionDiff,
  type TermChange,
  type WordDiff,
  type WordPart,
} from './diff.ts';
export type { OperationLike, ReviewCode, ReviewFinding, Severity } from './types.ts';
