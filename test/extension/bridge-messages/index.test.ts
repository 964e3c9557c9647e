import { describe, expect, it } from 'vitest';
import { BRIDGE_MESSAGES, handleBridgeMessage, type BridgeMessageHandlers } from '../../../src/extension/bridge-messages/index';
import { agentToExtensionMessage } from '../../../src/protocol/bridge';
import { fakeSession, parsed } from './fake-session';

/**
 * docs/bridge-protocol.md, sections 7 to 9: every message an agent may send has its module, and
 * a message goes to the module of its own type.
 */
describe('the bridge message registry', () => {
  it('has a handler for every message type of the agent → extension union, and for none other', () => {
    const types = agentToExtensionMessage.options.map((option) => option.shape.type.value).sort();
    expect(Object.keys(BRIDGE_MESSAGES).sort()).toEqual(types);
    for (const handler of Object.values(BRIDGE_MESSAGES)) expect(typeof handler).toBe('function');
  });

  it('does not compile without a handler for a message type', () => {
    const { outcome: _left, ...rest } = BRIDGE_MESSAGES;
    // @ts-expect-error `outcome` has no handler.
    const missing: BridgeMessageHandlers = rest;
    expect(Object.keys(missing)).not.toContain('outcome');
  });

  it('hands a message to the module of its type', async () => {
    const fake = await fakeSession('registry');
    await handleBridgeMessage({ conn: 'c1', stage: 'new' }, parsed({ type: 'version_query', v: 2, id: 'q_1' }), fake.session);
    expect(fake.sent.map((s) => s.message.type)).toEqual(['version']);
  });
});
