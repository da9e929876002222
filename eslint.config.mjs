// ESLint over the whole repository: typescript-eslint's recommended type-checked rules on the
// code tsc compiles, the recommended rules on tests, benches and scripts. Every rule turned off
// or down says why beside it.
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

/** The code tsc compiles: type information is there for the type-checked rules. */
const compiled = ['packages/*/src/**/*.ts', 'apps/*/src/**/*.{ts,tsx}'];
/** Files tsc does not compile (vitest strips their types): no program to type-check them against. */
const uncompiled = [
  '**/*.test.ts',
  '**/test/**',
  '**/bench/**',
  'scripts/**',
  '**/*.{mjs,cjs,js}',
  'vitest.workspace.ts',
  'apps/editor/vite.config.ts',
];

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      // Generated from schemas/ by scripts/gen-types.mjs and embed-schemas.mjs.
      'packages/core/src/generated/**',
      // Build output copied into packages (the editor's bundle, the extension's server).
      'apps/workspace-server/editor/**',
      'apps/vscode/server/**',
      'fixtures/**',
      '.data/**',
      // What test and bench runs leave behind.
      '**/test-results/**',
      '**/artifacts/**',
      '**/bench-results/**',
      '**/coverage/**',
      '**/*.tmp.mjs',
    ],
  },
  js.configs.recommended,
  {
    files: compiled,
    extends: [tseslint.configs.recommendedTypeChecked],
    ignores: uncompiled,
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
  },
  {
    files: uncompiled,
    extends: [tseslint.configs.recommended],
  },
  {
    // The editor's hooks: called unconditionally, and their dependencies stated.
    files: ['apps/editor/src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'error' },
  },
  {
    rules: {
      // A function a reader can hold: blank lines and comments do not count against it.
      'max-lines-per-function': ['error', { max: 120, skipBlankLines: true, skipComments: true }],
      '@typescript-eslint/no-explicit-any': 'error',
      // A variable a closure reads before its one assignment (a timer its own callback clears) stays let.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // `ok && run()` and `c ? a() : b()` as statements are the code's idiom for a conditional call.
      '@typescript-eslint/no-unused-expressions': ['error', { allowShortCircuit: true, allowTernary: true }],
      // A rest sibling drops a key on purpose, and `_x` marks a parameter kept for its position.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
    },
  },
  {
    files: compiled,
    rules: {
      // Fastify's handlers and hooks, and methods of async interfaces, are async by contract even
      // when their body awaits nothing: the async keyword states what they return.
      '@typescript-eslint/require-await': 'off',
      // Values read from a pack or a workspace are unknown JSON, shown as text on purpose
      // (String(x ?? '')); what each may be is checked by the schemas before it is shown.
      '@typescript-eslint/no-base-to-string': 'off',
      '@typescript-eslint/restrict-template-expressions': 'off',
    },
  },
  {
    files: ['apps/editor/src/model/layout.ts', 'apps/editor/src/ui/FlowMap.tsx'],
    rules: {
      // @dagrejs/dagre's types name graphlib's without resolving them, so its graph is an error
      // type to the checker; the layout's own tests hold what it returns.
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // The rules on control and bidirectional characters are written as regular expressions over
    // those very characters (core's text.ts, and the tests that hold output free of them).
    rules: { 'no-control-regex': 'off' },
  },
  {
    // CommonJS by design: the CLI's launcher is the quicker entry point for node to start
    // (packages/cli/bin/package.json), and autocannon loads its client plan with require.
    files: ['packages/cli/bin/*.js', '**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable', process: 'readonly', __dirname: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['packages/core/src/json/positions.ts'],
    // The scanner names character codes in a const enum (Ch) and compares charCodeAt's numbers with them.
    rules: { '@typescript-eslint/no-unsafe-enum-comparison': 'off' },
  },
  {
    files: uncompiled,
    rules: {
      // A test file's describe callback is a list of cases, not a function a reader holds at once.
      'max-lines-per-function': 'off',
      // Tests read the API's JSON answers as `any` and state the shape they expect in the assertion.
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
);
