/**
 * The terms review (spec section 5): "When the operation has `terms`, the Personal Agent SHOULD
 * check that they agree with the `summary` and with what it asked for before asking for
 * approval, and point out any difference to the User. The Company writes both, so the
 * `summary` alone could describe something other than the `terms`."
 *
 * Rules, each from section 3 ("Everything that affects the action, such as what it changes,
 * any amount, date, or recipient ... MUST be in the revision's `summary`, and in `terms` if
 * present"):
 * - every value in `terms`, at any depth, is looked for in the summary as the person sees it;
 * - amounts (`{ amount, currency }` objects and JSON numbers) and dates must be in the summary,
 *   whatever the request says: the person reads the summary, not the request;
 * - any other value (an ID, a SKU) may instead be confirmed by what the agent asked for: the
 *   same key with the same value in the request body or tool arguments (`itm_4Qa` in the
 *   seed's exchange is in the request, not in the summary);
 * - a key that terms and request share must have the same value there, or it is a danger;
 * - true/false and null can't be matched in words: an info finding asks the person to check,
 *   unless the request confirms them;
 * - key names are the Company's identifiers and need not be in the summary, but keys and text
 *   values are inspected for hidden characters, as the Company's name is.
 * - a zero amount may be stated by words that name it as nothing ("No fee" for `fee: 0.00`).
 * One finding per path for the summary and request checks (the request mismatch wins), so a
 * changed SKU is one finding, not two.
 *
 * The other direction, the summary's own amounts and money words against the terms ("free",
 * "$0.00", a second total), is in `wording.ts`. `reviewOperation` runs both and lists what was
 * checked and holds; it never says that the terms "agree", because every check here is literal.
 */
import { CountersignError } from '../protocol/errors.ts';
import { describeValue } from '../protocol/issues.ts';
import { SUMMARY_DISPLAY_LIMIT, summaryToText, type SummaryOptions } from '../summary/render.ts';
import { inspectText, type Severity } from '../summary/text-inspection.ts';
import {
  canonicalDecimal,
  currencyCode,
  isCurrencyCode,
  isIsoDate,
  knownCurrency,
  numberMentions,
  statesCurrency,
  statesDate,
  statesLiteral,
  statesMoney,
  statesNumber,
  statesSlug,
  statesZeroByName,
} from './statements.ts';
import { keyWords, termsMoney } from './money.ts';
import { joinList } from '../summary/message-text.ts';
import { MAX_TERMS_DEPTH, MAX_TERMS_VALUES, reviewText } from './messages.ts';
import { CHECKED_STATEMENTS, finding, type RuleSentence } from './rules.ts';
import type { CheckCode, CheckedStatement, ReviewCode, ReviewFinding } from './types.ts';
import { reviewWording } from './wording.ts';
import { formatPath, isPlainObject, quote, type PathSegment } from './values.ts';

export interface ReviewInput {
  summary: string;
  /** The operation's `terms`; absent when the Company sent none. */
  terms?: Record<string, unknown> | undefined;
  /** What the agent asked for: the API request body or the MCP tool arguments (plus any path IDs). */
  request?: Record<string, unknown> | undefined;
}

/** Which part of the summary is checked: by default the part the window shows (see `summaryToText`). */
export type ReviewOptions = Pick<SummaryOptions, 'limit' | 'showAll'>;

const MAX_DEPTH = MAX_TERMS_DEPTH;
const MAX_VALUES = MAX_TERMS_VALUES;

const SEVERITY_ORDER: Record<Severity, number> = { danger: 0, warning: 1, info: 2 };

interface Money {
  amount: string | number;
  currency: string;
}

/** `{ "amount": "70.00", "currency": "USD" }`, the seed's money shape (other members are walked on their own); "usd" is USD (`currencyCode`). */
function isMoney(value: unknown): value is Money & Record<string, unknown> {
  return (
    isPlainObject(value) &&
    (typeof value.amount === 'string' || typeof value.amount === 'number') &&
    canonicalDecimal(value.amount) !== null &&
    currencyCode(value.currency) !== null
  );
}

/** The same money with its code in capitals, so "usd" and "USD" compare and show as one currency. */
function normalMoney<T>(value: T): T {
  return isMoney(value) ? { ...value, currency: currencyCode(value.currency)! } : value;
}

function signedDecimal(value: string | number): string | null {
  const canonical = canonicalDecimal(value);
  if (canonical === null) return null;
  // canonicalDecimal has refused leading white space, so a sign can only be the first character.
  const negative = /^[-\u2212]/.test(String(value)) && /[1-9]/.test(canonical);
  return negative ? `-${canonical}` : canonical;
}

/** Equal as the Company would read them: "70.00" and 70 and "70" are one number. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].every((k) => sameValue(a[k], b[k]));
  }
  if ((typeof a === 'string' || typeof a === 'number') && (typeof b === 'string' || typeof b === 'number')) {
    if (a === b) return true;
    const da = signedDecimal(a);
    return da !== null && da === signedDecimal(b);
  }
  return a === b;
}

const MISSING: unique symbol = Symbol('missing');
/** A request's value, or MISSING where the request has none (`unknown` already includes MISSING). */
type RequestValue = unknown;

function childOf(request: RequestValue, key: PathSegment): RequestValue {
  if (typeof key === 'number') return Array.isArray(request) && request[key] !== undefined ? request[key] : MISSING;
  return isPlainObject(request) && Object.hasOwn(request, key) && request[key] !== undefined ? request[key] : MISSING;
}

/** Safe to show as is: `isMoney` admits only a plain decimal and three letters. */
function money(value: Money): string {
  return `${String(value.amount)} ${currencyCode(value.currency)!}`;
}

function shown(value: unknown): string {
  return isMoney(value) ? money(value) : quote(value);
}

class Review {
  readonly findings: ReviewFinding[] = [];
  private readonly text: string;
  private readonly mentions: ReturnType<typeof numberMentions>;
  private values = 0;
  tooLarge = false;
  /** How many values of each kind were walked, and how many the summary or request accounts for. */
  readonly tally = { money: 0, moneyStated: 0, dates: 0, datesStated: 0, other: 0, otherOk: 0, hidden: 0 };

  constructor(summaryText: string, private readonly hasRequest: boolean) {
    this.text = summaryText;
    this.mentions = numberMentions(summaryText);
  }

  add<C extends ReviewCode>(severity: Severity, code: C, path: readonly PathSegment[], said: RuleSentence<C>): void {
    this.findings.push(finding(severity, code, formatPath(path), said));
  }

  visit(value: unknown, path: PathSegment[], request: RequestValue, depth: number): void {
    if (this.values >= MAX_VALUES || depth > MAX_DEPTH) {
      this.tooLarge = true;
      return;
    }
    if (isMoney(value)) {
      this.values += 1;
      this.money(normalMoney(value), path, normalMoney(request));
      for (const [key, child] of Object.entries(value)) {
        if (key !== 'amount' && key !== 'currency') this.member(key, child, path, request, depth);
      }
      return;
    }
    if (Array.isArray(value)) {
      if (Array.isArray(request) && request.length > value.length) {
        // The terms are an object, so a list is never the top level.
        this.add('danger', 'request-mismatch', path, reviewText('review_requestItemCount', { count: value.length, path: formatPath(path), asked: String(request.length) }));
      }
      value.forEach((child, i) => this.visit(child, [...path, i], childOf(request, i), depth + 1));
      return;
    }
    if (isPlainObject(value)) {
      for (const [key, child] of Object.entries(value)) this.member(key, child, path, request, depth);
      return;
    }
    this.values += 1;
    this.scalar(value, path, request);
  }

  finish(): ReviewFinding[] {
    if (this.tooLarge) {
      this.add('warning', 'terms-too-large', [], reviewText('review_termsTooLarge'));
    }
    return this.findings;
  }

  private member(key: string, child: unknown, path: PathSegment[], request: RequestValue, depth: number): void {
    const keyPath = [...path, key];
    const hidden = inspectText(key, { singleLine: true }).findings;
    if (hidden.length > 0) {
      this.tally.hidden += 1;
      this.add(worst(hidden), 'hidden-characters', keyPath, reviewText('review_hiddenInKey', { path: formatPath(keyPath), ...describe(hidden) }));
    }
    this.visit(child, keyPath, childOf(request, key), depth + 1);
  }

  private money(value: Money, path: PathSegment[], request: RequestValue): void {
    const stated =
      statesMoney(this.text, this.mentions, String(value.amount), value.currency) ||
      (canonicalDecimal(value.amount) === '0' && statesZeroByName(this.text, path.flatMap((s) => (typeof s === 'string' ? keyWords(s) : []))));
    this.tally.money += 1;
    if (stated) this.tally.moneyStated += 1;
    if (request !== MISSING && !sameValue(value, request)) {
      this.mismatch(path, value, request, stated);
    } else if (!stated) {
      // Terms that are themselves one `{ amount, currency }` have no path to name.
      const said =
        path.length === 0
          ? reviewText('review_amountNotInSummaryWhole', { amount: money(value) })
          : reviewText('review_amountNotInSummary', { path: formatPath(path), amount: money(value) });
      this.add('danger', 'amount-not-in-summary', path, said);
    }
  }

  private scalar(value: unknown, path: PathSegment[], request: RequestValue): void {
    const confirmed = request !== MISSING && sameValue(value, request);
    let stated: boolean;
    let mustBeStated = false;
    if (typeof value === 'string') {
      const hidden = inspectText(value, { singleLine: true }).findings;
      if (hidden.length > 0) {
        this.tally.hidden += 1;
        this.add(worst(hidden), 'hidden-characters', path, reviewText('review_hiddenInValue', { path: formatPath(path), ...describe(hidden) }));
      }
      if (isIsoDate(value)) {
        mustBeStated = true;
        stated = statesDate(this.text, value) || statesLiteral(this.text, value);
      } else if (isCurrencyCode(value) && knownCurrency(value)) {
        stated = statesCurrency(this.text, value);
      } else if (currencyCode(value) !== null && /currency/i.test(String(path[path.length - 1]))) {
        stated = statesCurrency(this.text, currencyCode(value)!);
      } else {
        stated =
          statesLiteral(this.text, value) ||
          statesSlug(this.text, value) ||
          (canonicalDecimal(value) !== null && statesNumber(this.mentions, value));
      }
    } else if (typeof value === 'number') {
      mustBeStated = true;
      stated = statesNumber(this.mentions, value);
    } else {
      stated = false;
    }

    const date = typeof value === 'string' && isIsoDate(value);
    const ok = (request === MISSING || confirmed) && (stated || (confirmed && !mustBeStated));
    if (date) {
      this.tally.dates += 1;
      if (ok) this.tally.datesStated += 1;
    } else {
      this.tally.other += 1;
      if (ok) this.tally.otherOk += 1;
    }
    if (request !== MISSING && !confirmed) {
      this.mismatch(path, value, request, stated);
      return;
    }
    if (stated || (confirmed && !mustBeStated)) return;
    // The terms are an object, so a single value always has a path.
    const shownValue = { path: formatPath(path), value: quote(value) };
    if (typeof value === 'boolean' || value === null) {
      this.add('info', 'unverifiable-value', path, reviewText('review_unverifiableValue', shownValue));
    } else if (typeof value === 'string' && isIsoDate(value)) {
      this.add('warning', 'date-not-in-summary', path, reviewText('review_dateNotInSummary', shownValue));
    } else if (typeof value === 'number' || canonicalDecimal(value as string) !== null) {
      // A quantity, as a number or as decimal text ("3.50"): a warning, like money and dates.
      const said = typeof value === 'number' ? reviewText('review_numberNotInSummary', shownValue) : reviewText(this.hasRequest ? 'review_valueNotInSummary' : 'review_valueNotInSummaryNoRequest', shownValue);
      this.add('warning', 'not-in-summary', path, said);
    } else {
      // Words and references (a booking reference, a colour) the summary leaves out are listed,
      // not warned of: warnings are for money, dates and quantities, so they keep their weight.
      this.add('info', 'not-in-summary', path, reviewText(this.hasRequest ? 'review_valueNotInSummary' : 'review_valueNotInSummaryNoRequest', shownValue));
    }
  }

  private mismatch(path: PathSegment[], value: unknown, request: unknown, stated: boolean): void {
    const unstated = !(stated || typeof value === 'boolean' || value === null);
    const values = { value: shown(value), asked: shown(request) };
    let said: RuleSentence<'request-mismatch'>;
    if (path.length === 0) said = reviewText(unstated ? 'review_requestMismatchWholeUnstated' : 'review_requestMismatchWhole', values);
    else said = reviewText(unstated ? 'review_requestMismatchUnstated' : 'review_requestMismatch', { path: formatPath(path), ...values });
    this.add('danger', 'request-mismatch', path, said);
  }
}

function worst(findings: ReadonlyArray<{ severity: Severity }>): Severity {
  return findings.reduce<Severity>((w, f) => (SEVERITY_ORDER[f.severity] < SEVERITY_ORDER[w] ? f.severity : w), 'info');
}

/** The data of a hidden-characters message: how many, which code points (five at most), the first token. */
function describe(findings: ReadonlyArray<{ label: string; token: string }>): { count: number; labels: string; token: string } {
  return { count: findings.length, labels: joinList([...new Set(findings.map((f) => f.label))], 5), token: findings[0]!.token };
}

/** Every value the agent asked for is in the terms, at the same place, with the same value. */
function requestHeld(terms: unknown, request: unknown, depth: number): boolean {
  if (depth > MAX_DEPTH) return false;
  if (Array.isArray(request)) {
    return Array.isArray(terms) && request.every((item, i) => item === undefined || requestHeld(terms[i], item, depth + 1));
  }
  if (isPlainObject(request) && !isMoney(request)) {
    return (
      isPlainObject(terms) &&
      Object.entries(request).every(([key, item]) => item === undefined || (Object.hasOwn(terms, key) && requestHeld(terms[key], item, depth + 1)))
    );
  }
  return sameValue(normalMoney(terms), normalMoney(request));
}

export interface OperationReview {
  /** What the person should look at, dangers first. */
  findings: ReviewFinding[];
  /** What was checked and holds, in a fixed order; empty when nothing could be checked. */
  checked: CheckedStatement[];
}

function checkInput(input: ReviewInput, name: string): void {
  if (!isPlainObject(input)) throw new CountersignError('ERR_ARGUMENT_INVALID', `${name}: expected { summary, terms?, request? }, got ${describeValue(input)}`);
  if (typeof input.summary !== 'string') throw new CountersignError('ERR_ARGUMENT_INVALID', `${name}.summary: expected a string, got ${describeValue(input.summary)}`);
  if (input.terms !== undefined && !isPlainObject(input.terms)) {
    throw new CountersignError('ERR_OPERATION_INVALID', `operation.terms: expected a JSON object (spec section 3), got ${describeValue(input.terms)}`);
  }
}

/**
 * The review of an operation before the person decides (spec section 5): `terms` against the
 * summary and against what the agent asked for (the rules at the top of this file), and the
 * summary's own amounts and money words against the terms (`wording.ts`). `checked` lists what
 * was checked and holds, never a verdict that the terms "agree": the checks are literal and
 * in English, and the summary is what the person approves.
 */
export function reviewOperation(input: ReviewInput, options: ReviewOptions = {}): OperationReview {
  checkInput(input, 'reviewOperation');
  const { terms } = input;
  const seen = summaryToText(input.summary, options);
  const request = isPlainObject(input.request) ? input.request : undefined;
  const review = new Review(seen.text, request !== undefined);
  if (seen.truncated) {
    const limit = options.limit ?? SUMMARY_DISPLAY_LIMIT;
    review.add('info', 'summary-truncated', [], reviewText('review_summaryTruncated', { count: limit }));
  }
  const checked = new Set<CheckCode>();
  let wording: ReviewFinding[] = [];
  if (terms === undefined) {
    review.add('info', 'terms-absent', [], reviewText('review_termsAbsent'));
  } else if (Object.keys(terms).length === 0) {
    review.add('info', 'terms-empty', [], reviewText('review_termsEmpty'));
  } else {
    if (request === undefined) {
      review.add('info', 'request-absent', [], reviewText('review_requestAbsent'));
    }
    // A request with no values asks for nothing, as a request member that is undefined does.
    const asked = request !== undefined && Object.values(request).some((v) => v !== undefined);
    review.visit(terms, [], asked ? request : MISSING, 0);
    const money = termsMoney(terms);
    wording = reviewWording(seen.text, money);
    const t = review.tally;
    if (!review.tooLarge) {
      if (t.money > 0 && t.moneyStated === t.money) checked.add('amounts-stated');
      if (t.dates > 0 && t.datesStated === t.dates) checked.add('dates-stated');
      if (t.other > 0 && t.otherOk === t.other) checked.add('values-stated');
      if (t.hidden === 0) checked.add('no-hidden-characters');
    }
    if (asked && requestHeld(terms, request, 0)) checked.add('request-confirmed');
    if (!seen.truncated) {
      const found = new Set(wording.map((f) => f.code));
      if (!found.has('amount-not-in-terms') && !found.has('currency-not-in-terms')) checked.add('no-other-amounts');
      if (money.amounts.some((a) => a.direction !== 'none') && !found.has('contradicts-charge') && !found.has('direction-reversed')) checked.add('no-contradicting-words');
      if (money.amounts.length > 0 && !found.has('second-total')) checked.add('single-total');
    }
  }
  const findings = [...review.finish(), ...wording]
    .map((finding, order) => ({ finding, order }))
    .sort((a, b) => SEVERITY_ORDER[a.finding.severity] - SEVERITY_ORDER[b.finding.severity] || a.order - b.order)
    .map(({ finding }) => finding);
  const order = Object.keys(CHECKED_STATEMENTS) as CheckCode[];
  return { findings, checked: order.filter((code) => checked.has(code)).map((code) => ({ code, ...reviewText(CHECKED_STATEMENTS[code]) })) };
}

/**
 * Checks `terms` against the summary and against what the agent asked for. Returns the
 * findings of `reviewOperation`, dangers first. An empty list does not mean that the terms
 * agree with the summary, only that none of the checks found a difference.
 */
export function reviewTerms(input: ReviewInput, options: ReviewOptions = {}): ReviewFinding[] {
  checkInput(input, 'reviewTerms');
  return reviewOperation(input, options).findings;
}
