import { CountersignError, type ErrorCode } from '../../protocol/errors';
import { pageMessage, type PageMessage } from '../runtime-messages';
import { PAGE_MESSAGES } from './index';
import { PAGE_PATHS, type PageMessageModule, type PagePath, type PageSenders, type PageServices } from './types';

/** Who sent a runtime message, as the browser says (`runtime.MessageSender`). */
export interface PageSender {
  id?: string | undefined;
  url?: string | undefined;
}

export interface DispatchContext {
  /** This extension's id: messages from anything else are not answered. */
  ownId: string;
  /** The full address of one of this extension's pages (`runtime.getURL`). */
  pageUrl: (path: PagePath) => string;
  services: PageServices;
}

/** What a page receives when its message fails: the error's code and message, never a throw. */
export interface PageError {
  error: { code: string; message: string };
}

// Each handler takes its own message type; once the union has parsed a message and picked the
// module by that same type, the message is that module's, which the Map's one type cannot say.
const MODULES = new Map<string, PageMessageModule>(PAGE_MESSAGES.map((m) => [m.schema.shape.type.value, m as unknown as PageMessageModule]));

/** The module that handles one message type (every type of the union has one). */
export function moduleFor(type: PageMessage['type']): PageMessageModule {
  const module = MODULES.get(type);
  if (!module) throw new CountersignError('ERR_ARGUMENT_INVALID', `type: expected a page message type with a handler, got ${type}`);
  return module;
}

/** Whether `url` is one of the pages `from` names. */
export function sentFrom(url: string | undefined, from: PageSenders, pageUrl: (path: PagePath) => string): boolean {
  if (from === 'any') return true;
  return !!url && from.some((page) => url.startsWith(pageUrl(PAGE_PATHS[page])));
}

/**
 * One message from a page: parsed, its sender checked against the module's `from`, then handled.
 * Returns undefined (no answer, as for any message that is not ours) when the message does not
 * parse or another extension sent it; otherwise the handler's answer, or `{ error }` when it
 * failed, so a page never sees a rejected promise it would have to tell apart from a closed port.
 */
export function dispatchPageMessage(raw: unknown, sender: PageSender, ctx: DispatchContext): Promise<unknown> | undefined {
  const parsed = pageMessage.safeParse(raw);
  if (!parsed.success || sender.id !== ctx.ownId) return undefined;
  return handle(parsed.data, sender.url, ctx).catch(
    (error: unknown): PageError => ({
      // A foreign error is the background's own failure (IndexedDB, a bug): to the page, the other side failed.
      error: error instanceof CountersignError ? error.toJSON() : { code: 'ERR_REMOTE' satisfies ErrorCode, message: String(error) },
    }),
  );
}

async function handle(message: PageMessage, senderUrl: string | undefined, ctx: DispatchContext): Promise<unknown> {
  const module = moduleFor(message.type);
  if (module.from !== 'any' && !sentFrom(senderUrl, module.from, ctx.pageUrl)) throw new CountersignError('ERR_NOT_ALLOWED', module.refusal);
  return module.handler(message, ctx.services);
}
