import { describe, expect, it } from 'vitest';
import { error } from '../../../src/extension/bridge-messages/error';
import { fakeSession, parsed } from './fake-session';

describe('error from an agent (docs/bridge-protocol.md, section 5, "error")', () => {
  it('is recorded in the audit log, cut to 500 characters, and never answered or acted on', async () => {
    const fake = await fakeSession('error');
    await error({ conn: 'c1', stage: 'new' }, parsed({ type: 'error', v: 2, code: 'ERR_DECISION_INVALID', message: 'x'.repeat(900) }), fake.session);
    const [entry] = (await fake.store.auditLog()).filter((e) => e.kind === 'agent-error');
    expect(entry?.detail).toBe(`ERR_DECISION_INVALID: ${'x'.repeat(900)}`.slice(0, 500));
    expect(fake.sent).toEqual([]);
    expect(fake.calls).toEqual([]);
    expect(fake.problems).toEqual([]);
  });
});
