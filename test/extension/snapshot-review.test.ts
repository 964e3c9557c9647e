import { describe, expect, it, vi } from 'vitest';
import { SnapshotReviews, snapshotReview, FACTS_REVIEWED } from '../../src/extension/snapshot-review';
import { viewsOf } from '../../src/extension/snapshot';
import * as terms from '../../src/review/terms.ts';
import type { ApprovalRecord } from '../../src/extension/store';
import { EXCHANGE_REQUEST, STORMLINE, SUMMARY, T700, TERMS, jacketOperation } from './ui/jacket-view';

function record(over: Partial<ApprovalRecord> = {}): ApprovalRecord {
  const operation = over.operation ?? jacketOperation();
  return {
    key: `agent ${STORMLINE.origin} ${operation.operation_id} ${operation.revision}`,
    agent: 'agent',
    agentName: 'Desk agent',
    operationId: operation.operation_id,
    revision: operation.revision,
    requestId: 'req_1',
    conn: 'c1',
    nonce: 'n',
    company: STORMLINE,
    operation,
    request: structuredClone(EXCHANGE_REQUEST),
    session: { kind: 'signed_in', account: 'alex@example.com' },
    state: 'pending',
    createdAt: 1,
    updatedAt: 1,
    agentConnected: true,
    ...over,
  };
}

describe('the review in the snapshot (docs/ui.md, "Where the review runs")', () => {
  it('spec section 5: the snapshot carries the findings of the stored terms against the stored summary', () => {
    const stored = record({ operation: jacketOperation({ terms: T700 }) });
    const [view] = viewsOf([stored], [], new Map(), new SnapshotReviews('en')).active;
    expect(view!.review).toMatchObject({ operationId: 'exc_5Rt2', revision: 'rev1' });
    expect(view!.review.findings).toContainEqual(expect.objectContaining({ severity: 'danger', code: 'amount-not-in-summary', path: 'price_difference' }));
    expect(view!.review.findings).toEqual(terms.reviewOperation({ summary: SUMMARY, terms: T700, request: EXCHANGE_REQUEST.body }).findings);
    expect(view!.review.facts[0]).toMatchObject({ label: 'Price difference', value: '$700.00', kind: 'money', direction: 'charge' });
    expect(view!.review.youApprove).toBe('Price difference $700.00 · Order ID ord_7Hk2');
  });

  it('spec section 5: clean terms check their statements true and find nothing to warn about', () => {
    const review = snapshotReview(record(), undefined, 'en');
    expect(review.findings).toEqual([]);
    expect(review.checked.map((c) => c.code)).toContain('amounts-stated');
    expect(review.changes).toBeNull();
    expect(review.diff).toBeNull();
  });

  it('formats the facts for the extension\'s language (German: 70,00 $), every fact up to FACTS_REVIEWED', () => {
    expect(snapshotReview(record(), undefined, 'de').facts[0]!.value).toBe('70,00\u00A0$');
    const many = Object.fromEntries(Array.from({ length: FACTS_REVIEWED + 20 }, (_, i) => [`ref_${i}`, `r_${i}`]));
    expect(snapshotReview(record({ operation: jacketOperation({ terms: many }) }), undefined, 'en').facts).toHaveLength(FACTS_REVIEWED);
  });

  it('spec section 3, "New terms": a new revision carries what moved and the word diff of the summaries', () => {
    const previous = record();
    const next = record({ operation: jacketOperation({ revision: 'rev2', terms: T700, summary: SUMMARY.replace('$70.00', '$700.00') }), previousKey: previous.key });
    const [view] = viewsOf([next], [], new Map([[previous.key, previous]]), new SnapshotReviews('en')).active;
    expect(view!.review.changes).toEqual([{ label: 'Price difference', before: '$70.00', after: '$700.00' }]);
    expect(view!.review.diff!.summary.filter((p) => p.kind !== 'same').map((p) => `${p.kind} ${p.text}`)).toEqual(['removed $70.00', 'added $700.00']);
  });

  it('a tool call has no Company words to review: no findings, no facts', () => {
    const call = record({ toolCall: { call_id: 'c', server: { name: 's', reached_by: { transport: 'stdio', command: 'x', args: [] } }, tool: 't', arguments: {}, expires_at: '2099-01-01T00:00:00Z' } });
    expect(snapshotReview(call, undefined, 'en')).toMatchObject({ findings: [], checked: [], facts: [] });
  });

  it('is made once per (key, revision): a repaint reuses it, a new revision is reviewed, a key no longer shown is forgotten', () => {
    const reviewing = vi.spyOn(terms, 'reviewOperation');
    try {
      const reviews = new SnapshotReviews('en');
      const first = record();
      const again = viewsOf([first], [], new Map(), reviews).active[0]!.review;
      expect(viewsOf([structuredClone(first)], [], new Map(), reviews).active[0]!.review).toBe(again);
      expect(reviewing).toHaveBeenCalledTimes(1);
      const second = record({ operation: jacketOperation({ revision: 'rev2', terms: TERMS }) });
      expect(viewsOf([second], [], new Map(), reviews).active[0]!.review.revision).toBe('rev2');
      expect(reviewing).toHaveBeenCalledTimes(2);
      // rev1 was not in the last snapshot: shown again, it is reviewed again.
      viewsOf([first], [], new Map(), reviews);
      expect(reviewing).toHaveBeenCalledTimes(3);
    } finally {
      reviewing.mockRestore();
    }
  });
});
