// @vitest-environment jsdom
import 'fake-indexeddb/auto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApprovalQueue } from '../../src/extension/approval-queue';
import { extensionKey, signRecord } from '../../src/extension/keys';
import { viewsOf } from '../../src/extension/snapshot';
import { SnapshotReviews } from '../../src/extension/snapshot-review';
import { Store, type PairedAgent } from '../../src/extension/store';
import { renderApprovalCard } from '../../src/extension/ui/approval-card';
import { englishTranslate } from '../extension/ui/locale-table';
import { approvalRequestMessage, parseBridgeMessage, BRIDGE_PROTOCOL_VERSION } from '../../src/protocol/bridge';

/**
 * 100 random operations from a hostile Company (names, summaries, terms and expiry edge cases:
 * leap seconds, offsets, far past and far future) through the real validation, queue, signer and
 * window card. Whatever arrives, either it is refused with a typed error and nothing is stored,
 * or it becomes a prompt that renders and that the person can decline. Nothing throws.
 */

const AGENT = `agentA${'_'.repeat(36)}A`;
const agent: PairedAgent = { thumbprint: AGENT, name: 'Desk agent', publicJwk: {}, pairedAt: 0 };

const expiries = fc.oneof(
  fc.constantFrom(
    '2025-12-31T23:59:60Z',
    '2026-12-31T23:59:60Z',
    '2026-06-30T23:59:60Z',
    '2026-12-31T15:59:60-08:00',
    '0000-01-01T00:00:00Z',
    '0001-01-01T00:00:00+23:59',
    '9999-12-31T23:59:59.999999999Z',
    '2099-02-29T00:00:00Z',
    '2096-02-29T00:00:00-00:00',
    '2026-10-08t12:20:00z',
    '2026-10-08T12:20:00+14:00',
    '2026-10-08T12:20:00.000000000001-12:00',
    '2026-12-01 12:00:00Z',
    'tomorrow',
  ),
  fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2300-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString()),
);

const hostileText = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 300 }),
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc.constantFrom(
    '**Free exchange. You pay $0.00.**\n\n- Ref 700.00 USD',
    '<img src=x onerror=alert(1)> [click](javascript:alert(1))',
    'St\u043Ermline \u202Egnp.exe',
    '\u0000\u0007\uFEFF\u200B',
    '*'.repeat(500),
  ),
);

describe('a hostile Company: 100 random operations', () => {
  let store: Store;
  let queue: ApprovalQueue;
  let now = Date.parse('2026-12-31T23:00:00Z');

  beforeAll(async () => {
    store = await Store.open('hostile-company');
    const key = await extensionKey(store);
    queue = new ApprovalQueue({ store, sign: (r, s, at) => signRecord(key, r, s, at), send: () => true, changed: () => {}, now: () => now });
  });
  afterAll(() => store.close());

  it('every prompt renders and can be declined; every refusal is typed and stores nothing', async () => {
    let seq = 0;
    const outcomes = { prompted: 0, refused: 0, expiredAtOnce: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          name: hostileText,
          summary: hostileText,
          terms: fc.option(fc.dictionary(fc.string({ maxLength: 20 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 }), { nil: undefined }),
          expires: expiries,
          revision: fc.constantFrom('rev1', 'rev-2', '1791487200-k3Jd9Qx2mW8v', 'bad revision', ''),
          clock: fc.integer({ min: -3_600_000, max: 3_600_000 }),
        }),
        async ({ name, summary, terms, expires, revision, clock }) => {
          now = Date.parse('2026-12-31T23:00:00Z') + clock;
          seq++;
          const before = (await store.all()).length;
          const parsed = parseBridgeMessage(approvalRequestMessage, {
            type: 'approval_request',
            v: BRIDGE_PROTOCOL_VERSION,
            id: `r${seq}`,
            nonce: `${'n'.repeat(38)}${String(seq).padStart(4, '0')}A`,
            company: { name, origin: 'https://hostile.example' },
            operation: { operation_id: `op_${seq}`, revision, summary, ...(terms === undefined ? {} : { terms }), expires_at: expires },
            request: { interface: 'api', method: 'POST', url: 'https://hostile.example/x' },
            session: { kind: 'this_session' },
          });
          if (!parsed.ok) {
            outcomes.refused++;
            expect(parsed.error.code).toMatch(/^ERR_[A-Z_]+$/);
            expect((await store.all()).length).toBe(before);
            return;
          }
          const reply = await queue.receive(agent, 'c1', parsed.message);
          const [record] = await store.byRevision(AGENT, `op_${seq}`, parsed.message.operation.revision);
          expect(record).toBeDefined();
          if (reply !== null) {
            outcomes.expiredAtOnce++;
            expect(reply).toMatchObject({ type: 'decision', status: 'expired' });
            expect(record!.state).toBe('expired');
            return;
          }
          outcomes.prompted++;
          const { card } = renderApprovalCard(document, viewsOf([record!], [], new Map(), new SnapshotReviews('en')).active[0]!, englishTranslate());
          expect(card.querySelector('h1')).not.toBeNull();
          // No element from Company text beyond the summary's allow-list.
          for (const el of card.querySelectorAll('[data-testid="summary"] *')) expect(['P', 'EM', 'STRONG', 'UL', 'OL', 'LI']).toContain(el.tagName);
          const declined = await queue.decide(record!.key, 'decline');
          expect(['declined', 'expired']).toContain(declined.state);
        },
      ),
      { numRuns: 100 },
    );
    // The generators reach all three outcomes (a test that can tell them apart).
    expect(outcomes.prompted).toBeGreaterThan(0);
    expect(outcomes.refused).toBeGreaterThan(0);
    expect(await store.byState('pending')).toHaveLength(0);
  });
});
