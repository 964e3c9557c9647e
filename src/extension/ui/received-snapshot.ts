import { isObject } from '../../protocol/issues';
import type { Snapshot } from '../snapshot';
import type { SnapshotReview } from '../snapshot-review';

/*
 * The background's snapshot is an internal message, but the review in it decides what the window
 * warns about: an item whose review is missing, malformed or of another revision must never be
 * shown as one the review found nothing against. It is checked here by hand, not with zod, which
 * the window does not load (docs/ui.md, "Where the review runs").
 */

const isString = (v: unknown): v is string => typeof v === 'string';
const optional = (v: unknown, check: (v: unknown) => boolean) => v === undefined || check(v);
const listOf = (v: unknown, check: (v: unknown) => boolean) => Array.isArray(v) && v.every(check);
const oneOf = (...values: readonly unknown[]) => (v: unknown) => values.includes(v);

const isText = (v: unknown) => isObject(v) && isString(v.key) && listOf(v.substitutions, isString) && optional(v.count, (c) => typeof c === 'number');
const isSentence = (v: unknown): v is Record<string, unknown> => isObject(v) && isString(v.message) && isText(v.text);
const isFact = (v: unknown) =>
  isObject(v) &&
  isString(v.path) &&
  isString(v.label) &&
  isString(v.value) &&
  oneOf('money', 'date', 'identifier', 'text', 'number', 'boolean')(v.kind) &&
  optional(v.before, isString) &&
  optional(v.direction, oneOf('charge', 'refund', 'none')) &&
  optional(v.unformatted, oneOf(true));
const isFinding = (v: unknown) => isSentence(v) && oneOf('danger', 'warning', 'info')(v.severity) && isString(v.code) && isString(v.path);
const isChecked = (v: unknown) => isSentence(v) && isString(v.code);
const isChange = (v: unknown) => isObject(v) && isString(v.label) && (v.before === null || isString(v.before)) && (v.after === null || isString(v.after));
const isWord = (v: unknown) => isObject(v) && oneOf('same', 'added', 'removed')(v.kind) && isString(v.text);
const isDiff = (v: unknown) => v === null || (isObject(v) && listOf(v.summary, isWord) && listOf(v.terms, isSentence) && (v.expiry === null || isSentence(v.expiry)));

/** A well-formed review of exactly this revision of this operation. */
export function isReviewOf(review: unknown, operation: { operation_id: string; revision: string }): review is SnapshotReview {
  return (
    isObject(review) &&
    review.operationId === operation.operation_id &&
    review.revision === operation.revision &&
    listOf(review.facts, isFact) &&
    isString(review.youApprove) &&
    listOf(review.findings, isFinding) &&
    listOf(review.checked, isChecked) &&
    (review.changes === null || listOf(review.changes, isChange)) &&
    isDiff(review.diff)
  );
}

/**
 * The snapshot in a message from the background, or null when there is none or when any waiting
 * item lacks a well-formed review of its own revision: the window then keeps what it showed, and
 * Approve stays as it was, rather than show an item without what the review found against it.
 */
export function receivedSnapshot(message: unknown): Snapshot | null {
  const snapshot = isObject(message) ? message.snapshot : undefined;
  if (!isObject(snapshot) || !Array.isArray(snapshot.active)) return null;
  const reviewed = snapshot.active.every((view: unknown) => isObject(view) && isObject(view.operation) && isReviewOf(view.review, view.operation as { operation_id: string; revision: string }));
  return reviewed ? (snapshot as unknown as Snapshot) : null;
}
