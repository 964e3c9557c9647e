import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { vi } from 'vitest';
import { englishMessages, fillMessage } from './locale-table';
import { displayOrigin } from '../../../src/summary/origin.ts';
import type { ApprovalView, ReviewedView, Snapshot } from '../../../src/extension/snapshot';
import { reviewed } from './jacket-view';

const root = `${resolve(dirname(fileURLToPath(import.meta.url)), '../../..')}/`;

/** The English messages as the browser loads them (public/_locales/en/messages.json). */
export const loadMessages = englishMessages;
export { fillMessage };

export interface FakeBrowser {
  browser: never;
  /** Every message text the page was given, filled: what a visible text node may be. */
  shown: Set<string>;
  /** Every message the page sent to the background. */
  sent: Array<Record<string, unknown>>;
  openOptionsPage: ReturnType<typeof vi.fn>;
  /** The messages table, to look texts up in assertions. */
  msg: (key: string, subs?: string | string[]) => string;
  snapshot: Snapshot & { settings: { notifications: boolean } };
  /** What `countersign/history` answers; default: filtered `snapshot.history`. */
  history?: (query: string) => ApprovalView[];
  /** What `countersign/withdraw` answers. */
  withdrawAnswer: unknown;
}

export function fakeBrowser(snapshot: Partial<Snapshot> = {}): FakeBrowser {
  const messages = loadMessages();
  const fake: FakeBrowser = {
    browser: undefined as never,
    shown: new Set(),
    sent: [],
    openOptionsPage: vi.fn(async () => undefined),
    msg: (key, subs) => {
      const entry = messages[key];
      if (!entry) throw new Error(`no message ${key}`);
      return fillMessage(entry, subs);
    },
    snapshot: { ...baseSnapshot(), ...snapshot, settings: { notifications: true } },
    withdrawAnswer: { ok: true, tooLate: false },
  };
  const getMessage = (key: string, subs?: string | string[]) => {
    if (key === '@@ui_locale') return 'en';
    if (key === '@@bidi_dir') return 'ltr';
    const entry = messages[key];
    if (!entry) return '';
    const text = fillMessage(entry, subs);
    fake.shown.add(text);
    return text;
  };
  const sendMessage = vi.fn(async (m: Record<string, unknown>) => {
    fake.sent.push(m);
    switch (m.type) {
      case 'countersign/snapshot':
        return structuredClone(fake.snapshot);
      case 'countersign/history': {
        const q = String(m.query).trim().toLowerCase();
        if (fake.history) return fake.history(q);
        return fake.snapshot.history.filter((v) => !q || [v.company.name, v.operation.summary].some((f) => f.toLowerCase().includes(q)));
      }
      case 'countersign/withdraw':
        return fake.withdrawAnswer;
      default:
        return { ok: true };
    }
  });
  fake.browser = {
    i18n: { getMessage, getUILanguage: () => 'en' },
    runtime: { sendMessage, openOptionsPage: fake.openOptionsPage, getURL: (p: string) => `chrome-extension://test${p}` },
  } as never;
  return fake;
}

export function baseSnapshot(): Snapshot {
  return {
    bridge: 'up',
    bridgeError: null,
    agentsConnected: 1,
    problems: [],
    browserFamily: 'chromium',
    active: [],
    history: [],
    pairings: [],
    agents: [{ thumbprint: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs', fingerprint: '7Q2M-X9KD', name: 'Desk agent', pairedAt: Date.UTC(2026, 0, 5, 9) }],
    throttled: [],
    extensionKeyThumbprint: 'kZ3bC1t5q1b2VJ4fXyTz0Hq9s8r7p6o5n4m3l2k1j0i',
  };
}

let counter = 0;
/** One approval as the background shows it, with its review; a jacket exchange at checkout.jacketshop.co.uk. */
export function view(over: Partial<ApprovalView> = {}): ReviewedView {
  counter += 1;
  const origin = over.company?.origin ?? 'https://checkout.jacketshop.co.uk';
  return reviewed({
    key: `agent ${origin} op_${counter} rev1`,
    state: 'performed',
    agentName: 'Desk agent',
    agentFingerprint: '7Q2M-X9KD',
    agentConnected: true,
    company: { name: 'Jacket Shop', origin },
    origin: displayOrigin(origin),
    operation: {
      operation_id: `op_${counter}`,
      revision: 'rev1',
      summary: 'Exchange your **jacket** for size _L_; we charge the `price difference`.',
      terms: { price_difference: { amount: '70.00', currency: 'USD' }, order_id: 'ord_7Hk2' },
      expires_at: '2026-10-08T19:20:00Z',
    },
    request: null,
    session: null,
    createdAt: Date.now() - 6 * 60_000,
    updatedAt: Date.now() - 5 * 60_000,
    ...over,
  });
}

/** Puts an entrypoint's HTML body into the jsdom document (without its script). */
export function loadPage(entry: 'popup' | 'options' | 'welcome'): void {
  const html = readFileSync(`${root}entrypoints/${entry}/index.html`, 'utf8');
  const parsed = new DOMParser().parseFromString(html, 'text/html');
  for (const s of parsed.querySelectorAll('script')) s.remove();
  document.head.replaceChildren(...[...parsed.head.childNodes].map((n) => document.importNode(n, true)));
  document.body.className = parsed.body.className;
  document.body.replaceChildren(...[...parsed.body.childNodes].map((n) => document.importNode(n, true)));
}

/** A click the page sees as the person's own (`isTrusted`), which `dispatchEvent` cannot make. */
export function trustedClick(target: Element): void {
  const event = new MouseEvent('click', { bubbles: true, cancelable: true });
  const impl = Object.getOwnPropertySymbols(event).find((s) => String(s) === 'Symbol(impl)')!;
  (event as unknown as Record<symbol, { isTrusted: boolean }>)[impl]!.isTrusted = true;
  (target as unknown as Record<symbol, { _dispatch(e: unknown): void }>)[impl]!._dispatch((event as unknown as Record<symbol, unknown>)[impl]);
}

/**
 * Visible text that did not come from the messages: every text node (and every aria-label and
 * placeholder) must be a message as the page was given it, or inside an element marked as data.
 */
export function unlocalisedText(root: ParentNode, shown: Set<string>): string[] {
  const bad: string[] = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent ?? '';
    if (!text.trim()) continue;
    const parent = node.parentElement;
    if (parent?.closest('[data-value], script, style, template')) continue;
    if (!shown.has(text)) bad.push(text);
  }
  for (const element of (root as Element).querySelectorAll?.('[aria-label], [placeholder]') ?? []) {
    if (element.closest('[data-value]')) continue;
    for (const attr of ['aria-label', 'placeholder']) {
      const value = element.getAttribute(attr);
      if (value && !shown.has(value)) bad.push(`${attr}=${value}`);
    }
  }
  return bad;
}

/** The visible text of an element, whitespace collapsed. */
export function textOf(element: Element | null | undefined): string {
  return (element?.textContent ?? '').replace(/\s+/g, ' ').trim();
}

export const flush = () => new Promise((resolve) => setTimeout(resolve, 0));
