/**
 * Numbers the extension's pages and background share, in a module with no dependencies so the
 * approval window's bundle stays small (issue 5 benchmark: at most 60 kB gzipped).
 */

/** The smallest time an item must be visible and focused before Approve counts (issue 5). */
export const APPROVE_DELAY_MS = 1000;
