import os from 'node:os';
import {
  BRIDGE_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  accountName,
  helloMessage,
  jwkThumbprint,
  parseBridgeMessage,
  randomNonce,
  type AgentInboundMessage,
  type AgentToExtensionMessage,
} from '../protocol/bridge';
import { CountersignError } from '../protocol/errors';
import { CompanionError, type CompanionOptions } from './companion-types';
import { inputError, unavailable, type CompanionState, type Handshake } from './companion-state';
import { checkSocketPath, findAgentSocket } from './discovery';
import type { AgentKey, PinnedKey } from './keys';
import { Link, type LinkHandlers } from './link';

/**
 * Connecting to the bridge and proving the agent's key to the extension: docs/bridge-protocol.md
 * section 7, "Handshake" (bridge_info → hello → challenge → auth → welcome), and section 3 for
 * which socket to connect to.
 */

/** The `hello`, built and checked before anything connects: a bad agentName is the caller's error, not the extension's. */
export function helloFor(options: Pick<CompanionOptions, 'agentName' | 'agentVersion'>, key: AgentKey): AgentToExtensionMessage {
  const hello = parseBridgeMessage(
    helloMessage,
    {
      type: 'hello',
      v: BRIDGE_PROTOCOL_VERSION,
      id: `hello_${randomNonce().slice(0, 12)}`,
      versions: [...SUPPORTED_PROTOCOL_VERSIONS],
      agent_name: options.agentName,
      agent_key: key.publicJwk,
      ...(options.agentVersion === undefined ? {} : { agent_version: options.agentVersion }),
    },
    'options',
  );
  if (!hello.ok) throw inputError(hello.error);
  return hello.message;
}

/**
 * The sockets to try, in order (section 3), and the extension key thumbprint they were chosen
 * for, when known.
 */
export async function socketsFor(where: {
  socketPath: string | undefined;
  platform: NodeJS.Platform;
  env: Readonly<Record<string, string | undefined>>;
  uid: number | undefined;
  pin: PinnedKey | undefined;
}): Promise<{ paths: string[]; expected: string | undefined }> {
  const { socketPath, platform, env, uid, pin } = where;
  if (socketPath !== undefined) {
    const expected = await checkSocketPath(socketPath, platform, uid ?? 0);
    // A paired agent never even connects to another extension's socket.
    if (pin !== undefined && pin.thumbprint !== expected) {
      throw new CountersignError('ERR_KEY_INVALID', 'socketPath: this socket serves another Countersign extension than the one this agent paired with');
    }
    return { paths: [socketPath], expected };
  }
  const found = await findAgentSocket({ platform, env, uid: uid ?? 0, username: accountName(os.userInfo, env), pinnedThumbprint: pin?.thumbprint });
  return { paths: found.paths, expected: found.thumbprint };
}

/**
 * Connect to the first socket that answers and run the handshake to its `welcome`, within
 * `state.timeoutMs`. Inbound messages reach `onHandshake` (through `handlers`) until it ends.
 */
export async function greet(state: CompanionState, paths: string[], hello: AgentToExtensionMessage, expected: string | undefined, handlers: LinkHandlers): Promise<void> {
  // Set before the link opens: the bridge speaks first (bridge_info).
  const done = new Promise<void>((resolve, reject) => {
    state.handshake = { stage: 'info', hello, expected, resolve, reject };
  });
  // A rejection before we await it (the link closing at once) must not be reported as unhandled.
  done.catch(() => undefined);
  let lastError: unknown = unavailable('no socket to connect to');
  for (const socketPath of paths) {
    try {
      state.link = await Link.open(socketPath, handlers, state.timeoutMs);
      break;
    } catch (error) {
      lastError = error;
    }
  }
  if (state.link === undefined) throw lastError;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(unavailable(`the Countersign extension did not complete the handshake within ${state.timeoutMs} ms`)), state.timeoutMs);
  });
  try {
    await Promise.race([done, timeout]);
  } finally {
    clearTimeout(timer);
    state.handshake = undefined;
  }
}

/** One inbound message while the handshake runs; anything out of its turn is reported and ignored. */
export async function onHandshake(state: CompanionState, h: Handshake, m: AgentInboundMessage): Promise<void> {
  if (m.type === 'error') return h.reject(new CompanionError(m));
  if (m.type === 'companion_unavailable') return h.reject(unavailable('the Countersign extension is not available'));
  if (h.stage === 'info' && m.type === 'bridge_info') {
    // docs/bridge-protocol.md section 5, bridge_info: the bridge names the extension key it serves.
    // A socket chosen for a pinned key that serves another one is refused before anything is signed for it.
    if (h.expected !== undefined && m.extension_key_thumbprint !== h.expected) {
      return h.reject(new CountersignError('ERR_KEY_INVALID', 'the bridge serves a different Countersign extension than the one this agent paired with'));
    }
    state.conn = m.conn;
    state.extensionKeyThumbprint = m.extension_key_thumbprint;
    state.bridge = { version: m.bridge_version, browser: m.browser };
    h.stage = 'challenge';
    if (!state.send(h.hello)) h.reject(unavailable('the connection to the Countersign bridge closed'));
    return;
  }
  if (h.stage === 'challenge' && m.type === 'challenge') {
    if (m.version !== BRIDGE_PROTOCOL_VERSION) return h.reject(new CountersignError('ERR_PROTOCOL_VERSION', `the extension chose protocol version ${m.version}; this SDK speaks ${BRIDGE_PROTOCOL_VERSION}`));
    // The proof is bound to this extension key, this agent key, this connection and this nonce
    // (bridge.ts agentAuthInput): worth nothing anywhere else.
    const signature = await state.key.signAuth({
      extensionKeyThumbprint: state.extensionKeyThumbprint as string,
      agentKeyThumbprint: state.key.thumbprint,
      conn: state.conn as string,
      nonce: m.nonce,
    });
    h.stage = 'welcome';
    if (!state.send({ type: 'auth', v: BRIDGE_PROTOCOL_VERSION, id: state.newId('auth'), signature })) h.reject(unavailable('the connection to the Countersign bridge closed'));
    return;
  }
  if (h.stage === 'welcome' && m.type === 'welcome') {
    const thumbprint = await jwkThumbprint(m.extension_key);
    // The extension accepted a proof made for the bridge's thumbprint, so its key is that one;
    // a welcome naming another key is not from the extension that checked the proof.
    if (thumbprint !== state.extensionKeyThumbprint) {
      return h.reject(new CountersignError('ERR_KEY_INVALID', 'welcome.extension_key: not the key the bridge named'));
    }
    if (state.pin !== undefined && state.pin.thumbprint !== thumbprint) {
      return h.reject(new CountersignError('ERR_KEY_INVALID', 'the Countersign extension\'s key differs from the key pinned at pairing; refusing to continue (if you reinstalled Countersign, remove extension-key.json from the config folder and pair again)'));
    }
    state.extensionKey = m.extension_key;
    state.welcomePaired = m.paired;
    // The passkey may have changed while this agent was away (docs/bridge-protocol.md, "The passkey announcement").
    if (m.passkey !== undefined) await state.acceptPasskey(m.passkey);
    h.resolve();
    return;
  }
  state.events.emit('protocolError', new CountersignError('ERR_BRIDGE_MESSAGE_INVALID', `unexpected ${m.type} message during the handshake (waiting for ${h.stage === 'info' ? 'bridge_info' : h.stage}); ignored`));
}
