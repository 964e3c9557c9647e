import { isObject } from '../../protocol/issues';
import type { Check } from '../check';
import type { SessionKind } from '../conformance-run';

/** Section 4, "Asking for approval": the envelope of an operation on each interface. */

function sessionKinds(signedOut: boolean, hasAccount: boolean): SessionKind[] {
  return [...(signedOut ? (['signed-out'] as const) : []), ...(hasAccount ? (['signed-in'] as const) : [])];
}

export const section4: Check[] = [
  {
    id: '4-api-403',
    section: '4',
    level: 'MUST',
    sentence: 'The API responds with HTTP 403 and a JSON body with error set to approval_required and the operation in operation',
    scope: 'each',
    only: ['api'],
    async run(context) {
      const { scenario } = context.run;
      // "It isn't an authorization error, so it doesn't go in WWW-Authenticate, and it works the same signed in or out."
      for (const kind of sessionKinds(scenario.signedOut, scenario.account !== undefined)) {
        const action = await context.run.action(kind);
        const { answer } = await context.operation(action.thread('api'));
        const response = answer.exchanges.at(-1)?.response;
        if (response?.status !== 403) context.breaks(`${kind}: expected HTTP 403, got ${response?.status}`, answer);
        if (!/\bjson\b/i.test(response?.headers['content-type'] ?? '')) context.breaks(`${kind}: expected a JSON body (Content-Type), got ${response?.headers['content-type'] ?? 'none'}`, answer);
        if (response?.headers['www-authenticate'] !== undefined) context.breaks(`${kind}: approval_required is not an authorization error, yet WWW-Authenticate is set`, answer);
      }
    },
  },
  {
    id: '4-mcp-error-result',
    section: '4',
    level: 'MUST',
    sentence: 'The tool returns an error result, with isError set to true, the operation in operation in structuredContent, and the summary as text',
    scope: 'each',
    only: ['mcp'],
    async run(context) {
      const action = await context.run.action();
      const { answer } = await context.operation(action.thread('mcp'));
      if (answer.result === undefined) {
        const carrier = isObject(answer.rpcError) && typeof answer.rpcError.code === 'number' ? 'a JSON-RPC error' : `an HTTP ${answer.status} error body`;
        return context.breaks(`expected a tool result with isError: true, got ${carrier} carrying the operation`, answer);
      }
      if (answer.result.isError !== true) context.breaks(`expected isError: true, got ${JSON.stringify(answer.result.isError)}`, answer);
      const content = answer.result.content;
      const hasText = Array.isArray(content) && content.some((c) => isObject(c) && c.type === 'text' && typeof c.text === 'string' && c.text.trim() !== '');
      if (!hasText) context.breaks('expected the summary as text content, got no text', answer);
    },
  },
  {
    id: '4-conversation-message',
    section: '4',
    level: 'MUST',
    sentence: 'A Company message carries the operation in extensions.operations.operation',
    scope: 'each',
    only: ['conversation'],
    async run(context) {
      const action = await context.run.action();
      // context.operation reads it from a Company message's extensions.operations.operation only.
      await context.operation(action.thread('conversation'));
    },
  },
  {
    id: '4-conversation-new-revision',
    section: '4',
    level: 'MUST',
    sentence: 'If the terms change during the conversation, the Company sends the new revision in a later message.',
    scope: 'each',
    only: ['conversation'],
    async run(context) {
      context.requireVariant('newTerms');
      const action = await context.run.action();
      const thread = action.thread('conversation');
      await context.operation(thread);
      const later = await thread.ask('newTerms');
      if (later.rawOperation === undefined) context.breaks('the terms changed: expected a later Company message with the operation, got none', later);
    },
  },
];
