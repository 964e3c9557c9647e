import { defineConfig } from 'vitest/config';

// Unit tests run in Node by default; a DOM test opts into jsdom with
// `// @vitest-environment jsdom` (never happy-dom: it lets scripts through DOMPurify).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/e2e/**', 'node_modules/**'],
    environment: 'node',
    testTimeout: 20_000,
  },
});
