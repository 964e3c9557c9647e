import { BRIDGE_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS, jwkThumbprint, randomNonce } from '../../protocol/bridge';
import type { BridgeMessageHandler } from './types';

/**
 * `hello` (docs/bridge-protocol.md, section 7): the agent names itself and its key; it gets a
 * fresh challenge to sign, or ERR_PROTOCOL_VERSION with the versions spoken here.
 */
export const hello: BridgeMessageHandler<'hello'> = async (c, m, session) => {
  if (!m.versions.includes(BRIDGE_PROTOCOL_VERSION)) {
    session.problem('version', m.agent_name);
    session.send(c.conn, {
      type: 'error',
      v: BRIDGE_PROTOCOL_VERSION,
      id: m.id,
      code: 'ERR_PROTOCOL_VERSION',
      message: 'no common protocol version',
      source: 'extension',
      supported_versions: [...SUPPORTED_PROTOCOL_VERSIONS],
    });
    return;
  }
  c.stage = 'challenged';
  c.agentName = m.agent_name;
  c.agentKey = m.agent_key;
  c.agentThumbprint = await jwkThumbprint(m.agent_key);
  c.challenge = randomNonce();
  session.send(c.conn, { type: 'challenge', v: BRIDGE_PROTOCOL_VERSION, id: m.id, nonce: c.challenge, version: BRIDGE_PROTOCOL_VERSION });
};
