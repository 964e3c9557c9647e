import { describe, it, expect } from 'vitest';
import { describeRequest, requestBody, sessionWords } from '../../../src/extension/ui/request-words';
import { englishTranslate } from './locale-table';
import { EXCHANGE_REQUEST } from './jacket-view';

const t = englishTranslate();

describe('request-words: requestBody (what the review compares with the summary)', () => {
  it('an API request → its body; an MCP call → its arguments', () => {
    expect(requestBody(EXCHANGE_REQUEST)).toEqual(EXCHANGE_REQUEST.body);
    expect(requestBody({ interface: 'mcp', tool: 'x', arguments: { a: 1 }, body: { b: 2 } })).toEqual({ a: 1 });
  });

  it('anything that is not a JSON object is no body: arrays, strings, null, a conversation', () => {
    expect(requestBody({ interface: 'api', body: [1, 2] })).toBeUndefined();
    expect(requestBody({ interface: 'api', body: 'text' })).toBeUndefined();
    expect(requestBody({ interface: 'mcp', arguments: null })).toBeUndefined();
    expect(requestBody({ interface: 'conversation', conversation_id: 'c1' })).toBeUndefined();
    expect(requestBody(null)).toBeUndefined();
    expect(requestBody('POST /x')).toBeUndefined();
  });
});

describe('request-words: describeRequest', () => {
  it('API: method and URL in one sentence, the body as indented JSON', () => {
    const d = describeRequest(EXCHANGE_REQUEST, t);
    expect(d.sentence).toBe('Your agent sent POST https://api.stormline.example/orders/ord_7Hk2/exchanges with these values:');
    expect(d.data).toBe(JSON.stringify(EXCHANGE_REQUEST.body, null, 2));
  });

  it('MCP: the tool, with its server when known, and the arguments', () => {
    const at = describeRequest({ interface: 'mcp', tool: 'exchange_item', server_url: 'https://mcp.stormline.example', arguments: { a: 1 } }, t);
    expect(at.sentence).toBe('Your agent used the tool “exchange_item” at https://mcp.stormline.example with these values:');
    expect(at.data).toBe('{\n  "a": 1\n}');
    const bare = describeRequest({ interface: 'mcp', tool: 'exchange_item' }, t);
    expect(bare.sentence).toBe('Your agent used the tool “exchange_item” with these values:');
    expect(bare.data).toBe('');
  });

  it('a conversation: its reference, no data', () => {
    expect(describeRequest({ interface: 'conversation', conversation_id: 'conv_9' }, t)).toEqual({ sentence: 'Your agent asked in a chat with the Company (reference conv_9).', data: '' });
  });

  it('an unknown shape: "Your agent sent this:" with the whole object; nothing at all has no data', () => {
    const odd = { interface: 'carrier-pigeon', note: 'hi' };
    expect(describeRequest(odd, t)).toEqual({ sentence: t('requestUnknown'), data: JSON.stringify(odd, null, 2) });
    expect(describeRequest(null, t)).toEqual({ sentence: t('requestUnknown'), data: '' });
  });

  it('hidden characters in the agent\'s values are shown as tokens, in the sentence and the data', () => {
    const d = describeRequest({ interface: 'api', method: 'POST', url: 'https://x.example/\u202Egnp.exe', body: { note: 'a\u200Bb' } }, t);
    expect(d.sentence).not.toContain('\u202E');
    expect(d.sentence).toContain('U+202E');
    expect(d.data).not.toContain('\u200B');
    expect(d.data).toContain('U+200B');
  });
});

describe('request-words: sessionWords (spec section 3 "Who can approve it")', () => {
  it('signed in with an account name → that account, quoted', () => {
    expect(sessionWords({ kind: 'signed_in', account: 'alex@example.com' }, t)).toBe('Your account “alex@example.com”');
  });

  it('signed in without a name (missing, empty or not a string) → "your account with this Company"', () => {
    for (const account of [undefined, '', 42]) expect(sessionWords({ kind: 'signed_in', account }, t)).toBe(t('forAccount'));
  });

  it('anything else (a conversation, nothing, a stored record from an older version) → this conversation only', () => {
    for (const s of [{ kind: 'conversation' }, null, undefined, 'signed_in', {}]) expect(sessionWords(s, t)).toBe(t('forThisConversation'));
  });

  it('an account name is one line, hidden characters as tokens', () => {
    const words = sessionWords({ kind: 'signed_in', account: 'alex\n\u202Eadmin' }, t);
    expect(words).not.toMatch(/[\n\u202E]/);
  });
});
