import type { SnapshotReview } from '../snapshot-review';
import type { Translate } from './i18n';

/**
 * The terms' facts come formatted from the background (src/extension/snapshot-review.ts): the
 * key-facts block under the heading, the amount on Approve and the "what changed" banner all
 * read that one list, so the three can never show an amount two ways (spec section 3: the terms
 * hold what the summary says in words).
 */
export interface FactChange {
  label: string;
  before: string;
  after: string;
}

/**
 * Every fact whose value differs between two revisions, by its place in the terms, each value
 * whole ("none" on the side that has no value): at any depth, however many, amounts and numbers
 * compared as exact decimals.
 */
export function changedFacts(review: Pick<SnapshotReview, 'changes'>, t: Translate): FactChange[] {
  const none = t('factAbsent');
  return (review.changes ?? []).map((c) => ({ label: c.label, before: c.before ?? none, after: c.after ?? none }));
}
