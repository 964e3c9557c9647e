import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The seed's examples (test/fixtures/seed-examples.json: the operations extension v2 text,
 * Apache-2.0). Each test gets a fresh copy, so no test can change another's input.
 */
export interface SeedExamples {
  poppy_json_excerpt: { value: { extensions: { operations: { version: string }[] } } };
  poppy_extensions_header: { line: string; value: string };
  operation: { value: Record<string, unknown> & { terms: Record<string, unknown> } };
  api_response: { status: number; body: { error: string; operation: Record<string, unknown> } };
  mcp_tool_result: { value: { isError: boolean; structuredContent: { operation: Record<string, unknown> } } };
  conversation_event: { value: { message: { extensions: { operations: { operation: Record<string, unknown> } } } } };
  api_request: { headers: Record<string, string>; poppy_approval_line: string };
  mcp_tool_call: { value: { params: { _meta: Record<string, unknown> } } };
  approval_message: { value: { id: string; text: string; extensions: { operations: { approval: { operation_id: string; revision: string } } } } };
}

const text = readFileSync(fileURLToPath(new URL('../fixtures/seed-examples.json', import.meta.url)), 'utf8');

export function seed(): SeedExamples {
  return JSON.parse(text) as SeedExamples;
}

/** The seed's operation without `terms`, as the 403, the tool result and the event carry it. */
export const SEED_OPERATION_WITHOUT_TERMS = {
  operation_id: 'exc_5Rt2',
  revision: '1791487200-k3Jd9Qx2mW8v',
  summary:
    'Exchange the Stormline Jacket (M) on order ord_7Hk2 for the Stormline Insulated Jacket (M), for $70.00 more, charged to the card used for the order.',
  expires_at: '2026-10-08T12:20:00-07:00',
} as const;

export const SEED_APPROVAL = { operation_id: 'exc_5Rt2', revision: '1791487200-k3Jd9Qx2mW8v' } as const;
