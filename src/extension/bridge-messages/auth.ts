import { BRIDGE_PROTOCOL_VERSION, verifyAgentAuth } from '../../protocol/bridge';
import { CountersignError } from '../../protocol/errors';
import { wireJwk } from '../keys';
import type { BridgeMessageHandler } from './types';

/**
 * `auth` (docs/bridge-protocol.md, section 7): the agent's signature over the challenge proves
 * its key; `welcome` says whether the person paired it, with the passkey announcement when so.
 */
export const auth: BridgeMessageHandler<'auth'> = async (c, m, session) => {
  const { store, key } = session;
  if (c.stage !== 'challenged' || !c.agentKey || !c.agentThumbprint || !c.challenge) {
    throw new CountersignError('ERR_AUTH_FAILED', 'auth: send hello first');
  }
  const fields = { extensionKeyThumbprint: key.thumbprint, agentKeyThumbprint: c.agentThumbprint, conn: c.conn, nonce: c.challenge };
  // One challenge, one try: a failed proof needs a new hello.
  c.challenge = undefined;
  if (!(await verifyAgentAuth(c.agentKey, fields, m.signature))) {
    c.stage = 'new';
    session.problem('auth', c.agentName);
    throw new CountersignError('ERR_AUTH_FAILED', 'auth: the signature does not prove the agent key');
  }
  c.stage = 'authenticated';
  const agent = await store.getAgent(c.agentThumbprint);
  const isPaired = !!agent && !agent.revokedAt;
  // A paired agent learns the passkey at every welcome: it may have been offline when it changed.
  const passkey = isPaired ? await session.passkeyAnnouncement(c.agentThumbprint) : undefined;
  session.send(c.conn, { type: 'welcome', v: BRIDGE_PROTOCOL_VERSION, id: m.id, paired: isPaired, extension_key: wireJwk(key.publicJwk), ...(passkey === undefined ? {} : { passkey }) });
};
