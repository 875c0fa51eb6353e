import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', '.data/', '.tools/', 'coverage/', 'bench/results/', '**/*.js', '**/*.mjs'] },
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // Forgetting to await a database write, an activity or a workflow call loses errors and ordering.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-require-imports': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
    },
  },
  {
    // Amounts are exact integers of any size (BigInt inside). The built-in JSON functions throw on a BigInt or round a
    // big number, so every value that leaves or enters the process (HTTP, SQL JSON, events, webhooks, provider files and
    // calls) goes through lib/json.ts. Numscript only quotes strings for its messages.
    files: ['api/**/*.ts', 'db/**/*.ts', 'activities/**/*.ts', 'workflows/**/*.ts', 'lib/**/*.ts'],
    ignores: ['lib/json.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'JSON', property: 'stringify', message: 'Use stringifyJson from lib/json.ts: it writes BigInt amounts exactly.' },
        { object: 'JSON', property: 'parse', message: 'Use parseJson from lib/json.ts: it reads big integers without rounding.' },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name='json'][arguments.length=0]",
          message: 'Read the body as text and parse it with parseJson from lib/json.ts: .json() rounds big integers.',
        },
      ],
    },
  },
  {
    // Numscript is a language implementation: pure, no I/O, nothing of the platform. The ledger adapts it (its store
    // interface, its error codes), never the reverse.
    files: ['numscript/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [{ regex: '^(?!\\./)', message: 'numscript/ imports nothing outside itself (no platform code, no package, no Node built-in).' }] },
      ],
    },
  },
  {
    // Workflow code is replayed by Temporal and must be deterministic: no Node built-ins, and only type imports of the
    // code that does I/O (db/, api/, activities/).
    files: ['workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({ name, message: 'Node built-ins are not allowed in workflow code.' })),
          patterns: [
            {
              group: ['**/db/**', '**/db', '**/api/**', '**/api', '**/activities/**', '**/activities'],
              allowTypeImports: true,
              message: 'workflows/ may only import types from db/, api/ and activities/ (use proxyActivities).',
            },
          ],
        },
      ],
    },
  },
);
