import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PERFORM_JOURNAL_FILE, PerformJournal, isCountersignError, performApi, performConversation, performTool, performWithApproval, type PerformResult } from '../../src/agent/index';
import type { ApiResponse } from '../../src/agent/interfaces/api';
import { retryAfterMs } from '../../src/agent/interfaces/common';
import { FakeCompanion } from '../conformance/support/fake-companion';
import {
  ALEX,
  Clock,
  EXCHANGE_L,
  EXCHANGE_M,
  EXCHANGE_PATH,
  SIGNED_IN,
  TOOL_ARGS,
  approvalRequests,
  recordingFetch,
  referenceFindOutcome,
  startCompany,
  tempDir,
} from '../conformance/support/reference';
import { rejection } from './harness';

/**
 * perform* against the reference Company on a real port, with an in-process stand-in for the
 * Companion (the person is a function): the engine's paths one by one. The conformance suite
 * (test/conformance) runs the same code with the real Companion, bridge and extension services.
 */

const FAST = { attempts: 4, timeoutMs: 2_000, backoffMs: 5, maxBackoffMs: 20, maxRetryAfterMs: 30 };

async function setup(options: { clock?: Clock } = {}) {
  const company = await startCompany(options.clock ? { now: options.clock.now } : {});
  const dir = await tempDir();
  const companion = new FakeCompanion(() => 'approve');
  const journal = await PerformJournal.open(dir);
  return { company, dir, companion, journal };
}

function api(company: { url: string }, body: Record<string, unknown> = EXCHANGE_M) {
  return { method: 'POST', url: `${company.url}${EXCHANGE_PATH}`, body, headers: { ...ALEX, 'Idempotency-Key': 'first-key-1' } };
}

function performed(result: PerformResult<unknown>): asserts result is Extract<PerformResult<unknown>, { status: 'performed' }> {
  expect(result.status).toBe('performed');
}

describe('performApi', () => {
  it('asks, marks sent, sends the same request with Poppy-Approval and its own Idempotency-Key, reports performed', async () => {
    const { company, companion, journal } = await setup();
    const { fetch, seen } = recordingFetch();
    const result = await performApi({ companion, journal, company: { origin: company.url }, session: SIGNED_IN, request: api(company), fetch, retry: FAST });
    performed(result);
    expect(result.confirmedBy).toBe('response');
    expect((result.response as ApiResponse).status).toBe(200);
    expect((result.response as ApiResponse).body).toMatchObject({ exchange: { status: 'completed', order_id: 'ord_7Hk2' } });
    expect(company.state.performed.get(result.operation.operation_id)).toBe(1);

    expect(seen.map((s) => `${s.method} ${new URL(s.url).pathname}`)).toEqual(['GET /.well-known/poppy.json', `POST ${EXCHANGE_PATH}`, `POST ${EXCHANGE_PATH}`]);
    const [, first, second] = seen;
    expect(first!.headers['poppy-extensions']).toBe('"operations";v="2"');
    expect(first!.headers['poppy-approval']).toBeUndefined();
    expect(first!.headers['idempotency-key']).toBe('first-key-1');
    expect(second!.headers['poppy-approval']).toBe(`operation_id="${result.operation.operation_id}", revision="${result.operation.revision}"`);
    expect(second!.body).toBe(first!.body);
    expect(second!.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(second!.headers['idempotency-key']).not.toBe('first-key-1');
    expect(second!.headers['authorization']).toBe('Bearer tok_alex');

    expect(companion.prompts).toHaveLength(1);
    expect(companion.prompts[0]!.input.company).toEqual({ name: 'Stormline Outfitters', origin: company.url });
    expect(companion.prompts[0]!.input.request).toEqual({ interface: 'api', method: 'POST', url: `${company.url}${EXCHANGE_PATH}`, body: EXCHANGE_M });
    expect(companion.sent).toEqual([result.approval]);
    expect(companion.outcomes).toEqual([expect.objectContaining({ ...result.approval, outcome: 'performed' })]);
    expect(journal.get(company.url, result.operation.operation_id)).toMatchObject({ state: 'performed', interface: 'api' });
  });

  it('approvalIdempotencyKey "none": the request with the approval carries no Idempotency-Key', async () => {
    const { company, companion, journal } = await setup();
    const { fetch, seen } = recordingFetch();
    performed(await performApi({ companion, journal, company: { origin: company.url }, session: SIGNED_IN, request: api(company), fetch, retry: FAST, approvalIdempotencyKey: 'none' }));
    expect(approvalRequests(seen)[0]!.headers['idempotency-key']).toBeUndefined();
  });

  it('a Company whose poppy.json does not list v2: no Poppy-Extensions, no prompt, the Company answers itself', async () => {
    const { company, companion, journal } = await setup();
    const { fetch, seen } = recordingFetch();
    const result = await performApi({
      companion,
      journal,
      company: { origin: company.url },
      poppyJson: { organization: { name: 'Stormline Outfitters' }, extensions: { operations: [{ version: '1' }] } },
      session: SIGNED_IN,
      request: api(company),
      fetch,
      retry: FAST,
    });
    expect(result).toMatchObject({ status: 'answered', extension: false, response: { status: 400, body: { error: 'extension_required', extension: 'operations' } } });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.headers['poppy-extensions']).toBeUndefined();
    expect(companion.prompts).toHaveLength(0);
  });

  it('declined: nothing is sent, nothing journaled', async () => {
    const { company, companion, journal } = await setup();
    companion.decide = () => 'decline';
    const { fetch, seen } = recordingFetch();
    const result = await performApi({ companion, journal, company: { origin: company.url }, session: SIGNED_IN, request: api(company), fetch, retry: FAST });
    expect(result.status).toBe('declined');
    expect(approvalRequests(seen)).toHaveLength(0);
    expect(journal.all()).toEqual([]);
    expect([...company.state.performed.values()]).toEqual([]);
  });

  it('withdrawn before it was sent: markSent is false and nothing is sent', async () => {
    const { company, companion, journal } = await setup();
    companion.decide = (input) => {
      // The person approves, then withdraws before the agent sends.
      queueMicrotask(() => companion.withdraw({ operation_id: input.operation.operation_id, revision: input.operation.revision }));
      return 'approve';
    };
    const { fetch, seen } = recordingFetch();
    const result = await performApi({ companion, journal, company: { origin: company.url }, session: SIGNED_IN, request: api(company), fetch, retry: FAST });
    expect(result.status).toBe('withdrawn');
    expect(approvalRequests(seen)).toHaveLength(0);
    expect(companion.sent).toEqual([]);
    expect([...company.state.performed.values()]).toEqual([]);
  });

  it('the response is dropped after performing: the same approval again gets the first response; performed once', async () => {
    const { company, companion, journal } = await setup();
    company.faults.dropAfterPerform = 1;
    const { fetch, seen } = recordingFetch();
    const result = await performApi({ companion, journal, company: { origin: company.url }, session: SIGNED_IN, request: api(company), fetch, retry: FAST });
    performed(result);
    const sends = approvalRequests(seen);
    expect(sends).toHaveLength(2);
    expect(sends[1]!.headers['poppy-approval']).toBe(sends[0]!.headers['poppy-approval']);
    expect(sends[1]!.headers['idempotency-key']).toBe(sends[0]!.headers['idempotency-key']);
    expect(sends[1]!.body).toBe(sends[0]!.body);
    expect(company.state.performed.get(result.operation.operation_id)).toBe(1);
    expect(companion.prompts).toHaveLength(1);
  });

  it('a slow answer after the client gave up: retried, performed once', async () => {
    const { company, companion, journal } = await setup();
    const { fetch, seen } = recordingFetch({
      before: (s) => {
        if (s.headers['poppy-approval'] !== undefined && approvalRequests(seen).length === 1) company.faults.delayMs = 400;
        else company.faults.delayMs = 0;
      },
    });
    const result = await performApi({ companion, journal, company: { origin: company.url }, session: SIGNED_IN, request: api(company), fetch, retry: { ...FAST, timeoutMs: 150 } });
    performed(result);
    expect(approvalRequests(seen).length).toBeGreaterThanOrEqual(2);
    expect(company.state.performed.get(result.operation.operation_id)).toBe(1);
  });

  it('503 with Retry-After while it is being performed: honoured up to the cap, then the first response', async () => {
    const { company, companion, journal } = await setup();
    company.faults.holdPerformMs = 250;
    const { fetch, seen } = recordingFetch();
    const progress: string[] = [];
    const result = await performApi({
      companion,
      journal,
      company: { origin: company.url },
      session: SIGNED_IN,
      request: api(company),
      fetch,
      retry: { attempts: 20, timeoutMs: 60, backoffMs: 5, maxBackoffMs: 10, maxRetryAfterMs: 40 },
      onProgress: (e) => {
        if (e.step === 'retry') progress.push(e.detail ?? '');
      },
    });
    performed(result);
    expect(seen.some((s) => s.status === 503)).toBe(true);
    // Retry-After: 1 from the Company, capped at 40 ms.
    expect(progress.some((d) => /HTTP 503; again in 40 ms/.test(d))).toBe(true);
    expect(company.state.performed.get(result.operation.operation_id)).toBe(1);
  });

  it('Retry-After is honoured when under the cap', async () => {
    const { company, companion, journal } = await setup();
    let served = false;
    const { fetch } = recordingFetch({
      after: (s) => {
        if (s.headers['poppy-approval'] !== undefined && !served) {
          served = true;
          return new Response(JSON.stringify({ error: 'operation_in_progress' }), { status: 503, headers: { 'Retry-After': '1', 'Content-Type': 'application/json' } });
        }
      },
    });
    const started = Date.now();
    const result = await performApi({ companion, journal, company: { origin: company.url }, session: SIGNED_IN, request: api(company), fetch, retry: { ...FAST, maxRetryAfterMs: 5_000 } });
    performed(result);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(retryAfterMs('2')).toBe(2000);
    expect(retryAfterMs(new Date(Date.now() + 3000).toUTCString())).toBeGreaterThan(1000);
    expect(retryAfterMs('soon')).toBeUndefined();
  });

  it('the Company crashes between performing and answering, then says 503 while it does not know: performed once', async () => {
    const { company, companion, journal } = await setup();
    company.faults.crashAfterPerform = 1;
    company.faults.crashUnknownMs = 120;
    const { fetch, seen } = recordingFetch();
    const result = await performApi({ companion, journal, company: { origin: company.url }, session: SIGNED_IN, request: api(company), fetch, retry: { ...FAST, attempts: 20 } });
    performed(result);
    expect(seen.some((s) => s.error !== undefined)).toBe(true);
    expect(company.state.performed.get(result.operation.operation_id)).toBe(1);
  });

  it('a new revision in answer to the approval (check 3 failed) is not performed: reported new_revision; the next call asks about it', async () => {
    const clock = new Clock();
    const { company, companion, journal } = await setup({ clock });
    // The person takes 20 minutes: the revision expires before it is sent.
    companion.decide = () => {
      clock.advance(20 * 60_000);
      return 'approve';
    };
    let asked = 0;
    const findOutcome = async () => {
      asked += 1;
      return undefined;
    };
    const first = await performApi({ companion, journal, company: { origin: company.url }, session: SIGNED_IN, request: api(company), retry: FAST, findOutcome });
    expect(first.status).toBe('new_revision');
    if (first.status !== 'new_revision') return;
    expect(first.operation.operation_id).toBe(first.previous.operation_id);
    expect(first.operation.revision).not.toBe(first.previous.revision);
    // Unambiguous (the one attempt was answered): no need to find out.
    expect(asked).toBe(0);
    expect(companion.outcomes.at(-1)).toMatchObject({ revision: first.previous.revision, outcome: 'new_revision' });
    expect(company.state.performed.size).toBe(0);

    companion.decide = () => 'approve';
    const second = await performApi({ companion, journal, company: { origin: company.url }, session: SIGNED_IN, request: api(company), retry: FAST, findOutcome });
    performed(second);
    expect(companion.prompts).toHaveLength(2);
    expect(companion.violations).toEqual([]);
    expect(company.state.performed.get(second.operation.operation_id)).toBe(1);
  });

  it('a new revision after an attempt that may have been performed: findOutcome decides (performed: the new revision is never asked about)', async () => {
    const { company, companion, journal } = await setup();
    let sends = 0;
    const { fetch } = recordingFetch({
      after: async (s, response) => {
        if (s.headers['poppy-approval'] === undefined) return;
        sends += 1;
        if (sends === 1) throw new TypeError('fetch failed (answer lost)');
        // A Company that has forgotten the performed operation answers the retry with a new revision.
        const body = (await response.json()) as { exchange: unknown };
        expect(body.exchange).toBeDefined();
        return new Response(JSON.stringify({ error: 'approval_required', operation: { ...(await currentOperation()), revision: 'forgotten-rev-2' } }), { status: 403, headers: { 'Content-Type': 'application/json' } });
      },
    });
    let op: Record<string, unknown> = {};
    const currentOperation = async () => op;
    companion.decide = (input) => {
      op = { ...input.operation };
      return 'approve';
    };
    const result = await performApi({ companion, journal, company: { origin: company.url }, session: SIGNED_IN, request: api(company), fetch, retry: FAST, findOutcome: referenceFindOutcome(company) });
    performed(result);
    expect(result.confirmedBy).toBe('find_outcome');
    expect(result.evidence).toMatchObject({ operation_id: result.operation.operation_id });
    expect(companion.prompts).toHaveLength(1);
    expect(companion.outcomes.at(-1)).toMatchObject({ outcome: 'performed' });
  });

  it('a new revision after an attempt that may have been performed, and findOutcome says it was not: new_revision', async () => {
    const clock = new Clock();
    const { company, companion, journal } = await setup({ clock });
    let sends = 0;
    const { fetch } = recordingFetch({
      before: (s) => {
        if (s.headers['poppy-approval'] === undefined) return;
        sends += 1;
        if (sends === 1) {
          // Lost on the way; by the retry the revision has expired.
          clock.advance(20 * 60_000);
          throw new TypeError('fetch failed (connection reset)');
        }
      },
    });
    const result = await performApi({ companion, journal, company: { origin: company.url }, session: SIGNED_IN, request: api(company), fetch, retry: FAST, findOutcome: referenceFindOutcome(company) });
    expect(result.status).toBe('new_revision');
    expect(companion.outcomes.at(-1)).toMatchObject({ outcome: 'new_revision' });
    expect(company.state.performed.size).toBe(0);
  });

  it('every attempt fails and nobody can tell: unknown, journaled; the next call resumes the same approval without asking', async () => {
    const { company, companion, journal } = await setup();
    let down = true;
    const { fetch, seen } = recordingFetch({
      after: (s) => {
        if (down && s.headers['poppy-approval'] !== undefined) throw new TypeError('fetch failed (answer lost)');
      },
    });
    const first = await performApi({ companion, journal, company: { origin: company.url }, session: SIGNED_IN, request: api(company), fetch, retry: FAST });
    expect(first.status).toBe('unknown');
    expect(company.state.performed.size).toBe(1);
    const entry = journal.all()[0]!;
    expect(entry).toMatchObject({ state: 'unknown' });
    expect(companion.outcomes.at(-1)).toMatchObject({ outcome: 'unknown' });

    down = false;
    const again = await performApi({ companion, journal, company: { origin: company.url }, session: SIGNED_IN, request: api(company), fetch, retry: FAST });
    performed(again);
    expect(again.resumed).toBe(true);
    expect(again.operation.revision).toBe(entry.revision);
    expect(companion.prompts).toHaveLength(1);
    const sends = approvalRequests(seen);
    expect(sends.length).toBe(FAST.attempts + 1);
    expect(new Set(sends.map((s) => s.headers['idempotency-key'])).size).toBe(1);
    expect(new Set(sends.map((s) => s.headers['poppy-approval'])).size).toBe(1);
    expect(company.state.performed.get(entry.operation_id)).toBe(1);
  });

  it('other terms for the same action while the first approval\'s outcome is unknown: that approval is resolved first, the new revision is not asked about', async () => {
    const { company, companion, journal } = await setup();
    let down = true;
    const { fetch, seen } = recordingFetch({
      before: (s) => {
        if (down && s.headers['poppy-approval'] !== undefined) throw new TypeError('fetch failed (connect ECONNRESET)');
      },
    });
    const first = await performApi({ companion, journal, company: { origin: company.url }, session: SIGNED_IN, request: api(company), fetch, retry: FAST });
    expect(first.status).toBe('unknown');
    expect(company.state.performed.size).toBe(0);

    down = false;
    // Size L now: the Company answers with the same operation_id and a new revision.
    const again = await performApi({ companion, journal, company: { origin: company.url }, session: SIGNED_IN, request: api(company, EXCHANGE_L), fetch, retry: FAST });
    performed(again);
    expect(again.resumed).toBe(true);
    expect(again.operation.terms).toMatchObject({ replacement_sku: 'stormline-insulated-m' });
    expect(companion.prompts).toHaveLength(1);
    expect(companion.violations).toEqual([]);
    expect(new Set(approvalRequests(seen).map((s) => s.body))).toEqual(new Set([JSON.stringify(EXCHANGE_M)]));
    expect(company.state.performed.get(again.operation.operation_id)).toBe(1);
  });

  it('the same action through another interface while an API approval is unknown: the API approval is resolved first (its answer in evidence), nobody is asked', async () => {
    const { company, companion, journal } = await setup();
    let down = true;
    const { fetch } = recordingFetch({
      before: (s) => {
        if (down && s.headers['poppy-approval'] !== undefined) throw new TypeError('fetch failed (connect ECONNRESET)');
      },
    });
    const first = await performApi({ companion, journal, company: { origin: company.url }, session: SIGNED_IN, request: api(company), fetch, retry: FAST });
    expect(first.status).toBe('unknown');
    down = false;
    const viaTool = await performTool({ companion, journal, company: { origin: company.url }, session: SIGNED_IN, headers: ALEX, tool: 'exchange_item', arguments: TOOL_ARGS, fetch, retry: FAST });
    performed(viaTool);
    expect(viaTool).toMatchObject({ resumed: true, evidence: { status: 200 } });
    expect('response' in viaTool).toBe(false);
    expect(companion.prompts).toHaveLength(1);
    expect([...company.state.performed.values()]).toEqual([1]);
  });

  it('the extension cannot be told before sending: unavailable, nothing sent; the next call sends without asking again', async () => {
    const { company, companion, journal } = await setup();
    const markSent = companion.markSent.bind(companion);
    companion.markSent = async () => {
      throw Object.assign(new (await import('../../src/protocol/errors')).CountersignError('ERR_COMPANION_UNAVAILABLE', 'gone'), {});
    };
    const { fetch, seen } = recordingFetch();
    const first = await performApi({ companion, journal, company: { origin: company.url }, session: SIGNED_IN, request: api(company), fetch, retry: FAST });
    expect(first.status).toBe('unavailable');
    expect(approvalRequests(seen)).toHaveLength(0);
    expect(journal.all()).toEqual([expect.objectContaining({ state: 'approved' })]);
    companion.markSent = markSent;
    performed(await performApi({ companion, journal, company: { origin: company.url }, session: SIGNED_IN, request: api(company), fetch, retry: FAST }));
    expect(companion.prompts).toHaveLength(1);
  });

  it('aborted while retrying: rejects with the reason, the approval stays journaled as sent, and the next call resumes it', async () => {
    const { company, companion, journal } = await setup();
    const controller = new AbortController();
    let down = true;
    const { fetch } = recordingFetch({
      before: (s) => {
        if (down && s.headers['poppy-approval'] !== undefined) {
          controller.abort(new Error('the agent is shutting down'));
          throw new TypeError('fetch failed');
        }
      },
    });
    const error = await rejection(performApi({ companion, journal, company: { origin: company.url }, session: SIGNED_IN, request: api(company), fetch, retry: FAST, signal: controller.signal }));
    expect((error as Error).message).toBe('the agent is shutting down');
    expect(journal.all()).toEqual([expect.objectContaining({ state: 'sent' })]);
    down = false;
    const again = await performApi({ companion, journal, company: { origin: company.url }, session: SIGNED_IN, request: api(company), fetch, retry: FAST });
    expect(again).toMatchObject({ status: 'performed', resumed: true });
    expect(companion.prompts).toHaveLength(1);
  });

  it('an approval the Companion holds but the journal only knew as asked (a crash in between) is settled as never sent before the new revision is asked', async () => {
    const clock = new Clock();
    const { company, companion, journal } = await setup({ clock });
    // The crash: the person approved revision 1, the agent died before it wrote anything more than "asked".
    const offered = await fetch(`${company.url}${EXCHANGE_PATH}`, { method: 'POST', headers: { ...ALEX, 'Poppy-Extensions': '"operations";v="2"', 'Content-Type': 'application/json' }, body: JSON.stringify(EXCHANGE_M) });
    const old = ((await offered.json()) as { operation: import('../../src/protocol/operation').Operation }).operation;
    await companion.requestApproval({ company: { name: 'Stormline Outfitters', origin: company.url }, operation: old, request: { interface: 'api', method: 'POST', url: `${company.url}${EXCHANGE_PATH}`, body: EXCHANGE_M }, session: SIGNED_IN });
    const now = Date.now();
    await journal.put({
      origin: company.url,
      company_name: 'Stormline Outfitters',
      interface: 'api',
      fingerprint: 'crashed',
      request: { interface: 'api', method: 'POST', url: `${company.url}${EXCHANGE_PATH}`, body: EXCHANGE_M },
      operation_id: old.operation_id,
      revision: old.revision,
      operation: old,
      state: 'asked',
      created_at: now,
      updated_at: now,
    });
    clock.advance(20 * 60_000);
    const result = await performApi({ companion, journal, company: { origin: company.url }, session: SIGNED_IN, request: api(company), retry: FAST });
    performed(result);
    expect(result.operation.revision).not.toBe(old.revision);
    expect(companion.outcomes[0]).toMatchObject({ revision: old.revision, outcome: 'failed' });
    expect(companion.sent).toEqual([result.approval]);
    expect(company.state.performed.get(old.operation_id)).toBe(1);
  });

  it('two calls for the same action at once: one prompt, one perform', async () => {
    const { company, companion, journal } = await setup();
    const [a, b] = await Promise.all([
      performApi({ companion, journal, company: { origin: company.url }, session: SIGNED_IN, request: api(company), retry: FAST }),
      performApi({ companion, journal, company: { origin: company.url }, session: SIGNED_IN, request: api(company), retry: FAST }),
    ]);
    expect(a.status).toBe('performed');
    // The second finds the item exchanged: the Company answers it without an operation.
    expect(b).toMatchObject({ status: 'answered', response: { status: 409 } });
    expect(companion.prompts).toHaveLength(1);
    expect([...company.state.performed.values()]).toEqual([1]);
  });

  it('refuses a caller-made Poppy-Approval and a caller declaration of operations; keeps other extensions', async () => {
    const { company, companion, journal } = await setup();
    const base = { companion, journal, company: { origin: company.url }, session: SIGNED_IN, retry: FAST };
    const forged = await rejection(performApi({ ...base, request: { ...api(company), headers: { ...ALEX, 'Poppy-Approval': 'operation_id="x", revision="y"' } } }));
    expect(isCountersignError(forged, 'ERR_ARGUMENT_INVALID')).toBe(true);
    const declared = await rejection(performApi({ ...base, request: { ...api(company), headers: { ...ALEX, 'Poppy-Extensions': '"operations";v="2"' } } }));
    expect(isCountersignError(declared, 'ERR_ARGUMENT_INVALID')).toBe(true);
    const { fetch, seen } = recordingFetch();
    performed(await performApi({ ...base, fetch, request: { ...api(company), headers: { ...ALEX, 'Poppy-Extensions': '"loyalty";v="1"' } } }));
    expect(seen[1]!.headers['poppy-extensions']).toBe('"loyalty";v="1", "operations";v="2"');
  });

  it('an unreadable poppy.json is an error, not a Company without the extension', async () => {
    const { companion, journal } = await setup();
    const error = await rejection(performApi({ companion, journal, company: { origin: 'http://127.0.0.1:9' }, session: SIGNED_IN, request: { method: 'POST', url: 'http://127.0.0.1:9/x' }, retry: { ...FAST, attempts: 1 } }));
    expect(isCountersignError(error, 'ERR_POPPY_JSON_INVALID')).toBe(true);
  });
});

describe('performTool (MCP)', () => {
  it('calls the tool, then the same tool with the same arguments and the approval in _meta', async () => {
    const { company, companion, journal } = await setup();
    const { fetch, seen } = recordingFetch();
    const result = await performTool({ companion, journal, company: { origin: company.url }, session: SIGNED_IN, headers: ALEX, tool: 'exchange_item', arguments: TOOL_ARGS, fetch, retry: FAST });
    performed(result);
    expect(result.response).toMatchObject({ structuredContent: { exchange: { status: 'completed' } } });
    const calls = seen.filter((s) => s.body?.includes('"tools/call"')).map((s) => JSON.parse(s.body!).params);
    expect(calls).toHaveLength(2);
    expect(calls[0]).toEqual({ name: 'exchange_item', arguments: TOOL_ARGS });
    expect(calls[1]).toEqual({ name: 'exchange_item', arguments: TOOL_ARGS, _meta: { 'personalagentprotocol.org/approval': result.approval } });
    for (const s of seen.filter((x) => x.url.endsWith('/mcp'))) {
      expect(s.headers['poppy-extensions']).toBe('"operations";v="2"');
      expect(s.headers['poppy-session']).toBe(ALEX['Poppy-Session']);
    }
    expect(companion.prompts[0]!.input.request).toEqual({ interface: 'mcp', server_url: `${company.url}/mcp`, tool: 'exchange_item', arguments: TOOL_ARGS });
    expect(company.state.performed.get(result.operation.operation_id)).toBe(1);
  });

  it('a dropped tool call response and 503s while performing: the same approval again; performed once', async () => {
    const { company, companion, journal } = await setup();
    company.faults.dropAfterPerform = 1;
    company.faults.holdPerformMs = 100;
    const result = await performTool({ companion, journal, company: { origin: company.url }, session: SIGNED_IN, headers: ALEX, tool: 'exchange_item', arguments: TOOL_ARGS, retry: { ...FAST, attempts: 10 } });
    performed(result);
    expect(company.state.performed.get(result.operation.operation_id)).toBe(1);
  });

  it('without the extension listed: the tool answers with an ordinary tool error, nobody is asked', async () => {
    const { company, companion, journal } = await setup();
    const result = await performTool({ companion, journal, company: { origin: company.url }, poppyJson: { organization: { name: 'Stormline Outfitters' } }, session: SIGNED_IN, headers: ALEX, serverUrl: `${company.url}/mcp`, tool: 'exchange_item', arguments: TOOL_ARGS, retry: FAST });
    expect(result).toMatchObject({ status: 'answered', extension: false, response: { isError: true } });
    expect(companion.prompts).toHaveLength(0);
  });
});

describe('performConversation', () => {
  async function conversation(company: { url: string }): Promise<string> {
    const response = await fetch(`${company.url}/conversations`, { method: 'POST', headers: { ...ALEX, 'Content-Type': 'application/json' }, body: '{}' });
    return ((await response.json()) as { id: string }).id;
  }

  it('offers, asks, sends an approval message whose text approves nothing, confirms with findOutcome', async () => {
    const { company, companion, journal } = await setup();
    const id = await conversation(company);
    const { fetch, seen } = recordingFetch();
    const result = await performConversation({
      companion,
      journal,
      company: { origin: company.url },
      session: SIGNED_IN,
      headers: ALEX,
      conversationId: id,
      message: { id: 'msg_ask_1', text: 'I want to exchange my jacket for the insulated one.' },
      findOutcome: referenceFindOutcome(company),
      fetch,
      retry: FAST,
    });
    performed(result);
    expect(result.confirmedBy).toBe('find_outcome');
    expect(result.response?.replies.map((r) => r.message?.text)).toEqual([expect.stringMatching(/^Done\./)]);
    const approval = approvalRequests(seen).map((s) => JSON.parse(s.body!));
    expect(approval).toHaveLength(1);
    expect(approval[0]).toEqual({ id: expect.stringMatching(/^msg_/), author: { type: 'agent' }, text: 'Attached: an approval (operations extension).', extensions: { operations: { approval: result.approval } } });
    expect(companion.prompts[0]!.input.request).toEqual({ interface: 'conversation', conversation_id: id });
    expect(company.state.performed.get(result.operation.operation_id)).toBe(1);
  });

  it('a dropped answer to the approval message: the same message ID again, the original response; performed once', async () => {
    const { company, companion, journal } = await setup();
    company.faults.dropAfterPerform = 1;
    const id = await conversation(company);
    const { fetch, seen } = recordingFetch();
    const result = await performConversation({
      companion,
      journal,
      company: { origin: company.url },
      session: SIGNED_IN,
      headers: ALEX,
      conversationId: id,
      message: { text: 'Can I swap my jacket for the insulated one?' },
      findOutcome: referenceFindOutcome(company),
      fetch,
      retry: FAST,
    });
    performed(result);
    const ids = approvalRequests(seen).map((s) => JSON.parse(s.body!).id);
    expect(ids).toHaveLength(2);
    expect(ids[1]).toBe(ids[0]);
    expect(company.state.performed.get(result.operation.operation_id)).toBe(1);
  });
});

describe('performWithApproval', () => {
  it('dispatches on interface, and refuses one it does not know', async () => {
    const { company, companion, journal } = await setup();
    const result = await performWithApproval({ interface: 'mcp', companion, journal, company: { origin: company.url }, session: SIGNED_IN, headers: ALEX, tool: 'exchange_item', arguments: TOOL_ARGS, retry: FAST });
    performed(result);
    const error = await rejection(performWithApproval({ interface: 'email' } as never));
    expect(isCountersignError(error, 'ERR_ARGUMENT_INVALID')).toBe(true);
  });
});

describe('the perform journal', () => {
  it('is a 0600 file in the folder, written atomically, read back by a new instance', async () => {
    const { company, companion, dir } = await setup();
    let journal = await PerformJournal.open(dir);
    performed(await performApi({ companion, journal, company: { origin: company.url }, session: SIGNED_IN, request: api(company), retry: FAST }));
    const file = path.join(dir, PERFORM_JOURNAL_FILE);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const text = await readFile(file, 'utf8');
    expect(text).not.toContain('tok_alex');
    expect(text).not.toContain('sess_alex');
    journal = await PerformJournal.open(dir);
    expect(journal.all()).toEqual([expect.objectContaining({ state: 'performed', interface: 'api', approval: expect.any(Object) })]);
  });

  it('a damaged journal is an error, not an empty one', async () => {
    const dir = await tempDir();
    await writeFile(path.join(dir, PERFORM_JOURNAL_FILE), '{"v":1,"kind":"countersign-perform-journal","entries":[{"state":"sent"}]}', { mode: 0o600 });
    expect(isCountersignError(await rejection(PerformJournal.open(dir)), 'ERR_STORAGE_FAILED')).toBe(true);
    await writeFile(path.join(dir, PERFORM_JOURNAL_FILE), 'not json', { mode: 0o600 });
    expect(isCountersignError(await rejection(PerformJournal.open(dir)), 'ERR_STORAGE_FAILED')).toBe(true);
  });
});
