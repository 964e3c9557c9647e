import { describe, expect, it } from 'vitest';
import { companyFromPoppyJson, operationFromApiResponse, operationFromEvent, operationFromToolResult, supportsOperationsV2 } from '../../src/protocol/index';
import { EXTENSION_REQUIRED_STATUS } from '../../src/company/index';
import {
  ALEX,
  CANCEL_PATH,
  Clock,
  EXCHANGE_M,
  EXCHANGE_PATH,
  callTool,
  companyMessages,
  events,
  mcpClient,
  message,
  openConversation,
  operationFor,
  post,
  rawToolCall,
  send,
  startCompany,
} from './helpers';

// Section 2, "Advertising support": the Company half.

describe('section 2: advertising support (Company)', () => {
  it('2 "A Company that supports this extension lists it in extensions in its poppy.json"', async () => {
    const company = await startCompany(new Clock());
    const response = await fetch(`${company.url}/.well-known/poppy.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const poppy: unknown = await response.json();
    expect(poppy).toMatchObject({ organization: { name: 'Stormline Outfitters', domain: '127.0.0.1' }, extensions: { operations: [{ version: '2' }] } });
    expect(supportsOperationsV2(poppy)).toBe(true);
    expect(companyFromPoppyJson(poppy, company.url)).toEqual({ name: 'Stormline Outfitters', origin: company.url });
  });

  it('2 "A Company MUST NOT return operations in response to a request that doesn\'t declare it" (API: extension_required)', async () => {
    const company = await startCompany(new Clock());
    for (const [path, body] of [
      [EXCHANGE_PATH, EXCHANGE_M],
      [CANCEL_PATH, undefined],
    ] as const) {
      const reply = await post(company, path, { ...ALEX, declare: false }, body);
      expect(reply.status).toBe(EXTENSION_REQUIRED_STATUS);
      expect(reply.body).toMatchObject({ error: 'extension_required', extension: 'operations' });
      expect(reply.body.operation).toBeUndefined();
      expect(operationFromApiResponse(reply.status, reply.body)).toEqual({ kind: 'extension_required', extension: 'operations' });
    }
    expect(company.state.performed.size).toBe(0);
  });

  it('2 "A Company MUST NOT return operations in response to a request that doesn\'t declare it" (a malformed Poppy-Extensions is refused, not guessed, on every interface)', async () => {
    const company = await startCompany(new Clock());
    const who = { ...ALEX, declare: '"operations";v="2", (' };
    const api = await post(company, EXCHANGE_PATH, who, EXCHANGE_M);
    expect(api.status).toBe(400);
    expect(api.body.error).toBe('invalid_request');
    expect(api.body.operation).toBeUndefined();
    const mcp = await rawToolCall(company, who, 'exchange_item', { order_id: 'ord_7Hk2', ...EXCHANGE_M });
    expect(mcp.status).toBe(400);
    expect(mcp.body.error).toBe('invalid_request');
    expect(mcp.text).not.toContain('operation_id');
    const conversation = await openConversation(company, ALEX);
    const sent = await send(company, conversation, who, message('Can I exchange my jacket for the insulated one?'));
    expect(sent.status).toBe(400);
    expect(sent.body.error).toBe('invalid_request');
    expect(await events(company, conversation, ALEX)).toEqual([]);
    expect(company.state.performed.size).toBe(0);
  });

  it('2 "A Company MUST NOT return operations in response to a request that doesn\'t declare it" (a request refused for itself gets that refusal, without an operation)', async () => {
    const company = await startCompany(new Clock());
    for (const [body, status, error] of [
      [{ item_id: 'itm_4Qa', replacement_sku: 'stormline-parka-m' }, 422, 'unknown_sku'],
      [{ item_id: 'itm_4Qa', replacement_sku: 'stormline-m' }, 422, 'same_sku'],
      [{ item_id: 'itm_none', replacement_sku: 'stormline-insulated-m' }, 404, 'not_found'],
    ] as const) {
      const undeclared = await post(company, EXCHANGE_PATH, { ...ALEX, declare: false }, body);
      expect(undeclared.status, error).toBe(status);
      expect(undeclared.body.error).toBe(error);
      expect(undeclared.body.operation).toBeUndefined();
      // The same refusal as with the declaration: it says what is wrong with the request, not that the extension is missing.
      expect(undeclared.body).toEqual((await post(company, EXCHANGE_PATH, ALEX, body)).body);
    }
    expect(company.state.performed.size).toBe(0);
  });

  it('2 "A different major version doesn\'t count as support for this version"', async () => {
    const company = await startCompany(new Clock());
    for (const declaration of ['"operations";v="1"', '"operations";v="3"', '"operations"', 'operations;v="2"', '"other";v="2"']) {
      const reply = await post(company, EXCHANGE_PATH, { ...ALEX, declare: declaration }, EXCHANGE_M);
      expect(reply.status, declaration).toBe(EXTENSION_REQUIRED_STATUS);
      expect(reply.body.error).toBe('extension_required');
    }
    // A minor version of 2 is version 2.
    const minor = await post(company, EXCHANGE_PATH, { ...ALEX, declare: '"operations";v="2.1"' }, EXCHANGE_M);
    expect(minor.status).toBe(403);
  });

  it('2 "The extension is used only when the Company lists operations with version "2" and the request declares that version" (an approval without the declaration is not used)', async () => {
    const company = await startCompany(new Clock());
    const operation = await operationFor(company, EXCHANGE_PATH, ALEX, EXCHANGE_M);
    const reply = await post(company, EXCHANGE_PATH, { ...ALEX, declare: false, approval: operation }, EXCHANGE_M);
    expect(reply.status).toBe(EXTENSION_REQUIRED_STATUS);
    expect(reply.body.error).toBe('extension_required');
    expect(company.state.performed.size).toBe(0);
  });

  it('2 "A tool that needs the extension returns an ordinary tool error instead" (MCP)', async () => {
    const company = await startCompany(new Clock());
    const client = await mcpClient(company, { ...ALEX, declare: false });
    const result = await callTool(client, 'exchange_item', { order_id: 'ord_7Hk2', ...EXCHANGE_M });
    expect(result.isError).toBe(true);
    expect(result.content[0].type).toBe('text');
    expect(result.structuredContent?.operation).toBeUndefined();
    expect(operationFromToolResult(result)).toEqual({ kind: 'none' });
    expect(company.state.performed.size).toBe(0);
  });

  it('2 "An MCP server returns that error only to refuse the Personal Agent entirely" (a client without the extension still uses the server)', async () => {
    const company = await startCompany(new Clock());
    const client = await mcpClient(company, { ...ALEX, declare: false });
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name).sort()).toEqual(['cancel_subscription', 'exchange_item']);
    const result = await callTool(client, 'cancel_subscription', { subscription_id: 'sub_3Fp9' });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result)).not.toContain('extension_required');
  });

  it('2 "A Company MUST NOT return operations in response to a request that doesn\'t declare it" (conversation)', async () => {
    const company = await startCompany(new Clock());
    const who = { ...ALEX, declare: false };
    const conversation = await openConversation(company, who);
    expect((await send(company, conversation, who, message('Can I exchange my jacket for the insulated one?'))).status).toBe(201);
    expect((await send(company, conversation, who, message('In size L, please.'))).status).toBe(201);
    for (const event of await events(company, conversation, who)) expect(operationFromEvent(event)).toEqual({ kind: 'none' });
    const replies = await companyMessages(company, conversation, who);
    expect(replies.length).toBeGreaterThan(0);
    // It handles approval itself, on its website (section 2).
    expect(replies[0].text).toContain(`${company.url}/orders/ord_7Hk2`);
    expect(company.state.performed.size).toBe(0);
  });
});
