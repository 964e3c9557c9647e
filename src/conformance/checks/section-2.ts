import { supportsOperationsV2 } from '../../protocol/index';
import { isObject } from '../../protocol/issues';
import { describeAnswer, type Check } from '../check';

/** Section 2, "Advertising support". */

/**
 * Poppy-Extensions values that don't declare operations v2: none, another major version ("A
 * different major version doesn't count as support for this version"), another extension, and
 * the name without the String `v` the declaration has (`"operations";v="2"`, section 2): no `v`,
 * an Integer `v`, the name as a Token (docs/core-assumptions.md, "Request headers").
 */
export const UNDECLARED = [false, '"operations";v="3"', '"operations";v="1"', '"payments";v="2"', '"operations"', '"operations";v=2', 'operations;v="2"'] as const;

/**
 * Poppy-Extensions values that declare operations v2 besides the kit's own `"operations";v="2"`:
 * a minor version of 2 (only "a different major version doesn't count"), and the declaration
 * among other extensions, with a parameter of its own.
 */
export const DECLARED = ['"operations";v="2.1"', '"payments";v="1", "operations";v="2";note=1'] as const;

function declaredAs(declare: string | false): string {
  return declare === false ? 'no Poppy-Extensions' : `Poppy-Extensions: ${declare}`;
}

export const section2: Check[] = [
  {
    id: '2-poppy-json',
    section: '2',
    level: 'MUST',
    sentence: 'A Company that supports this extension lists it in extensions in its poppy.json',
    scope: 'once',
    async run(context) {
      const exchange = await context.run.poppyJson();
      const body = exchange.response?.body;
      if (exchange.response?.status !== 200 || !isObject(body)) return context.breaks(`GET /.well-known/poppy.json: expected 200 with a JSON object, got ${exchange.response?.status ?? exchange.error}`, exchange);
      if (!supportsOperationsV2(body)) context.breaks('extensions.operations: expected an array with { "version": "2" }, got none', exchange);
    },
  },
  {
    id: '2-returns-operations',
    section: '2',
    level: 'MUST',
    sentence: 'Support means that the Company can return operations and accept approvals through the interfaces where it offers actions that need approval',
    scope: 'each',
    async run(context) {
      const action = await context.run.action();
      const answer = await action.thread(context.iface).ask('operation');
      if (answer.rawOperation === undefined) return context.breaks(`the scenario's operation request, declaring operations v2: expected an operation, got ${describeAnswer(answer)}`, answer);
      // A new thread each: a conversation keeps the declaration it was opened with.
      for (const declare of DECLARED) {
        const declared = await action.thread(context.iface).ask('operation', { declare });
        if (declared.rawOperation === undefined) context.breaks(`${declaredAs(declare)}: it declares operations v2, expected an operation, got ${describeAnswer(declared)}`, declared);
      }
    },
  },
  {
    id: '2-not-undeclared',
    section: '2',
    level: 'MUST NOT',
    sentence: "A Company MUST NOT return operations in response to a request that doesn't declare it.",
    scope: 'each',
    async run(context) {
      const action = await context.run.action();
      for (const declare of UNDECLARED) {
        const answer = await action.thread(context.iface).ask('operation', { declare });
        if (answer.rawOperation !== undefined) context.breaks(`${declaredAs(declare)}: expected no operation, got one`, answer);
      }
    },
  },
  {
    id: '2-mcp-tool-error',
    section: '2',
    level: 'MUST',
    sentence: 'An MCP server returns that error only to refuse the Personal Agent entirely. A tool that needs the extension returns an ordinary tool error instead',
    scope: 'each',
    only: ['mcp'],
    async run(context) {
      const action = await context.run.action();
      const answer = await action.thread('mcp').ask('operation', { declare: false });
      if (answer.rawOperation !== undefined) context.notExercised('the tool returned an operation without the declaration (see 2-not-undeclared)');
      if (answer.result === undefined) context.breaks(`no Poppy-Extensions: expected a tool result with isError, got ${answer.rpcError === undefined ? describeAnswer(answer) : 'a JSON-RPC error'}`, answer);
      else if (answer.result.isError !== true) context.notExercised('the tool did the action without the extension (the Company handles approval itself)');
    },
  },
  {
    id: '2-extension-required',
    section: '2',
    level: 'MUST',
    sentence: 'It handles approval itself, such as on its website or in a Direct Conversation, or refuses the request with extension_required and extension set to operations',
    scope: 'each',
    only: ['api'],
    async run(context) {
      const action = await context.run.action();
      const answer = await action.thread('api').ask('operation', { declare: false });
      if (answer.rawOperation !== undefined) context.notExercised('the API returned an operation without the declaration (see 2-not-undeclared)');
      const body = answer.body;
      if (!isObject(body) || body.error !== 'extension_required') return context.notExercised(`the API did not refuse with extension_required (${describeAnswer(answer)}): it handles approval itself`);
      if (body.extension !== 'operations') context.breaks(`extension_required: expected "extension": "operations", got ${JSON.stringify(body.extension)}`, answer);
    },
  },
];
