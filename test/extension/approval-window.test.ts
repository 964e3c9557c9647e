import { beforeEach, describe, it, expect, vi } from 'vitest';
import { placeWindow, showApprovalWindow } from '../../src/extension/approval-window';

describe('approval window placement (on-screen, over the last focused window; docs/ui.md, "Layout")', () => {
  it('centres horizontally over the browser window, a little below its top', () => {
    expect(placeWindow({ left: 100, top: 50, width: 1200, height: 900 }, { width: 1920, height: 1080 })).toEqual({ left: 440, top: 110, width: 520, height: 560 });
  });
  it('never lands off-screen, even for a browser window partly off-screen', () => {
    const b = placeWindow({ left: 1800, top: 900, width: 800, height: 600 }, { width: 1920, height: 1080 });
    expect(b.left + b.width).toBeLessThanOrEqual(1920);
    expect(b.top + b.height).toBeLessThanOrEqual(1080);
    const c = placeWindow({ left: -3000, top: -200, width: 800, height: 600 }, { width: 1920, height: 1080 });
    expect(c.left).toBeGreaterThanOrEqual(0);
    expect(c.top).toBeGreaterThanOrEqual(0);
  });
  it('fits a 1366 × 768 screen at 125 % (1093 × 614 CSS pixels) with a 40-pixel taskbar', () => {
    const b = placeWindow({ left: 0, top: 0, width: 1093, height: 574 }, { width: 1093, height: 574 });
    expect(b.top + b.height).toBeLessThanOrEqual(574);
    expect(b.height).toBe(560);
  });
  it('shrinks to a small screen', () => {
    expect(placeWindow(undefined, { width: 400, height: 500 })).toEqual({ left: 0, top: 0, width: 400, height: 500 });
  });
});

/**
 * The browser as Firefox behaves: `windows.create` resolves at once, but the new window's page is
 * listed (runtime.getContexts, tabs' url) only once it has loaded, a few hundred milliseconds later.
 */
const firefox = vi.hoisted(() => {
  const windows = new Map<number, { id: number; focused: boolean; loaded: boolean }>();
  let next = 1;
  const origin = 'moz-extension://6f0c1c5e/';
  const browser = {
    runtime: {
      getURL: (path: string) => `${origin}${path.replace(/^\//, '')}`,
      getContexts: async () => [...windows.values()].filter((w) => w.loaded).map((w) => ({ windowId: w.id, documentUrl: `${origin}approve.html` })),
    },
    windows: {
      create: vi.fn(async () => {
        const w = { id: next++, focused: true, loaded: false };
        windows.set(w.id, w);
        return { id: w.id };
      }),
      get: async (id: number) => {
        const w = windows.get(id);
        if (!w) throw new Error(`no window ${id}`);
        return { id, focused: w.focused };
      },
      update: vi.fn(async (id: number) => ({ id })),
      getLastFocused: async () => ({ left: 0, top: 0, width: 1280, height: 900 }),
      getAll: async () => [],
    },
  };
  return { windows, browser, load: () => windows.forEach((w) => (w.loaded = true)) };
});
vi.mock('wxt/browser', () => ({ browser: firefox.browser }));

describe('finding: Firefox opened 2 approval windows for 2 requests 100-250 ms apart (docs/ui.md, "Several items")', () => {
  beforeEach(() => {
    firefox.windows.clear();
    firefox.browser.windows.create.mockClear();
  });

  it('a request arriving after the window was created but before its page loaded brings that window forward, not a second one', async () => {
    // Requests at the same instant share one opening.
    const ids = await Promise.all([showApprovalWindow(), showApprovalWindow()]);
    expect(new Set(ids).size).toBe(1);
    // 150 ms later the page is still loading: the browser does not list it yet.
    expect(await showApprovalWindow()).toBe(ids[0]);
    expect(firefox.browser.windows.create).toHaveBeenCalledOnce();
    firefox.load();
    expect(await showApprovalWindow()).toBe(ids[0]);
    expect(firefox.browser.windows.create).toHaveBeenCalledOnce();
    // Once the person closed it, the next request opens a new one.
    firefox.windows.clear();
    expect(await showApprovalWindow()).not.toBe(ids[0]);
    expect(firefox.browser.windows.create).toHaveBeenCalledTimes(2);
  });
});

describe('opening fast: the window closed since is not waited on before the search (docs/ui.md, "Opening fast")', () => {
  beforeEach(() => firefox.windows.clear());

  it('asks whether the last window is still open while it searches, not before', async () => {
    await showApprovalWindow();
    firefox.windows.clear(); // the person closed it
    const order: string[] = [];
    const { get } = firefox.browser.windows;
    const { getContexts } = firefox.browser.runtime;
    firefox.browser.windows.get = async (id: number) => {
      await Promise.resolve();
      order.push('windows.get settled');
      return get(id);
    };
    firefox.browser.runtime.getContexts = async () => {
      order.push('search started');
      return getContexts();
    };
    try {
      await showApprovalWindow();
    } finally {
      firefox.browser.windows.get = get;
      firefox.browser.runtime.getContexts = getContexts;
    }
    expect(order.slice(0, 2)).toEqual(['search started', 'windows.get settled']);
  });
});
