import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach } from 'vitest';
import { APPROVAL_META_KEY, formatApprovalHeader, type Approval, type Operation } from '../../src/protocol/index';
import { createCompany, type Company, type CompanyOptions } from '../../src/company/index';

/**
 * Helpers for the Company half of the conformance suite: the reference Company on a real port
 * (127.0.0.1), spoken to with `fetch` and with the MCP SDK's own Client, never with our SDK.
 */

/** The day of the seed's example, 12:05 in California: a fixed clock that tests move. */
export const SEED_DAY = Date.UTC(2026, 9, 8, 19, 5, 0);

export class Clock {
  constructor(public ms = SEED_DAY) {}
  readonly now = (): number => this.ms;
  advance(ms: number): void {
    this.ms += ms;
  }
  set(ms: number): void {
    this.ms = ms;
  }
}

/** Who is asking, and with what: the Poppy headers of one request. */
export interface Who {
  /** Poppy-Session (the Session identity, see src/company/session.ts). */
  session: string;
  /** Bearer token: signed in. */
  token?: string;
  /** Poppy-Extensions: true (default) declares operations v2, false sends none, a string is sent as is. */
  declare?: boolean | string;
  /** Poppy-Approval: an approval, or a raw field value. */
  approval?: Approval | string;
  headers?: Record<string, string>;
}

export const ALEX: Who = { session: 'sess_alex_laptop', token: 'tok_alex' };
export const ALEX_PHONE: Who = { session: 'sess_alex_phone', token: 'tok_alex' };
export const SAM: Who = { session: 'sess_sam', token: 'tok_sam' };
export const GUEST: Who = { session: 'sess_guest_1' };
export const OTHER_GUEST: Who = { session: 'sess_guest_2' };

export const DECLARATION = '"operations";v="2"';

export function poppyHeaders(who: Who): Record<string, string> {
  const headers: Record<string, string> = { 'Poppy-Session': who.session, 'Poppy-Version': '0.4' };
  if (who.token !== undefined) headers.Authorization = `Bearer ${who.token}`;
  const declare = who.declare ?? true;
  if (declare !== false) headers['Poppy-Extensions'] = declare === true ? DECLARATION : declare;
  if (who.approval !== undefined) headers['Poppy-Approval'] = typeof who.approval === 'string' ? who.approval : formatApprovalHeader(who.approval);
  return { ...headers, ...who.headers };
}

export function approvalOf(operation: Pick<Operation, 'operation_id' | 'revision'>): Approval {
  return { operation_id: operation.operation_id, revision: operation.revision };
}

export interface Reply {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export async function request(company: Company, method: string, path: string, who: Who, body?: unknown, init: RequestInit = {}): Promise<Reply> {
  const headers: Record<string, string> = poppyHeaders(who);
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(`${company.url}${path}`, { method, headers, body: body === undefined ? null : JSON.stringify(body), ...init });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

export const post = (company: Company, path: string, who: Who, body?: unknown, init?: RequestInit): Promise<Reply> => request(company, 'POST', path, who, body, init);
export const get = (company: Company, path: string, who: Who): Promise<Reply> => request(company, 'GET', path, who);

/** The seed's exchange (section 3), on Alex's order. */
export const EXCHANGE_PATH = '/orders/ord_7Hk2/exchanges';
export const EXCHANGE_M = { item_id: 'itm_4Qa', replacement_sku: 'stormline-insulated-m' };
export const EXCHANGE_L = { item_id: 'itm_4Qa', replacement_sku: 'stormline-insulated-l' };
/** A guest order, which signed-out Sessions can act on. */
export const GUEST_PATH = '/orders/ord_G5xa/exchanges';
export const GUEST_EXCHANGE = { item_id: 'itm_2Wb', replacement_sku: 'stormline-insulated-s' };
export const CANCEL_PATH = '/subscriptions/sub_3Fp9/cancel';

/** Ask for an action and return the operation of the 403 (section 4), failing loudly otherwise. */
export async function operationFor(company: Company, path: string, who: Who, body?: unknown): Promise<Operation> {
  const reply = await post(company, path, { ...who, approval: undefined }, body);
  if (reply.status !== 403 || reply.body?.error !== 'approval_required') throw new Error(`expected 403 approval_required, got ${reply.status} ${reply.text}`);
  return reply.body.operation as Operation;
}

/** Start a Company on a fixed clock; returns it and registers it for closing. */
export async function startCompany(clock: Clock, options: Omit<CompanyOptions, 'now'> = {}): Promise<Company> {
  const company = await createCompany({ secret: 'conformance-secret', ...options, now: clock.now, log: (line) => companyLog.push(line) });
  openCompanies.push(company);
  return company;
}

const openCompanies: Company[] = [];
const openClients: Client[] = [];
/** What the Companies reported as unexpected errors (a 500): every test must end with none. */
const companyLog: string[] = [];

afterEach(async () => {
  for (const client of openClients.splice(0)) await client.close().catch(() => undefined);
  for (const company of openCompanies.splice(0)) await company.close();
  const errors = companyLog.splice(0);
  if (errors.length > 0) throw new Error(`the Company reported errors:\n${errors.join('\n')}`);
});

/** An MCP client (the SDK's own) whose HTTP requests carry `who`'s Poppy headers. */
export async function mcpClient(company: Company, who: Who): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${company.url}/mcp`), { requestInit: { headers: poppyHeaders({ ...who, approval: undefined }) } });
  const client = new Client({ name: 'conformance', version: '1.0.0' });
  await client.connect(transport);
  openClients.push(client);
  return client;
}

/** A tool call, with the approval in `_meta` when given (section 6, "MCP"). */
export async function callTool(client: Client, name: string, args: Record<string, unknown>, approval?: Approval | Record<string, unknown>): Promise<any> {
  return client.callTool(approval === undefined ? { name, arguments: args } : { name, arguments: args, _meta: { [APPROVAL_META_KEY]: approval } });
}

/** A raw JSON-RPC tools/call over HTTP, to see the HTTP status and headers (section 7's 503). */
export async function rawToolCall(company: Company, who: Who, name: string, args: Record<string, unknown>, approval?: Approval): Promise<Reply> {
  const params: Record<string, unknown> = { name, arguments: args };
  if (approval !== undefined) params._meta = { [APPROVAL_META_KEY]: approval };
  return request(company, 'POST', '/mcp', { ...who, headers: { Accept: 'application/json, text/event-stream', ...who.headers } }, { jsonrpc: '2.0', id: 1, method: 'tools/call', params });
}

// Conversations (sections 4 and 6, "Conversations").

export async function openConversation(company: Company, who: Who): Promise<string> {
  const reply = await post(company, '/conversations', who, {});
  if (reply.status !== 201) throw new Error(`expected 201, got ${reply.status} ${reply.text}`);
  return reply.body.id as string;
}

let messageCounter = 0;
export function messageId(): string {
  messageCounter += 1;
  return `msg_pa_${messageCounter}_${Math.random().toString(36).slice(2, 8)}`;
}

export interface PaMessage {
  id: string;
  author: { type: 'agent' };
  text: string;
  extensions?: Record<string, unknown>;
}

export function message(text: string, approval?: Approval, id = messageId()): PaMessage {
  return approval === undefined ? { id, author: { type: 'agent' }, text } : { id, author: { type: 'agent' }, text, extensions: { operations: { approval } } };
}

export function send(company: Company, conversation: string, who: Who, body: PaMessage, init?: RequestInit): Promise<Reply> {
  return post(company, `/conversations/${conversation}/messages`, { ...who, approval: undefined }, body, init);
}

export async function events(company: Company, conversation: string, who: Who, after?: string): Promise<any[]> {
  const reply = await get(company, `/conversations/${conversation}/events${after === undefined ? '' : `?after=${after}`}`, { ...who, approval: undefined });
  if (reply.status !== 200) throw new Error(`expected 200, got ${reply.status} ${reply.text}`);
  return reply.body.events as unknown[] as never[];
}

/** The Company messages of a conversation, oldest first. */
export async function companyMessages(company: Company, conversation: string, who: Who): Promise<any[]> {
  return (await events(company, conversation, who)).filter((e) => e.message?.role === 'company').map((e) => e.message);
}

/** The operations offered in a conversation, oldest first. */
export async function offeredOperations(company: Company, conversation: string, who: Who): Promise<Operation[]> {
  return (await companyMessages(company, conversation, who)).map((m) => m.extensions?.operations?.operation).filter((o): o is Operation => o !== undefined);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Give up on fetch errors caused by a dropped connection: the drop and crash faults. */
export async function expectDropped(promise: Promise<unknown>): Promise<void> {
  let failed = false;
  try {
    await promise;
  } catch {
    failed = true;
  }
  if (!failed) throw new Error('expected the connection to be dropped');
}
