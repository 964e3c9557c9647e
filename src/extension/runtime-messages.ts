import { z } from 'zod';

/**
 * Messages between the extension's own pages and its background. Only the extension's own
 * pages can send them (no `externally_connectable`, no content scripts), yet they are still
 * validated: a bug in one page must not become a state change in the background.
 */
export const versionQuery = z.object({ type: z.literal('countersign/version') }).strict();

export const versionAnswer = z.object({
  product: z.literal('Countersign'),
  version: z.string(),
  bridgeProtocol: z.number().int(),
  startedAt: z.number(),
});
export type VersionAnswer = z.infer<typeof versionAnswer>;

const key = z.string().min(1).max(1200);

/**
 * A decision taken in the approval window. `trusted` is the page's own `event.isTrusted`, and
 * `shownFor` how long the item was visible and focused: the background refuses an approval
 * without both: the only way to approve is the person's own click in the extension's window.
 */
export const decideMessage = z
  .object({
    type: z.literal('countersign/decide'),
    key,
    decision: z.enum(['approve', 'decline']),
    trusted: z.literal(true),
    shownFor: z.number().nonnegative(),
  })
  .strict();

export const withdrawMessage = z.object({ type: z.literal('countersign/withdraw'), key, trusted: z.literal(true) }).strict();
export const declineAllMessage = z.object({ type: z.literal('countersign/decline-all'), trusted: z.literal(true) }).strict();
export const snapshotQuery = z.object({ type: z.literal('countersign/snapshot') }).strict();
/**
 * The person's answer to a pairing. To pair (`confirmed: true`) they type the 6-digit code their
 * agent shows (spaces allowed, "304 236"), and the click went through the same gate as Approve:
 * `shownFor` is how long the pairing card was visible and focused.
 */
export const pairAnswerMessage = z
  .object({
    type: z.literal('countersign/pair-answer'),
    pairingId: key,
    confirmed: z.boolean(),
    code: z.string().regex(/^\d{3} ?\d{3}$/, { error: 'expected the 6-digit code, such as 304 236' }).optional(),
    trusted: z.literal(true),
    shownFor: z.number().nonnegative(),
  })
  .strict();
export const revokeAgentMessage = z.object({ type: z.literal('countersign/revoke-agent'), thumbprint: key }).strict();
export const openWindowMessage = z.object({ type: z.literal('countersign/open-window') }).strict();

export const historyQuery = z.object({ type: z.literal('countersign/history'), query: z.string().max(200), limit: z.number().int().min(1).max(1000) }).strict();
export const exportQuery = z.object({ type: z.literal('countersign/export') }).strict();

/** Settings the person can change. Nothing here can approve: no "always allow", ever (spec section 5). */
export const settingsSchema = z.object({ notifications: z.boolean() }).strict();
export type Settings = z.infer<typeof settingsSchema>;
export const DEFAULT_SETTINGS: Settings = { notifications: true };
export const settingsSetMessage = z.object({ type: z.literal('countersign/settings-set'), settings: settingsSchema }).strict();

export const pageMessage = z.discriminatedUnion('type', [
  historyQuery,
  exportQuery,
  settingsSetMessage,
  versionQuery,
  decideMessage,
  withdrawMessage,
  declineAllMessage,
  snapshotQuery,
  pairAnswerMessage,
  revokeAgentMessage,
  openWindowMessage,
]);
export type PageMessage = z.infer<typeof pageMessage>;

export { APPROVE_DELAY_MS } from './constants';
