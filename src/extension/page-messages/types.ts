import * as z from 'zod';
import type { AgentSessions } from '../agent-sessions';
import type { ApprovalQueue } from '../approval-queue';
import type { NativePort } from '../native-port';
import type { Snapshot } from '../snapshot';
import type { Store } from '../store';
import type { Settings } from '../settings';

/**
 * What one page message is: its schema, the pages that may send it, and what the background
 * does with it. One module per message, so the check that guards a message sits beside the code
 * it guards, and a new message cannot be added without saying who may send it.
 */

/**
 * The extension's pages, by the path the browser loads them from (`approve` is approval-window.ts's
 * APPROVE_PAGE, spelled here so this module loads without the browser API).
 */
export const PAGE_PATHS = {
  approve: '/approve.html',
  popup: '/popup.html',
  options: '/options.html',
  welcome: '/welcome.html',
} as const;
export type PageName = keyof typeof PAGE_PATHS;
export type PagePath = (typeof PAGE_PATHS)[PageName];

/**
 * Who may send a message: a list of pages, or `'any'` for every page of this extension (the
 * sender's extension id is checked for every message; `'any'` adds no check of its address).
 */
export type PageSenders = PageMessageModule['from'];

/** The background's running parts, as `startBackground` wires them. */
export interface BackgroundParts {
  store: Store;
  queue: ApprovalQueue;
  sessions: AgentSessions;
  port: NativePort;
  /** The extension key's thumbprint. */
  thumbprint: string;
}

/** What a handler may use. Nothing here is a browser API, so handlers are tested with fakes. */
export interface PageServices {
  /** The extension's version (manifest) and when this worker started: the version query's answer. */
  version: string;
  /** `chrome-extension://<id>` (no trailing slash): the origin a passkey assertion from our window names. */
  extensionOrigin: string;
  startedAt: number;
  /** The background's parts, started on first use (a woken worker opens IndexedDB here). */
  ready: () => Promise<BackgroundParts>;
  snapshot: () => Promise<Snapshot>;
  settings: () => Promise<Settings>;
  saveSettings: (settings: Settings) => Promise<void>;
  showApprovalWindow: () => Promise<unknown>;
  /** Something the pages show changed: refresh the badge and the open pages. */
  changed: () => void;
}

export type PageMessageModule<S extends z.ZodObject = z.ZodObject> = {
  schema: S;
  handler: (message: z.output<S>, services: PageServices) => Promise<unknown>;
} & (
  | { from: 'any' }
  | {
      from: readonly PageName[];
      /** The ERR_NOT_ALLOWED message another page gets: it says where the person can do this. */
      refusal: string;
    }
);

/** Keeps each module's handler typed by its own schema while the registry holds them all. */
export function pageMessageModule<S extends z.ZodObject>(module: PageMessageModule<S>): PageMessageModule<S> {
  return module;
}

/** An approval's key or a pairing's id, as the pages send them back. */
export const keyField = z.string().min(1).max(1200);
