import { beforeEach, describe, expect, it } from 'vitest';
import type { AgentSessions } from '../../src/extension/agent-sessions';
import type { Store } from '../../src/extension/store';
import { BRIDGE_PROTOCOL_VERSION as V } from '../../src/protocol/bridge';
import { MAX_SUMMARY_LENGTH } from '../../src/protocol/limits';
import { OPERATION, approvalRequest, type AgentKey } from '../bridge/helpers';
import { sessionsHarness, type SessionsHarness } from './sessions-harness';

/**
 * An approval_request refused because its summary is longer than Countersign shows: the agent
 * gets its typed error, nothing is stored, and the person gets a 'too-large' problem naming the
 * paired agent (the popup's "Desk agent sent a request Countersign could not show"), whether the
 * extension refused it itself or the bridge did and said so (bridge_error).
 */

const withSummary = (id: string, summary: string) => ({ ...approvalRequest(id), operation: { ...OPERATION, summary, expires_at: '2099-10-08T12:20:00-07:00' } });
const tooLong = (id: string) => withSummary(id, 'x'.repeat(MAX_SUMMARY_LENGTH + 1));

describe('AgentSessions: a request too large to show', () => {
  let h: SessionsHarness;
  let store: Store;
  let sessions: AgentSessions;
  let agent: AgentKey;

  beforeEach(async () => {
    h = await sessionsHarness('too-large');
    ({ store, sessions, agent } = h);
  });

  const authenticate = (conn: string, name?: string) => h.authenticate(conn, name);
  const pair = (name?: string) => h.pair(name);
  const answerTo = (id: string) => h.answerTo(id);

  it('refused by the extension: the typed error, nothing stored, and a too-large problem under the paired name', async () => {
    await pair();
    await authenticate('c_1');
    const before = h.pairingChanges();
    await sessions.receive('c_1', tooLong('req_big'));
    expect(answerTo('req_big')).toEqual([
      { type: 'error', v: V, id: 'req_big', code: 'ERR_SUMMARY_TOO_LONG', message: `message.operation.summary: expected at most ${MAX_SUMMARY_LENGTH} characters, got ${MAX_SUMMARY_LENGTH + 1} characters`, source: 'extension' },
    ]);
    expect(sessions.problems).toEqual([{ kind: 'too-large', agentName: 'Desk agent', at: expect.any(Number) }]);
    expect(h.pairingChanges()).toBeGreaterThan(before);
    expect(await store.all()).toEqual([]);
  });

  it('refused by the bridge: its bridge_error naming the connection records the same problem', async () => {
    await pair();
    await authenticate('c_2');
    await sessions.refusedByBridge('c_2', 'ERR_SUMMARY_TOO_LONG');
    expect(sessions.problems).toEqual([{ kind: 'too-large', agentName: 'Desk agent', at: expect.any(Number) }]);
    expect(await store.all()).toEqual([]);
  });

  it('exactly the limit is shown, with no problem', async () => {
    await pair();
    await authenticate('c_3');
    await sessions.receive('c_3', withSummary('req_max', 'x'.repeat(MAX_SUMMARY_LENGTH)));
    expect(answerTo('req_max')).toEqual([]);
    expect((await store.all()).map((r) => r.operation.summary.length)).toEqual([MAX_SUMMARY_LENGTH]);
    expect(sessions.problems).toEqual([]);
  });

  it('no problem from a connection that proved no paired key, or for other refusals', async () => {
    // Not authenticated: anyone can connect and claim a name.
    sessions.connected('c_4');
    await sessions.receive('c_4', tooLong('req_anon'));
    expect(answerTo('req_anon')[0]).toMatchObject({ type: 'error', code: 'ERR_SUMMARY_TOO_LONG' });
    await sessions.refusedByBridge('c_4', 'ERR_SUMMARY_TOO_LONG');
    // Authenticated, but not paired (and then revoked): nothing the person could have been shown.
    await authenticate('c_5');
    await sessions.receive('c_5', tooLong('req_unpaired'));
    expect(answerTo('req_unpaired')[0]).toMatchObject({ type: 'error', code: 'ERR_SUMMARY_TOO_LONG' });
    await pair();
    await store.putAgent({ thumbprint: agent.thumbprint, name: 'Desk agent', publicJwk: agent.jwk, pairedAt: 1, revokedAt: 2 });
    await sessions.refusedByBridge('c_5', 'ERR_SUMMARY_TOO_LONG');
    // Paired, but the bridge refused something else (the extension's own relay, say).
    await pair();
    await sessions.refusedByBridge('c_5', 'ERR_CONNECTION_UNKNOWN');
    await sessions.refusedByBridge('c_5', 'ERR_FRAME_TOO_LARGE');
    expect(sessions.problems).toEqual([]);
  });
});
