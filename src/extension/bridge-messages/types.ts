import type { AgentToExtensionMessage, BridgePublicJwk, ExtensionToAgentMessage } from '../../protocol/bridge';
import { CountersignError } from '../../protocol/errors';
import type { AgentReply, ApprovalQueue } from '../approval-queue';
import type { AgentProblem } from '../snapshot';
import type { Store, StoredKeyPair } from '../store';

/**
 * What one message from an agent is handled with: one module per message of
 * docs/bridge-protocol.md section 9, as page messages are (`../page-messages/`), so the rule of a
 * message sits in one file and a message type without a handler does not compile (`index.ts`).
 * The connection's state and the waiting pairings stay in `AgentSessions`, which hands each
 * handler the `BridgeSession` below.
 */

/** One agent connection, and what it has proved so far (docs/bridge-protocol.md, "Handshake"). */
export interface Connection {
  conn: string;
  stage: 'new' | 'challenged' | 'authenticated';
  agentName?: string;
  agentKey?: BridgePublicJwk;
  agentThumbprint?: string;
  challenge?: string;
}

export interface PendingPairing {
  pairingId: string;
  conn: string;
  requestId: string;
  agentName: string;
  agentKey: BridgePublicJwk;
  agentThumbprint: string;
  commitment: string;
  extensionNonce: string;
  code?: string;
  /** The `pair_reveal`'s id: `pair_result` answers it. */
  revealId?: string;
  /** Wrong codes typed so far (MAX_PAIRING_CODE_ATTEMPTS ends the pairing). */
  attempts: number;
  requestedAt: number;
}

/** What a handler may use of the sessions: their services, the waiting pairings, and the ways to answer. */
export interface BridgeSession {
  readonly store: Store;
  readonly queue: ApprovalQueue;
  readonly key: StoredKeyPair;
  readonly extensionVersion: string;
  /** Pairings waiting for the person, by `pairingId`, over all connections. */
  readonly pairings: Map<string, PendingPairing>;
  /** Sends one message to a connection still open; false when it is gone. */
  send(conn: string, message: ExtensionToAgentMessage): boolean;
  sendReply(conn: string, reply: AgentReply): boolean;
  /** Records why an agent was turned away, for the person (the popup's problems). */
  problem(kind: AgentProblem['kind'], agentName: string | undefined): void;
  /** A pairing needs the person (open the window), or ended. */
  pairingsChanged(): void;
  /** The current signed passkey announcement for one agent; undefined when none was ever registered. */
  passkeyAnnouncement(agent: string): Promise<string | undefined>;
}

/** The message of type `T`, as parsed. */
export type BridgeMessage<T extends AgentToExtensionMessage['type'] = AgentToExtensionMessage['type']> = Extract<AgentToExtensionMessage, { type: T }>;

/**
 * Handles one message of type `T` from the connection `c`, answering it exactly once (or not at
 * all, for an `error` report). A refusal is thrown as a `CountersignError`: the sessions answer
 * it as an `error` naming the message's id, and the handler has changed nothing before it.
 */
export type BridgeMessageHandler<T extends AgentToExtensionMessage['type'] = AgentToExtensionMessage['type']> = (
  c: Connection,
  m: BridgeMessage<T>,
  session: BridgeSession,
) => void | Promise<void | LaterAnswer>;

/**
 * A message taken in whose answer comes once the store has written it (an ask, batched with the
 * asks around it): the sessions send `answer`'s reply, or its failure as an `error`, in the
 * connection's order, and the connection's next ask need not wait for it.
 */
export interface LaterAnswer {
  answer: Promise<AgentReply | null>;
}

/** The connection proved its agent key (hello, challenge, auth), or ERR_AUTH_FAILED. */
export function authenticated(c: Connection): Required<Pick<Connection, 'agentThumbprint' | 'agentName'>> {
  if (c.stage !== 'authenticated' || !c.agentThumbprint || !c.agentName) {
    throw new CountersignError('ERR_AUTH_FAILED', 'prove the agent key first (hello, challenge, auth)');
  }
  return { agentThumbprint: c.agentThumbprint, agentName: c.agentName };
}

/** The thumbprint of the connection's agent, proved and paired and not revoked; else the typed refusal. */
export async function paired(c: Connection, store: Store): Promise<string> {
  const who = authenticated(c);
  const agent = await store.getAgent(who.agentThumbprint);
  if (!agent) throw new CountersignError('ERR_AGENT_NOT_PAIRED', 'this agent is not paired with Countersign');
  if (agent.revokedAt) throw new CountersignError('ERR_AGENT_REVOKED', 'this agent was revoked in Countersign');
  return who.agentThumbprint;
}
