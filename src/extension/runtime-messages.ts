import { z } from 'zod';

/**
 * Messages between the extension's own pages and its background. Only the extension's pages
 * can send them (no `externally_connectable`), yet they are still validated: a bug in one page
 * must not become a state change in the background.
 */
export const versionQuery = z.object({ type: z.literal('countersign/version') }).strict();

export const versionAnswer = z.object({
  product: z.literal('Countersign'),
  version: z.string(),
  bridgeProtocol: z.number().int(),
  startedAt: z.number(),
});
export type VersionAnswer = z.infer<typeof versionAnswer>;
