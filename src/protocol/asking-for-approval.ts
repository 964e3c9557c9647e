import { CountersignError } from './errors';
import { isObject, jsonTypeName } from './issues';
import { parseOperationAt, type Operation } from './operation';
import { OPERATIONS_EXTENSION } from './version';

/**
 * Section 4, "Asking for approval": how an operation reaches the Personal Agent through each
 * interface, and section 2's `extension_required` refusal.
 *
 * Error codes, one rule for all three interfaces:
 * - the envelope says "here is an operation" but the operation is not valid (bad fields, not an
 *   object, or missing where section 4 requires it) → ERR_OPERATION_INVALID. A caller handles
 *   "the Company asked for approval with something unusable" on one code, whichever interface
 *   it came through, and the message names where the operation sat
 *   (`structuredContent.operation.summary: ...`);
 * - the envelope itself is not what its interface defines (a status that isn't an HTTP status,
 *   a tool result that isn't an object, an event without a string `type`, `extensions` that
 *   isn't an object) → ERR_API_RESPONSE_INVALID, ERR_TOOL_RESULT_INVALID or ERR_EVENT_INVALID;
 * - anything that doesn't claim to carry an operation → `{ kind: 'none' }`.
 */

export type OperationFound = { kind: 'operation'; operation: Operation };
export type ExtensionRequired = { kind: 'extension_required'; extension: typeof OPERATIONS_EXTENSION };
export type NoOperation = { kind: 'none' };
export type ApiResponseResult = OperationFound | ExtensionRequired | NoOperation;
export type ToolResultResult = OperationFound | NoOperation;
export type EventResult = OperationFound | NoOperation;

function none(): NoOperation {
  return { kind: 'none' };
}

/**
 * An API response (section 4, "APIs"): HTTP 403 with a JSON body whose `error` is
 * `approval_required` and whose `operation` is the operation. `body` is the parsed JSON (or
 * anything else: a non-JSON error page is simply not an operation).
 *
 * Also recognises the core `extension_required` error with `extension: "operations"` (section 2,
 * core 3.3) on any error status (4xx, 5xx): the Company wants the extension declared.
 *
 * Other members of the body are ignored (section 4: "The body MAY have other members").
 */
export function operationFromApiResponse(status: number, body: unknown): ApiResponseResult {
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 100 || status > 599) {
    throw new CountersignError('ERR_API_RESPONSE_INVALID', `status: expected an HTTP status code (an integer 100-599), got ${typeof status === 'number' ? status : jsonTypeName(status)}`);
  }
  if (!isObject(body)) return none();
  try {
    if (status === 403 && body.error === 'approval_required') {
      // Section 4 requires the operation here; a 403 approval_required without one is as
      // unusable as one with a broken operation, and the action was not performed either way.
      return { kind: 'operation', operation: parseOperationAt(body.operation, 'operation') };
    }
    if (status >= 400 && body.error === 'extension_required' && body.extension === OPERATIONS_EXTENSION) {
      return { kind: 'extension_required', extension: OPERATIONS_EXTENSION };
    }
    return none();
  } catch (cause) {
    if (cause instanceof CountersignError) throw cause;
    throw new CountersignError('ERR_API_RESPONSE_INVALID', 'body: expected JSON data, got a value that cannot be read', { cause });
  }
}

/**
 * An MCP tool result (section 4, "MCP"): `isError: true` and the operation in
 * `structuredContent.operation`. A tool error without an operation is an ordinary tool error
 * (section 2: "A tool that needs the extension returns an ordinary tool error"), and a result
 * without `isError: true` is not an operation whatever its structuredContent holds.
 */
export function operationFromToolResult(result: unknown): ToolResultResult {
  if (!isObject(result)) {
    throw new CountersignError('ERR_TOOL_RESULT_INVALID', `tool result: expected an object, got ${jsonTypeName(result)}`);
  }
  try {
    if (result.isError !== true) return none();
    const structuredContent = result.structuredContent;
    if (structuredContent === undefined) return none();
    if (!isObject(structuredContent)) {
      throw new CountersignError(
        'ERR_TOOL_RESULT_INVALID',
        `structuredContent: expected an object (MCP structured content), got ${jsonTypeName(structuredContent)}`,
      );
    }
    if (!('operation' in structuredContent)) return none();
    return { kind: 'operation', operation: parseOperationAt(structuredContent.operation, 'structuredContent.operation') };
  } catch (cause) {
    if (cause instanceof CountersignError) throw cause;
    throw new CountersignError('ERR_TOOL_RESULT_INVALID', 'tool result: expected JSON data, got a value that cannot be read', { cause });
  }
}

/**
 * A conversation event (section 4, "Conversations"): a `message` event whose message has role
 * `company` and carries the operation in `extensions.operations.operation` (spec 8.4). Other
 * event types and roles are not operations: unknown event types are skipped
 * (docs/core-assumptions.md, "Conversation events"), and only a Company message can ask for
 * approval.
 *
 * A Company message may carry other `extensions.operations` content in a later version; only an
 * `operation` member counts here.
 */
export function operationFromEvent(event: unknown): EventResult {
  if (!isObject(event)) {
    throw new CountersignError('ERR_EVENT_INVALID', `event: expected an object, got ${jsonTypeName(event)}`);
  }
  try {
    if (typeof event.type !== 'string') {
      throw new CountersignError('ERR_EVENT_INVALID', `event.type: expected a string, got ${jsonTypeName(event.type)}`);
    }
    if (event.type !== 'message') return none();
    const message = event.message;
    if (!isObject(message)) {
      throw new CountersignError(
        'ERR_EVENT_INVALID',
        `event.message: expected an object (a message event carries a message), got ${jsonTypeName(message)}`,
      );
    }
    if (message.role !== 'company') return none();
    const extensions = message.extensions;
    if (extensions === undefined) return none();
    if (!isObject(extensions)) {
      throw new CountersignError('ERR_EVENT_INVALID', `event.message.extensions: expected an object (spec 8.4), got ${jsonTypeName(extensions)}`);
    }
    const operations = extensions[OPERATIONS_EXTENSION];
    if (operations === undefined) return none();
    if (!isObject(operations)) {
      throw new CountersignError(
        'ERR_EVENT_INVALID',
        `event.message.extensions.operations: expected an object (section 2), got ${jsonTypeName(operations)}`,
      );
    }
    if (!('operation' in operations)) return none();
    return { kind: 'operation', operation: parseOperationAt(operations.operation, 'event.message.extensions.operations.operation') };
  } catch (cause) {
    if (cause instanceof CountersignError) throw cause;
    throw new CountersignError('ERR_EVENT_INVALID', 'event: expected JSON data, got a value that cannot be read', { cause });
  }
}
