// @ts-check
/**
 * `npm run mutation`: StrykerJS over the security-critical code (README "Tests"; survivors and
 * why they are left are in docs/mutation-testing.md). Not part of CI: a full run takes a while.
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts' },
  coverageAnalysis: 'perTest',
  mutate: [
    'src/protocol/decision.ts',
    'src/review/**/*.ts',
    'src/summary/**/*.ts',
    'src/extension/approval-queue.ts',
    'src/extension/approval-state.ts',
    'src/company/operations.ts',
    // Pure data, left out: the UTS #39 look-alike tables, which their tests re-derive from
    // test/fixtures/unicode and compare whole (a mutated entry is a data error, caught there),
    '!src/summary/lookalikes.ts',
    '!src/summary/name-lookalikes.ts',
    // and the English sentence templates (message-text.ts, which turns them into messages, is mutated).
    '!src/summary/messages.ts',
    '!src/review/messages.ts',
    // Declarations and re-exports only.
    '!src/**/*.d.ts',
    '!src/review/index.ts',
    '!src/summary/index.ts',
    '!src/review/types.ts',
  ],
  // A static mutant (a module-level constant) is covered by no test in particular, so "perTest"
  // would run every test for it; they are reported as ignored instead of costing a full run each.
  ignoreStatic: true,
  incremental: true,
  incrementalFile: 'reports/mutation/stryker-incremental.json',
  reporters: ['clear-text', 'progress', 'json'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
  // 2 cores, shared: keep this at 1 or 2.
  concurrency: 2,
  tempDirName: '.stryker-tmp',
  timeoutMS: 10_000,
};
