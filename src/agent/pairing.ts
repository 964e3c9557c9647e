import { BRIDGE_PROTOCOL_VERSION, jwkThumbprint, pairRequestMessage, pairingCode, pairingCommitment, parseBridgeMessage, randomNonce, type AgentToExtensionMessage } from '../protocol/bridge';
import { CountersignError } from '../protocol/errors';
import { keyFingerprint } from '../protocol/fingerprint';
import type { Pairing } from './companion-types';
import { abortReason, inputError, unavailable, type CompanionState, type PairOffer } from './companion-state';
import type { PrivacyContext } from './files';
import { savePinnedKey } from './keys';

/**
 * Pairing, docs/bridge-protocol.md section 8: commit to a nonce (pair_request), receive the
 * extension's key and nonce (pair_offer), reveal ours (pair_reveal), and pin the extension's key
 * once the person confirmed (pair_result).
 */

export interface PairingSetup {
  /** The name shown in Countersign, unless pair() is given another. */
  agentName: string;
  /** Where the confirmed extension key is pinned. */
  configDir: string;
  ctx: PrivacyContext;
}

/**
 * Pair with the extension and return the 6-digit code both sides show. A man in the middle would
 * have to substitute a key, which changes the code; the commitment stops it from choosing a nonce
 * that makes the codes agree.
 */
export async function pair(state: CompanionState, setup: PairingSetup, options: { agentName?: string; signal?: AbortSignal }): Promise<Pairing> {
  const { signal } = options;
  signal?.throwIfAborted();
  if (!state.connected || state.extensionKeyThumbprint === undefined) throw unavailable('not connected to the Countersign extension');
  const id = state.newId('p');
  const agentNonce = randomNonce();
  const request = parseBridgeMessage(
    pairRequestMessage,
    {
      type: 'pair_request',
      v: BRIDGE_PROTOCOL_VERSION,
      id,
      agent_name: options.agentName ?? setup.agentName,
      agent_key: state.key.publicJwk,
      agent_nonce_sha256: await pairingCommitment(agentNonce),
    },
    'pair',
  );
  if (!request.ok) throw inputError(request.error);

  const offer = await waitFor<PairOffer>(state, id, 'pair_offer', request.message, signal);
  const offeredThumbprint = await jwkThumbprint(offer.extension_key);
  if (offeredThumbprint !== state.extensionKeyThumbprint) {
    // Not revealed: the nonce stays secret and this pairing attempt is dead.
    throw new CountersignError('ERR_KEY_INVALID', 'pair_offer.extension_key: not the key this connection was welcomed with');
  }

  signal?.throwIfAborted();
  // The reveal has its own id; `pair_result`, once the person has answered, answers it.
  const revealId = state.newId('r');
  const confirmed = confirmation(state, setup, revealId, offer, signal);
  if (!state.send({ type: 'pair_reveal', v: BRIDGE_PROTOCOL_VERSION, id: revealId, pairing_id: id, agent_nonce: agentNonce })) throw unavailable('the connection to the Countersign bridge closed');
  const code = await pairingCode({
    extensionKeyThumbprint: offeredThumbprint,
    agentKeyThumbprint: state.key.thumbprint,
    extensionNonce: offer.extension_nonce,
    agentNonce,
  });
  return { code, fingerprint: keyFingerprint(state.key.thumbprint), confirmed };
}

/** Waits for the `pair_result` answering the reveal `revealId`; pins the offered key when the person confirmed. */
function confirmation(state: CompanionState, setup: PairingSetup, revealId: string, offer: PairOffer, signal: AbortSignal | undefined): Promise<void> {
  const confirmed = new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      state.waiters.delete(revealId);
      reject(abortReason(signal as AbortSignal));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    state.waiters.set(revealId, {
      kind: 'pair_result',
      reject: (error) => {
        signal?.removeEventListener('abort', onAbort);
        reject(error);
      },
      resolve: (status) => {
        signal?.removeEventListener('abort', onAbort);
        if (status === 'rejected') {
          reject(new CountersignError('ERR_PAIRING_FAILED', 'the person did not confirm the pairing in Countersign'));
          return;
        }
        // Pinned only now: a key the person did not confirm is never trusted.
        savePinnedKey(setup.configDir, offer.extension_key, setup.ctx).then(async (pin) => {
          state.pin = pin;
          state.welcomePaired = true;
          // The passkey the person registered before this pairing, announced with pair_result.
          if (state.unpinnedPasskey !== undefined) await state.acceptPasskey(state.unpinnedPasskey);
          resolve();
        }, reject);
      },
    });
  });
  // The caller may never await `confirmed` (it showed the code and moved on): no unhandled rejection.
  confirmed.catch(() => undefined);
  return confirmed;
}

/** Send `message` and wait (timeoutMs) for the machine answer of type `kind` with the same id. */
function waitFor<T>(state: CompanionState, id: string, kind: 'pair_offer', message: AgentToExtensionMessage, signal: AbortSignal | undefined): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    // Aborted during an await before we got here: the 'abort' event has already fired.
    if (signal?.aborted) return reject(abortReason(signal));
    const cleanup = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      state.waiters.delete(id);
    };
    const onAbort = () => {
      cleanup();
      reject(abortReason(signal as AbortSignal));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(unavailable(`no ${kind} from the Countersign extension within ${state.timeoutMs} ms`));
    }, state.timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    state.waiters.set(id, {
      kind,
      resolve: (value) => {
        cleanup();
        resolve(value as T);
      },
      reject: (error) => {
        cleanup();
        reject(error);
      },
    });
    if (!state.send(message)) {
      cleanup();
      reject(unavailable('not connected to the Countersign extension'));
    }
  });
}
