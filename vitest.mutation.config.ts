import { defineConfig } from 'vitest/config';

/**
 * The unit tests that `npm run mutation` (StrykerJS, stryker.config.json) runs against each mutant
 * of the security-critical code. Stryker runs only the tests that cover a mutant (coverageAnalysis
 * "perTest"), so a slow test here is paid once per mutant it covers. Left out:
 * - the fast-check property and model tests (`properties.test.ts`, `agent-sessions.model.test.ts`,
 *   and the fast-check block of `test/summary/structure-limits.test.ts`, skipped through
 *   COUNTERSIGN_MUTATION): seconds to a minute each, for every mutant they touch;
 * - tests that start processes or depend on timing under load (`test/company/cli.test.ts`,
 *   `test/company/section7-retries.test.ts`), and `test/e2e` (Playwright);
 * - suites that do not reach the mutated files (bridge, agent, conformance, extension UI).
 * `npm run test:unit` still runs all of them.
 */
export default defineConfig({
  test: {
    include: [
      'test/review/**/*.test.ts',
      'test/summary/**/*.test.ts',
      'test/company/*.test.ts',
      'test/adversarial/**/*.test.ts',
      'test/protocol/decision.test.ts',
      'test/extension/approval-queue.test.ts',
      'test/extension/approval-state.test.ts',
      'test/extension/agent-sessions-too-large.test.ts',
      'test/extension/page-messages/**/*.test.ts',
    ],
    exclude: [
      'test/e2e/**',
      'node_modules/**',
      '**/properties.test.ts',
      'test/extension/agent-sessions.model.test.ts',
      'test/company/cli.test.ts',
      'test/company/section7-retries.test.ts',
    ],
    environment: 'node',
    testTimeout: 20_000,
    env: { COUNTERSIGN_MUTATION: '1' },
    // Stryker switches mutants at run time, so one module graph serves every run: no re-import per run.
    isolate: false,
  },
});
