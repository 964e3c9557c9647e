import { BRIDGE_PROTOCOL_VERSION, jwkThumbprint, randomNonce } from '../../protocol/bridge';
import { CountersignError } from '../../protocol/errors';
import { wireJwk } from '../keys';
import { authenticated, type BridgeMessageHandler, type PendingPairing } from './types';

/**
 * Pairings waiting for the person at once, over all connections. A pairing needs no paired key,
 * so any local process can ask: the cap keeps a flood of them from burying the window, and one
 * per connection keeps one process from stacking them. Paired agents' approvals are not counted.
 */
export const MAX_PENDING_PAIRINGS = 3;

/**
 * Names compared as a person reads them: compatibility forms folded (NFKC), case and hidden
 * characters ignored, runs of spaces as one. "Desk agent", "DESK  AGENT" and "Desk\u200Bagent"
 * are one name to a person, so they are one name here.
 */
export function agentNameKey(name: string): string {
  return name
    .normalize('NFKC')
    .replace(/[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu, '')
    .replace(/\s+/gu, ' ')
    .trim()
    .toLowerCase();
}

/**
 * `pair_request` (docs/bridge-protocol.md, section 8): an agent that proved its key asks to be
 * paired, committing to its nonce; it gets the extension's key and nonce, and the pairing waits
 * for its reveal and then for the person.
 */
export const pairRequest: BridgeMessageHandler<'pair_request'> = async (c, m, session) => {
  const { store, key, pairings } = session;
  const who = authenticated(c);
  const keyThumbprint = await jwkThumbprint(m.agent_key);
  if (keyThumbprint !== who.agentThumbprint) throw new CountersignError('ERR_PAIRING_FAILED', 'pair_request.agent_key: not the key this connection proved');
  // A second agent under a paired agent's name would be told apart only by its key: refuse it,
  // so "your agent “Desk agent”" always means the one the person paired under that name.
  const nameKey = agentNameKey(m.agent_name);
  const namesake = (await store.agents()).find((a) => !a.revokedAt && a.thumbprint !== keyThumbprint && agentNameKey(a.name) === nameKey);
  if (namesake) {
    await store.audit('pairing-name-taken', { agent: keyThumbprint, detail: m.agent_name });
    throw new CountersignError(
      'ERR_PAIRING_FAILED',
      `pair_request.agent_name: an agent named ${JSON.stringify(namesake.name)} is already paired with another key; choose another name, or have the person remove that agent in Countersign's options first`,
    );
  }
  // From here to `pairings.set` nothing awaits: messages from many connections are handled
  // concurrently, and the cap must hold however they interleave.
  const waiting = [...pairings.values()];
  if (waiting.some((p) => p.conn === c.conn)) {
    throw new CountersignError('ERR_PAIRING_FAILED', 'pair_request: a pairing is already waiting on this connection; one at a time');
  }
  if (waiting.length >= MAX_PENDING_PAIRINGS) {
    void store.audit('pairing-throttled', { agent: keyThumbprint, detail: m.agent_name }).catch(() => undefined);
    throw new CountersignError('ERR_THROTTLED', `pair_request: ${waiting.length} pairings are already waiting for the person; try again later`);
  }
  const extensionNonce = randomNonce();
  const pairing: PendingPairing = {
    pairingId: `${c.conn}:${m.id}`,
    conn: c.conn,
    requestId: m.id,
    agentName: m.agent_name,
    agentKey: m.agent_key,
    agentThumbprint: keyThumbprint,
    commitment: m.agent_nonce_sha256,
    extensionNonce,
    attempts: 0,
    requestedAt: Date.now(),
  };
  pairings.set(pairing.pairingId, pairing);
  session.send(c.conn, { type: 'pair_offer', v: BRIDGE_PROTOCOL_VERSION, id: m.id, extension_key: wireJwk(key.publicJwk), extension_nonce: extensionNonce });
};
