import { describe, expect, it } from 'vitest';
import {
  CountersignError,
  approvalFromMessage,
  approvalFromMeta,
  approvalMessage,
  approvalMeta,
  canonicalJson,
  companyFromPoppyJson,
  formatApprovalHeader,
  operationFromApiResponse,
  operationFromEvent,
  operationFromToolResult,
  parseApprovalHeader,
  parseExtensionsHeader,
  parseOperation,
  supportsOperationsV2,
  type Approval,
  type ErrorCode,
} from '../../src/protocol';
import { SEED_APPROVAL, SEED_OPERATION_WITHOUT_TERMS } from './seed';

/**
 * Malformed inputs, each rejected with its stable code (and, where it matters, a message that
 * names the field and what was expected). Table-driven: one named test per row.
 */

interface Row {
  name: string;
  run: () => unknown;
  code: ErrorCode;
  message?: RegExp;
}

const ID_257 = 'a'.repeat(257);
const ID_RULE = /expected (a String of )?1-256 characters of A-Z a-z 0-9 _ -/;

/** The seed operation with one member changed, or removed when `value` is undefined. */
function operationWith(member: string, value: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = { ...SEED_OPERATION_WITHOUT_TERMS, terms: { order_id: 'ord_7Hk2' } };
  if (value === undefined) delete out[member];
  else out[member] = value;
  return out;
}

function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

/** An object whose member `name` throws when read: a foreign error must come out as CountersignError. */
function throwingGetter(name: string, base: Record<string, unknown> = {}): Record<string, unknown> {
  return Object.defineProperty({ ...base }, name, {
    enumerable: true,
    get() {
      throw new TypeError('boom');
    },
  });
}

/** A Proxy that has been revoked: every operation on it, even Array.isArray, throws a TypeError. */
function revoked(): object {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

const approvalHeader = (value: string) => () => parseApprovalHeader(value);
const OK_ID = '"exc_5Rt2"';
const OK_REV = '"1791487200-k3Jd9Qx2mW8v"';

const SECTION_3_OPERATION: Row[] = [
  { name: 'a string instead of an object', run: () => parseOperation('exc_5Rt2'), code: 'ERR_OPERATION_INVALID', message: /^operation: expected an operation object, got a string of 8 characters$/ },
  { name: 'null', run: () => parseOperation(null), code: 'ERR_OPERATION_INVALID' },
  { name: 'an array', run: () => parseOperation([SEED_OPERATION_WITHOUT_TERMS]), code: 'ERR_OPERATION_INVALID', message: /got an array/ },
  { name: 'a number', run: () => parseOperation(42), code: 'ERR_OPERATION_INVALID' },
  { name: 'undefined', run: () => parseOperation(undefined), code: 'ERR_OPERATION_INVALID' },
  { name: 'missing operation_id', run: () => parseOperation(operationWith('operation_id', undefined)), code: 'ERR_OPERATION_INVALID', message: /^operation\.operation_id: expected 1-256 .*, got nothing$/ },
  { name: 'missing revision', run: () => parseOperation(operationWith('revision', undefined)), code: 'ERR_OPERATION_INVALID', message: /^operation\.revision: expected .*, got nothing$/ },
  { name: 'missing summary', run: () => parseOperation(operationWith('summary', undefined)), code: 'ERR_OPERATION_INVALID', message: /^operation\.summary: expected a non-empty string.*, got nothing$/ },
  { name: 'missing expires_at', run: () => parseOperation(operationWith('expires_at', undefined)), code: 'ERR_OPERATION_INVALID', message: /^operation\.expires_at: expected an RFC 3339 date-time.*, got nothing$/ },
  { name: 'operation_id as a number', run: () => parseOperation(operationWith('operation_id', 5)), code: 'ERR_OPERATION_INVALID', message: ID_RULE },
  { name: 'revision of 257 characters', run: () => parseOperation(operationWith('revision', ID_257)), code: 'ERR_OPERATION_INVALID', message: /^operation\.revision: expected 1-256 characters of A-Z a-z 0-9 _ -, got a string of 257 characters that is not$/ },
  { name: 'operation_id with a space', run: () => parseOperation(operationWith('operation_id', 'exc 5Rt2')), code: 'ERR_OPERATION_INVALID', message: ID_RULE },
  { name: 'operation_id with non-ASCII (é)', run: () => parseOperation(operationWith('operation_id', 'exc_5Rt2\u00e9')), code: 'ERR_OPERATION_INVALID' },
  { name: 'operation_id with a Cyrillic look-alike', run: () => parseOperation(operationWith('operation_id', 'ex\u0441_5Rt2')), code: 'ERR_OPERATION_INVALID' },
  { name: 'empty operation_id', run: () => parseOperation(operationWith('operation_id', '')), code: 'ERR_OPERATION_INVALID' },
  { name: 'revision with a dot', run: () => parseOperation(operationWith('revision', '1791487200.k3Jd9')), code: 'ERR_OPERATION_INVALID' },
  { name: 'revision with a right-to-left override', run: () => parseOperation(operationWith('revision', 'abc\u202edef')), code: 'ERR_OPERATION_INVALID' },
  { name: 'operation_id of 10,000 characters', run: () => parseOperation(operationWith('operation_id', 'x'.repeat(10_000))), code: 'ERR_OPERATION_INVALID' },
  { name: 'empty summary', run: () => parseOperation(operationWith('summary', '')), code: 'ERR_OPERATION_INVALID', message: /^operation\.summary: expected a non-empty string/ },
  { name: 'summary of blanks only', run: () => parseOperation(operationWith('summary', ' \n\t ')), code: 'ERR_OPERATION_INVALID' },
  { name: 'summary as a number', run: () => parseOperation(operationWith('summary', 70)), code: 'ERR_OPERATION_INVALID' },
  { name: 'summary as an object', run: () => parseOperation(operationWith('summary', { text: 'Exchange' })), code: 'ERR_OPERATION_INVALID' },
  { name: 'summary of 10,001 characters', run: () => parseOperation(operationWith('summary', 'x'.repeat(10_001))), code: 'ERR_OPERATION_INVALID', message: /^operation\.summary: expected at most 10000 characters, got 10001 characters$/ },
  { name: 'summary with an unpaired surrogate', run: () => parseOperation(operationWith('summary', 'Exchange \ud800 now')), code: 'ERR_OPERATION_INVALID' },
  { name: 'terms as an array', run: () => parseOperation(operationWith('terms', [{ order_id: 'ord_7Hk2' }])), code: 'ERR_OPERATION_INVALID', message: /^operation\.terms: expected a JSON object, got an array$/ },
  { name: 'terms as null', run: () => parseOperation(operationWith('terms', null)), code: 'ERR_OPERATION_INVALID', message: /^operation\.terms: expected a JSON object, got null$/ },
  { name: 'terms as a string', run: () => parseOperation(operationWith('terms', '{"order_id":"ord_7Hk2"}')), code: 'ERR_OPERATION_INVALID' },
  { name: 'terms with Infinity inside', run: () => parseOperation(operationWith('terms', { price: { amount: Infinity } })), code: 'ERR_OPERATION_INVALID', message: /^operation\.terms\.price\.amount: expected a finite number/ },
  { name: 'terms with a Date inside', run: () => parseOperation(operationWith('terms', { when: new Date(0) })), code: 'ERR_OPERATION_INVALID', message: /^operation\.terms\.when: expected JSON data, got a Date$/ },
  { name: 'terms nested 100 levels deep', run: () => parseOperation(operationWith('terms', nested(100))), code: 'ERR_OPERATION_INVALID', message: /levels of nesting/ },
  { name: 'expires_at without an offset', run: () => parseOperation(operationWith('expires_at', '2026-10-08T12:20:00')), code: 'ERR_OPERATION_INVALID', message: /^operation\.expires_at: expected an RFC 3339 date-time with an offset/ },
  { name: 'expires_at as a date only', run: () => parseOperation(operationWith('expires_at', '2026-10-08')), code: 'ERR_OPERATION_INVALID' },
  { name: 'expires_at on February 30', run: () => parseOperation(operationWith('expires_at', '2026-02-30T12:00:00Z')), code: 'ERR_OPERATION_INVALID', message: /February 2026 has no day 30/ },
  { name: 'expires_at on February 29 of a common year', run: () => parseOperation(operationWith('expires_at', '2026-02-29T12:00:00Z')), code: 'ERR_OPERATION_INVALID' },
  { name: 'expires_at on February 29, 2100 (not a leap year)', run: () => parseOperation(operationWith('expires_at', '2100-02-29T12:00:00Z')), code: 'ERR_OPERATION_INVALID' },
  { name: 'expires_at on April 31', run: () => parseOperation(operationWith('expires_at', '2026-04-31T12:00:00Z')), code: 'ERR_OPERATION_INVALID' },
  { name: 'expires_at in month 13', run: () => parseOperation(operationWith('expires_at', '2026-13-01T12:00:00Z')), code: 'ERR_OPERATION_INVALID' },
  { name: 'expires_at at hour 24', run: () => parseOperation(operationWith('expires_at', '2026-10-08T24:00:00Z')), code: 'ERR_OPERATION_INVALID' },
  { name: 'expires_at with an offset without a colon', run: () => parseOperation(operationWith('expires_at', '2026-10-08T12:20:00-0700')), code: 'ERR_OPERATION_INVALID' },
  { name: 'expires_at with offset hour 24', run: () => parseOperation(operationWith('expires_at', '2026-10-08T12:20:00+24:00')), code: 'ERR_OPERATION_INVALID' },
  { name: 'expires_at with a space for T', run: () => parseOperation(operationWith('expires_at', '2026-10-08 12:20:00Z')), code: 'ERR_OPERATION_INVALID' },
  { name: 'expires_at as epoch seconds', run: () => parseOperation(operationWith('expires_at', 1791487200)), code: 'ERR_OPERATION_INVALID' },
  { name: 'expires_at with a leap second that is not at the end of a month', run: () => parseOperation(operationWith('expires_at', '2026-10-08T23:59:60Z')), code: 'ERR_OPERATION_INVALID', message: /leap second/ },
  { name: 'expires_at with a two-digit year', run: () => parseOperation(operationWith('expires_at', '26-10-08T12:20:00Z')), code: 'ERR_OPERATION_INVALID' },
  { name: 'an operation whose summary getter throws', run: () => parseOperation(throwingGetter('summary', { ...SEED_OPERATION_WITHOUT_TERMS })), code: 'ERR_OPERATION_INVALID' },
  { name: 'a revoked Proxy', run: () => parseOperation(revoked()), code: 'ERR_OPERATION_INVALID' },
  { name: 'terms whose member getter throws', run: () => parseOperation(operationWith('terms', throwingGetter('order_id'))), code: 'ERR_OPERATION_INVALID' },
  { name: 'expires_at with a trailing newline', run: () => parseOperation(operationWith('expires_at', '2026-10-08T12:20:00Z\n')), code: 'ERR_OPERATION_INVALID' },
];

const SECTION_4_ASKING: Row[] = [
  { name: 'APIs: 403 approval_required without an operation', run: () => operationFromApiResponse(403, { error: 'approval_required' }), code: 'ERR_OPERATION_INVALID', message: /^operation: expected an operation object, got nothing$/ },
  { name: 'APIs: 403 approval_required with a 257-character revision', run: () => operationFromApiResponse(403, { error: 'approval_required', operation: operationWith('revision', ID_257) }), code: 'ERR_OPERATION_INVALID', message: /^operation\.revision: / },
  { name: 'APIs: 403 approval_required with the operation as an array', run: () => operationFromApiResponse(403, { error: 'approval_required', operation: [] }), code: 'ERR_OPERATION_INVALID' },
  { name: 'APIs: a status that is not an integer', run: () => operationFromApiResponse(403.5, {}), code: 'ERR_API_RESPONSE_INVALID' },
  { name: 'APIs: a status given as a string', run: () => operationFromApiResponse('403' as unknown as number, {}), code: 'ERR_API_RESPONSE_INVALID' },
  { name: 'APIs: a status out of range', run: () => operationFromApiResponse(1403, {}), code: 'ERR_API_RESPONSE_INVALID' },
  { name: 'MCP: a tool result that is not an object', run: () => operationFromToolResult('Not done yet.'), code: 'ERR_TOOL_RESULT_INVALID' },
  { name: 'MCP: structuredContent as an array', run: () => operationFromToolResult({ isError: true, structuredContent: [] }), code: 'ERR_TOOL_RESULT_INVALID' },
  { name: 'MCP: an error result with an empty summary', run: () => operationFromToolResult({ isError: true, structuredContent: { operation: operationWith('summary', '') } }), code: 'ERR_OPERATION_INVALID', message: /^structuredContent\.operation\.summary: / },
  { name: 'APIs: a body whose error getter throws', run: () => operationFromApiResponse(403, throwingGetter('error')), code: 'ERR_API_RESPONSE_INVALID' },
  { name: 'APIs: a revoked Proxy as the body', run: () => operationFromApiResponse(403, revoked()), code: 'ERR_API_RESPONSE_INVALID' },
  { name: 'MCP: a tool result whose isError getter throws', run: () => operationFromToolResult(throwingGetter('isError')), code: 'ERR_TOOL_RESULT_INVALID' },
  { name: 'Conversations: an event whose message getter throws', run: () => operationFromEvent(throwingGetter('message', { type: 'message' })), code: 'ERR_EVENT_INVALID' },
  { name: 'Conversations: a revoked Proxy as the event', run: () => operationFromEvent(revoked()), code: 'ERR_EVENT_INVALID' },
  { name: 'Conversations: an event that is not an object', run: () => operationFromEvent(null), code: 'ERR_EVENT_INVALID' },
  { name: 'Conversations: an event without a type', run: () => operationFromEvent({ id: 'evt_c4' }), code: 'ERR_EVENT_INVALID', message: /^event\.type: expected a string, got nothing$/ },
  { name: 'Conversations: a message event without a message', run: () => operationFromEvent({ id: 'evt_c4', type: 'message' }), code: 'ERR_EVENT_INVALID' },
  { name: 'Conversations: extensions.operations as an array', run: () => operationFromEvent({ type: 'message', message: { role: 'company', extensions: { operations: [] } } }), code: 'ERR_EVENT_INVALID' },
  { name: 'Conversations: a Company message with an operation without expires_at', run: () => operationFromEvent({ type: 'message', message: { role: 'company', extensions: { operations: { operation: operationWith('expires_at', undefined) } } } }), code: 'ERR_OPERATION_INVALID', message: /^event\.message\.extensions\.operations\.operation\.expires_at: expected .*, got nothing$/ },
];

const SECTION_6_HEADER: Row[] = [
  { name: 'operation_id as a Token', run: approvalHeader(`operation_id=exc_5Rt2, revision=${OK_REV}`), code: 'ERR_APPROVAL_HEADER_INVALID', message: /^Poppy-Approval operation_id: expected a String, got a Token/ },
  { name: 'revision as a Token', run: approvalHeader(`operation_id=${OK_ID}, revision=k3Jd9Qx2mW8v`), code: 'ERR_APPROVAL_HEADER_INVALID', message: /^Poppy-Approval revision: expected a String, got a Token/ },
  { name: 'operation_id twice (different values)', run: approvalHeader(`operation_id=${OK_ID}, revision=${OK_REV}, operation_id="exc_other"`), code: 'ERR_APPROVAL_HEADER_INVALID', message: /^Poppy-Approval operation_id: expected once, got 2 times/ },
  { name: 'revision twice (same value)', run: approvalHeader(`operation_id=${OK_ID}, revision=${OK_REV}, revision=${OK_REV}`), code: 'ERR_APPROVAL_HEADER_INVALID', message: /revision: expected once/ },
  { name: 'operation_id twice across two field lines', run: approvalHeader([`operation_id=${OK_ID}, revision=${OK_REV}`, `operation_id=${OK_ID}`].join(', ')), code: 'ERR_APPROVAL_HEADER_INVALID' },
  { name: 'no revision member', run: approvalHeader(`operation_id=${OK_ID}`), code: 'ERR_APPROVAL_HEADER_INVALID', message: /^Poppy-Approval revision: expected .*, got nothing$/ },
  { name: 'no operation_id member', run: approvalHeader(`revision=${OK_REV}`), code: 'ERR_APPROVAL_HEADER_INVALID', message: /^Poppy-Approval operation_id: expected .*, got nothing$/ },
  { name: 'an empty field value', run: approvalHeader(''), code: 'ERR_APPROVAL_HEADER_INVALID' },
  { name: 'a String item instead of a Dictionary', run: approvalHeader(OK_ID), code: 'ERR_APPROVAL_HEADER_INVALID', message: /^Poppy-Approval: expected an RFC 9651 Dictionary/ },
  { name: 'operation_id as an Integer', run: approvalHeader(`operation_id=5, revision=${OK_REV}`), code: 'ERR_APPROVAL_HEADER_INVALID', message: /got an Integer/ },
  { name: 'operation_id as an Inner List', run: approvalHeader(`operation_id=(${OK_ID}), revision=${OK_REV}`), code: 'ERR_APPROVAL_HEADER_INVALID', message: /got an Inner List/ },
  { name: 'operation_id without a value (Boolean true)', run: approvalHeader(`operation_id, revision=${OK_REV}`), code: 'ERR_APPROVAL_HEADER_INVALID', message: /got a Boolean/ },
  { name: 'operation_id as a Display String', run: approvalHeader(`operation_id=%"exc_5Rt2", revision=${OK_REV}`), code: 'ERR_APPROVAL_HEADER_INVALID', message: /got a Display String/ },
  { name: 'operation_id as a Byte Sequence', run: approvalHeader(`operation_id=:ZXhjXzVSdDI=:, revision=${OK_REV}`), code: 'ERR_APPROVAL_HEADER_INVALID' },
  { name: 'operation_id String with a space', run: approvalHeader(`operation_id="exc 5Rt2", revision=${OK_REV}`), code: 'ERR_APPROVAL_HEADER_INVALID', message: /^Poppy-Approval operation_id: expected a String of 1-256 characters/ },
  { name: 'revision String of 257 characters', run: approvalHeader(`operation_id=${OK_ID}, revision="${ID_257}"`), code: 'ERR_APPROVAL_HEADER_INVALID' },
  { name: 'operation_id with non-ASCII', run: approvalHeader(`operation_id="exc_5Rt2\u00e9", revision=${OK_REV}`), code: 'ERR_APPROVAL_HEADER_INVALID' },
  { name: 'a field value over 8192 characters', run: approvalHeader(`operation_id=${OK_ID}, revision=${OK_REV}, x="${'a'.repeat(8200)}"`), code: 'ERR_APPROVAL_HEADER_INVALID', message: /at most 8192 characters/ },
  { name: 'a trailing comma', run: approvalHeader(`operation_id=${OK_ID}, revision=${OK_REV},`), code: 'ERR_APPROVAL_HEADER_INVALID' },
  { name: 'an upper-case member name', run: approvalHeader(`Operation_id=${OK_ID}, revision=${OK_REV}`), code: 'ERR_APPROVAL_HEADER_INVALID' },
  { name: 'a field value that is not a string', run: () => parseApprovalHeader(42 as unknown as string), code: 'ERR_APPROVAL_HEADER_INVALID' },
  { name: 'an unterminated String', run: approvalHeader(`operation_id="exc_5Rt2, revision=${OK_REV}`), code: 'ERR_APPROVAL_HEADER_INVALID' },
];

const SECTION_6_APPROVAL: Row[] = [
  { name: 'formatApprovalHeader without revision', run: () => formatApprovalHeader({ operation_id: 'exc_5Rt2' } as Approval), code: 'ERR_APPROVAL_INVALID', message: /^approval\.revision: expected .*, got nothing$/ },
  { name: 'formatApprovalHeader with a quote in operation_id (header injection)', run: () => formatApprovalHeader({ operation_id: 'exc", revision="x', revision: 'r1' }), code: 'ERR_APPROVAL_INVALID' },
  { name: 'formatApprovalHeader with a CRLF in revision', run: () => formatApprovalHeader({ operation_id: 'exc_5Rt2', revision: 'r1\r\nX-Evil: 1' }), code: 'ERR_APPROVAL_INVALID' },
  { name: 'approvalMeta with a 257-character revision', run: () => approvalMeta({ operation_id: 'exc_5Rt2', revision: ID_257 }), code: 'ERR_APPROVAL_INVALID' },
  { name: 'approvalFromMeta with _meta as a string', run: () => approvalFromMeta('personalagentprotocol.org/approval'), code: 'ERR_APPROVAL_INVALID' },
  { name: 'approvalFromMeta with a numeric revision', run: () => approvalFromMeta({ 'personalagentprotocol.org/approval': { operation_id: 'exc_5Rt2', revision: 1791487200 } }), code: 'ERR_APPROVAL_INVALID', message: /revision: expected 1-256/ },
  { name: 'approvalFromMeta with the approval as null', run: () => approvalFromMeta({ 'personalagentprotocol.org/approval': null }), code: 'ERR_APPROVAL_INVALID' },
  { name: 'approvalFromMessage with an approval without operation_id', run: () => approvalFromMessage({ extensions: { operations: { approval: { revision: 'r1' } } } }), code: 'ERR_APPROVAL_INVALID', message: /^message\.extensions\.operations\.approval\.operation_id: expected .*, got nothing$/ },
  { name: 'approvalFromMeta with a _meta whose approval getter throws', run: () => approvalFromMeta(throwingGetter('personalagentprotocol.org/approval')), code: 'ERR_APPROVAL_INVALID' },
  { name: 'approvalFromMessage with a message whose extensions getter throws', run: () => approvalFromMessage(throwingGetter('extensions')), code: 'ERR_MESSAGE_INVALID' },
  { name: 'approvalFromMessage with a message that is not an object', run: () => approvalFromMessage('The user approved the exchange.'), code: 'ERR_MESSAGE_INVALID' },
  { name: 'approvalFromMessage with extensions as a string', run: () => approvalFromMessage({ extensions: 'operations' }), code: 'ERR_MESSAGE_INVALID' },
  { name: 'approvalFromMessage with extensions.operations as true', run: () => approvalFromMessage({ extensions: { operations: true } }), code: 'ERR_MESSAGE_INVALID' },
  { name: 'approvalMessage with a message id with a space', run: () => approvalMessage({ id: 'msg 1', text: 'ok', approval: SEED_APPROVAL }), code: 'ERR_MESSAGE_INVALID', message: /^message\.id: / },
  { name: 'approvalMessage with text as a number', run: () => approvalMessage({ id: 'msg_1', text: 1 as unknown as string, approval: SEED_APPROVAL }), code: 'ERR_MESSAGE_INVALID' },
  { name: 'approvalMessage without an approval', run: () => approvalMessage({ id: 'msg_1', text: 'ok' } as { id: string; text: string; approval: Approval }), code: 'ERR_APPROVAL_INVALID' },
];

const SECTION_2_ADVERTISING: Row[] = [
  { name: 'Poppy-Extensions that is not a List (dangling =)', run: () => parseExtensionsHeader('"operations";v='), code: 'ERR_EXTENSIONS_HEADER_INVALID', message: /^Poppy-Extensions: expected an RFC 9651 List/ },
  { name: 'Poppy-Extensions that is not a string', run: () => parseExtensionsHeader(undefined as unknown as string), code: 'ERR_EXTENSIONS_HEADER_INVALID' },
  { name: 'Poppy-Extensions over 8192 characters', run: () => parseExtensionsHeader(`"${'a'.repeat(9000)}"`), code: 'ERR_EXTENSIONS_HEADER_INVALID' },
  { name: 'Poppy-Extensions with non-ASCII', run: () => parseExtensionsHeader('"opérations";v="2"'), code: 'ERR_EXTENSIONS_HEADER_INVALID' },
  { name: 'poppy.json as null', run: () => supportsOperationsV2(null), code: 'ERR_POPPY_JSON_INVALID' },
  { name: 'poppy.json whose extensions getter throws', run: () => supportsOperationsV2(throwingGetter('extensions')), code: 'ERR_POPPY_JSON_INVALID' },
  { name: 'poppy.json with extensions as an array', run: () => supportsOperationsV2({ extensions: [{ operations: [{ version: '2' }] }] }), code: 'ERR_POPPY_JSON_INVALID' },
];

const SECTION_5_COMPANY: Row[] = [
  { name: 'poppy.json without organization', run: () => companyFromPoppyJson({ extensions: {} }, 'https://shop.example'), code: 'ERR_POPPY_JSON_INVALID', message: /^poppy\.json\.organization: expected .*, got nothing$/ },
  { name: 'organization.name empty', run: () => companyFromPoppyJson({ organization: { name: '' } }, 'https://shop.example'), code: 'ERR_POPPY_JSON_INVALID', message: /^poppy\.json\.organization\.name: / },
  { name: 'organization.name as a number', run: () => companyFromPoppyJson({ organization: { name: 7 } }, 'https://shop.example'), code: 'ERR_POPPY_JSON_INVALID' },
  { name: 'organization.name of 257 characters', run: () => companyFromPoppyJson({ organization: { name: 'N'.repeat(257) } }, 'https://shop.example'), code: 'ERR_POPPY_JSON_INVALID' },
  { name: 'an origin with a path', run: () => companyFromPoppyJson({ organization: { name: 'Shop' } }, 'https://shop.example/poppy.json'), code: 'ERR_ARGUMENT_INVALID' },
  { name: 'a plain-http origin that is not loopback', run: () => companyFromPoppyJson({ organization: { name: 'Shop' } }, 'http://shop.example'), code: 'ERR_ARGUMENT_INVALID' },
  { name: 'an origin that is not a URL', run: () => companyFromPoppyJson({ organization: { name: 'Shop' } }, 'shop.example'), code: 'ERR_ARGUMENT_INVALID' },
];

const RFC_8785: Row[] = [
  { name: 'NaN', run: () => canonicalJson({ a: Number.NaN }), code: 'ERR_ARGUMENT_INVALID', message: /value\.a: expected a finite number/ },
  { name: 'undefined member', run: () => canonicalJson({ a: undefined }), code: 'ERR_ARGUMENT_INVALID' },
  { name: 'a bigint', run: () => canonicalJson(10n), code: 'ERR_ARGUMENT_INVALID' },
  { name: 'a Map', run: () => canonicalJson(new Map()), code: 'ERR_ARGUMENT_INVALID' },
  { name: 'an unpaired surrogate', run: () => canonicalJson(['\udc00']), code: 'ERR_ARGUMENT_INVALID' },
  { name: 'an object whose getter throws', run: () => canonicalJson(throwingGetter('a')), code: 'ERR_ARGUMENT_INVALID' },
  { name: 'a revoked Proxy inside an array', run: () => canonicalJson([revoked()]), code: 'ERR_ARGUMENT_INVALID' },
  { name: 'a hole in an array', // A hole is the input under test.
    // eslint-disable-next-line no-sparse-arrays
    run: () => canonicalJson([1, , 3]), code: 'ERR_ARGUMENT_INVALID' },
];

function table(title: string, rows: Row[]): void {
  describe(title, () => {
    for (const row of rows) {
      it(`rejects ${row.name} with ${row.code}`, () => {
        let thrown: unknown;
        try {
          row.run();
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(CountersignError);
        expect((thrown as CountersignError).code).toBe(row.code);
        if (row.message) expect((thrown as CountersignError).message).toMatch(row.message);
      });
    }
  });
}

table('section 3 the operation: malformed operations', SECTION_3_OPERATION);
table('section 4 asking for approval: malformed responses, results and events', SECTION_4_ASKING);
table('section 6 APIs: malformed Poppy-Approval headers', SECTION_6_HEADER);
table('section 6 MCP and conversations: malformed approvals and messages', SECTION_6_APPROVAL);
table('section 2 advertising support: malformed Poppy-Extensions and poppy.json', SECTION_2_ADVERTISING);
table('section 5 the Company name: malformed poppy.json organization and origins', SECTION_5_COMPANY);
table('RFC 8785 canonical JSON: values that are not I-JSON', RFC_8785);

describe('the malformed-input table', () => {
  it('has at least 40 rows', () => {
    const total = [SECTION_3_OPERATION, SECTION_4_ASKING, SECTION_6_HEADER, SECTION_6_APPROVAL, SECTION_2_ADVERTISING, SECTION_5_COMPANY, RFC_8785].flat();
    expect(total.length).toBeGreaterThanOrEqual(40);
    expect(new Set(total.map((r) => r.name)).size).toBe(total.length);
  });
});
