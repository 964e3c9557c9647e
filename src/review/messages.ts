/**
 * The sentences of the terms review (`review_`), of what it checked and found true
 * (`checked_`) and of the revision diff (`diff_`), in English, each defined once (see
 * `message-text.ts`). Placeholders hold data only: paths, amounts, quoted Company values with
 * their hidden characters shown, code points, lists joined with `LIST_SEPARATOR`.
 */
import { chromeMessages, messageBuilder, type ChromeMessage } from '../summary/message-text.ts';
import { summaryChromeMessages } from '../summary/messages.ts';

/** Beyond these, terms are not a summary's worth of data: the rest is reported, not walked. */
export const MAX_TERMS_DEPTH = 32;
export const MAX_TERMS_VALUES = 1_000;

export const REVIEW_MESSAGES = {
  review_termsAbsent: 'The Company sent no terms with this operation, so nothing in the summary could be checked against them: the summary is all there is to go on.',
  review_termsEmpty: 'The Company sent empty terms, so nothing in the summary could be checked against them.',
  review_requestAbsent: 'What the agent asked for was not available, so the terms could not be compared with it.',
  review_summaryTruncated: {
    one: 'The summary is long; only the part shown by default ({count} character) was checked against the terms.',
    other: 'The summary is long; only the part shown by default ({count} characters) was checked against the terms.',
  },
  review_termsTooLarge: `The terms are too large or too deeply nested to check in full; only the first ${MAX_TERMS_VALUES} values, ${MAX_TERMS_DEPTH} levels deep, were checked.`,
  review_requestItemCount: {
    one: 'The terms list {count} item at {path}, but the agent asked for {asked}.',
    other: 'The terms list {count} items at {path}, but the agent asked for {asked}.',
  },
  review_hiddenInKey: {
    one: 'The name of the term {path} contains a hidden character ({labels}), shown as {token}.',
    other: 'The name of the term {path} contains {count} hidden characters ({labels}), shown as {token} and similar.',
  },
  review_hiddenInValue: {
    one: 'The value of {path} contains a hidden character ({labels}), shown as {token}.',
    other: 'The value of {path} contains {count} hidden characters ({labels}), shown as {token} and similar.',
  },
  review_amountNotInSummary: 'The terms set {path} to {amount}, but the summary does not state that amount.',
  review_amountNotInSummaryWhole: 'The terms set the top level to {amount}, but the summary does not state that amount.',
  review_unverifiableValue: 'The terms set {path} to {value}; check that the summary says the same in words.',
  review_dateNotInSummary: 'The terms set {path} to {value}, but the summary does not state that date.',
  review_numberNotInSummary: 'The terms set {path} to {value}, but the summary does not state that number.',
  review_valueNotInSummary: 'The terms set {path} to {value}, but the summary does not mention it and the agent did not ask for it.',
  review_valueNotInSummaryNoRequest: 'The terms set {path} to {value}, but the summary does not mention it and there is no request to confirm it.',
  review_requestMismatch: 'The terms set {path} to {value}, but the agent asked for {asked}.',
  review_requestMismatchUnstated: 'The terms set {path} to {value}, but the agent asked for {asked}. The summary does not state the terms\u2019 value either.',
  review_requestMismatchWhole: 'The terms set the top level to {value}, but the agent asked for {asked}.',
  review_requestMismatchWholeUnstated:
    'The terms set the top level to {value}, but the agent asked for {asked}. The summary does not state the terms\u2019 value either.',
  review_currencyNotInTerms: 'The summary states {amount}, in a currency that no amount of the terms is in (the terms set {terms}).',
  review_amountNotInTerms: 'The summary states {amount}, but the terms hold no such amount (they set {terms}); you may be misled about what you pay.',
  review_amountWithoutTermsMoney: 'The summary states {amount}, but the terms hold no amount at all.',
  review_contradictsCharge: 'The summary says {words} ({context}), but the terms charge {charged}.',
  review_chargeAsMoneyToYou: 'The summary presents {amount} as money you get or do not pay ({context}), but in the terms {path} ({terms_amount}) is a charge.',
  review_derivedChargeAsMoneyToYou:
    'The summary presents {amount} as money you get or do not pay ({context}), but in the terms an amount derived from the terms is a charge.',
  review_moneyToYouAsCharge: 'The summary presents {amount} as a charge ({context}), but in the terms {path} ({terms_amount}) is money to you.',
  review_derivedMoneyToYouAsCharge: 'The summary presents {amount} as a charge ({context}), but in the terms an amount derived from the terms is money to you.',
  review_secondTotal: 'The summary presents different amounts as the total or what you pay: {first} and {second}.',
  review_secondTotalThree: 'The summary presents different amounts as the total or what you pay: {first}, {second} and {third}.',
  review_factUnformatted: 'The terms set {path} to {value}, with more digits than can be shown formatted, so it is shown exactly as written: read every digit before you decide.',
  review_factUnformattedWhole: 'The terms are {value}, with more digits than can be shown formatted, so it is shown exactly as written: read every digit before you decide.',

  checked_amountsStated: 'Every amount in the terms appears in the summary with its currency (or, for a zero amount, is named as none: "no fee").',
  checked_datesStated: 'Every date in the terms appears in the summary.',
  checked_valuesStated: 'Every other value in the terms (IDs, numbers, text) appears in the summary or is what the agent asked for.',
  checked_requestConfirmed: 'Every value the agent asked for is in the terms unchanged.',
  checked_noOtherAmounts: 'The summary states no amount that is not in the terms (or their total, or a price per unit).',
  checked_noContradictingWords:
    'The summary was searched for words such as \u201Cfree\u201D, \u201Cwaived\u201D and \u201Crefund\u201D that go against the charges or refunds in the terms, and none was found.',
  checked_singleTotal: 'The summary does not present two different amounts as the total to pay.',
  checked_noHiddenCharacters: 'No key or text value in the terms holds hidden characters.',

  diff_added: '{path} was added: {after}.',
  diff_removed: '{path} ({before}) was removed.',
  diff_changed: '{path} changed from {before} to {after}.',
  diff_termsChanged: 'The terms changed from {before} to {after}.',
  diff_termsAdded: 'The new revision has terms; the previous one had none.',
  diff_termsRemoved: 'The new revision has no terms; the previous one had some.',
  diff_deadlineChanged: 'The approval deadline changed from {before} to {after}.',
  diff_deadlineSameMoment: 'The approval deadline is written differently ({before}, now {after}) but is the same moment.',
  diff_deadlineLaterDays: {
    one: 'The approval deadline moved {count} day later, from {before} to {after}.',
    other: 'The approval deadline moved {count} days later, from {before} to {after}.',
  },
  diff_deadlineLaterHours: {
    one: 'The approval deadline moved {count} hour later, from {before} to {after}.',
    other: 'The approval deadline moved {count} hours later, from {before} to {after}.',
  },
  diff_deadlineLaterMinutes: {
    one: 'The approval deadline moved {count} minute later, from {before} to {after}.',
    other: 'The approval deadline moved {count} minutes later, from {before} to {after}.',
  },
  diff_deadlineLaterSeconds: {
    one: 'The approval deadline moved {count} second later, from {before} to {after}.',
    other: 'The approval deadline moved {count} seconds later, from {before} to {after}.',
  },
  diff_deadlineLaterMilliseconds: {
    one: 'The approval deadline moved {count} millisecond later, from {before} to {after}.',
    other: 'The approval deadline moved {count} milliseconds later, from {before} to {after}.',
  },
  diff_deadlineEarlierDays: {
    one: 'The approval deadline moved {count} day earlier, from {before} to {after}.',
    other: 'The approval deadline moved {count} days earlier, from {before} to {after}.',
  },
  diff_deadlineEarlierHours: {
    one: 'The approval deadline moved {count} hour earlier, from {before} to {after}.',
    other: 'The approval deadline moved {count} hours earlier, from {before} to {after}.',
  },
  diff_deadlineEarlierMinutes: {
    one: 'The approval deadline moved {count} minute earlier, from {before} to {after}.',
    other: 'The approval deadline moved {count} minutes earlier, from {before} to {after}.',
  },
  diff_deadlineEarlierSeconds: {
    one: 'The approval deadline moved {count} second earlier, from {before} to {after}.',
    other: 'The approval deadline moved {count} seconds earlier, from {before} to {after}.',
  },
  diff_deadlineEarlierMilliseconds: {
    one: 'The approval deadline moved {count} millisecond earlier, from {before} to {after}.',
    other: 'The approval deadline moved {count} milliseconds earlier, from {before} to {after}.',
  },
  diff_revisionReused:
    'The Company sent different terms under the same revision, which the protocol forbids; an approval could cover terms you did not see.',
  diff_noChange: 'The new revision changes nothing in the summary, the terms or the deadline.',
} as const;

export type ReviewMessageKey = keyof typeof REVIEW_MESSAGES;

/** `reviewText('review_amountNotInSummary', { path, amount })`: the English `message` and its `text`. */
export const reviewText = messageBuilder(REVIEW_MESSAGES);

/**
 * Every messages.json entry of the review and summary checks, for `_locales/en/messages.json`:
 * the English the `message` members are made of, so the two can't differ.
 */
export function reviewChromeMessages(): Record<string, ChromeMessage> {
  return { ...chromeMessages(REVIEW_MESSAGES), ...summaryChromeMessages() };
}
