import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SUMMARY_LENGTH } from '../../src/protocol/limits';
import { FakeAgent, OPERATION, approvalRequest, startInProcessBridge, type InProcessBridge } from './helpers';

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
  agent = await FakeAgent.connect(bridge.socketPath);
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

  it('other invalid operations are the agent\'s business only', async () => {
    agent.send({ ...approvalRequest('req_bad'), operation: { ...OPERATION, summary: '   ' } });
    expect(await agent.frames.nextOfType('error')).toMatchObject({ id: 'req_bad', code: 'ERR_OPERATION_INVALID' });
    agent.send({ type: 'version_query', v: 2, id: 'probe_2' });
    await bridge.extension.frames.next((m) => m['type'] === 'relay' && (m['message'] as { id?: string }).id === 'probe_2');
    expect(bridge.extension.frames.received).toEqual([]);
  });
});
