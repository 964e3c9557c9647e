import { describe, expect, it } from 'vitest';
import { approvalRequestMessage, agentToExtensionMessage, bridgeToExtensionMessage, parseBridgeMessage } from '../../src/protocol/bridge';
import { MAX_FRAME_BYTES, encodeJsonFrame } from '../../src/protocol/bridge-framing';
import { ERROR_CODES } from '../../src/protocol/errors';
import { MAX_SUMMARY_LENGTH } from '../../src/protocol/limits';
import { parseOperation, summaryTooLong } from '../../src/protocol/operation';
import { SUMMARY_DISPLAY_LIMIT, cutSummary } from '../../src/summary/render';
import { OPERATION, approvalRequest } from '../bridge/helpers';

// One limit for a summary's length (protocol/limits.ts MAX_SUMMARY_LENGTH): the operation schema,
// the code every layer answers with, and the window's display limit all follow it.

const withSummary = (summary: string) => ({ ...approvalRequest('req_long'), operation: { ...OPERATION, summary } });
/** The largest agent message the bridge relays: a frame less its relay envelope (docs/bridge-protocol.md "Framing"). */
const LARGEST_RELAYED = MAX_FRAME_BYTES - 61;

describe('the summary length limit', () => {
  it('the operation schema accepts exactly the limit and refuses one code unit more', () => {
    expect(parseOperation({ ...OPERATION, summary: 'x'.repeat(MAX_SUMMARY_LENGTH) }).summary).toHaveLength(MAX_SUMMARY_LENGTH);
    expect(() => parseOperation({ ...OPERATION, summary: 'x'.repeat(MAX_SUMMARY_LENGTH + 1) })).toThrow(
      expect.objectContaining({ code: 'ERR_OPERATION_INVALID', message: `operation.summary: expected at most ${MAX_SUMMARY_LENGTH} characters, got ${MAX_SUMMARY_LENGTH + 1} characters` }),
    );
  });

  it('counts UTF-16 code units: a character outside the BMP counts 2', () => {
    const emoji = '\u{1F600}';
    expect(parseBridgeMessage(approvalRequestMessage, withSummary(emoji.repeat(MAX_SUMMARY_LENGTH / 2))).ok).toBe(true);
    const over = parseBridgeMessage(approvalRequestMessage, withSummary(`${emoji.repeat(MAX_SUMMARY_LENGTH / 2)}x`));
    expect(over.ok ? undefined : over.error.code).toBe('ERR_SUMMARY_TOO_LONG');
  });

  it('a bridge message refused for it gets ERR_SUMMARY_TOO_LONG, in every direction that carries it', () => {
    expect(ERROR_CODES).toContain('ERR_SUMMARY_TOO_LONG');
    expect(parseBridgeMessage(agentToExtensionMessage, withSummary('x'.repeat(MAX_SUMMARY_LENGTH))).ok).toBe(true);
    const agent = parseBridgeMessage(agentToExtensionMessage, withSummary('x'.repeat(MAX_SUMMARY_LENGTH + 1)));
    expect(agent.ok ? undefined : agent.error).toMatchObject({ code: 'ERR_SUMMARY_TOO_LONG', message: `message.operation.summary: expected at most ${MAX_SUMMARY_LENGTH} characters, got ${MAX_SUMMARY_LENGTH + 1} characters` });
    const relayed = parseBridgeMessage(bridgeToExtensionMessage, { type: 'relay', v: 2, conn: 'c_AAAAAAAAAAAAAAAA', message: withSummary('x'.repeat(MAX_SUMMARY_LENGTH + 1)) });
    expect(relayed.ok ? undefined : relayed.error.code).toBe('ERR_SUMMARY_TOO_LONG');
  });

  it('other problems of an operation keep ERR_OPERATION_INVALID, and the first problem decides', () => {
    const blank = parseBridgeMessage(agentToExtensionMessage, withSummary(' '.repeat(MAX_SUMMARY_LENGTH + 1)));
    expect(blank.ok ? undefined : blank.error.code).toBe('ERR_OPERATION_INVALID');
    const badId = parseBridgeMessage(agentToExtensionMessage, { ...withSummary('x'.repeat(MAX_SUMMARY_LENGTH + 1)), operation: { ...OPERATION, operation_id: 'a b', summary: 'x'.repeat(MAX_SUMMARY_LENGTH + 1) } });
    expect(badId.ok ? undefined : badId.error.code).toBe('ERR_OPERATION_INVALID');
  });

  it('summaryTooLong names the field and the length, and leaves every other rule to the schema', () => {
    expect(summaryTooLong({ summary: 'x'.repeat(MAX_SUMMARY_LENGTH + 1) }, 'requestApproval.operation')).toMatchObject({
      code: 'ERR_SUMMARY_TOO_LONG',
      message: `requestApproval.operation.summary: expected at most ${MAX_SUMMARY_LENGTH} characters, got ${MAX_SUMMARY_LENGTH + 1} characters`,
    });
    expect(summaryTooLong({ summary: 'x'.repeat(MAX_SUMMARY_LENGTH) }, 'operation')).toBeUndefined();
    for (const odd of [undefined, null, 'x'.repeat(MAX_SUMMARY_LENGTH + 1), { summary: 42 }, [], Proxy.revocable({}, {})]) {
      const value = odd !== null && typeof odd === 'object' && 'revoke' in odd ? (odd.revoke(), odd.proxy) : odd;
      expect(summaryTooLong(value, 'operation')).toBeUndefined();
    }
  });

  it('the window shows every accepted summary whole: its display limit is the same number', () => {
    expect(SUMMARY_DISPLAY_LIMIT).toBe(MAX_SUMMARY_LENGTH);
    expect(cutSummary('word '.repeat(MAX_SUMMARY_LENGTH / 5))).toMatchObject({ truncated: false });
  });

  it('a request with the longest, worst-encoded summary and sizeable terms fits the frame the bridge relays', () => {
    // A control character is the costliest code unit in JSON (`\u001f`, 6 bytes); the other
    // bounded members at their longest, in 3-byte characters where they refuse controls. The
    // terms are 800 kB, far beyond a real operation's.
    const worst = {
      ...approvalRequest('r'.repeat(256)),
      company: { name: '\u20ac'.repeat(256), origin: `https://${'a'.repeat(60)}.example` },
      operation: {
        operation_id: 'i'.repeat(256),
        revision: 'r'.repeat(256),
        summary: `x${'\u001f'.repeat(MAX_SUMMARY_LENGTH - 1)}`,
        terms: { blob: 'a'.repeat(800_000) },
        expires_at: '2026-10-08T12:20:00.123456789-07:00',
      },
      request: { interface: 'api', method: 'POST', url: `https://api.example/${'\u20ac'.repeat(8192 - 20)}`, body: {} },
      session: { kind: 'signed_in', account: '\u20ac'.repeat(256) },
    };
    const parsed = parseBridgeMessage(agentToExtensionMessage, worst);
    expect(parsed.ok ? 'ok' : parsed.error.message).toBe('ok');
    const bytes = encodeJsonFrame(worst, 'BE', Infinity).length - 4;
    expect(new TextEncoder().encode(JSON.stringify(worst.operation.summary)).length).toBeLessThanOrEqual(6 * MAX_SUMMARY_LENGTH);
    expect(bytes).toBeLessThan(LARGEST_RELAYED);
  });
});
