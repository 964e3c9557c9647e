// ESLint flat config: `npm run lint` (part of `npm test`, zero warnings allowed).
//
// Type-aware rules need TypeScript's JavaScript compiler API, which TypeScript 7 (the native `tsc`)
// does not ship. package.json therefore installs the two side by side: `typescript` is the
// TypeScript 6.0 API package (@typescript/typescript6, what typescript-eslint `require`s and
// supports), and `@typescript/native` is TypeScript 7.0, whose `tsc` runs `npm run typecheck`.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const TS_FILES = ['**/*.ts', '**/*.mts', '**/*.cts'];
const JS_FILES = ['**/*.js', '**/*.mjs', '**/*.cjs'];

export default tseslint.config(
  {
    // Build output, generated WXT types, installed packages, test output.
    ignores: ['.output/', '.wxt/', 'dist/', 'node_modules/', 'test-results/', 'playwright-report/', 'demo-output/', '.tmp/', '.stryker-tmp/', 'reports/'],
  },
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
  js.configs.recommended,
  // Type-aware rules for the TypeScript sources: the project service reads tsconfig.json, the same
  // project `npm run typecheck` checks.
  {
    files: TS_FILES,
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { args: 'after-used', argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'all', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
      // An AbortSignal's `reason` is typed `any` (and abortReason() returns `unknown`): rejecting
      // with it as is, as fetch() does, keeps the caller's own reason. Anything else must be an Error.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
      // Off: here `async` without `await` marks a function that fulfils a Promise-returning contract
      // (an interface method, a fake, a callback, a bench's run()) so that a throw inside it becomes
      // a rejection; dropping `async` to please the rule would turn those into synchronous throws.
      // no-floating-promises and no-misused-promises catch the awaits that matter.
      '@typescript-eslint/require-await': 'off',
    },
  },
  // Named exceptions, each with its reason.
  {
    // Test files: a `describe` callback holds a whole section's cases and shared fixtures, so it is
    // as long as the section; the cases inside are short.
    files: ['test/**/*.test.ts', 'test/**/*.e2e.ts'],
    rules: { 'max-lines-per-function': 'off' },
  },
  {
    // Benchmarks and the demo script: each runs one scripted sequence (start, measure or show, stop)
    // that reads top to bottom; splitting it would only move the steps apart.
    files: ['bench/**/*.ts', 'scripts/demo.ts'],
    rules: { 'max-lines-per-function': 'off' },
  },
  {
    // Tests read HTTP replies, JSON-RPC results and protocol frames as `any` on purpose, to probe
    // shapes the types rule out (and vitest's asymmetric matchers, `expect.any(...)`, are typed
    // `any`); the no-unsafe-* rules stay on for everything that ships.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  // The Node scripts (.mjs) are outside tsconfig.json (no allowJs), so they get the rules that need
  // no type information.
  {
    files: JS_FILES,
    extends: [tseslint.configs.recommended, tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { args: 'after-used', argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'all', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
    },
  },
);
