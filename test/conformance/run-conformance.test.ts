import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompany, SPEC_BREAKS, type Company, type SpecBreak } from '../../src/company/index';
import { CHECKS } from '../../src/conformance/checks/index';
import { runConformance, type ConformanceReport } from '../../src/conformance/run-conformance';
import { parseScenario, type Scenario } from '../../src/conformance/scenario';

/**
 * The proof that the kit catches what it claims: against the reference Company it finds every
 * sentence holding, and against the Company with one spec-breaking switch on it reports exactly
 * that switch's sentence as broken, no other (docs/conformance.md, "How the kit is tested").
 * The scenario is the one docs/conformance.md documents, with shorter conversation waits.
 */

const SCENARIO_FILE = new URL('../../docs/conformance/reference-company.json', import.meta.url);

/** Each switch of the reference Company and the one check that must report it. */
export const EXPECTED: Record<SpecBreak, string> = {
  'perform-twice-concurrently': '7-at-most-once-concurrent',
  'same-revision-for-new-terms': '3-revision-per-terms',
  'echo-named-revision': '6-not-the-named-revision',
  'operations-without-declaration': '2-not-undeclared',
  'refuse-unknown-approval-members': '6-unknown-members',
  'token-as-string': '6-members-are-strings',
  'replay-error': '7-first-response',
  'forget-early': '7-remembers-until-expiry',
  'fail-while-performing': '7-not-failed-while-performing',
  'new-operation-id-for-new-terms': '3-operation-id-same',
  'accept-expired-revision': '6-check-3-expired',
  'any-session-approves': '3-signed-out-one-session',
  'accept-other-interface-revision': '6-check-3-same-interface',
  'start-before-approval': '3-not-before-approval',
  'mcp-error-without-declaration': '2-mcp-tool-error',
  'text-approves': '6-text-approves-nothing',
  'approval-required-401': '4-api-403',
  'lock-per-revision': '3-at-most-once-any-revision',
  'reply-to-repeated-approval': '7-first-response',
  'reuse-operation-id-after-perform': '3-operation-id-one-action',
  'lenient-declaration': '2-not-undeclared',
  'exact-version-only': '2-returns-operations',
  'hold-before-approval': '3-not-before-approval',
  'mcp-approval-as-rpc-error': '4-mcp-error-result',
  'echo-expired-revision': '6-not-the-named-revision',
  'date-member-only-last': '6-unknown-members',
};

function scenario(): Scenario {
  const parsed = parseScenario(readFileSync(SCENARIO_FILE, 'utf8'), 'docs/conformance/reference-company.json');
  // The reference Company Agent answers before its POST returns, so a short reply timeout loses nothing; it is still
  // longer than the late reply of reply-to-repeated-approval (LATE_REPLY_MS), which the kit must wait for.
  return { ...parsed, conversation: parsed.conversation === undefined ? undefined : { ...parsed.conversation, quietMs: 50, replyTimeoutMs: 2_500 } };
}

async function runAgainst(breaks: SpecBreak[], given: Scenario = scenario()): Promise<ConformanceReport> {
  const company: Company = await createCompany({ testing: true });
  try {
    for (const name of breaks) company.faults.breaks.add(name);
    return await runConformance({ company: company.url, scenario: given });
  } finally {
    await company.close();
  }
}

function broken(report: ConformanceReport): string[] {
  return report.checks.filter((c) => c.status === 'breaks').map((c) => c.id);
}

function notHolding(report: ConformanceReport): string {
  return report.checks
    .filter((c) => c.status !== 'holds')
    .map((c) => `${c.id}: ${c.status} ${c.findings.map((f) => `${f.interface ?? ''} ${f.reason ?? f.evidence.map((e) => e.why).join('; ')}`).join(' | ')}`)
    .join('\n');
}

describe('countersign conformance against the reference Company', () => {
  const reports = new Map<SpecBreak | 'none', ConformanceReport>();
  let bare: ConformanceReport;

  beforeAll(async () => {
    // One Company per run, all at once: the runs share nothing but the event loop.
    const names = ['none', ...SPEC_BREAKS] as const;
    // And once with a scenario that gives the kit no help: no outcome reader, no account, no hooks.
    const { outcome: _outcome, account: _account, cooperation: _cooperation, ...withoutHelp } = scenario();
    const results = await Promise.all([...names.map((name) => runAgainst(name === 'none' ? [] : [name])), runAgainst([], withoutHelp)]);
    names.forEach((name, i) => reports.set(name, results[i] as ConformanceReport));
    bare = results.at(-1) as ConformanceReport;
  }, 900_000);

  afterAll(() => reports.clear());

  it('every check holds on every interface the scenario names (nothing "not exercised")', () => {
    const report = reports.get('none') as ConformanceReport;
    expect(notHolding(report)).toBe('');
    expect(report.checks.map((c) => c.id)).toEqual(CHECKS.map((c) => c.id));
    expect(report.summary).toEqual({ holds: CHECKS.length, breaks: 0, not_exercised: 0, error: 0 });
  });

  it('without the hooks, what needs them is "not exercised" with the reason, never "holds", and nothing breaks', () => {
    const status = Object.fromEntries(bare.checks.map((c) => [c.id, c.status]));
    for (const id of ['3-revision-per-expiry', '6-check-3-expired', '7-remembers-until-expiry', '7-after-forgetting', '7-not-failed-while-performing', '3-not-before-approval', '3-at-most-once-any-revision', '7-at-most-once-retries', '7-at-most-once-concurrent', '3-account-any-session', '3-signed-out-challenge', '6-text-approves-nothing']) {
      expect(status[id], id).toBe('not_exercised');
      const reasons = bare.checks.find((c) => c.id === id)?.findings.map((f) => f.reason) ?? [];
      expect(reasons.every((r) => typeof r === 'string' && /scenario/.test(r)), `${id}: ${reasons.join(' | ')}`).toBe(true);
    }
    expect(bare.summary.breaks).toBe(0);
    expect(bare.summary.error).toBe(0);
    expect(bare.summary.holds).toBeGreaterThan(15);
  });

  it('has a check for every spec-breaking switch of the reference Company, and at least 12 switches', () => {
    expect(SPEC_BREAKS.length).toBeGreaterThanOrEqual(12);
    expect(Object.keys(EXPECTED).sort()).toEqual([...SPEC_BREAKS].sort());
    for (const id of Object.values(EXPECTED)) expect(CHECKS.map((c) => c.id)).toContain(id);
  });

  for (const name of SPEC_BREAKS) {
    it(`switch ${name}: the kit reports exactly "${EXPECTED[name]}" as broken, with evidence`, () => {
      const report = reports.get(name) as ConformanceReport;
      expect(broken(report), notHolding(report)).toEqual([EXPECTED[name]]);
      const check = report.checks.find((c) => c.id === EXPECTED[name]);
      const evidence = check?.findings.flatMap((f) => f.evidence) ?? [];
      expect(evidence.length).toBeGreaterThan(0);
      expect(evidence.every((e) => e.why !== '' && e.exchanges.length > 0)).toBe(true);
      expect(report.summary.error).toBe(0);
    });
  }
});
