/**
 * Every rule of the review beside the sentences it may say, in one place: each finding's code
 * and its messages (`REVIEW_RULES`), each checked statement and its sentence
 * (`CHECKED_STATEMENTS`), and the sentences of what changed between revisions
 * (`CHANGE_SENTENCES`). A finding is made only through `finding()`, which takes a sentence of its
 * own rule, so a rule without a sentence, or a sentence said under another rule, does not
 * compile; test/review/rules.test.ts fails on a sentence of `REVIEW_MESSAGES` that no rule owns.
 * How severe each finding is stays where the rule decides it.
 */
import type { Localized } from '../summary/message-text.ts';
import type { ReviewMessageKey } from './messages.ts';
import type { CheckCode, ReviewCode, ReviewFinding, Severity } from './types.ts';

type Sentences = readonly [ReviewMessageKey, ...ReviewMessageKey[]];

export const REVIEW_RULES = {
  'terms-absent': ['review_termsAbsent'],
  'terms-empty': ['review_termsEmpty'],
  'request-absent': ['review_requestAbsent'],
  'request-mismatch': [
    'review_requestItemCount',
    'review_requestMismatch',
    'review_requestMismatchUnstated',
    'review_requestMismatchWhole',
    'review_requestMismatchWholeUnstated',
  ],
  'amount-not-in-summary': ['review_amountNotInSummary', 'review_amountNotInSummaryWhole'],
  'date-not-in-summary': ['review_dateNotInSummary'],
  'not-in-summary': ['review_numberNotInSummary', 'review_valueNotInSummary', 'review_valueNotInSummaryNoRequest'],
  'unverifiable-value': ['review_unverifiableValue'],
  'hidden-characters': ['review_hiddenInKey', 'review_hiddenInValue'],
  'terms-too-large': ['review_termsTooLarge'],
  'fact-unformatted': ['review_factUnformatted', 'review_factUnformattedWhole'],
  'summary-truncated': ['review_summaryTruncated'],
  'revision-reused': ['diff_revisionReused'],
  'no-change': ['diff_noChange'],
  'amount-not-in-terms': ['review_amountNotInTerms', 'review_amountWithoutTermsMoney'],
  'currency-not-in-terms': ['review_currencyNotInTerms'],
  'contradicts-charge': ['review_contradictsCharge'],
  'second-total': ['review_secondTotal', 'review_secondTotalThree'],
  'direction-reversed': ['review_chargeAsMoneyToYou', 'review_derivedChargeAsMoneyToYou', 'review_moneyToYouAsCharge', 'review_derivedMoneyToYouAsCharge'],
} as const satisfies Record<ReviewCode, Sentences>;

/** What each statement says; the order here is the order they are listed in. */
export const CHECKED_STATEMENTS = {
  'amounts-stated': 'checked_amountsStated',
  'dates-stated': 'checked_datesStated',
  'values-stated': 'checked_valuesStated',
  'request-confirmed': 'checked_requestConfirmed',
  'no-other-amounts': 'checked_noOtherAmounts',
  'no-contradicting-words': 'checked_noContradictingWords',
  'single-total': 'checked_singleTotal',
  'no-hidden-characters': 'checked_noHiddenCharacters',
} as const satisfies Record<CheckCode, ReviewMessageKey & `checked_${string}`>;

/** What changed between two revisions: a term (`diffTerms`) and the deadline (`diffExpiry`). */
export const CHANGE_SENTENCES = {
  term: ['diff_added', 'diff_removed', 'diff_changed', 'diff_termsChanged', 'diff_termsAdded', 'diff_termsRemoved'],
  deadline: [
    'diff_deadlineChanged',
    'diff_deadlineSameMoment',
    'diff_deadlineLaterDays',
    'diff_deadlineLaterHours',
    'diff_deadlineLaterMinutes',
    'diff_deadlineLaterSeconds',
    'diff_deadlineLaterMilliseconds',
    'diff_deadlineEarlierDays',
    'diff_deadlineEarlierHours',
    'diff_deadlineEarlierMinutes',
    'diff_deadlineEarlierSeconds',
    'diff_deadlineEarlierMilliseconds',
  ],
} as const satisfies Record<string, Sentences>;

/** A sentence that the rule `C` may say. */
export type RuleSentence<C extends ReviewCode> = Localized<(typeof REVIEW_RULES)[C][number]>;

/** A finding of rule `code`, saying one of that rule's sentences. */
export function finding<C extends ReviewCode>(severity: Severity, code: C, path: string, said: RuleSentence<C>): ReviewFinding {
  return { severity, code, path, ...said };
}
