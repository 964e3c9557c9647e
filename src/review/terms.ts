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
import { SUMMARY_DISPLAY_LIMIT, summaryToText, type SummaryOptions } from '../summary/render.ts';
import { inspectText, type Severity } from '../summary/text-inspection.ts';
import {
  canonicalDecimal,
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
import type { CheckCode, CheckedStatement, ReviewFinding } from './types.ts';
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

/** Beyond these, terms are not a summary's worth of data: the rest is reported, not walked. */
const MAX_DEPTH = 32;
const MAX_VALUES = 1_000;

const SEVERITY_ORDER: Record<Severity, number> = { danger: 0, warning: 1, info: 2 };

interface Money {
  amount: string | number;
  currency: string;
}

/** `{ "amount": "70.00", "currency": "USD" }`, the seed's money shape (other members are walked on their own). */
function isMoney(value: unknown): value is Money & Record<string, unknown> {
  return (
    isPlainObject(value) &&
    (typeof value.amount === 'string' || typeof value.amount === 'number') &&
    canonicalDecimal(value.amount) !== null &&
    typeof value.currency === 'string' &&
    isCurrencyCode(value.currency)
  );
}

function signedDecimal(value: string | number): string | null {
  const canonical = canonicalDecimal(value);
  if (canonical === null) return null;
  const negative = /^\s*[-\u2212]/.test(String(value)) && /[1-9]/.test(canonical);
  return negative ? `-${canonical}` : canonical;
}

/** Equal as the Company would read them: "70.00" and 70 and "70" are one number. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (isMoney(a) && isMoney(b)) {
    return a.currency === b.currency && signedDecimal(a.amount) === signedDecimal(b.amount) && sameExtras(a, b);
  }
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

function sameExtras(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  keys.delete('amount');
  keys.delete('currency');
  return [...keys].every((k) => sameValue(a[k], b[k]));
}

const MISSING: unique symbol = Symbol('missing');
type RequestValue = unknown | typeof MISSING;

function childOf(request: RequestValue, key: PathSegment): RequestValue {
  if (typeof key === 'number') return Array.isArray(request) && key < request.length ? request[key] : MISSING;
  return isPlainObject(request) && Object.hasOwn(request, key) && request[key] !== undefined ? request[key] : MISSING;
}

/** Safe to show as is: `isMoney` admits only a plain decimal and three capital letters. */
function money(value: Money): string {
  return `${String(value.amount)} ${value.currency}`;
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

  add(severity: Severity, code: ReviewFinding['code'], path: readonly PathSegment[], message: string): void {
    this.findings.push({ severity, code, path: formatPath(path), message });
  }

  visit(value: unknown, path: PathSegment[], request: RequestValue, depth: number): void {
    if (this.values >= MAX_VALUES || depth > MAX_DEPTH) {
      this.tooLarge = true;
      return;
    }
    if (isMoney(value)) {
      this.values += 1;
      this.money(value, path, request);
      for (const [key, child] of Object.entries(value)) {
        if (key !== 'amount' && key !== 'currency') this.member(key, child, path, request, depth);
      }
      return;
    }
    if (Array.isArray(value)) {
      if (Array.isArray(request) && request.length > value.length) {
        this.add('danger', 'request-mismatch', path, `The terms list ${value.length} item(s) at ${this.where(path)}, but the agent asked for ${request.length}.`);
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
      this.add('warning', 'terms-too-large', [], `The terms are too large or too deeply nested to check in full; only the first ${MAX_VALUES} values, ${MAX_DEPTH} levels deep, were checked.`);
    }
    return this.findings;
  }

  private where(path: readonly PathSegment[]): string {
    return path.length === 0 ? 'the top level' : formatPath(path);
  }

  private member(key: string, child: unknown, path: PathSegment[], request: RequestValue, depth: number): void {
    const keyPath = [...path, key];
    const hidden = inspectText(key, { singleLine: true }).findings;
    if (hidden.length > 0) {
      this.tally.hidden += 1;
      this.add(worst(hidden), 'hidden-characters', keyPath, `The name of the term ${formatPath(keyPath)} contains ${describe(hidden)}.`);
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
      this.add('danger', 'amount-not-in-summary', path, `The terms set ${this.where(path)} to ${money(value)}, but the summary does not state that amount.`);
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
        this.add(worst(hidden), 'hidden-characters', path, `The value of ${formatPath(path)} contains ${describe(hidden)}.`);
      }
      if (isIsoDate(value)) {
        mustBeStated = true;
        stated = statesDate(this.text, value) || statesLiteral(this.text, value);
      } else if (isCurrencyCode(value) && (knownCurrency(value) || /currency/i.test(String(path[path.length - 1])))) {
        stated = statesCurrency(this.text, value);
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
    const at = this.where(path);
    if (typeof value === 'boolean' || value === null) {
      this.add('info', 'unverifiable-value', path, `The terms set ${at} to ${quote(value)}; check that the summary says the same in words.`);
    } else if (typeof value === 'string' && isIsoDate(value)) {
      this.add('warning', 'date-not-in-summary', path, `The terms set ${at} to ${quote(value)}, but the summary does not state that date.`);
    } else if (typeof value === 'number') {
      this.add('warning', 'not-in-summary', path, `The terms set ${at} to ${quote(value)}, but the summary does not state that number.`);
    } else {
      const unconfirmed = this.hasRequest ? 'the agent did not ask for it' : 'there is no request to confirm it';
      this.add('warning', 'not-in-summary', path, `The terms set ${at} to ${quote(value)}, but the summary does not mention it and ${unconfirmed}.`);
    }
  }

  private mismatch(path: PathSegment[], value: unknown, request: unknown, stated: boolean): void {
    const either = stated || typeof value === 'boolean' || value === null ? '' : ' The summary does not state the terms\u2019 value either.';
    this.add('danger', 'request-mismatch', path, `The terms set ${this.where(path)} to ${shown(value)}, but the agent asked for ${shown(request)}.${either}`);
  }
}

function worst(findings: ReadonlyArray<{ severity: Severity }>): Severity {
  return findings.reduce<Severity>((w, f) => (SEVERITY_ORDER[f.severity] < SEVERITY_ORDER[w] ? f.severity : w), 'info');
}

function describe(findings: ReadonlyArray<{ label: string; token: string }>): string {
  const labels = [...new Set(findings.map((f) => f.label))];
  const listed = labels.length > 5 ? `${labels.slice(0, 5).join(', ')}, \u2026` : labels.join(', ');
  const count = findings.length === 1 ? 'a hidden character' : `${findings.length} hidden characters`;
  return `${count} (${listed}), shown as ${findings[0]!.token}${findings.length > 1 ? ' and similar' : ''}`;
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
  return sameValue(terms, request);
}

const CHECKED_MESSAGES: Record<CheckCode, string> = {
  'amounts-stated': 'Every amount in the terms appears in the summary with its currency (or, for a zero amount, is named as none: "no fee").',
  'dates-stated': 'Every date in the terms appears in the summary.',
  'values-stated': 'Every other value in the terms (IDs, numbers, text) appears in the summary or is what the agent asked for.',
  'request-confirmed': 'Every value the agent asked for is in the terms unchanged.',
  'no-other-amounts': 'The summary states no amount that is not in the terms (or their total, or a price per unit).',
  'no-contradicting-words':
    'The summary was searched for words such as \u201Cfree\u201D, \u201Cwaived\u201D and \u201Crefund\u201D that go against the charges or refunds in the terms, and none was found.',
  'single-total': 'The summary does not present two different amounts as the total to pay.',
  'no-hidden-characters': 'No key or text value in the terms holds hidden characters.',
};

export interface OperationReview {
  /** What the person should look at, dangers first. */
  findings: ReviewFinding[];
  /** What was checked and holds, in a fixed order; empty when nothing could be checked. */
  checked: CheckedStatement[];
}

function checkInput(input: ReviewInput, name: string): void {
  if (!isPlainObject(input) || typeof input.summary !== 'string') {
    throw new CountersignError('ERR_INPUT_INVALID', `${name} needs { summary, terms?, request? } with a string summary.`);
  }
  if (input.terms !== undefined && !isPlainObject(input.terms)) {
    throw new CountersignError('ERR_OPERATION_INVALID', 'operation.terms: expected a JSON object (spec section 3).');
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
    review.add('info', 'summary-truncated', [], `The summary is long; only the part shown by default (${limit.toLocaleString('en-US')} characters) was checked against the terms.`);
  }
  const checked = new Set<CheckCode>();
  let wording: ReviewFinding[] = [];
  if (terms === undefined) {
    review.add('info', 'terms-absent', [], 'The Company sent no terms with this operation, so nothing in the summary could be checked against them: the summary is all there is to go on.');
  } else if (Object.keys(terms).length === 0) {
    review.add('info', 'terms-empty', [], 'The Company sent empty terms, so nothing in the summary could be checked against them.');
  } else {
    if (request === undefined) {
      review.add('info', 'request-absent', [], 'What the agent asked for was not available, so the terms could not be compared with it.');
    }
    review.visit(terms, [], request ?? MISSING, 0);
    const money = termsMoney(terms);
    wording = reviewWording(seen.text, money);
    const t = review.tally;
    if (!review.tooLarge) {
      if (t.money > 0 && t.moneyStated === t.money) checked.add('amounts-stated');
      if (t.dates > 0 && t.datesStated === t.dates) checked.add('dates-stated');
      if (t.other > 0 && t.otherOk === t.other) checked.add('values-stated');
      if (t.hidden === 0) checked.add('no-hidden-characters');
    }
    if (request !== undefined && Object.values(request).some((v) => v !== undefined) && requestHeld(terms, request, 0)) checked.add('request-confirmed');
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
  const order = Object.keys(CHECKED_MESSAGES) as CheckCode[];
  return { findings, checked: order.filter((code) => checked.has(code)).map((code) => ({ code, message: CHECKED_MESSAGES[code] })) };
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
