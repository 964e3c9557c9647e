import { browser } from 'wxt/browser';

/**
 * One popup window, reused for every approval, so prompts never pile up as windows. It is found
 * again from the browser itself rather than from a remembered window id, because a service-worker
 * stop forgets memory but not windows.
 */
export const APPROVE_PAGE = '/approve.html' as const;
/**
 * Fits a 1366 × 768 screen at 125 % (1093 × 614 CSS pixels, less a taskbar) with room to spare:
 * the buttons must never be below the screen (docs/ui.md, "Layout").
 */
export const WIDTH = 520;
export const HEIGHT = 560;

export interface Bounds {
  left: number;
  top: number;
  width: number;
  height: number;
}

/**
 * Places the popup over the last focused browser window, clamped so that no part of it can
 * land off-screen (MetaMask's windows sometimes opened where nobody could see them).
 */
export function placeWindow(anchor: Partial<Bounds> | undefined, screen: { width: number; height: number }): Bounds {
  const width = Math.min(WIDTH, screen.width);
  const height = Math.min(HEIGHT, screen.height);
  const ax = anchor?.left ?? 0;
  const ay = anchor?.top ?? 0;
  const aw = anchor?.width ?? screen.width;
  const left = Math.round(ax + (aw - width) / 2);
  const top = Math.round(ay + 60);
  return {
    width,
    height,
    left: Math.max(0, Math.min(left, screen.width - width)),
    top: Math.max(0, Math.min(top, screen.height - height)),
  };
}

/**
 * The window this worker created last. Firefox resolves `windows.create` before the window's page
 * has loaded, and lists the page (getContexts, a tab's url) only once it has: a request arriving
 * in between would not find the window and open a second one. Memory only, which is enough: a
 * worker that stopped and started again finds a window whose page loaded long ago.
 */
let created: number | undefined;

async function findApprovalWindowId(): Promise<number | undefined> {
  // The window created last is checked while the search runs: usually the person has closed it,
  // and waiting for windows.get to reject before searching cost a round trip to the browser
  // while the person waits for the window.
  const last = created;
  const [alive, found] = await Promise.all([
    // Closed by the person since: windows.get rejects, and the search decides.
    last === undefined ? false : browser.windows.get(last).then(() => true, () => false),
    searchApprovalWindow(),
  ]);
  if (alive) return last;
  if (created === last) created = undefined;
  return found;
}

/** An approval window whose page has loaded, as the browser lists it. */
async function searchApprovalWindow(): Promise<number | undefined> {
  const url = browser.runtime.getURL(APPROVE_PAGE);
  const runtime = browser.runtime as unknown as {
    getContexts?: (filter: { contextTypes: string[]; documentUrls?: string[] }) => Promise<Array<{ windowId: number; documentUrl?: string }>>;
  };
  if (runtime.getContexts) {
    const contexts = await runtime.getContexts({ contextTypes: ['TAB'] });
    return contexts.find((c) => c.documentUrl?.startsWith(url) && c.windowId >= 0)?.windowId;
  }
  const windows = await browser.windows.getAll({ populate: true, windowTypes: ['popup'] });
  return windows.find((w) => w.tabs?.some((t) => t.url?.startsWith(url)))?.id;
}

let opening: Promise<number | undefined> | null = null;

/**
 * Opens the approval window, or brings it forward when it is already open. Single-flight: while
 * one call is finding or creating the window, every other call gets its answer, so a burst of
 * requests opens one window, not one per request (each window would take focus and restart the
 * Approve delay of the others).
 */
export function showApprovalWindow(): Promise<number | undefined> {
  opening ??= openOrFocus().finally(() => {
    opening = null;
  });
  return opening;
}

async function openOrFocus(): Promise<number | undefined> {
  // Both reads at once: they are independent, and the time to window is what the person waits.
  const [existing, last] = await Promise.all([
    findApprovalWindowId(),
    browser.windows.getLastFocused({ windowTypes: ['normal'] }).catch(() => undefined),
  ]);
  if (existing !== undefined) {
    // Already in front: taking focus again would restart the Approve delay for nothing.
    const current = await browser.windows.get(existing).catch(() => undefined);
    if (!current?.focused) await browser.windows.update(existing, { focused: true, drawAttention: true });
    return existing;
  }
  // No browser window open: centre on the screen.
  const anchor: Partial<Bounds> | undefined = last ? { left: last.left ?? 0, top: last.top ?? 0, width: last.width ?? WIDTH, height: last.height ?? HEIGHT } : undefined;
  const screen = { width: Math.max(WIDTH, (anchor?.left ?? 0) + (anchor?.width ?? 1280)), height: Math.max(HEIGHT, (anchor?.top ?? 0) + (anchor?.height ?? 900)) };
  const bounds = placeWindow(anchor, screen);
  const window = await browser.windows.create({ url: APPROVE_PAGE, type: 'popup', focused: true, ...bounds });
  created = window?.id;
  return created;
}
