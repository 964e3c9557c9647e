import 'fake-indexeddb/auto';
import { expect } from 'vitest';
import type { AgentReply, ApprovalQueue, IncomingApprovalRequest } from '../../../src/extension/approval-queue';
import type { BridgeMessage, BridgeSession, Connection, PendingPairing } from '../../../src/extension/bridge-messages/types';
import { extensionKey } from '../../../src/extension/keys';
import type { AgentProblem } from '../../../src/extension/snapshot';
import { Store, type PairedAgent } from '../../../src/extension/store';
import { agentToExtensionMessage, parseBridgeMessage, type AgentToExtensionMessage, type ExtensionToAgentMessage } from '../../../src/protocol/bridge';
import { newAgentKey, type AgentKey } from '../../bridge/helpers';

/** What the queue was asked, by method. */
export type QueueCall =
  | { method: 'receive'; agent: PairedAgent; conn: string; request: IncomingApprovalRequest }
  | { method: 'cancel'; conn: string; requestId: string }
  | { method: 'sent' | 'outcome'; args: unknown[] };

/**
 * A `BridgeSession` for one handler at a time: a real store (fake-indexeddb) and extension key, a
 * recording queue that answers as the test says, and what the handler sent, reported and changed.
 */
export interface FakeSession {
  session: BridgeSession;
  store: Store;
  agent: AgentKey;
  sent: Array<{ conn: string; message: ExtensionToAgentMessage | AgentReply }>;
  problems: Array<{ kind: AgentProblem['kind']; agentName: string | undefined }>;
  calls: QueueCall[];
  pairings: Map<string, PendingPairing>;
  /** How many times the handler said the pairings changed. */
  changes(): number;
  /** What the queue answers next (receive, sent, outcome); `null` for receive's "later". */
  answer(reply: AgentReply | null): void;
  /** A connection that proved the test agent's key, under `name`. */
  proved(conn?: string, name?: string): Connection;
  /** Marks the test agent paired (optionally revoked). */
  pair(revoked?: boolean): Promise<void>;
}

let run = 0;

export async function fakeSession(label: string): Promise<FakeSession> {
  const store = await Store.open(`bridge-${label}-${process.pid}-${++run}`);
  const key = await extensionKey(store);
  const agent = await newAgentKey();
  const sent: FakeSession['sent'] = [];
  const problems: FakeSession['problems'] = [];
  const calls: QueueCall[] = [];
  const pairings = new Map<string, PendingPairing>();
  let changes = 0;
  let next: AgentReply | null = null;
  const queue = {
    receive: (pairedAgent: PairedAgent, conn: string, request: IncomingApprovalRequest) => {
      calls.push({ method: 'receive', agent: pairedAgent, conn, request });
      return Promise.resolve(next);
    },
    cancel: (conn: string, requestId: string) => {
      calls.push({ method: 'cancel', conn, requestId });
      return Promise.resolve(true);
    },
    sent: (...args: unknown[]) => {
      calls.push({ method: 'sent', args });
      return Promise.resolve(next);
    },
    outcome: (...args: unknown[]) => {
      calls.push({ method: 'outcome', args });
      return Promise.resolve(next);
    },
  } as unknown as ApprovalQueue;
  const session: BridgeSession = {
    store,
    queue,
    key,
    extensionVersion: '9.9.9',
    pairings,
    send: (conn, message) => sent.push({ conn, message }) > 0,
    sendReply: (conn, reply) => sent.push({ conn, message: reply }) > 0,
    problem: (kind, agentName) => void problems.push({ kind, agentName }),
    pairingsChanged: () => void changes++,
    passkeyAnnouncement: () => Promise.resolve(undefined),
  };
  return {
    session,
    store,
    agent,
    sent,
    problems,
    calls,
    pairings,
    changes: () => changes,
    answer: (reply) => void (next = reply),
    proved: (conn = 'c1', name = 'Desk agent') => ({ conn, stage: 'authenticated', agentName: name, agentKey: agent.jwk, agentThumbprint: agent.thumbprint }),
    pair: (revoked = false) => store.putAgent({ thumbprint: agent.thumbprint, name: 'Desk agent', publicJwk: agent.jwk, pairedAt: 1, ...(revoked ? { revokedAt: 2 } : {}) }),
  };
}

/** `raw` as the sessions hand it to its handler: parsed with the protocol's own schema. */
export function parsed<T extends AgentToExtensionMessage['type']>(raw: { type: T } & Record<string, unknown>): BridgeMessage<T> {
  const result = parseBridgeMessage(agentToExtensionMessage, raw);
  if (!result.ok) throw result.error;
  expect(result.message.type).toBe(raw.type);
  return result.message as BridgeMessage<T>;
}
