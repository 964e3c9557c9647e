import { defineConfig } from 'vitest/config';

// Unit tests run in Node by default; a DOM test opts into jsdom with
// `// @vitest-environment jsdom` (never happy-dom: it lets scripts through DOMPurify).
export default defineConfig({
  // `countersign/agent` resolves to src/ in tests, no build needed (scripts/build-package.mjs).
  ssr: { resolve: { conditions: ['countersign-source'] } },
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/e2e/**', 'node_modules/**'],
    environment: 'node',
    testTimeout: 20_000,
  },
});
