import { keyFacts, youApproveLine, type KeyFact } from '../../review/key-facts.ts';
import type { Translate } from './i18n';

/**
 * The one formatter of terms for the window: the key-facts block under the heading, the
 * "You approve" line beside the buttons and the "what changed" banner all read the terms through
 * here, so the three can never show an amount two ways (spec section 3: the terms hold what the
 * summary says in words).
 */
export function factsOf(terms: Record<string, unknown> | undefined, t: Translate, limit?: number): KeyFact[] {
  try {
    return keyFacts(terms, limit === undefined ? { locale: t.locale } : { locale: t.locale, limit });
  } catch {
    // Terms the review cannot read are listed raw under "Technical details".
    return [];
  }
}

/** Amounts first, then what identifies the thing: four fit two lines beside the buttons. */
export const YOU_APPROVE_FACTS = 4;

/** Every fact is compared for "what changed", not only those shown. */
const ALL_FACTS = 200;

/** "You approve: Price difference $70.00 · Order ID ord_7Hk2", or the sentence for no terms. */
export function youApproveText(terms: Record<string, unknown> | undefined, t: Translate): string {
  const facts = factsOf(terms, t, YOU_APPROVE_FACTS);
  return facts.length > 0 ? t('youApprove', youApproveLine(facts)) : t('youApproveNoTerms');
}

export interface FactChange {
  label: string;
  before: string;
  after: string;
}

/** The facts whose value differs between two revisions, by their place in the terms. */
export function changedFacts(previous: { terms?: Record<string, unknown> | undefined }, next: { terms?: Record<string, unknown> | undefined }, t: Translate): FactChange[] {
  const none = t('factAbsent');
  const before = new Map(factsOf(previous.terms, t, ALL_FACTS).map((f) => [f.path, f]));
  const after = new Map(factsOf(next.terms, t, ALL_FACTS).map((f) => [f.path, f]));
  const changes: FactChange[] = [];
  for (const [path, fact] of after) {
    const old = before.get(path);
    if (old?.value !== fact.value) changes.push({ label: fact.label, before: old?.value ?? none, after: fact.value });
  }
  for (const [path, fact] of before) if (!after.has(path)) changes.push({ label: fact.label, before: fact.value, after: none });
  return changes;
}
