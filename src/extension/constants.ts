/**
 * Numbers the extension's pages and background share, in a module with no dependencies so the
 * approval window's bundle stays small (its budget is 60 kB of JavaScript gzipped; README,
 * "Benchmarks").
 */

/** How long an item must be visible and focused before Approve counts: a stray click cannot approve. */
export const APPROVE_DELAY_MS = 1000;

/** The name of the port an approval window opens to the background, which gives only that port snapshots. */
export const APPROVE_WINDOW_PORT = 'approve-window';
