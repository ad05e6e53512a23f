import js from '@eslint/js';
import nextPlugin from '@next/eslint-plugin-next';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';

/**
 * Type-aware lint (typescript-eslint's type-checked rules: no floating
 * promises, no unsafe any), Next's own rules, React hooks, and the layer rules of the tree:
 * code that runs in the browser (components/, lib/client/, lib/domain/)
 * imports only lib/domain and its own modules, never a server module.
 */

/** What browser code may not import (type-only imports are fine: they vanish). */
const SERVER_ONLY_MODULES = [
  {
    group: [
      '@/lib/store',
      '@/lib/store/*',
      '@/lib/auth/*',
      '@/lib/api/*',
      '@/lib/ingest/*',
      '@/lib/dashboard/*',
      '@/lib/http/*',
      '@/lib/ops/*',
      '@/lib/mirror/*',
      '@/lib/config',
      // The pages and routes, and the server-only pieces that serve them (unavailable.tsx).
      '@/app/*',
      'node:*',
    ],
    allowTypeImports: true,
    message:
      'Browser code (components/, lib/client/, lib/domain/) imports only lib/domain and lib/client.',
  },
];

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      '.next/',
      'data/',
      'test-results/',
      'playwright-report/',
      'next-env.d.ts',
      // Build output: the CLI's bundle (scripts/build-cli.mjs).
      'dist/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  nextPlugin.configs['core-web-vitals'],
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
  },
  {
    files: ['**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          // node:test's describe/it/test return promises the runner itself awaits.
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite'] },
          ],
        },
      ],
      'no-console': 'off',
    },
  },
  {
    files: ['components/**/*.{ts,tsx}', 'lib/client/**/*.ts', 'lib/domain/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: SERVER_ONLY_MODULES }] },
  },
  {
    files: ['**/*.{js,mjs,cjs}'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: { ...globals.node },
    },
  },
);
