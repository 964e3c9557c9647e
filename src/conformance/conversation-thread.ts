import { randomBytes } from 'node:crypto';
import { OPERATIONS_EXTENSION } from '../protocol/index';
import { approvalOf, readOperation, type Answer, type AskOptions, type CompanyMessage, type Thread, type Variant } from './answer';
import { isObject } from '../protocol/issues';
import type { Caller } from './caller';
import { send, type Exchange } from './company-http';
import { atPointer, expand, type Scenario, type Variables } from './scenario';

type ConversationScenario = NonNullable<Scenario['conversation']>;

/** The most event reads for one answer. */
const MAX_EVENT_READS = 100;

/**
 * Section 4 and 6, "Conversations": one conversation of one Session. A Personal Agent message is
 * `{ id, author: { type: "agent" }, text, extensions? }`, the approval in
 * `extensions.operations.approval`; the Company's answers are the Company messages among the
 * events that follow (docs/core-assumptions.md, "Conversation events"). The Company Agent may
 * answer after the send returns, so the kit reads events until a Company message arrives and
 * then until the conversation is quiet.
 */
export class ConversationThread implements Thread {
  readonly interface = 'conversation' as const;
  readonly #caller: Caller;
  readonly #scenario: ConversationScenario;
  readonly #variables: Variables;
  #conversationId: string | undefined;
  #after = '';
  readonly #sent = new Map<string, { text: string; extensions?: unknown }>();

  constructor(caller: Caller, scenario: ConversationScenario, variables: Variables) {
    this.#caller = caller;
    this.#scenario = scenario;
    this.#variables = variables;
  }

  #vars(extra: Variables = {}): Variables {
    return { ...this.#variables, conversation_id: this.#conversationId ?? '', after: this.#after, wait: 0, ...extra };
  }

  /** Opens the conversation (once); undefined, or the exchange that failed. */
  async #open(declare: string | false | undefined): Promise<Exchange | undefined> {
    if (this.#conversationId !== undefined) return undefined;
    const request = expand(this.#scenario.open.request, this.#vars());
    const exchange = await send({ method: request.method, url: this.#caller.url(request.path), headers: { ...(await this.#caller.headers(declare)), ...request.headers }, body: request.body });
    const id = atPointer(exchange.response?.body, this.#scenario.open.capture.conversation_id as string);
    if (typeof id !== 'string' || id === '') return exchange;
    this.#conversationId = id;
    // Anything the Company said on opening (a greeting) is not an answer to the kit's first message.
    await this.#events(0, []);
    return undefined;
  }

  async ask(variant: Variant, options: AskOptions = {}): Promise<Answer> {
    const failed = await this.#open(options.declare);
    if (failed !== undefined) return { interface: 'conversation', kind: 'refused', exchanges: [failed], status: failed.response?.status, body: failed.response?.body };
    const approval = approvalOf(options);
    const id = options.messageId ?? `msg_${randomBytes(12).toString('base64url')}`;
    const message =
      this.#sent.get(id) ??
      (approval === undefined
        ? { text: options.text ?? this.#textFor(variant) }
        : { text: options.text ?? 'The user approved.', extensions: { [OPERATIONS_EXTENSION]: { approval } } });
    this.#sent.set(id, message);
    const path = expand(this.#scenario.send.path, this.#vars());
    const headers = await this.#caller.headers(options.declare);
    const exchange = await send({ method: 'POST', url: this.#caller.url(path), headers, body: { id, author: { type: 'agent' }, ...message } });
    const answer: Answer = { interface: 'conversation', kind: 'silent', exchanges: [exchange], status: exchange.response?.status, body: exchange.response?.body };
    if (exchange.response === undefined || exchange.response.status >= 400) return { ...answer, kind: exchange.response?.status === 503 ? 'busy' : 'refused' };
    const messages = await this.#replies(options.expectReply ?? true, answer.exchanges);
    return this.#classify(answer, messages);
  }

  #textFor(variant: Variant): string {
    const template = this.#scenario[variant];
    if (template === undefined) throw new Error(`the scenario has no conversation.${variant}`);
    return expand(template.text, this.#variables);
  }

  #classify(answer: Answer, messages: CompanyMessage[]): Answer {
    const withOperation = messages.filter((m) => isObject(m.extensions) && isObject(m.extensions[OPERATIONS_EXTENSION]) && 'operation' in m.extensions[OPERATIONS_EXTENSION]);
    const last = withOperation.at(-1);
    if (last !== undefined) {
      const content = (last.extensions as Record<string, Record<string, unknown>>)[OPERATIONS_EXTENSION] as Record<string, unknown>;
      return { ...answer, kind: 'operation', messages, ...readOperation(content.operation) };
    }
    return { ...answer, kind: messages.length > 0 ? 'message' : 'silent', messages };
  }

  /** Company messages after the last event seen: until one arrives (or the reply timeout), then until quiet. */
  async #replies(expectReply: boolean, exchanges: Exchange[]): Promise<CompanyMessage[]> {
    const messages: CompanyMessage[] = [];
    const deadline = Date.now() + (expectReply ? this.#scenario.replyTimeoutMs : this.#scenario.quietMs);
    // A Company that never stops talking still gets a bounded number of reads.
    for (let reads = 0; reads < MAX_EVENT_READS; reads++) {
      const remaining = deadline - Date.now();
      const waitSeconds = messages.length === 0 && remaining > 1000 ? Math.min(5, Math.floor(remaining / 1000)) : 0;
      const found = await this.#events(waitSeconds, exchanges);
      messages.push(...found);
      if (found.length > 0) continue;
      if (messages.length > 0 || Date.now() >= deadline) break;
      await new Promise((resolve) => setTimeout(resolve, Math.min(100, Math.max(0, deadline - Date.now()))));
    }
    if (messages.length > 0) {
      // Quiet: give a Company Agent that says two things the time to finish.
      await new Promise((resolve) => setTimeout(resolve, this.#scenario.quietMs));
      messages.push(...(await this.#events(0, exchanges)));
    }
    return messages;
  }

  async #events(waitSeconds: number, exchanges: Exchange[]): Promise<CompanyMessage[]> {
    const path = expand(this.#scenario.events.path, this.#vars({ wait: waitSeconds }));
    const exchange = await send({ method: 'GET', url: this.#caller.url(path), headers: await this.#caller.headers() });
    const events = atPointer(exchange.response?.body, this.#scenario.events.list);
    if (!Array.isArray(events)) {
      exchanges.push(exchange);
      return [];
    }
    const out: CompanyMessage[] = [];
    for (const event of events) {
      if (!isObject(event)) continue;
      if (typeof event.id === 'string') this.#after = event.id;
      const message = event.message;
      if (event.type === 'message' && isObject(message) && message.role === 'company') out.push({ text: typeof message.text === 'string' ? message.text : '', extensions: message.extensions });
    }
    if (out.length > 0) exchanges.push(exchange);
    return out;
  }
}
