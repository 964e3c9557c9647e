import * as z from 'zod';
import { PAGE_MESSAGES } from './page-messages/index';

/**
 * Messages between the extension's own pages and its background. Only the extension's own
 * pages can send them (no `externally_connectable`, no content scripts), yet they are still
 * validated: a bug in one page must not become a state change in the background.
 *
 * Each message lives in its own module under `page-messages/` (schema, allowed pages, handler);
 * the union below is built from that registry, and the names pages import are re-exported here.
 */

type Schemas<T extends readonly { schema: z.ZodObject }[]> = { [K in keyof T]: T[K]['schema'] };

// `map` forgets that the list is a tuple; the union needs each member's own schema type.
const schemas = PAGE_MESSAGES.map((m) => m.schema) as unknown as Schemas<typeof PAGE_MESSAGES>;

export const pageMessage = z.discriminatedUnion('type', schemas);
export type PageMessage = z.infer<typeof pageMessage>;

export { versionQuery, versionAnswer, type VersionAnswer } from './page-messages/version';
export { decideMessage } from './page-messages/decide';
export { withdrawMessage } from './page-messages/withdraw';
export { declineAllMessage } from './page-messages/decline-all';
export { snapshotQuery } from './page-messages/snapshot';
export { pairAnswerMessage } from './page-messages/pair-answer';
export { revokeAgentMessage } from './page-messages/revoke-agent';
export { openWindowMessage } from './page-messages/open-window';
export { historyQuery } from './page-messages/history';
export { exportQuery } from './page-messages/export';
export { settingsSetMessage } from './page-messages/settings-set';
export { settingsSchema, DEFAULT_SETTINGS, type Settings } from './settings';
export { APPROVE_DELAY_MS } from './constants';
