// Longer than 500 lines on purpose: the money-wording rules judge one summary together (a denial
// is excused once the charge is stated as a charge), so they share one reading of the summary's
// amounts and money words; the phrase lists are data, with the rules that read them.
/**
 * What the summary says about money, against the money in the terms (spec section 5: "The
 * Company writes both, so the `summary` alone could describe something other than the
 * `terms`"). Finding each terms amount somewhere in the summary is not enough: "**Free
 * exchange. You pay $0.00.**" with "Ref 700.00 USD" in a list below states 700.00 USD and
 * still tells the person they pay nothing. So the summary's own amounts and money words are
 * read too. The rules, each a danger when the terms have money (the person may be misled
 * about what they pay):
 *
 * - `amount-not-in-terms`: an amount the summary presents (a number, in digits or in English
 *   words, with a currency sign, code or word next to it: "$7 hundred", "seven dollars",
 *   "twelve dollars and fifty cents"; or a two-decimal number right after "pay" or "total")
 *   that is none of: an amount in the terms; the sum of the terms' charges (or refunds, or
 *   charges less refunds) in one currency; an amount divided or multiplied by a count in the
 *   terms (`nights: 3`). An honest summary that shows an original price or a waived fee puts
 *   that amount in the terms too (`original_price`, `waived_fee`). Without money in the terms
 *   it is a warning.
 * - `currency-not-in-terms`: an amount in a currency no amount of the terms is in. A warning
 *   only when marked as an estimate ("about €645"), as a conversion for information.
 * - `contradicts-charge`, when the terms charge: words that say the person pays nothing or gets
 *   money (free, no charge, no added cost, waived, complimentary, on us, at our expense, on
 *   the front desk's tab, covers the whole amount, as a courtesy, already settled, nil to pay,
 *   100% off, fully discounted, $0.00, "zero dollars", refund, credit, cashback, a $25.00
 *   bonus, paid into your account, you get … back). Not a contradiction: a negated word ("no
 *   refunds", "not free", "no money back"); "refundable" and "non-refundable", which state a
 *   policy, not a payment; "credit card"; refund words when the terms do hold a refund; "free"
 *   before, or "free"/"waived" after, an extra that the terms do not charge for ("free return
 *   shipping", "the change fee is waived"); words whose clause holds only terms amounts that
 *   are not charges (a waived fee that is in the terms); words in a sentence about cancelling
 *   ("if you cancel before November 1 you pay nothing") that holds no charged amount; a denial
 *   of something on top ("no further payment", "nothing more to pay", "already included", and
 *   "no fees" when no charge of the terms is a fee) once the summary has stated a charge of
 *   the terms, not as a reference ("Ref 700.00 USD") and not as money off or back.
 * - `direction-reversed`: an amount of the terms presented the other way round: the words next
 *   to it (the word right after it, else the nearest in its clause) make a charge money to
 *   the person ("$700.00 will be refunded", "$700.00 off", "700.00 USD CR") or a refund a
 *   charge ("you are charged $70.00"); and a charge written with a minus sign ("-$700.00",
 *   "USD \u2212700.00"), which reads as money off or back, unless words by it say the money
 *   leaves the person's account ("\u2212$612.40 from checking", as banks write a debit).
 * - `second-total`: two different amounts presented as the total or what the person pays
 *   ("Total: $700.00" … "Total today: $7.00"), unless each is an amount of the terms under a
 *   key that names it as a total or a due amount (`total`, `deposit_due_today`, `balance`).
 *
 * Words are English only, and the lists are lists: a summary in another language, or wording
 * outside them ("it comes with the room", "you're all square", "a hundred percent off" in
 * words), gets none of these findings, which is why the review never tells the person that
 * the terms "agree". What the rules catch of summaries written after them is measured on the
 * holdouts of test/fixtures/misleading-summaries/ (its README.md).
 */
import type { Severity } from '../summary/text-inspection.ts';
import { fromMicros, keyWords, toMicros, type MoneyDirection, type TermsAmount, type TermsMoney } from './money.ts';
import { moneyMentions, numberMentions, type MoneyMention } from './statements.ts';
import { joinList } from '../summary/message-text.ts';
import { reviewText } from './messages.ts';
import { finding, type RuleSentence } from './rules.ts';
import type { ReviewCode, ReviewFinding } from './types.ts';
import { formatPath, quote } from './values.ts';

/** An amount the summary may state: one of the terms, or derived from them (a total, a unit price). */
interface Allowed {
  value: string;
  currency: string | null;
  direction: MoneyDirection;
  /** The terms amount itself; null for a derived one. */
  amount: TermsAmount | null;
}

type CueKind = 'charge' | 'refund' | 'free';

interface Cue {
  start: number;
  end: number;
  kind: CueKind;
  /** One word that a "not" before it turns around ("free", "refund"); phrases carry their own negation. */
  negatable: boolean;
  /** Counts only with an amount right after it ("you receive $70.00", not "you receive the jacket"). */
  needsMoney?: boolean;
  /** Says which way a nearby amount goes, but is no contradiction on its own. */
  directionOnly?: boolean;
  /** A free word before an extra ("free return shipping", "we'll cover delivery"): it is about the extra, not an amount near it. */
  extra?: string;
  /** Denies a charge beyond one stated ("no further payment", "nothing more to pay"): true once the summary has stated the charge. */
  relative?: boolean;
}

interface Mention extends MoneyMention {
  allowed: Allowed[];
}

/** What a denial may be of: "no cost", "zero fees", "without any payment", "at no expense", "no money (changes hands)". */
const MONEY_NOUNS = String.raw`(?:costs?|charges?|fees?|payments?|expenses?|money(?!\s+back)|surcharges?|outlay)\b`;
/** Words that make a denial relative to a charge stated elsewhere: "no further payment", "nothing more to pay". */
const RELATIVE = String.raw`(?:extra|added|additional|further|more|else)`;
/** A percentage that leaves nothing to pay: "100%", "100 percent" (or more, which is as false). */
const WHOLE_PERCENT = String.raw`(?:100|[1-9]\d{2,})(?:\.0+)?\s*(?:%|percent\b|per\s*cent\b)`;

/** [pattern, kind, negatable, needsMoney, only for the direction of a nearby amount] */
const CUE_PATTERNS: ReadonlyArray<readonly [RegExp, CueKind, boolean, boolean?, boolean?]> = [
  [/(?<![\p{L}\p{N}-])free(?![\p{L}\p{N}]|-(?:form|text|standing|range|style|flowing))(?:\s+of\s+(?:charge|cost))?/giu, 'free', true],
  [/\b(?:fee|charge|cost|payment|commission)-free\b/giu, 'free', false],
  [/\bcomplimentary\b/giu, 'free', true],
  [/\bgratis\b/giu, 'free', true],
  [/\bon\s+(?:us|the\s+house)\b/giu, 'free', false],
  // "No cost", "at zero extra cost", "without any payment", "with no out-of-pocket cost", "at no expense to you".
  [new RegExp(String.raw`\b(?:no|zero|nil|without(?:\s+any)?)[\s-]+(?:${RELATIVE}\s+)?(?:out[\s-]of[\s-]pocket\s+)?${MONEY_NOUNS}`, 'giu'), 'free', false],
  [/\b(?:pay|paying|pays|owe|owing|costs?|costing)\s+(?:you\s+)?(?:nothing|zero|zilch|nada)\b/giu, 'free', false],
  [/\bwithout\s+paying\b/giu, 'free', false],
  [/\bour\s+(?:treat|gift\s+to\s+you)\b/giu, 'free', false],
  [new RegExp(String.raw`\b(?:nothing|nil|zero)\s+(?:${RELATIVE}\s+)?(?:to\s+pay|is\s+charged|will\s+be\s+charged|is\s+due|due)\b`, 'giu'), 'free', false],
  [/\bnothing\s+(?:left\s+(?:to\s+pay|on\s+your\s+(?:account|bill|card))|outstanding)\b/giu, 'free', false],
  // "You won't be out a penny", "it doesn't cost you a cent (more)".
  [/\b(?:won't|wont|will\s+not|doesn't|does\s+not|don't|do\s+not|never|not)\s+(?:be\s+out|cost(?:\s+you)?|spend)\s+(?:a|one)\s+(?:single\s+)?(?:cent|penny|dime|thing|dollar|euro|pound)\b(?:\s+(?:more|extra))?/giu, 'free', false],
  [/\bcosts?\s+(?:you\s+)?(?:not\s+(?:a|one)|no)\s+(?:single\s+)?(?:cent|penny|dime|thing|dollar|euro|pound|money)\b(?:\s+(?:more|extra))?/giu, 'free', false],
  [/\b(?:at|on)\s+our\s+(?:own\s+)?(?:expense|cost|dime)\b/giu, 'free', false],
  // Someone else's tab: "on the front desk's tab", "at the airline's expense" (not "on your tab", which is the person's).
  [/\b(?:on|at)\s+(?:the\s+)?(?!your\b)(?:[\p{L}-]+\s+)?[\p{L}-]+(?:'s|s')\s+(?:tab|dime|expense|cost)\b/giu, 'free', false],
  [/\bcover(?:s|ed|ing)?\s+(?:the\s+)?(?:whole|full|entire|total)\s+(?:amount|cost|price|bill|fee|charge)\b|\b(?:whole|full|entire)\s+(?:amount|cost|price|bill)\s+is\s+(?:covered|paid)\b/giu, 'free', false],
  [/\bas\s+a\s+courtesy\b|\bcourtesy\s+of\b/giu, 'free', false],
  [/\bcomp(?:ed|'d)\b/giu, 'free', true],
  // "100% off", "a 100 percent discount", "discounted by 100%", "fully discounted".
  [new RegExp(String.raw`\b${WHOLE_PERCENT}(?:\s+|-)(?:off\b|discount(?:ed)?\b|reduction\b|markdown\b|covered\b|free\b|paid\b)`, 'giu'), 'free', true],
  [new RegExp(String.raw`\b(?:discount(?:ed)?|reduc(?:ed|tion)|marked\s+down|knocked\s+off)\s+(?:of\s+|by\s+)?${WHOLE_PERCENT}`, 'giu'), 'free', true],
  [/\b(?:fully|completely|entirely|totally|wholly)\s+(?:discounted|comped|covered|paid(?:\s+for)?|prepaid)\b|\b(?:a\s+)?full\s+discount\b/giu, 'free', true],
  [/\b(?:won't|wont|will\s+not|not|never)\s+be\s+(?:charged|billed|debited)\b/giu, 'free', false],
  [/\b(?:won't|wont|will\s+not|don't|do\s+not|doesn't|does\s+not|never|needn't|need\s+not|no\s+need\s+to)\s+(?:have\s+to\s+)?pay\b(?:\s+(?:anything|a\s+(?:cent|penny|thing)))?/giu, 'free', false],
  [/\bnothing\s+(?:owed|owing)\b/giu, 'free', false],
  [/\balready\s+(?:been\s+)?(?:paid|settled|covered)\b|\b(?:been\s+)?(?:paid|settled|covered)\s+already\b/giu, 'free', false],
  // "Already part of what you pay", "already included": nothing on top of a charge stated before (see `relative`).
  [/\balready\s+(?:part\s+of|included\s+in)\b/giu, 'free', false],
  [/\bcovered\s+by\b/giu, 'free', false],
  [
    /\b(?:we|we'll|we\s+will|we've|we\s+have|we're|we\s+are)\s+(?:cover(?:ed|ing)?|pa(?:y|id|ying)\s+for|take(?:n)?\s+care\s+of|absorb(?:ed|ing)?|pick(?:ed|ing)?\s+up\s+the\s+(?:tab|bill|cost)|foot(?:ed|ing)?\s+the\s+bill|bear(?:ing)?\s+the\s+cost)\b/giu,
    'free',
    false,
  ],
  [/\bwaiv(?:e|ed|es|ing)\b/giu, 'free', true],
  [/\b(?:for\s+nothing|zero\s+(?:cost|charge))\b/giu, 'free', false],
  [/\brefund(?:s|ed|ing)?\b/giu, 'refund', true],
  [/\bcredit(?:s|ed|ing)?\b(?!\s+(?:card|or\s+debit|union|check|score|limit))/giu, 'refund', true],
  [/\breimburs\w*/giu, 'refund', true],
  [/\bcash[\s-]?back\b/giu, 'refund', true],
  [/\brebat(?:e|es|ed)\b/giu, 'refund', true],
  [new RegExp(String.raw`\b${WHOLE_PERCENT}(?:\s+|-)(?:refunded|reimbursed|back|returned)\b`, 'giu'), 'refund', true],
  // "A $25.00 bonus", "a bonus of $25.00"; not "bonus miles".
  [/(?<=\d(?:\s|\s?[A-Z]{3}\s))bonus\b|\bbonus(?:\s+of)?(?=\s+[^\s\p{L}])/giu, 'refund', true, true],
  [/\bpayouts?\b/giu, 'refund', true],
  [/\bpa(?:y|ys|id|ying)\s+(?:out\s+)?(?:back\s+)?(?:to\s+)?you\b/giu, 'refund', false],
  [/\bpa(?:y|ys|id)\s+(?:out\s+)?(?:back\s+)?to\s+your\b/giu, 'refund', false],
  [/\b(?:money|cash)\s+back\b/giu, 'refund', true],
  // "You get it back within 10 days" is the item; "you get $70.00 back" is money.
  [/\b(?:you(?:'ll|\s+will)?\s+)?(?:get|gets|getting|got|receive|receives|receiving)\b(?:\s+[^\s.!?;]+){0,4}?\s+back\b/giu, 'refund', false, true],
  [/\byou(?:'ll|\s+will)?\s+(?:receive|get)\b/giu, 'refund', false, true],
  [/\byou(?:'re|\s+are)\s+owed\b/giu, 'refund', false],
  [/\b(?:deposited|returned|sent|transferred|paid\s+out|given)\s+(?:back\s+)?(?:in|into|to)\s+your\b|\bback\s+(?:in|into|to|on|onto)\s+your\b/giu, 'refund', false, true],
  // Money that arrives: "paid into your account", "lands in your balance" ("charged to your card" is the other way).
  [/\b(?:pa(?:y|ys|id|ying)|deposit(?:s|ed|ing)?|transfer(?:s|red|ring)?|sen(?:d|ds|t))\b(?:\s+(?:[^\s.!?;]|\.(?=\S))+){0,4}?\s+into\s+your\b|\b(?:lands?|landing|arrives?|arriving)\s+in\s+your\b/giu, 'refund', false, true],
  // "You save $700.00" makes the amount a saving; "save 10%" alone contradicts nothing.
  [/\byou(?:'ll|\s+will)?\s+save\b|\bsavings?\s+of\b|\bsave\b(?=\s+[^\s\p{L}])/giu, 'free', true, false, true],
  // "The full $89.00 is knocked off", "$20.00 off your bill": the amount taken off what the person pays.
  [/\bknock(?:s|ed|ing)?\s+off\b|\boff\s+(?:the|your)\s+(?:price|bill|total|order|fare)\b/giu, 'free', true, false, true],
  [/\bcharg(?:e|ed|es|ing)\b/giu, 'charge', true],
  [/\bpa(?:y|ys|ying|id|yable|yment)\b/giu, 'charge', true],
  [/\b(?:costs?|fees?|price|due|debit(?:ed)?|bill(?:ed)?|owe|more|extra|additional|surcharge|deposit|total|deducted|keeps?|retain(?:ed|s)?|withh[eo]ld)\b/giu, 'charge', true],
];

/** Words right after an amount that say which way it goes ("$70.00 more", "$20.00 less", "$70.00 back", "$70.00 off"). */
const AFTER_AMOUNT = /^(?:\s|\u27E8U\+[0-9A-F]+\u27E9)*(more|extra|additional|less|back|off(?!-)|refund(?:ed)?|credit(?:ed)?|cash\s?back)\b/i;

/** The book-keeping marks after an amount: "700.00 CR" is a credit to the person, "700.00 DR" a debit. */
const CREDIT_DEBIT_AFTER = /^[^\S\n]?(CR|DR)\b/;

/** A label that makes an amount a reference, not a charge stated: "Ref: 700.00 USD", "reference 700.00 USD". */
const REFERENCE_BEFORE = /\b(?:ref|reference|code)\b[^\p{L}\p{N}\n]*$/iu;

const NEGATION = /(?:\b(?:not|no|non|never|without|nor|cannot)|n't)(?:[^\S\n]+[\p{L}']+){0,2}[^\S\n]*$|\bnon-$/iu;

/** Extras a summary may honestly call free while the main thing is charged. */
const EXTRA = String.raw`shipping|delivery|postage|returns?|return\s+label|cancellations?|breakfast|wi-?fi|parking|gifts?(?:\s+wrap(?:ping)?)?|trial|seat\s+selection|carry-on|checked\s+bags?|baggage|installation|assembly|alterations|samples?`;
const FEE_NAMES = String.raw`change|booking|service|delivery|shipping|cancellation|processing|restocking|admin|administration|late|baggage|seat|reservation|convenience|handling|transfer|transaction|setup|activation`;
const EXTRA_AFTER = new RegExp(String.raw`^\s+(?:(?:for|on|of)\s+)?(?:(?:the|your)\s+)?(?:(?:return|standard|express|next-day|same-day|2-day|two-day|ground|economy)\s+)?(${EXTRA})\b`, 'iu');
const EXTRA_BEFORE = new RegExp(String.raw`\b(${EXTRA}|(?:${FEE_NAMES})\s+fees?)\b(?:[^\S\n]+[\p{L}']+){0,3}[^\S\n]*[:\-\u2013\u2014]?[^\S\n]*$`, 'iu');
/** An extra named by a key of a charged amount is no longer an extra: "free shipping" with `shipping: 9.99`. */
const EXTRA_GROUPS: ReadonlyArray<readonly string[]> = [['shipping', 'delivery', 'postage', 'return', 'returns', 'label']];

/** Presented as the total or what the person pays. */
const TOTAL_CUE =
  /\b(?:grand\s+)?total(?:\s+(?:today|now|due|charged|to\s+pay|payable|price|cost|amount))?\b|\byou(?:'ll|\s+will)?\s+(?:only\s+)?pay\b|\bpay\s+(?:today|now|only)\b|\b(?:amount|balance|payment)\s+due\b|\b(?:is|are)\s+due\b|\bdue\s+(?:today|now)\b|\btoday's\s+charge\b|\bcharged\s+(?:today|now)\b|\b(?:you(?:'ll|\s+will)?\s+be|is|are|will\s+be)\s+(?:charged|billed|debited)\b|\bwe(?:'ll|\s+will)?\s+charge(?:\s+you)?\b|\bin\s+total\b|\bpayable\b/giu;
/** Not a total: an amount relative to another, or per unit. */
const NOT_A_TOTAL = /^(?:\s|\u27E8U\+[0-9A-F]+\u27E9)*(?:more|less|extra|additional|off|back|each|apiece|monthly|(?:a|per|\/)\s*(?:month|night|day|week|year|person|ticket|item|unit|seat|guest))\b/i;
const TOTAL_KEY = new Set(['total', 'due', 'pay', 'payable', 'balance', 'deposit', 'today', 'now', 'upfront', 'installment', 'instalment', 'charge', 'charged', 'grand', 'remaining']);

/** Keys of an amount taken now and given back later. */
const HELD = new Set(['deposit', 'hold', 'security', 'guarantee', 'authorization', 'authorisation', 'preauthorization', 'bond']);
/** Key words too general to say which amount words are about. */
const GENERIC_MONEY = new Set(['amount', 'price', 'total', 'cost', 'charge', 'value', 'money', 'sum']);

const ESTIMATE_BEFORE = /(?:\b(?:about|approx\.?|approximately|around|roughly|circa|ca\.|est\.?|estimated|equivalent\s+of)|~|\u2248)[^\S\n]*$/i;

const MAX_FINDINGS_PER_CODE = 5;
/** Characters of context either side of a word or amount a message quotes. */
const CONTEXT = 30;

/** Sentence ends: ". " "! " "? " and line breaks. */
const SENTENCE_END = /[.!?](?=\s|$)|\n/g;
/** Clause ends within a sentence. */
const CLAUSE_END = /[.!?](?=\s|$)|\n|[;()\u2013\u2014]|,(?=\s)|\s-\s|\bbut\b/g;

function boundaries(text: string, re: RegExp): number[] {
  const out = [0];
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    out.push(m.index + m[0].length);
    if (m[0].length === 0) re.lastIndex += 1;
  }
  out.push(text.length);
  return out;
}

/** The [start, end) of the span between boundaries that holds `at`. */
function spanOf(bounds: readonly number[], at: number): [number, number] {
  let lo = 0;
  let hi = bounds.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (bounds[mid]! <= at) lo = mid;
    else hi = mid;
  }
  return [bounds[lo]!, bounds[hi]!];
}

function allowedAmounts(money: TermsMoney): Allowed[] {
  const out: Allowed[] = money.amounts.map((a) => ({ value: a.value, currency: a.currency, direction: a.direction, amount: a }));
  const byCurrency = new Map<string | null, { charges: bigint[]; refunds: bigint[] }>();
  for (const a of money.amounts) {
    const micros = toMicros(a.value);
    if (micros === null || a.direction === 'none') continue;
    const entry = byCurrency.get(a.currency) ?? { charges: [], refunds: [] };
    (a.direction === 'charge' ? entry.charges : entry.refunds).push(micros);
    byCurrency.set(a.currency, entry);
    for (const n of money.quantities) {
      const q = BigInt(n);
      // A unit price to the cent (or to the unit for currencies without cents): "€180.00 per night".
      if ((micros % (q * 10_000n)) === 0n) out.push({ value: fromMicros(micros / q), currency: a.currency, direction: a.direction, amount: null });
      out.push({ value: fromMicros(micros * q), currency: a.currency, direction: a.direction, amount: null });
    }
  }
  const sum = (xs: bigint[]) => xs.reduce((s, x) => s + x, 0n);
  for (const [currency, { charges, refunds }] of byCurrency) {
    if (charges.length > 1) out.push({ value: fromMicros(sum(charges)), currency, direction: 'charge', amount: null });
    if (refunds.length > 1) out.push({ value: fromMicros(sum(refunds)), currency, direction: 'refund', amount: null });
    if (charges.length > 0 && refunds.length > 0) {
      const net = sum(charges) - sum(refunds);
      if (net !== 0n) out.push({ value: fromMicros(net), currency, direction: net > 0n ? 'charge' : 'refund', amount: null });
    }
  }
  return out;
}

const RELATIVE_IN = new RegExp(String.raw`\b(?:${RELATIVE}|already\s+(?:part|included))\b`, 'iu');
/** A denial of a fee by name ("no fees are taken"): about fees, when the terms charge none by that name. */
const FEE_NOUN = /\b(fee|commission|surcharge)s?\b/i;
/** Words by a minus sign that make it a debit from the person's account, as banks write it: "\u2212$612.40 from checking". */
const OUTFLOW = /\bfrom\s+(?:your\s+)?(?:(?:checking|savings|current|bank|card)\s+)?(?:account|checking|savings|balance|wallet)\b|\b(?:debit(?:ed)?|withdrawn|withdrawal|outgoing)\b|\bleaves?\s+your\b/i;

function findCues(text: string): Cue[] {
  const found: Cue[] = [];
  for (const [re, kind, negatable, needsMoney, directionOnly] of CUE_PATTERNS) {
    re.lastIndex = 0;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      const relative = kind === 'free' && RELATIVE_IN.test(m[0]);
      found.push({ start: m.index, end: m.index + m[0].length, kind, negatable, ...(needsMoney ? { needsMoney } : {}), ...(directionOnly ? { directionOnly } : {}), ...(relative ? { relative } : {}) });
    }
  }
  // A longer cue wins over the words inside it: "won't be charged" is not "charged".
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  const kept: Cue[] = [];
  for (const cue of found) {
    const last = kept[kept.length - 1];
    if (last && cue.start < last.end) continue;
    kept.push(cue);
  }
  for (const cue of kept) {
    // A negated word goes the other way: "no refunds" and "not free" are the person paying.
    if (cue.negatable && cue.kind !== 'charge' && NEGATION.test(text.slice(Math.max(0, cue.start - 40), cue.start))) cue.kind = 'charge';
    const extra = cue.kind === 'free' ? EXTRA_AFTER.exec(text.slice(cue.end, cue.end + 40)) : null;
    if (extra) cue.extra = extra[1]!;
  }
  return kept;
}

function sameKind(values: readonly MoneyDirection[]): MoneyDirection | null {
  return !values.includes('none') && new Set(values).size === 1 ? values[0]! : null;
}

class WordingReview {
  readonly findings: ReviewFinding[] = [];
  private readonly counts = new Map<ReviewCode, number>();
  private readonly text: string;
  private readonly sentences: number[];
  private readonly clauses: number[];
  private readonly mentions: Mention[];
  private readonly cues: Cue[];
  private readonly charges: TermsAmount[];
  private readonly hasMoney: boolean;
  private readonly hasRefund: boolean;

  constructor(summaryText: string, private readonly money: TermsMoney) {
    // Curly apostrophes as straight ones, one for one, so positions stay those of the text.
    this.text = summaryText.replace(/[\u2018\u2019\u02BC]/g, "'");
    this.sentences = boundaries(this.text, SENTENCE_END);
    this.clauses = boundaries(this.text, CLAUSE_END);
    const allowed = allowedAmounts(money);
    const codes = money.amounts.flatMap((a) => (a.currency === null ? [] : [a.currency]));
    this.mentions = moneyMentions(this.text, numberMentions(this.text), codes).map((m) => ({
      ...m,
      allowed: allowed.filter((a) => m.values.includes(a.value) && (a.currency === null || m.currencies.length === 0 || m.currencies.includes(a.currency))),
    }));
    this.cues = findCues(this.text);
    this.charges = money.amounts.filter((a) => a.direction === 'charge');
    this.hasMoney = money.amounts.length > 0;
    this.hasRefund = money.amounts.some((a) => a.direction === 'refund');
  }

  run(): ReviewFinding[] {
    this.amounts();
    this.contradictions();
    this.directions();
    this.totals();
    return this.findings;
  }

  private add<C extends ReviewCode>(severity: Severity, code: C, path: string, said: RuleSentence<C>): void {
    const count = this.counts.get(code) ?? 0;
    if (count >= MAX_FINDINGS_PER_CODE) return;
    this.counts.set(code, count + 1);
    this.findings.push(finding(severity, code, path, said));
  }

  private shown(m: MoneyMention): string {
    return quote(this.text.slice(m.start, m.end));
  }

  /** The words around [start, end), within its sentence, quoted: what the person can find on screen. */
  private context(start: number, end: number): string {
    const [s, e] = spanOf(this.sentences, start);
    let from = Math.max(s, start - CONTEXT);
    let to = Math.min(e, end + CONTEXT);
    // Whole words only, so the quote does not start or end inside one.
    if (from > s) from = this.text.indexOf(' ', from) + 1 || from;
    if (to < e) to = Math.max(end, this.text.lastIndexOf(' ', to));
    const text = this.text.slice(from, to).replace(/\s+/g, ' ').trim();
    return quote(`${from > s ? '\u2026' : ''}${text}${to < e ? '\u2026' : ''}`);
  }

  /** The terms' amounts, for a message: "price_difference 700.00 USD". */
  private termsList(amounts: readonly TermsAmount[] = this.money.amounts): string {
    return joinList(amounts.map((a) => `${formatPath(a.path)} ${a.shown}`), 3);
  }

  private chargesIn(start: number, end: number): boolean {
    return this.within(start, end).some((m) => m.allowed.some((a) => a.direction === 'charge'));
  }

  private amounts(): void {
    const termsCurrencies = new Set(this.money.amounts.map((a) => a.currency));
    const severity: Severity = this.hasMoney ? 'danger' : 'warning';
    for (const m of this.mentions) {
      if (m.allowed.length > 0) continue;
      const foreign = m.currencies.length > 0 && this.hasMoney && !termsCurrencies.has(null) && !m.currencies.some((c) => termsCurrencies.has(c));
      if (foreign) {
        const estimate = ESTIMATE_BEFORE.test(this.text.slice(Math.max(0, m.start - 20), m.start).replace(/\($/, ''));
        this.add(estimate ? 'warning' : 'danger', 'currency-not-in-terms', '', reviewText('review_currencyNotInTerms', { amount: this.shown(m), terms: this.termsList() }));
      } else if (this.hasMoney) {
        this.add(severity, 'amount-not-in-terms', '', reviewText('review_amountNotInTerms', { amount: this.shown(m), terms: this.termsList() }));
      } else {
        this.add(severity, 'amount-not-in-terms', '', reviewText('review_amountWithoutTermsMoney', { amount: this.shown(m) }));
      }
    }
  }

  private charged(): string {
    return this.charges.length === 1 ? `${this.charges[0]!.shown} (${formatPath(this.charges[0]!.path)})` : this.termsList(this.charges);
  }

  private contradictions(): void {
    if (this.charges.length === 0) return;
    const cues: Cue[] = this.cues.filter((c) => c.kind !== 'charge' && !c.directionOnly);
    // "$0.00" that is not an amount of the terms says "free" as plainly as the word.
    for (const m of this.mentions) {
      if (m.allowed.length === 0 && m.values.every((v) => v === '0')) cues.push({ start: m.start, end: m.end, kind: 'free', negatable: false });
    }
    const said = new Set<string>();
    for (const cue of cues.sort((a, b) => a.start - b.start)) {
      if (cue.needsMoney && !this.nearMoney(cue)) continue;
      if (this.excused(cue)) continue;
      const words = this.text.slice(cue.start, cue.end).toLowerCase().replace(/\s+/g, ' ');
      if (said.has(words)) continue;
      said.add(words);
      const path = this.charges.length === 1 ? formatPath(this.charges[0]!.path) : '';
      const values = { words: quote(this.text.slice(cue.start, cue.end)), context: this.context(cue.start, cue.end), charged: this.charged() };
      this.add('danger', 'contradicts-charge', path, reviewText('review_contradictsCharge', values));
    }
  }

  /** Index of the first mention starting at or after `at` (mentions are in text order). */
  private firstFrom(at: number): number {
    let lo = 0;
    let hi = this.mentions.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.mentions[mid]!.start < at) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Mentions wholly within [start, end). */
  private within(start: number, end: number): Mention[] {
    const out: Mention[] = [];
    for (let i = this.firstFrom(start); i < this.mentions.length && this.mentions[i]!.start < end; i += 1) {
      if (this.mentions[i]!.end <= end) out.push(this.mentions[i]!);
    }
    return out;
  }

  /** An amount right after the cue, or anywhere in its clause. */
  private nearMoney(cue: Cue): boolean {
    const [cs, ce] = spanOf(this.clauses, cue.start);
    const next = this.mentions[this.firstFrom(cue.end)];
    return (next !== undefined && next.start - cue.end <= 25) || this.within(cs, ce).length > 0;
  }

  private excused(cue: Cue): boolean {
    const [ss, se] = spanOf(this.sentences, cue.start);
    const sentence = this.text.slice(ss, se);
    const cancelling = /\bcancel\w*/i.test(sentence) && /\b(?:if|before|until|unless|within|up\s+to|by)\b/i.test(sentence) && !this.chargesIn(ss, se);
    // A deposit or a hold that is given back later is a policy of the charge, not money to the person now.
    const held = this.within(ss, se).some((m) => m.allowed.some((a) => a.direction === 'charge' && a.amount !== null && a.amount.words.some((w) => HELD.has(w))));
    if (cue.kind === 'refund') return this.hasRefund || cancelling || held;
    if ((cue.relative || this.otherFee(cue)) && this.chargeStatedBy(se)) return true;
    const [cs, ce] = spanOf(this.clauses, cue.start);
    // "No fee." with `fee: 0.00` in the terms: the words name an amount the terms hold as nothing.
    const clause = this.text.slice(cs, ce).toLowerCase();
    if (this.money.amounts.some((a) => a.direction === 'none' && a.words.some((w) => w.length > 2 && !GENERIC_MONEY.has(w) && new RegExp(`\\b${w}s?\\b`).test(clause)))) return true;
    if (cue.extra !== undefined) return !this.chargedExtra(cue.extra);
    if (this.chargesIn(cs, ce)) return false;
    const inClause = this.within(cs, ce).filter((m) => !(m.start === cue.start && m.end === cue.end));
    if (inClause.length > 0 && inClause.every((m) => m.allowed.length > 0 && m.allowed.every((a) => a.direction === 'none'))) return true;
    const before = EXTRA_BEFORE.exec(this.text.slice(Math.max(cs, cue.start - 60), cue.start));
    if (before && !this.chargedExtra(before[1]!)) return true;
    return cancelling;
  }

  /**
   * Whether the summary has stated a charge of the terms by `end`: the amount, not written with
   * a minus, not labelled as a reference, and not presented as money off or back. After that,
   * "no further payment" is about what comes on top; before it, the denial is all the person has read.
   */
  private chargeStatedBy(end: number): boolean {
    return this.mentions.some(
      (m) =>
        m.end <= end &&
        !m.negative &&
        sameKind(m.allowed.map((a) => a.direction)) === 'charge' &&
        !REFERENCE_BEFORE.test(this.text.slice(Math.max(0, m.start - 20), m.start)) &&
        this.cueFor(m) !== 'free' &&
        this.cueFor(m) !== 'refund',
    );
  }

  /** A denial of fees by name ("no fees") when no charge of the terms is a fee: about fees on top, like a relative denial. */
  private otherFee(cue: Cue): boolean {
    const noun = FEE_NOUN.exec(this.text.slice(cue.start, cue.end))?.[1]?.toLowerCase();
    return noun !== undefined && !this.charges.some((a) => a.words.some((w) => w === noun || w === `${noun}s`));
  }

  /** A minus sign by words that say the money leaves the person's account: the bank's debit, not money back. */
  private debit(m: Mention): boolean {
    const [cs, ce] = spanOf(this.clauses, m.start);
    return OUTFLOW.test(this.text.slice(Math.max(cs, m.start - 40), Math.min(ce, m.end + 40)));
  }

  /** Whether an extra ("return shipping", "change fee") is itself charged in the terms. */
  private chargedExtra(phrase: string): boolean {
    const words = keyWords(phrase).filter((w) => w !== 'fee' && w !== 'fees');
    const group = EXTRA_GROUPS.find((g) => words.some((w) => g.includes(w)));
    const names = group ?? (/\bfees?$/i.test(phrase) ? words : []);
    return this.charges.some((a) => a.words.some((w) => names.includes(w)));
  }

  /** The words that say which way `m` goes: the one right after it, else the nearest in its clause. */
  private cueFor(m: Mention): CueKind | null {
    const mark = CREDIT_DEBIT_AFTER.exec(this.text.slice(m.end, m.end + 4));
    if (mark) return mark[1] === 'CR' ? 'refund' : 'charge';
    const next = AFTER_AMOUNT.exec(this.text.slice(m.end, m.end + 40));
    if (next) {
      const word = next[1]!.toLowerCase();
      // "$700.00 off" takes the amount off the price: for a charge of the terms, off the person's bill.
      if (word === 'off') return 'free';
      return word === 'more' || word === 'extra' || word === 'additional' ? 'charge' : 'refund';
    }
    const [cs, ce] = spanOf(this.clauses, m.start);
    let best: { cue: Cue; gap: number } | null = null;
    for (const cue of this.cues) {
      if (cue.start < cs || cue.end > ce || (cue.extra !== undefined && !this.chargedExtra(cue.extra))) continue;
      // Negative when the cue and the amount overlap.
      const gap = cue.end <= m.start ? m.start - cue.end : cue.start - m.end;
      if (gap < 0 || gap > 60) continue;
      if (best === null || gap < best.gap) best = { cue, gap };
    }
    return best?.cue.kind ?? null;
  }

  private directions(): void {
    const said = new Set<string>();
    for (const m of this.mentions) {
      const direction = sameKind(m.allowed.map((a) => a.direction));
      if (direction === null) continue;
      const cue = this.cueFor(m);
      // A minus sign on a charge ("-$700.00") reads as money off or back, whatever the words say.
      const reversed = direction === 'charge' ? (m.negative && !this.debit(m)) || cue === 'refund' || cue === 'free' : cue === 'charge';
      if (!reversed) continue;
      const exact = m.allowed.find((a) => a.amount !== null)?.amount ?? null;
      const path = exact ? formatPath(exact.path) : '';
      if (said.has(`${path}|${m.values[0]}`)) continue;
      said.add(`${path}|${m.values[0]}`);
      const presented = { amount: this.shown(m), context: this.context(m.start, m.end) };
      let sentence: RuleSentence<'direction-reversed'>;
      if (exact === null) sentence = reviewText(direction === 'charge' ? 'review_derivedChargeAsMoneyToYou' : 'review_derivedMoneyToYouAsCharge', presented);
      else sentence = reviewText(direction === 'charge' ? 'review_chargeAsMoneyToYou' : 'review_moneyToYouAsCharge', { ...presented, path, terms_amount: exact.shown });
      this.add('danger', 'direction-reversed', path, sentence);
    }
  }

  private totals(): void {
    const presented: Mention[] = [];
    TOTAL_CUE.lastIndex = 0;
    for (let c = TOTAL_CUE.exec(this.text); c !== null; c = TOTAL_CUE.exec(this.text)) {
      const cueStart = c.index;
      const cueEnd = c.index + c[0].length;
      const [ss, se] = spanOf(this.sentences, cueStart);
      const next = this.mentions[this.firstFrom(cueEnd)];
      const after = next && next.start - cueEnd <= 30 && next.end <= se && (this.text.slice(cueEnd, next.start).match(/\p{L}+/gu) ?? []).length <= 3 ? next : undefined;
      const previous = this.mentions[this.firstFrom(cueStart) - 1];
      const before = previous && previous.end <= cueStart && cueStart - previous.end <= 20 && previous.start >= ss ? previous : undefined;
      const m = after ?? before;
      if (!m || NOT_A_TOTAL.test(this.text.slice(m.end, m.end + 30))) continue;
      if (!presented.includes(m)) presented.push(m);
    }
    const valueOf = (m: Mention) => m.allowed[0]?.value ?? m.values[0]!;
    // A bare number is the amount another total states with its currency ("Total: $70.00 … you
    // pay 70.00 today"): one total, not two.
    const stated = new Set(presented.filter((m) => m.currencies.length > 0).map(valueOf));
    const distinct = new Map<string, Mention>();
    for (const m of presented) {
      if (m.currencies.length === 0 && stated.has(valueOf(m))) continue;
      const key = `${valueOf(m)}|${[...m.currencies].sort().join(',')}`;
      if (!distinct.has(key)) distinct.set(key, m);
    }
    if (distinct.size < 2) return;
    const named = [...distinct.values()].map((m) => m.allowed.find((a) => a.amount !== null && a.amount.words.some((w) => TOTAL_KEY.has(w)))?.amount);
    if (named.every((a) => a !== undefined) && new Set(named.map((a) => formatPath(a!.path))).size === named.length) return;
    // Two or three amounts, each its own placeholder: a sentence per shape, no list glued in code.
    const [first, second, third] = [...distinct.values()].slice(0, 3).map((m) => this.shown(m)) as [string, string, string | undefined];
    const said = third === undefined ? reviewText('review_secondTotal', { first, second }) : reviewText('review_secondTotalThree', { first, second, third });
    this.add('danger', 'second-total', '', said);
  }
}

/**
 * The money checks above, on the summary as the person sees it (`summaryToText`). Call only
 * when the terms are present: without them there is nothing to compare with.
 */
export function reviewWording(summaryText: string, money: TermsMoney): ReviewFinding[] {
  return new WordingReview(summaryText, money).run();
}
