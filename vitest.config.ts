import { defineConfig } from 'vitest/config';

/**
 * Suites that start third-party programs (coding-agent CLIs, MCP clients, agent SDKs, npm) wait on
 * those programs' own time-outs and start-up; beside other files on a two-core machine they miss
 * them. They run one file at a time after everything else, which runs two files at once (Vitest's
 * default is one fewer than the cores: one, here).
 */
const PROGRAM_SUITES = ['test/coding-agents/**/*.test.ts', 'test/mcp-clients/**/*.test.ts', 'test/agent-sdks/**/*.test.ts', 'test/package/**/*.test.ts'];

// Unit tests run in Node by default; a DOM test opts into jsdom with
// `// @vitest-environment jsdom` (never happy-dom: it lets scripts through DOMPurify).
export default defineConfig({
  // `countersign/agent` resolves to src/ in tests, no build needed (scripts/build-package.mjs).
  ssr: { resolve: { conditions: ['countersign-source'] } },
  test: {
    exclude: ['test/e2e/**', 'node_modules/**'],
    environment: 'node',
    testTimeout: 20_000,
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: ['test/e2e/**', 'node_modules/**', ...PROGRAM_SUITES], maxWorkers: 2, sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: { name: 'programs', include: PROGRAM_SUITES, fileParallelism: false, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
