// ESLint: typescript-eslint with type information (`npm run lint`, zero warnings, run by .ci/run).
// Formatting is Prettier's (.prettierrc.json), so no stylistic rules here. Every rule turned off
// or relaxed below says why on its line.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const testRules = {
  // Tests break fixtures in place (`(a: any) => (a.field = …)`), the point of a validation test.
  '@typescript-eslint/no-explicit-any': 'off',
  // expect(mock.method).toHaveBeenCalled… passes methods unbound by design.
  '@typescript-eslint/unbound-method': 'off',
};

const nodeGlobals = { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly' };

export default tseslint.config(
  { ignores: ['node_modules/**', '.data/**', '.tools/**', 'reports/**', 'bin/**', '**/*.cjs', 'codec/failure-converter.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['*.mjs', 'scripts/*.mjs', 'harness/stack/*.mjs'] }, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Postgres rows (pg types them `any`) and parsed JSON bodies are read at the edges; zod schemas
      // (schemas/, domain/) are the checked boundary, so reads of them are not re-typed at every use.
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      // Activity and adapter methods are async by their interface (they return promises) even when one implementation needs no await.
      '@typescript-eslint/require-await': 'off',
      // String() of an unknown JSON or row value is the deliberate fallback text of reports and error lines.
      '@typescript-eslint/no-base-to-string': 'off',
      // A leading underscore marks a deliberately unused binding (an omitted rest sibling, an interface's argument).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  {
    files: ['test/**'],
    rules: testRules,
  },
  {
    // The proving ground (harness/package.json): the product's rules above, its type information from
    // harness/tsconfig.json (the project service takes the nearest one), and its tests as the product's.
    name: 'harness/tests',
    files: ['harness/test/**'],
    rules: testRules,
  },
  {
    files: ['**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { globals: nodeGlobals },
  },
);
