import { CountersignError } from '../../protocol/errors.ts';
import { factChanges, factFindings, keyFacts, type KeyFact } from '../../review/key-facts.ts';
import type { ReviewFinding } from '../../review/types.ts';
import type { Translate } from './i18n';

/**
 * The one formatter of terms for the window: the key-facts block under the heading, the amount
 * on Approve and the "what changed" banner all read the terms through here, so the three can
 * never show an amount two ways (spec section 3: the terms hold what the
 * summary says in words).
 */
export function factsOf(terms: Record<string, unknown> | undefined, t: Translate, limit?: number): KeyFact[] {
  return readable(() => keyFacts(terms, limit === undefined ? { locale: t.locale } : { locale: t.locale, limit }));
}

/**
 * What the review layer reads of the terms, or nothing for terms that are not an object (they
 * are listed raw under "Technical details"). Formatting never throws (each fact is formatted on
 * its own), so no other error may pass for "no terms": it is a bug, and surfaces as one.
 */
function readable<T>(read: () => T[]): T[] {
  try {
    return read();
  } catch (error) {
    if (error instanceof CountersignError) return [];
    throw error;
  }
}

/** The dangers of how the terms are shown: a value Intl cannot format, shown exactly as written. */
export function factDangers(terms: Record<string, unknown> | undefined): ReviewFinding[] {
  return readable(() => factFindings(terms));
}

export interface FactChange {
  label: string;
  before: string;
  after: string;
}

/**
 * Every fact whose value differs between two revisions, by its place in the terms, each value
 * whole: at any depth, however many, amounts and numbers compared as exact decimals.
 */
export function changedFacts(previous: { terms?: Record<string, unknown> | undefined }, next: { terms?: Record<string, unknown> | undefined }, t: Translate): FactChange[] {
  const none = t('factAbsent');
  const changes = readable(() => factChanges(previous.terms, next.terms, { locale: t.locale }));
  return changes.map((c) => ({ label: c.label, before: c.before?.value ?? none, after: c.after?.value ?? none }));
}
