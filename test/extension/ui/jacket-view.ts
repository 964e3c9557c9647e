/**
 * The seed's jacket exchange as an `ApprovalView`, for the approval window's unit tests. The
 * values are copied from test/e2e/support/stack.ts (`jacketOperation`, `STORMLINE`,
 * `EXCHANGE_REQUEST`) and test/review/seed-exchange.ts: e2e files are not imported here.
 */
import { displayOrigin } from '../../../src/summary/origin.ts';
import type { ApprovalView, ReviewedView } from '../../../src/extension/snapshot';
import { snapshotReview } from '../../../src/extension/snapshot-review';

/** A view with the review the background sends with it (snapshot-review.ts), in English. */
export function reviewed(view: ApprovalView): ReviewedView {
  return { ...view, review: snapshotReview(view, view.previous, 'en') };
}

/** Spec section 3's terms. */
export const TERMS = {
  order_id: 'ord_7Hk2',
  item_id: 'itm_4Qa',
  replacement_sku: 'stormline-insulated-m',
  price_difference: { amount: '70.00', currency: 'USD' },
};
/** The same terms charging ten times as much: the summary no longer says the amount. */
export const T700 = { ...TERMS, price_difference: { amount: '700.00', currency: 'USD' } };

export const SUMMARY =
  'Exchange the Stormline Jacket (M) on order ord_7Hk2 for the Stormline Insulated Jacket (M), for **$70.00** more, charged to the card used for the order.';

export const STORMLINE = { name: 'Stormline Outfitters', origin: 'https://stormline.example' };

export const EXCHANGE_REQUEST = {
  interface: 'api' as const,
  method: 'POST',
  url: 'https://api.stormline.example/orders/ord_7Hk2/exchanges',
  body: { item_id: 'itm_4Qa', replacement_sku: 'stormline-insulated-m' },
};

export function jacketOperation(over: Record<string, unknown> = {}): ApprovalView['operation'] {
  return {
    operation_id: 'exc_5Rt2',
    revision: 'rev1',
    summary: SUMMARY,
    terms: structuredClone(TERMS),
    expires_at: '2026-10-08T19:20:00Z',
    ...over,
  };
}

/**
 * A pending jacket exchange from Stormline: a clean one (the review finds nothing against it).
 * `origin` overrides the Company's address, and `view.origin` follows it through `displayOrigin`.
 * The review is made from the view's own operation, request and previous revision, as the
 * background makes it, unless `review` is given.
 */
export function jacketView(over: Partial<ReviewedView> & { url?: string } = {}): ReviewedView {
  const { url, review, ...rest } = over;
  const origin = url ?? rest.company?.origin ?? STORMLINE.origin;
  const view: ApprovalView = {
    key: `agent ${origin} exc_5Rt2 rev1`,
    state: 'pending',
    agentName: 'Desk agent',
    agentFingerprint: '7Q2M-X9KD',
    agentConnected: true,
    company: { name: STORMLINE.name, origin },
    origin: displayOrigin(origin),
    operation: jacketOperation(),
    request: structuredClone(EXCHANGE_REQUEST),
    session: { kind: 'signed_in', account: 'alex@example.com' },
    createdAt: Date.UTC(2026, 9, 8, 19, 0),
    updatedAt: Date.UTC(2026, 9, 8, 19, 5),
    ...rest,
  };
  return review ? { ...view, review } : reviewed(view);
}
