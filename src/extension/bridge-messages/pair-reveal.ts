import { pairingCode, pairingCommitment } from '../../protocol/bridge';
import { CountersignError } from '../../protocol/errors';
import type { BridgeMessageHandler } from './types';

/**
 * `pair_reveal` (docs/bridge-protocol.md, section 8): the agent's nonce, checked against its
 * commitment, fixes the code both sides show; the window then asks the person to type it. The
 * one answer, `pair_result`, comes when the person decides (`AgentSessions.answerPairing`).
 */
export const pairReveal: BridgeMessageHandler<'pair_reveal'> = async (c, m, session) => {
  const pairing = session.pairings.get(`${c.conn}:${m.pairing_id}`);
  if (!pairing || pairing.code !== undefined) throw new CountersignError('ERR_PAIRING_FAILED', 'pair_reveal.pairing_id: no pairing waiting for its reveal with this id on this connection');
  if ((await pairingCommitment(m.agent_nonce)) !== pairing.commitment) {
    session.pairings.delete(pairing.pairingId);
    throw new CountersignError('ERR_PAIRING_FAILED', 'pair_reveal.agent_nonce: does not match the commitment in pair_request');
  }
  // The reveal's own id gets the pairing's one final answer, `pair_result`.
  pairing.revealId = m.id;
  pairing.code = await pairingCode({
    extensionKeyThumbprint: session.key.thumbprint,
    agentKeyThumbprint: pairing.agentThumbprint,
    extensionNonce: pairing.extensionNonce,
    agentNonce: m.agent_nonce,
  });
  session.pairingsChanged();
};
