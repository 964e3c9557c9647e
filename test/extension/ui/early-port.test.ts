import { describe, expect, it } from 'vitest';
import { openEarlyPort, takeEarlyPort } from '../../../src/extension/ui/early-port';
import { APPROVE_WINDOW_PORT } from '../../../src/extension/constants';
import { approvalWindowInJsdom, fakePort, type FakePort } from './approval-window-jsdom';
import { baseSnapshot } from './fake-browser';
import { jacketView } from './jacket-view';

// docs/ui.md, "Opening fast": the window's first port is opened before its main script runs, and
// nothing it hears meanwhile is lost or reordered.

function fakeBrowser() {
  const opened: FakePort[] = [];
  return {
    opened,
    runtime: {
      connect: ({ name }: { name: string }) => {
        const port = fakePort(name);
        opened.push(port);
        return port;
      },
    },
  };
}

describe('early-port: the approval window’s first port', () => {
  it('opens the port the background gives snapshots to, and keeps what arrives in order', () => {
    const browser = fakeBrowser();
    const holder = {};
    openEarlyPort(browser as never, holder);
    expect(browser.opened.map((p) => p.name)).toEqual([APPROVE_WINDOW_PORT]);
    browser.opened[0]!.deliver('first');
    browser.opened[0]!.deliver('second');
    const early = takeEarlyPort(holder)!;
    expect(early.port).toBe(browser.opened[0]);
    expect(early.messages).toEqual(['first', 'second']);
    expect(early.disconnected).toBe(false);
  });

  it('remembers a disconnect before the window took the port', () => {
    const browser = fakeBrowser();
    const holder = {};
    openEarlyPort(browser as never, holder);
    browser.opened[0]!.deliver('snapshot');
    browser.opened[0]!.disconnect();
    expect(takeEarlyPort(holder)).toMatchObject({ messages: ['snapshot'], disconnected: true });
  });

  it('release takes its own listeners off, so nothing later is buffered twice', () => {
    const browser = fakeBrowser();
    const holder = {};
    openEarlyPort(browser as never, holder);
    const early = takeEarlyPort(holder)!;
    expect(browser.opened[0]!.listeners()).toBe(2);
    early.release();
    expect(browser.opened[0]!.listeners()).toBe(0);
    browser.opened[0]!.deliver('later');
    expect(early.messages).toEqual([]);
  });

  it('is taken once: a reconnect opens its own, and a script that runs after the window opens none', () => {
    const browser = fakeBrowser();
    const holder = {};
    openEarlyPort(browser as never, holder);
    expect(takeEarlyPort(holder)).toBeDefined();
    expect(takeEarlyPort(holder)).toBeUndefined();
    const late = {};
    expect(takeEarlyPort(late)).toBeUndefined();
    openEarlyPort(browser as never, late);
    expect(browser.opened).toHaveLength(1);
  });

  it('a page without a window (no defaultView) has no early port', () => {
    expect(takeEarlyPort(null)).toBeUndefined();
  });

  it('the window renders what the early port heard, uses that port, and opens none of its own', () => {
    const page = approvalWindowInJsdom();
    const view = jacketView();
    try {
      openEarlyPort(page.browser as never, page.window);
      page.ports[0]!.deliver({ snapshot: { ...baseSnapshot(), active: [view] } });
      expect(page.doc.querySelector('[data-testid="summary"]')).toBeNull();
      page.mount();
      expect(page.ports).toHaveLength(1);
      expect(page.doc.querySelector('[data-testid="summary"]')?.textContent).toContain('Stormline Jacket');
      // What the port hears next goes to the window, not to the buffer.
      page.ports[0]!.deliver({ snapshot: { ...baseSnapshot(), active: [] } });
      expect(page.doc.querySelector('[data-testid="summary"]')).toBeNull();
    } finally {
      page.close();
    }
  });
});
