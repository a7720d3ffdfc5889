// ESLint for the whole tree: JavaScript's and typescript-eslint's recommended rules, the guide's size
// limits, and eslint-config-prettier last so that layout belongs to Prettier alone (`npm run lint`
// runs both). Not type-aware: typescript-eslint's type-checked rules took about four times the CPU
// on this tree (see the commit that added this file).
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// Tests and the fakes, fixtures and conformance suites they share. A suite's describe() body is the
// list of its tests and a fake node's router is a table of routes, each read as one piece; they read
// parsed JSON answers field by field (the assertions are the check, so `any` is the honest type) and
// build fixture rows from several positional values.
const testFiles = [
  'packages/*/test/**',
  'examples/*/test/**',
  'packages/*/src/testing/**',
  'packages/*/src/testing.ts',
];

export default defineConfig(
  globalIgnores(['**/node_modules/**', '**/dist/**', '**/coverage/**', '**/.tmp/**']),
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // The guide's code style: a function fits one screen, and more than four inputs travel as an object.
      'max-lines-per-function': ['error', { max: 60, skipBlankLines: true, skipComments: true, IIFEs: true }],
      'max-params': ['error', 4],
      // A leading underscore names what is left out on purpose (`const { id: _id, ...rest } = row`).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
    },
  },
  {
    // The portal's page script runs in the browser.
    files: ['packages/portal/assets/**/*.js'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: testFiles,
    rules: {
      'max-lines-per-function': 'off',
      'max-params': ['error', 6],
      '@typescript-eslint/no-explicit-any': 'off',
      // Tests match terminal escapes (no colour when stdout is not a terminal).
      'no-control-regex': 'off',
    },
  },
  {
    // Generated data (scripts/sanctions writes ofac-tron.ts): tables, not logic.
    files: ['packages/core/src/risk/data/**'],
    rules: { 'max-lines-per-function': 'off' },
  },
  prettier,
);
