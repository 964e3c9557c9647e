import { readFileSync } from 'node:fs';
import { JSDOM } from 'jsdom';
import { describe, expect, it } from 'vitest';
import { openEarlyPort, takeEarlyPort } from '../../../src/extension/ui/early-port';
import { mountApprovalWindow } from '../../../src/extension/ui/approval-window-page';
import { APPROVE_WINDOW_PORT } from '../../../src/extension/constants';
import { chromeGetMessage, englishMessages } from './locale-table';
import { baseSnapshot } from './fake-browser';
import { jacketView } from './jacket-view';

// docs/ui.md, "Opening fast": the window's first port is opened before its main script runs, and
// nothing it hears meanwhile is lost or reordered.

type Listener<A extends unknown[]> = (...args: A) => void;

function fakePort() {
  const messages = new Set<Listener<[unknown]>>();
  const disconnects = new Set<Listener<[]>>();
  return {
    name: '',
    onMessage: { addListener: (f: Listener<[unknown]>) => messages.add(f), removeListener: (f: Listener<[unknown]>) => messages.delete(f) },
    onDisconnect: { addListener: (f: Listener<[]>) => disconnects.add(f), removeListener: (f: Listener<[]>) => disconnects.delete(f) },
    deliver: (m: unknown) => messages.forEach((f) => f(m)),
    disconnect: () => disconnects.forEach((f) => f()),
    listeners: () => messages.size + disconnects.size,
  };
}

function fakeBrowser() {
  const opened: Array<ReturnType<typeof fakePort> & { name: string }> = [];
  return {
    opened,
    runtime: {
      connect: ({ name }: { name: string }) => {
        const port = { ...fakePort(), name };
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
    const html = readFileSync('entrypoints/approve/index.html', 'utf8').replace(/<script[^>]*><\/script>/g, '');
    const { window } = new JSDOM(html, { pretendToBeVisual: true });
    const get = chromeGetMessage(englishMessages());
    const fake = fakeBrowser();
    const browser = {
      ...fake,
      i18n: { getMessage: (key: string, subs?: string | string[]) => (key === '@@ui_locale' ? 'en' : get(key, subs)), getUILanguage: () => 'en' },
      runtime: { ...fake.runtime, sendMessage: async () => ({ ok: true }) },
    };
    const view = jacketView();
    const realInterval = globalThis.setInterval;
    const timers: Array<ReturnType<typeof setInterval>> = [];
    globalThis.setInterval = ((f: () => void, ms: number) => timers[timers.push(realInterval(f, ms)) - 1]) as typeof setInterval;
    try {
      openEarlyPort(browser as never, window);
      fake.opened[0]!.deliver({ snapshot: { ...baseSnapshot(), active: [view] } });
      expect(window.document.querySelector('[data-testid="summary"]')).toBeNull();
      mountApprovalWindow(window.document, browser as never);
      expect(fake.opened).toHaveLength(1);
      expect(window.document.querySelector('[data-testid="summary"]')?.textContent).toContain('Stormline Jacket');
      // What the port hears next goes to the window, not to the buffer.
      fake.opened[0]!.deliver({ snapshot: { ...baseSnapshot(), active: [] } });
      expect(window.document.querySelector('[data-testid="summary"]')).toBeNull();
    } finally {
      globalThis.setInterval = realInterval;
      for (const id of timers) clearInterval(id);
      window.close();
    }
  });
});
