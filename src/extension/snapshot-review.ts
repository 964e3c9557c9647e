// Imported by file, not through the review's index: the background needs these, not the corpora's helpers.
import { CountersignError } from '../protocol/errors.ts';
import { reviewOperation } from '../review/terms.ts';
import { diffRevisions, type WordPart } from '../review/diff.ts';
import { factChanges, factFindings, keyFacts, youApproveLine, type KeyFact } from '../review/key-facts.ts';
import type { CheckedStatement, MessageText, ReviewFinding } from '../review/types.ts';
import { requestBody } from './ui/request-words';
import type { ApprovalRecord } from './store';

/** A sentence of the review for the person: English, and its messages.json name and data. */
export interface ReviewSentence {
  message: string;
  text: MessageText;
}

/** A fact that moved between two revisions, each side formatted whole; null where a revision has none. */
export interface FactChangeShown {
  label: string;
  before: string | null;
  after: string | null;
}

/**
 * What the background read of one item's terms, sent with the item in the snapshot so that the
 * approval window only renders it (docs/ui.md, "Where the review runs"). Everything here is from
 * the record the view is made of, so it is of exactly the terms the window shows.
 */
export interface SnapshotReview {
  /** The revision reviewed: the window refuses a review of any other. */
  operationId: string;
  revision: string;
  /** The terms' facts by meaning (none for a tool call), formatted for the person's language. */
  facts: KeyFact[];
  /** The terms' first two facts as one line ("Price difference $70.00 · Order ID ord_7Hk2"), for the card an ended item leaves. */
  youApprove: string;
  /**
   * The review's findings of the terms against the summary and the request (spec section 5),
   * then a danger for each value `Intl` cannot format (docs/ui.md, "Key facts"); none for a tool call.
   */
  findings: ReviewFinding[];
  /** What the review checked and found true, for "Technical details". */
  checked: CheckedStatement[];
  /** For a new revision (spec section 3, "New terms"): every fact that moved, amounts first. */
  changes: FactChangeShown[] | null;
  /** For a new revision: the summary's words old against new, and the term and expiry changes in words. */
  diff: { summary: WordPart[]; terms: ReviewSentence[]; expiry: ReviewSentence | null } | null;
}

/** As many facts as a finding's path can name: the card's block, its findings and Approve read these. */
export const FACTS_REVIEWED = 200;

/** What the review reads of a record (or of a view made of one): its operation, the agent's request, and whether it is a tool call. */
interface Reviewed {
  operation: ApprovalRecord['operation'];
  request: unknown;
  toolCall?: unknown;
}

/**
 * Terms that are not an object are listed raw under "Technical details" and have no facts.
 * Formatting itself never throws, so no other error may pass for "no terms": it is a bug.
 */
function readable<T>(read: () => T[]): T[] {
  try {
    return read();
  } catch (error) {
    if (error instanceof CountersignError) return [];
    throw error;
  }
}

function sentence({ message, text }: ReviewSentence): ReviewSentence {
  return { message, text };
}

/**
 * The review of one item as the window shows it, for `locale` (BCP 47, the extension's UI
 * language, as the pages' `Translate` has it). A tool call has no Company's words to check: its
 * card shows the call itself (tool-call-arguments.ts).
 */
export function snapshotReview(item: Reviewed, previous: ApprovalRecord['operation'] | undefined, locale: string): SnapshotReview {
  const { operation } = item;
  const company = item.toolCall === undefined;
  const review = company ? reviewOperation({ summary: operation.summary, terms: operation.terms, request: requestBody(item.request) }) : { findings: [], checked: [] };
  const diff = previous ? diffRevisions(previous, operation) : null;
  const facts = company ? readable(() => keyFacts(operation.terms, { locale, limit: FACTS_REVIEWED })) : [];
  return {
    operationId: operation.operation_id,
    revision: operation.revision,
    facts,
    // A tool call's card has no facts, but the card it leaves names its terms, as Countersign wrote them.
    youApprove: youApproveLine(company ? facts.slice(0, 2) : readable(() => keyFacts(operation.terms, { locale, limit: 2 }))),
    findings: [...review.findings, ...(company ? readable(() => factFindings(operation.terms)) : [])],
    checked: review.checked,
    changes: previous
      ? readable(() => factChanges(previous.terms, operation.terms, { locale })).map((c) => ({ label: c.label, before: c.before?.value ?? null, after: c.after?.value ?? null }))
      : null,
    diff: diff && { summary: diff.summary, terms: diff.terms.map(sentence), expiry: diff.expiry && sentence(diff.expiry) },
  };
}

/**
 * The reviews of the items the pages are shown, each made once per (key, revision): a repaint,
 * a re-ask or a tick of the queue sends the same review again without running it. A key names
 * one revision whose terms cannot change (the queue refuses them with ERR_REVISION_CONFLICT), so
 * its review cannot go stale; an item no longer shown is forgotten.
 */
export class SnapshotReviews {
  private reviews = new Map<string, SnapshotReview>();
  private shown = new Map<string, SnapshotReview>();

  constructor(private readonly locale: string) {}

  /** The review of `record` (and of the revision it replaced), from the last snapshot when it is there. */
  of(record: Reviewed & Pick<ApprovalRecord, 'key'>, previous?: Reviewed & Pick<ApprovalRecord, 'key'>): SnapshotReview {
    const id = `${record.key}\n${previous?.key ?? ''}`;
    // The keys name the revisions, so a review kept under them is of exactly these terms.
    const review = this.reviews.get(id) ?? snapshotReview(record, previous?.operation, this.locale);
    this.shown.set(id, review);
    return review;
  }

  /** Ends one snapshot: only the reviews it used are kept for the next. */
  done(): void {
    this.reviews = this.shown;
    this.shown = new Map();
  }
}
