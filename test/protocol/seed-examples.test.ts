import { describe, expect, it } from 'vitest';
import {
  approvalFromMessage,
  approvalFromMeta,
  approvalMessage,
  approvalMeta,
  formatApprovalHeader,
  formatExtensionsHeader,
  operationFromApiResponse,
  operationFromEvent,
  operationFromToolResult,
  parseApprovalHeader,
  parseExtensionsHeader,
  parseOperation,
  supportsOperationsV2,
} from '../../src/protocol';
import { SEED_APPROVAL, SEED_OPERATION_WITHOUT_TERMS, seed } from './seed';

/** Every example of the seed text parses, or is produced byte for byte. */

describe('section 2 advertising support: the seed examples', () => {
  it('the poppy.json excerpt lists operations v2', () => {
    expect(supportsOperationsV2(seed().poppy_json_excerpt.value)).toBe(true);
  });

  it('formatExtensionsHeader gives exactly the seed request header', () => {
    const example = seed().poppy_extensions_header;
    expect(formatExtensionsHeader()).toBe(example.value);
    expect(`Poppy-Extensions: ${formatExtensionsHeader()}`).toBe(example.line);
  });

  it('the seed Poppy-Extensions header declares operations v2', () => {
    expect(parseExtensionsHeader(seed().poppy_extensions_header.value)).toBe(true);
  });
});

describe('section 3 the operation: the seed example', () => {
  it('parses to the same five members', () => {
    const example = seed().operation.value;
    expect(parseOperation(example)).toEqual(example);
  });

  it('keeps the seed member order', () => {
    expect(Object.keys(parseOperation(seed().operation.value))).toEqual(['operation_id', 'revision', 'summary', 'terms', 'expires_at']);
  });
});

describe('section 4 asking for approval: the seed examples', () => {
  it('APIs: the 403 approval_required response gives the operation', () => {
    const { status, body } = seed().api_response;
    expect(operationFromApiResponse(status, body)).toEqual({ kind: 'operation', operation: SEED_OPERATION_WITHOUT_TERMS });
  });

  it('MCP: the isError tool result gives the operation', () => {
    expect(operationFromToolResult(seed().mcp_tool_result.value)).toEqual({ kind: 'operation', operation: SEED_OPERATION_WITHOUT_TERMS });
  });

  it('Conversations: the Company message event gives the operation', () => {
    expect(operationFromEvent(seed().conversation_event.value)).toEqual({ kind: 'operation', operation: SEED_OPERATION_WITHOUT_TERMS });
  });
});

describe('section 6 sending the approval: the seed examples', () => {
  it('APIs: formatApprovalHeader gives exactly the seed Poppy-Approval value', () => {
    const request = seed().api_request;
    expect(formatApprovalHeader(SEED_APPROVAL)).toBe('operation_id="exc_5Rt2", revision="1791487200-k3Jd9Qx2mW8v"');
    expect(formatApprovalHeader(SEED_APPROVAL)).toBe(request.headers['Poppy-Approval']);
    expect(`Poppy-Approval: ${formatApprovalHeader(SEED_APPROVAL)}`).toBe(request.poppy_approval_line);
  });

  it('APIs: the seed Poppy-Approval value parses to the approval', () => {
    expect(parseApprovalHeader(seed().api_request.headers['Poppy-Approval'] ?? '')).toEqual(SEED_APPROVAL);
  });

  it('MCP: approvalMeta gives exactly the seed _meta', () => {
    expect(approvalMeta(SEED_APPROVAL)).toEqual(seed().mcp_tool_call.value.params._meta);
  });

  it('MCP: the seed tool call _meta gives the approval', () => {
    expect(approvalFromMeta(seed().mcp_tool_call.value.params._meta)).toEqual(SEED_APPROVAL);
  });

  it('Conversations: approvalMessage gives exactly the seed message', () => {
    const example = seed().approval_message.value;
    const made = approvalMessage({ id: example.id, text: example.text, approval: SEED_APPROVAL });
    expect(made).toEqual(example);
    expect(JSON.stringify(made)).toBe(JSON.stringify(example));
  });

  it('Conversations: the seed message gives the approval', () => {
    expect(approvalFromMessage(seed().approval_message.value)).toEqual(SEED_APPROVAL);
  });
});
