/**
 * The operations engine of the reference Company (src/company/operations.ts), driven directly:
 * how operation IDs and revisions are computed, the bounds check 3 puts on a revision's expiry,
 * the challenge for an account's operation in a signed-out Session, at-most-once performing,
 * the drop and crash faults, and what each spec-breaking switch of the engine changes.
 */
import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CountersignError, canonicalJson, type Approval, type JsonObject } from '../../src/protocol/index.ts';
import { createFaults, type CompanyFaults, type SpecBreak } from '../../src/company/faults.ts';
import { FORGET_EARLY_MS, Operations, type ActionPlan, type CheckContext, type Decision, type Outcome, type PerformDecision } from '../../src/company/operations.ts';
import type { Caller } from '../../src/company/session.ts';

const SECRET = 'engine-secret';
/** 2026-10-08T19:05:00Z. */
const T0 = Date.UTC(2026, 9, 8, 19, 5, 0);
const MINUTE = 60_000;
const ALEX: Caller = { sessionId: 'sess_alex', accountId: 'acct_alex' };
const GUEST: Caller = { sessionId: 'sess_guest', accountId: null };
const BINDING = 'api POST /orders/ord_7Hk2/exchanges';
const IDENTITY: JsonObject = { order_id: 'ord_7Hk2', item_id: 'itm_4Qa' };
const SUMMARY = 'Exchange the jacket for size M';
const TERMS: JsonObject = { replacement_sku: 'stormline-insulated-m' };
const OUTCOME: Outcome = { data: { status: 'exchanged' }, text: 'Exchanged.' };

interface Engine {
  ops: Operations;
  faults: CompanyFaults;
  performed: Map<string, number>;
  clock: { ms: number };
}

function engine(options: { ttlMs?: number; windowMs?: number; now?: number; breaks?: SpecBreak[] } = {}): Engine {
  const clock = { ms: options.now ?? T0 };
  const faults = createFaults();
  for (const name of options.breaks ?? []) faults.breaks.add(name);
  const performed = new Map<string, number>();
  const ops = new Operations({
    secret: Buffer.from(SECRET),
    now: () => clock.ms,
    approvalTtlMs: options.ttlMs ?? 10 * MINUTE,
    revisionWindowMs: options.windowMs ?? MINUTE,
    faults,
    performed,
  });
  return { ops, faults, performed, clock };
}

interface PlanOptions {
  identity?: JsonObject;
  perform?: () => Outcome;
  startEarly?: () => void;
}

function plan(options: PlanOptions = {}): ActionPlan {
  return {
    prefix: 'exc',
    identity: options.identity ?? IDENTITY,
    describe: () => ({
      ok: true,
      description: {
        summary: SUMMARY,
        terms: TERMS,
        perform: options.perform ?? (() => OUTCOME),
        ...(options.startEarly === undefined ? {} : { startEarly: options.startEarly }),
      },
    }),
  };
}

function context(caller: Caller, approval?: Approval, acceptRevision?: (revision: string) => boolean): CheckContext {
  return { binding: BINDING, caller, declared: true, approval, acceptRevision };
}

function hmac(value: JsonObject): string {
  return createHmac('sha256', Buffer.from(SECRET)).update(canonicalJson(value)).digest('base64url');
}

function operationOf(decision: Decision) {
  if (decision.kind !== 'operation') throw new Error(`expected an operation, got ${decision.kind}`);
  return decision.operation;
}

function performOf(decision: Decision): PerformDecision {
  if (decision.kind !== 'perform') throw new Error(`expected a perform decision, got ${decision.kind}`);
  return decision;
}

function approvalOf(decision: Decision): Approval {
  const operation = operationOf(decision);
  return { operation_id: operation.operation_id, revision: operation.revision };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('operation IDs and revisions', () => {
  it('computes the operation ID from the action and the scope', () => {
    const { ops } = engine();
    const action = hmac({ purpose: 'operation_id', ...IDENTITY }).slice(0, 6);
    const owner = hmac({ purpose: 'operation_id', ...IDENTITY, scope: 'account:acct_alex' }).slice(0, 10);
    expect(ops.operationId('exc', IDENTITY, 'account:acct_alex')).toBe(`exc_${action}${owner}`);
  });

  it('returns an operation whose revision is an HMAC over what it answers, with an expiry rounded up to the window', () => {
    const { ops } = engine({ now: T0 + 1234 });
    const operationId = ops.operationId('exc', IDENTITY, 'account:acct_alex');
    const expiresAt = '2026-10-08T19:16:00Z';
    const epoch = Date.parse(expiresAt) / 1000;
    const mac = hmac({ purpose: 'revision', binding: BINDING, scope: 'account:acct_alex', operation_id: operationId, summary: SUMMARY, terms: TERMS, expires_at: expiresAt }).slice(0, 16);
    expect(operationOf(ops.decide(context(ALEX), plan()))).toEqual({ operation_id: operationId, revision: `${epoch}-a${mac}`, summary: SUMMARY, terms: TERMS, expires_at: expiresAt });
  });

  it.each([
    [30_000, '2026-10-08T19:15:30Z'],
    [1_000, '2026-10-08T19:15:02Z'],
    [0, '2026-10-08T19:15:02Z'],
    [400, '2026-10-08T19:15:02Z'],
  ])('rounds the expiry up to a window of %i ms (at least a second)', (windowMs, expiresAt) => {
    const { ops } = engine({ now: T0 + 1234, windowMs });
    expect(operationOf(ops.decide(context(ALEX), plan())).expires_at).toBe(expiresAt);
  });

  it('answers an approval of a revision it may not accept with the next window’s revision', () => {
    const { ops } = engine();
    const approval = approvalOf(ops.decide(context(ALEX), plan()));
    const again = operationOf(ops.decide(context(ALEX, approval, () => false), plan()));
    expect(again.operation_id).toBe(approval.operation_id);
    expect(again.expires_at).toBe('2026-10-08T19:16:00Z');
    expect(again.revision).toMatch(/^1791486960-a/);
    expect(again.revision).not.toBe(approval.revision);
  });
});

describe('check 3: the expiry a revision names', () => {
  it('performs with the revision it returned', () => {
    const { ops } = engine();
    const approval = approvalOf(ops.decide(context(ALEX), plan()));
    expect(performOf(ops.decide(context(ALEX, approval), plan())).expiresAt).toBe('2026-10-08T19:15:00Z');
  });

  it('refuses an expiry that is not on its window, even with a matching HMAC', () => {
    const fine = engine({ now: T0 + 1234, windowMs: 1000 });
    const approval = approvalOf(fine.ops.decide(context(ALEX), plan()));
    expect(approval.revision).toMatch(/^1791486902-a/);
    // Same secret, so the same HMAC; but this Company's window is a minute.
    expect(performOf(fine.ops.decide(context(ALEX, approval), plan())).expiresAt).toBe('2026-10-08T19:15:02Z');
    const coarse = engine({ now: T0 + 1234, windowMs: MINUTE });
    const decision = coarse.ops.decide(context(ALEX, approval), plan());
    expect(decision.kind).toBe('operation');
    expect(operationOf(decision).expires_at).toBe('2026-10-08T19:16:00Z');
  });

  it('refuses an expiry beyond now + TTL + two windows (a clock set back)', () => {
    const { ops, clock } = engine();
    const approval = approvalOf(ops.decide(context(ALEX), plan()));
    clock.ms = T0 - 2 * MINUTE - 1;
    const decision = ops.decide(context(ALEX, approval), plan());
    expect(decision.kind).toBe('operation');
    expect(operationOf(decision).expires_at).toBe('2026-10-08T19:13:00Z');
  });

  it('accepts an expiry exactly now + TTL + two windows', () => {
    const { ops, clock } = engine();
    const approval = approvalOf(ops.decide(context(ALEX), plan()));
    clock.ms = T0 - 2 * MINUTE;
    expect(performOf(ops.decide(context(ALEX, approval), plan())).expiresAt).toBe('2026-10-08T19:15:00Z');
  });

  it('refuses a revision issued with a longer TTL than its own', () => {
    const long = engine({ ttlMs: 30 * MINUTE });
    const approval = approvalOf(long.ops.decide(context(ALEX), plan()));
    expect(approval.revision).toMatch(/^1791488100-a/);
    const short = engine({ ttlMs: 10 * MINUTE });
    expect(short.ops.decide(context(ALEX, approval), plan()).kind).toBe('operation');
  });

  it('refuses a revision whose expiry has leading zeros, without throwing', () => {
    const { ops } = engine();
    const approval = approvalOf(ops.decide(context(ALEX), plan()));
    const padded = { operation_id: approval.operation_id, revision: `0${approval.revision}` };
    const decision = ops.decide(context(ALEX, padded), plan());
    expect(decision.kind).toBe('operation');
    expect(operationOf(decision).revision).toBe(approval.revision);
  });
});

describe('check 1: an account’s operation in a signed-out Session', () => {
  it('challenges a signed-out Session holding an account’s revision of this action', () => {
    const { ops } = engine();
    const approval = approvalOf(ops.decide(context(ALEX), plan()));
    expect(ops.decide(context(GUEST, approval), plan())).toEqual({ kind: 'challenge' });
  });

  it('does not challenge for another action’s operation of the same length', () => {
    const { ops } = engine();
    const other = approvalOf(ops.decide(context(ALEX), plan({ identity: { order_id: 'ord_7Hk2', item_id: 'itm_9Zz' } })));
    const decision = ops.decide(context(GUEST, other), plan());
    expect(decision.kind).toBe('operation');
    expect(operationOf(decision).operation_id).toBe(ops.operationId('exc', IDENTITY, 'session:sess_guest'));
  });

  it('does not challenge for an operation ID that only starts like this action’s', () => {
    const { ops } = engine();
    const approval = approvalOf(ops.decide(context(ALEX), plan()));
    const longer = { operation_id: `${approval.operation_id}x`, revision: approval.revision };
    expect(ops.decide(context(GUEST, longer), plan()).kind).toBe('operation');
  });

  it('challenges for an account’s performed operation whatever the revision says', async () => {
    const { ops } = engine();
    const approval = approvalOf(ops.decide(context(ALEX), plan()));
    await ops.perform(performOf(ops.decide(context(ALEX, approval), plan())));
    expect(ops.decide(context(GUEST, { operation_id: approval.operation_id, revision: 'not-a-revision' }), plan())).toEqual({ kind: 'challenge' });
  });

  it('does not challenge for another Session’s performed operation, even with an account-flagged revision', async () => {
    const { ops } = engine();
    const other: Caller = { sessionId: 'sess_other', accountId: null };
    const approval = approvalOf(ops.decide(context(other), plan()));
    await ops.perform(performOf(ops.decide(context(other, approval), plan())));
    const flagged = { operation_id: approval.operation_id, revision: approval.revision.replace('-s', '-a') };
    expect(ops.decide(context(GUEST, flagged), plan()).kind).toBe('operation');
  });
});

describe('performing at most once', () => {
  it('refuses to perform an operation already recorded', async () => {
    const { ops, performed } = engine();
    const approval = approvalOf(ops.decide(context(ALEX), plan()));
    const decision = performOf(ops.decide(context(ALEX, approval), plan()));
    const first = await ops.perform(decision);
    expect(first.connection).toBe('answer');
    expect(() => ops.perform(decision)).toThrow(new CountersignError('ERR_NOT_ALLOWED', `operation ${approval.operation_id}: already recorded, so never performed again`));
    expect(performed.get(approval.operation_id)).toBe(1);
  });

  it('forgets a perform that threw, so the operation can still be performed', async () => {
    const { ops, performed } = engine();
    const failure = new Error('database down');
    const failing = plan({
      perform: () => {
        throw failure;
      },
    });
    const approval = approvalOf(ops.decide(context(ALEX), failing));
    await expect(ops.perform(performOf(ops.decide(context(ALEX, approval), failing)))).rejects.toBe(failure);
    expect(ops.record(approval.operation_id)).toBeUndefined();
    expect(performed.has(approval.operation_id)).toBe(false);
    const done = await ops.perform(performOf(ops.decide(context(ALEX, approval), plan())));
    expect(done.record.outcome).toEqual(OUTCOME);
  });
});

describe('the drop and crash faults', () => {
  it('drops the connection of the next perform only, using the count up', async () => {
    const { ops, faults } = engine();
    faults.dropAfterPerform = 1;
    const first = approvalOf(ops.decide(context(ALEX), plan()));
    expect((await ops.perform(performOf(ops.decide(context(ALEX, first), plan())))).connection).toBe('drop');
    expect(faults.dropAfterPerform).toBe(0);
    const second = approvalOf(ops.decide(context(ALEX), plan({ identity: { order_id: 'ord_7Hk2', item_id: 'itm_9Zz' } })));
    const performed = await ops.perform(performOf(ops.decide(context(ALEX, second), plan({ identity: { order_id: 'ord_7Hk2', item_id: 'itm_9Zz' } }))));
    expect(performed.connection).toBe('answer');
    expect(performed.record.status).toBe('performed');
  });

  /** An approved exchange performed with the crash fault armed for five seconds of "unknown". */
  async function crashed() {
    vi.useFakeTimers({ now: T0 });
    const { ops, faults } = engine();
    faults.crashAfterPerform = 1;
    faults.crashUnknownMs = 5000;
    const approval = approvalOf(ops.decide(context(ALEX), plan()));
    const performed = await ops.perform(performOf(ops.decide(context(ALEX, approval), plan())));
    return { ops, faults, approval, performed };
  }

  it('after a crash, does not know for crashUnknownMs whether the action took effect', async () => {
    const { ops, faults, approval, performed } = await crashed();
    expect(performed.connection).toBe('crash');
    expect(faults.crashAfterPerform).toBe(0);
    expect(performed.record.status).toBe('unknown');
    expect(performed.record.busyUntil).toBe(Date.now() + 5000);
    expect(ops.decide(context(ALEX, approval), plan())).toMatchObject({ kind: 'busy', retryAfterSeconds: 5 });
    vi.advanceTimersByTime(5000);
    expect(performed.record.status).toBe('performed');
    await expect(performed.record.settled).resolves.toBeUndefined();
    expect(ops.decide(context(ALEX, approval), plan())).toMatchObject({ kind: 'performed', record: { outcome: OUTCOME } });
  });

  it('crashes without an unknown period when crashUnknownMs is 0', async () => {
    const { ops, faults } = engine();
    faults.crashAfterPerform = 1;
    const approval = approvalOf(ops.decide(context(ALEX), plan()));
    const performed = await ops.perform(performOf(ops.decide(context(ALEX, approval), plan())));
    expect(performed.connection).toBe('crash');
    expect(performed.record.status).toBe('performed');
  });

  it('stops the crash fault’s timers when it closes', async () => {
    const { ops, performed } = await crashed();
    expect(vi.getTimerCount()).toBe(1);
    ops.close();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(10_000);
    expect(performed.record.status).toBe('unknown');
  });
});

describe('spec-breaking switches of the engine', () => {
  it('any-session-approves: a signed-in Session still gets its account’s operation', () => {
    const { ops } = engine({ breaks: ['any-session-approves'] });
    const operation = operationOf(ops.decide(context(ALEX), plan()));
    expect(operation.operation_id).toBe(ops.operationId('exc', IDENTITY, 'account:acct_alex'));
    expect(operation.revision).toMatch(/^1791486900-a/);
  });

  it('any-session-approves: signed-out Sessions share one operation', () => {
    const { ops } = engine({ breaks: ['any-session-approves'] });
    const approval = approvalOf(ops.decide(context(GUEST), plan()));
    expect(approval.operation_id).toBe(ops.operationId('exc', IDENTITY, 'session:*'));
    expect(approval.revision).toMatch(/^1791486900-s/);
    const other: Caller = { sessionId: 'sess_other', accountId: null };
    expect(performOf(ops.decide(context(other, approval), plan())).scope).toBe('session:*');
  });

  it('echo-named-revision: echoes a named revision with its own expiry', () => {
    const { ops } = engine({ breaks: ['echo-named-revision'] });
    const operationId = ops.operationId('exc', IDENTITY, 'account:acct_alex');
    const revision = '1791487200-aAAAAAAAAAAAAAAAA';
    expect(operationOf(ops.decide(context(ALEX, { operation_id: operationId, revision }), plan()))).toEqual({
      operation_id: operationId,
      revision,
      summary: SUMMARY,
      terms: TERMS,
      expires_at: '2026-10-08T19:20:00Z',
    });
  });

  it('echo-named-revision: echoes a named revision without an expiry with the issued expiry', () => {
    const { ops } = engine({ breaks: ['echo-named-revision'] });
    const operationId = ops.operationId('exc', IDENTITY, 'account:acct_alex');
    expect(operationOf(ops.decide(context(ALEX, { operation_id: operationId, revision: 'not-a-revision' }), plan()))).toEqual({
      operation_id: operationId,
      revision: 'not-a-revision',
      summary: SUMMARY,
      terms: TERMS,
      expires_at: '2026-10-08T19:15:00Z',
    });
  });

  it('forget-early: forgets a performed operation exactly FORGET_EARLY_MS after its perform', async () => {
    const { ops, clock } = engine({ breaks: ['forget-early'] });
    const approval = approvalOf(ops.decide(context(ALEX), plan()));
    await ops.perform(performOf(ops.decide(context(ALEX, approval), plan())));
    clock.ms = T0 + FORGET_EARLY_MS - 1;
    expect(ops.record(approval.operation_id)?.status).toBe('performed');
    clock.ms = T0 + FORGET_EARLY_MS;
    expect(ops.record(approval.operation_id)).toBeUndefined();
  });

  it('start-before-approval: starts an action that has something to start, and returns the others’ operations', () => {
    const { ops } = engine({ breaks: ['start-before-approval'] });
    const started: string[] = [];
    expect(ops.decide(context(ALEX), plan({ startEarly: () => started.push('pending exchange') })).kind).toBe('operation');
    expect(started).toEqual(['pending exchange']);
    expect(operationOf(ops.decide(context(ALEX), plan())).operation_id).toBe(ops.operationId('exc', IDENTITY, 'account:acct_alex'));
  });
});

describe('an approval the engine cannot read', () => {
  it('handles a signed-out Session’s approval of an unknown account operation with a malformed revision as no approval', () => {
    const { ops } = engine();
    const accountOperation = ops.operationId('exc', IDENTITY, 'account:acct_alex');
    const decision = ops.decide(context(GUEST, { operation_id: accountOperation, revision: 'not-a-revision' }), plan());
    expect(decision.kind).toBe('operation');
  });
});

describe('while an action is being performed', () => {
  it('answers a second approval with busy until the perform is expected to end', async () => {
    const { ops, faults } = engine();
    faults.holdPerformMs = 5000;
    const approval = approvalOf(ops.decide(context(ALEX), plan()));
    const performing = ops.perform(performOf(ops.decide(context(ALEX, approval), plan())));
    expect(ops.record(ops.operationId('exc', IDENTITY, 'account:acct_alex'))?.status).toBe('performing');
    expect(ops.decide(context(ALEX, approval), plan())).toMatchObject({ kind: 'busy', retryAfterSeconds: 5 });
    ops.close();
    await Promise.race([performing, new Promise((resolve) => setTimeout(resolve, 10))]);
  });
});
