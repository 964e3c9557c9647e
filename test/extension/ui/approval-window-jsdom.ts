import { readFileSync } from 'node:fs';
import { JSDOM } from 'jsdom';
import { vi } from 'vitest';
import { mountApprovalWindow } from '../../../src/extension/ui/approval-window-page';
import { chromeGetMessage, englishMessages } from './locale-table';

type Listener<A extends unknown[]> = (...args: A) => void;

/** A runtime port whose messages and disconnect the test sends, as the background would. */
export interface FakePort {
  name: string;
  onMessage: { addListener(f: Listener<[unknown]>): void; removeListener(f: Listener<[unknown]>): void };
  onDisconnect: { addListener(f: Listener<[]>): void; removeListener(f: Listener<[]>): void };
  deliver(message: unknown): void;
  disconnect(): void;
  /** Listeners on the port now, of both kinds. */
  listeners(): number;
}

export function fakePort(name: string): FakePort {
  const messages = new Set<Listener<[unknown]>>();
  const disconnects = new Set<Listener<[]>>();
  return {
    name,
    onMessage: { addListener: (f) => messages.add(f), removeListener: (f) => messages.delete(f) },
    onDisconnect: { addListener: (f) => disconnects.add(f), removeListener: (f) => disconnects.delete(f) },
    deliver: (m) => messages.forEach((f) => f(m)),
    disconnect: () => disconnects.forEach((f) => f()),
    listeners: () => messages.size + disconnects.size,
  };
}

/**
 * The real approval window (entrypoints/approve, without its scripts) in a jsdom of its own, with
 * an English browser whose every `runtime.connect` gives a FakePort the test drives. The window's
 * tick intervals are cleared by `close`.
 */
export function approvalWindowInJsdom() {
  const html = readFileSync('entrypoints/approve/index.html', 'utf8').replace(/<script[^>]*><\/script>/g, '');
  const { window } = new JSDOM(html, { pretendToBeVisual: true });
  const get = chromeGetMessage(englishMessages());
  const ports: FakePort[] = [];
  const browser = {
    i18n: { getMessage: (key: string, subs?: string | string[]) => (key === '@@ui_locale' ? 'en' : get(key, subs)), getUILanguage: () => 'en' },
    runtime: {
      connect: ({ name }: { name: string }) => {
        const port = fakePort(name);
        ports.push(port);
        return port;
      },
      sendMessage: async () => ({ ok: true }),
    },
  };
  const intervals = vi.spyOn(globalThis, 'setInterval');
  return {
    window,
    doc: window.document,
    browser,
    ports,
    mount: () => mountApprovalWindow(window.document, browser as never),
    close: () => {
      for (const r of intervals.mock.results) clearInterval(r.value as ReturnType<typeof setInterval>);
      intervals.mockRestore();
      window.close();
    },
  };
}
