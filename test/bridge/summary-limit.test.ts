import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SUMMARY_LENGTH } from '../../src/protocol/limits';
import { FakeAgent, OPERATION, TEST_AGENT_KEY, TEST_EXTENSION_KEY, approvalRequest, startInProcessBridge, type InProcessBridge } from './helpers';

/**
 * The bridge refuses an approval_request whose summary is over MAX_SUMMARY_LENGTH, like the
 * extension would, and tells the extension which connection sent it (bridge_error), since the
 * person would otherwise never hear of it (docs/bridge-protocol.md sections 6.3 and 9.1).
 */

const withSummary = (id: string, summary: string) => ({ ...approvalRequest(id), operation: { ...OPERATION, summary } });

let bridge: InProcessBridge;
let agent: FakeAgent;

beforeAll(async () => {
  bridge = await startInProcessBridge();
  // Trusted: before trust the bridge relays only small handshake messages (docs/bridge-protocol.md section 5).
  agent = await (await FakeAgent.connect(bridge.socketPath)).trusted(bridge.extension);
  await bridge.extension.frames.nextOfType('agent_connected');
});

afterAll(async () => {
  agent.destroy();
  await bridge.stop();
});

describe('the bridge and the summary length limit', () => {
  it('one code unit over: the agent gets ERR_SUMMARY_TOO_LONG, the extension a bridge_error naming the connection, nothing is relayed', async () => {
    agent.send(withSummary('req_big', 'x'.repeat(MAX_SUMMARY_LENGTH + 1)));
    const error = await agent.frames.nextOfType('error');
    expect(error).toMatchObject({ id: 'req_big', code: 'ERR_SUMMARY_TOO_LONG', source: 'bridge' });
    const told = await bridge.extension.frames.nextOfType('bridge_error');
    expect(told).toEqual({ type: 'bridge_error', v: 2, code: 'ERR_SUMMARY_TOO_LONG', message: `message.operation.summary: expected at most ${MAX_SUMMARY_LENGTH} characters, got ${MAX_SUMMARY_LENGTH + 1} characters`, conn: agent.conn, id: 'req_big' });
    // The connection goes on: a probe is relayed, and it is the first relay since the refusal.
    agent.send({ type: 'version_query', v: 2, id: 'probe_1' });
    const relay = await bridge.extension.frames.nextOfType('relay');
    expect(relay['message']).toMatchObject({ id: 'probe_1' });
  });

  it('exactly the limit is relayed, and the extension hears nothing else', async () => {
    agent.send(withSummary('req_max', 'x'.repeat(MAX_SUMMARY_LENGTH)));
    const relay = await bridge.extension.frames.nextOfType('relay');
    expect(relay['message']).toMatchObject({ id: 'req_max' });
    expect(bridge.extension.frames.received).toEqual([]);
  });

  it('from a connection that is not trusted, the agent gets its error and the extension hears nothing (it would record it)', async () => {
    const stranger = await FakeAgent.connect(bridge.socketPath);
    stranger.send({ type: 'hello', v: 2, id: 'h1', versions: [2], agent_name: 'Stranger', agent_key: TEST_AGENT_KEY });
    await bridge.extension.frames.next((m) => m['type'] === 'relay' && m['conn'] === stranger.conn);
    await bridge.extension.frames.nextOfType('agent_connected');
    bridge.extension.relay(stranger.conn, { type: 'welcome', v: 2, id: 'h1', paired: false, extension_key: TEST_EXTENSION_KEY });
    await stranger.frames.nextOfType('welcome');
    // Over the summary limit is over the 4 KiB a message may have before trust: refused unread.
    stranger.send(withSummary('req_big', 'x'.repeat(MAX_SUMMARY_LENGTH + 1)));
    expect(await stranger.frames.nextOfType('error')).toMatchObject({ code: 'ERR_FRAME_TOO_LARGE', source: 'bridge' });
    await stranger.waitClosed();
    expect(await bridge.extension.frames.nextOfType('agent_disconnected')).toMatchObject({ conn: stranger.conn, reason: 'frame_error' });
    expect(bridge.extension.frames.received).toEqual([]);
  });

  it('other invalid operations are the agent\'s business only', async () => {
    agent.send({ ...approvalRequest('req_bad'), operation: { ...OPERATION, summary: '   ' } });
    expect(await agent.frames.nextOfType('error')).toMatchObject({ id: 'req_bad', code: 'ERR_OPERATION_INVALID' });
    agent.send({ type: 'version_query', v: 2, id: 'probe_2' });
    await bridge.extension.frames.next((m) => m['type'] === 'relay' && (m['message'] as { id?: string }).id === 'probe_2');
    expect(bridge.extension.frames.received).toEqual([]);
  });
});
