import { browser } from 'wxt/browser';

/**
 * One reused popup window for every approval (issue 5). It is found again from the browser
 * itself rather than from a remembered window id, because a service-worker stop forgets memory
 * but not windows.
 */
export const APPROVE_PAGE = '/approve.html' as const;
const WIDTH = 520;
const HEIGHT = 720;

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

async function findApprovalWindowId(): Promise<number | undefined> {
  const url = browser.runtime.getURL(APPROVE_PAGE);
  const runtime = browser.runtime as unknown as {
    getContexts?: (filter: { contextTypes: string[]; documentUrls?: string[] }) => Promise<Array<{ windowId: number; documentUrl?: string }>>;
  };
  if (runtime.getContexts) {
    const contexts = await runtime.getContexts({ contextTypes: ['TAB'] });
    const hit = contexts.find((c) => c.documentUrl?.startsWith(url) && c.windowId >= 0);
    if (hit) return hit.windowId;
    return undefined;
  }
  const windows = await browser.windows.getAll({ populate: true, windowTypes: ['popup'] });
  return windows.find((w) => w.tabs?.some((t) => t.url?.startsWith(url)))?.id;
}

/** Opens the approval window, or focuses it when it is already open. */
export async function showApprovalWindow(): Promise<number | undefined> {
  const existing = await findApprovalWindowId();
  if (existing !== undefined) {
    await browser.windows.update(existing, { focused: true, drawAttention: true });
    return existing;
  }
  let anchor: Partial<Bounds> | undefined;
  try {
    const last = await browser.windows.getLastFocused({ windowTypes: ['normal'] });
    anchor = { left: last.left ?? 0, top: last.top ?? 0, width: last.width ?? WIDTH, height: last.height ?? HEIGHT };
  } catch {
    anchor = undefined; // no browser window open: centre on the screen
  }
  const screen = { width: Math.max(WIDTH, (anchor?.left ?? 0) + (anchor?.width ?? 1280)), height: Math.max(HEIGHT, (anchor?.top ?? 0) + (anchor?.height ?? 900)) };
  const bounds = placeWindow(anchor, screen);
  const created = await browser.windows.create({ url: APPROVE_PAGE, type: 'popup', focused: true, ...bounds });
  return created?.id;
}
