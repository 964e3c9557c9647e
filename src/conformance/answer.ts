import { parseOperation, type Approval, type Operation } from '../protocol/index';
import { isObject } from '../protocol/issues';
import type { Exchange } from './company-http';
import type { InterfaceName } from './scenario';

/**
 * What a Company answered, read the same way for every interface, so that a check can say what
 * it expects once. The reading is lenient on purpose: an operation is recognised wherever the
 * interface's section 4 puts it, even on a wrong status or without `isError`, so that a Company
 * that gets the envelope wrong breaks the section 4 sentence about the envelope, and not every
 * check that needed an operation to go on.
 */
export type AnswerKind =
  /** An operation came back (section 4): the Company asks for approval. */
  | 'operation'
  /** The action's ordinary answer: API 2xx, an MCP result without isError. */
  | 'done'
  /** A conversation reply without an operation (only the outcome says whether it performed). */
  | 'message'
  /** HTTP 503: being performed, or not known yet (section 7). */
  | 'busy'
  /** The core `extension_required` error (section 2). */
  | 'extension_required'
  /** Any other error: an API error status, an MCP tool error or JSON-RPC error. */
  | 'refused'
  /** Nothing came back in time, or the connection failed; or a conversation stayed silent. */
  | 'silent';

export interface CompanyMessage {
  text: string;
  extensions?: unknown;
}

export interface Answer {
  interface: InterfaceName;
  kind: AnswerKind;
  /** The operation as it came, when one did. */
  rawOperation?: unknown;
  /** The operation if it is valid (section 3); `operationProblem` says why not. */
  operation?: Operation;
  operationProblem?: string;
  /** The HTTP exchanges that carried it, for the evidence. */
  exchanges: Exchange[];
  status?: number;
  body?: unknown;
  /** MCP: the tool result, or the JSON-RPC error. */
  result?: { isError?: unknown; content?: unknown; structuredContent?: unknown };
  rpcError?: unknown;
  /** Conversation: the Company's messages that answered. */
  messages?: CompanyMessage[];
}

/** What a check asks a thread to send. */
export interface AskOptions {
  /** An approval (as JSON for MCP and conversations, a Dictionary for the API). */
  approval?: Approval;
  /** API only: a raw Poppy-Approval field value, sent as is. */
  rawApprovalHeader?: string;
  /** MCP and conversation only: the approval object sent as is (unknown members, wrong types). */
  rawApproval?: unknown;
  /** Poppy-Extensions: default declares operations v2; a string is sent as is; false sends none. */
  declare?: string | false;
  /** Conversation: the message text instead of the variant's (the approval message's default is "The user approved."). */
  text?: string;
  /** Conversation: reuse a message ID (a retry). */
  messageId?: string;
  /** Conversation: false when no reply is expected (then the kit only waits for silence). */
  expectReply?: boolean;
}

export type Variant = 'operation' | 'newTerms' | 'otherAction';

/** One Session talking to one interface about one action. */
export interface Thread {
  readonly interface: InterfaceName;
  ask(variant: Variant, options?: AskOptions): Promise<Answer>;
}

/** Read a raw operation: valid, or the reason it is not. */
export function readOperation(raw: unknown): Pick<Answer, 'rawOperation' | 'operation' | 'operationProblem'> {
  try {
    return { rawOperation: raw, operation: parseOperation(raw) };
  } catch (cause) {
    return { rawOperation: raw, operationProblem: cause instanceof Error ? cause.message : String(cause) };
  }
}

/** Section 4, "APIs": an error body with `approval_required` and an `operation`. */
export function apiAnswer(exchange: Exchange): Answer {
  const base: Answer = { interface: 'api', kind: 'silent', exchanges: [exchange] };
  const response = exchange.response;
  if (response === undefined) return base;
  const body = response.body;
  const answer: Answer = { ...base, status: response.status, body };
  if (isObject(body) && body.error === 'approval_required' && 'operation' in body) return { ...answer, kind: 'operation', ...readOperation(body.operation) };
  if (response.status === 503) return { ...answer, kind: 'busy' };
  if (isObject(body) && body.error === 'extension_required') return { ...answer, kind: 'extension_required' };
  if (response.status >= 200 && response.status < 300) return { ...answer, kind: 'done' };
  return { ...answer, kind: 'refused' };
}

/** The approval from whichever of an ask's options carries one. */
export function approvalOf(options: AskOptions): unknown {
  return options.rawApproval ?? options.approval;
}
