import 'fake-indexeddb/auto';
import { expect } from 'vitest';
import { AgentSessions } from '../../src/extension/agent-sessions';
import { ApprovalQueue } from '../../src/extension/approval-queue';
import { extensionKey, signRecord } from '../../src/extension/keys';
import { Store, type StoredKeyPair } from '../../src/extension/store';
import { BRIDGE_PROTOCOL_VERSION as V, type ExtensionToAgentMessage } from '../../src/protocol/bridge';
import { newAgentKey, signAuth, type AgentKey } from '../bridge/helpers';

/**
 * AgentSessions wired as the background wires it (a real ApprovalQueue and IndexedDB through
 * fake-indexeddb), with what it sends to agents recorded, a fresh agent key, and the steps a test
 * needs: authenticate a connection, pair the agent, read the answers to a request.
 */
export interface SessionsHarness {
  store: Store;
  key: StoredKeyPair;
  sessions: AgentSessions;
  agent: AgentKey;
  answers: Array<{ conn: string; message: ExtensionToAgentMessage }>;
  /** How many times the sessions said their pairings changed. */
  pairingChanges(): number;
  /** hello + auth on a new connection, under `name` (what the agent claims now). */
  authenticate(conn: string, name?: string): Promise<void>;
  pair(name?: string): Promise<unknown>;
  answerTo(id: string): ExtensionToAgentMessage[];
}

let run = 0;

export async function sessionsHarness(label: string): Promise<SessionsHarness> {
  const store = await Store.open(`${label}-${process.pid}-${++run}`);
  const key = await extensionKey(store);
  const agent = await newAgentKey();
  const answers: SessionsHarness['answers'] = [];
  let changes = 0;
  // eslint-disable-next-line prefer-const -- the queue sends through the sessions made after it
  let sessions: AgentSessions;
  const queue: ApprovalQueue = new ApprovalQueue({
    store,
    sign: (record, status, at) => signRecord(key, record, status, at),
    send: (conn, reply) => sessions.sendReply(conn, reply),
    changed: () => {},
  });
  sessions = new AgentSessions({
    store,
    queue,
    key,
    extensionVersion: '0.0.0',
    sendToAgent: (conn, message) => answers.push({ conn, message }),
    pairingsChanged: () => changes++,
  });
  return {
    store,
    key,
    sessions,
    agent,
    answers,
    pairingChanges: () => changes,
    async authenticate(conn, name = 'Claimed name') {
      sessions.connected(conn);
      await sessions.receive(conn, { type: 'hello', v: V, id: `${conn}_hello`, versions: [V], agent_name: name, agent_key: agent.jwk });
      const challenge = answers.find((a) => a.message.type === 'challenge' && a.conn === conn)?.message as { nonce: string };
      const signature = signAuth(agent, { extensionKeyThumbprint: key.thumbprint, conn, nonce: challenge.nonce });
      await sessions.receive(conn, { type: 'auth', v: V, id: `${conn}_auth`, signature });
      expect(answers.at(-1)?.message.type).toBe('welcome');
    },
    pair: (name = 'Desk agent') => store.putAgent({ thumbprint: agent.thumbprint, name, publicJwk: agent.jwk, pairedAt: 1 }),
    answerTo: (id) => answers.filter((a) => (a.message as { id?: string }).id === id).map((a) => a.message),
  };
}
