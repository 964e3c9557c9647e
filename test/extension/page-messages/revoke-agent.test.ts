import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { AgentSessions } from '../../../src/extension/agent-sessions';
import { revokeAgent } from '../../../src/extension/page-messages/revoke-agent';
import type { BackgroundParts, PageServices } from '../../../src/extension/page-messages/index';
import type { Store } from '../../../src/extension/store';
import { BRIDGE_PROTOCOL_VERSION as V } from '../../../src/protocol/bridge';
import { approvalRequest, type AgentKey } from '../../bridge/helpers';
import { sessionsHarness, type SessionsHarness } from '../sessions-harness';

/**
 * Revoking a paired agent, with the real AgentSessions, ApprovalQueue and IndexedDB
 * (fake-indexeddb): the stored mark and its audit line, a second revocation that changes nothing,
 * and a connection still open that is refused from its next request on. Then the page message
 * that asks for it: it revokes through the sessions and refreshes the pages, whatever the outcome.
 */

describe('AgentSessions.revoke', () => {
  let h: SessionsHarness;
  let store: Store;
  let sessions: AgentSessions;
  let agent: AgentKey;

  beforeEach(async () => {
    h = await sessionsHarness('revoke');
    ({ store, sessions, agent } = h);
  });

  const authenticate = (conn: string) => h.authenticate(conn, 'Desk agent');
  const pair = () => h.pair();
  const answerTo = (id: string) => h.answerTo(id);

  it('marks the agent revoked once, with its audit line; a second revocation keeps the first time', async () => {
    await pair();
    expect(await sessions.revoke(agent.thumbprint)).toBe(true);
    const revoked = await store.getAgent(agent.thumbprint);
    expect(revoked).toMatchObject({ thumbprint: agent.thumbprint, name: 'Desk agent', pairedAt: 1, revokedAt: expect.any(Number) });
    expect((await store.auditLog()).filter((e) => e.kind === 'agent-revoked')).toHaveLength(1);

    expect(await sessions.revoke(agent.thumbprint)).toBe(false);
    expect((await store.getAgent(agent.thumbprint))?.revokedAt).toBe(revoked?.revokedAt);
    expect((await store.auditLog()).filter((e) => e.kind === 'agent-revoked')).toHaveLength(1);
  });

  it('an agent never paired stays unknown', async () => {
    expect(await sessions.revoke(agent.thumbprint)).toBe(false);
    expect(await store.getAgent(agent.thumbprint)).toBeUndefined();
    expect(await store.agents()).toEqual([]);
  });

  it('a connection still open is refused from its next request on, and nothing is stored for it', async () => {
    await pair();
    await authenticate('c_1');
    await sessions.revoke(agent.thumbprint);
    await sessions.receive('c_1', approvalRequest('req_after'));
    expect(answerTo('req_after')).toEqual([
      { type: 'error', v: V, id: 'req_after', code: 'ERR_AGENT_REVOKED', message: 'this agent was revoked in Countersign', source: 'extension' },
    ]);
    expect(sessions.problems).toEqual([{ kind: 'revoked', agentName: 'Desk agent', at: expect.any(Number) }]);
    expect(await store.all()).toEqual([]);
  });

  it('the revoke-agent page message revokes through the sessions and refreshes the pages', async () => {
    await pair();
    const changed = vi.fn();
    const services = { ready: async () => ({ store, sessions }) as unknown as BackgroundParts, changed } as unknown as PageServices;
    expect(await revokeAgent.handler({ type: 'countersign/revoke-agent', thumbprint: agent.thumbprint }, services)).toEqual({ ok: true });
    expect((await store.getAgent(agent.thumbprint))?.revokedAt).toEqual(expect.any(Number));
    expect(changed).toHaveBeenCalledTimes(1);
    // Already revoked: the same answer, and the pages are refreshed all the same.
    expect(await revokeAgent.handler({ type: 'countersign/revoke-agent', thumbprint: agent.thumbprint }, services)).toEqual({ ok: true });
    expect(changed).toHaveBeenCalledTimes(2);
  });
});
