import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

const restrict = (...patterns) => ({ '@typescript-eslint/no-restricted-imports': ['error', { patterns }] });
const TEMPORAL_CALLS = { group: ['@temporalio/client', '@temporalio/worker', '@temporalio/workflow', '@temporalio/activity'], message: "An area's Temporal calls live in its engine.ts (or engine/)." };
const AREA_INTERNALS = { regex: '(^|/)areas/[^/]+/.', message: 'Import an area through its index.ts (areas/<area>), its in-process API.' };

/**
 * The layering rules, one config object per folder (eslint replaces a rule's options per matching object, so each
 * folder lists every pattern it is held to):
 * - db/ is shared database plumbing: it knows no area, no HTTP, no Temporal.
 * - areas/ hold the use cases: they never reach up into api/ or activities/, reach Temporal only in their engine.ts
 *   (a folder, engine/, where one file would be too long),
 *   know workflows only by type, and use another area only through its index.
 * - api/ (routes) and activities/ call areas through their index; routes never touch Temporal; activities know
 *   workflows only by type (a value import would pull workflow-sandbox code into the worker's Node side).
 * - workflows/ are deterministic: no Node built-ins, only types of the code that does I/O.
 * - numscript/ and lib/orchestration/ are pure: nothing outside themselves (lib/orchestration also reads lib/grammar).
 */
function layering() {
  const upward = { regex: '^(\\.\\./)+(api|activities)(/|$)', message: 'Areas and db/ never import api/ or activities/.' };
  const workflowsByType = { regex: '^(\\.\\./)+workflows(/|$)', allowTypeImports: true, message: 'Only types of workflows/ may be imported here.' };
  return [
    {
      files: ['db/**/*.ts'],
      rules: restrict(upward, { regex: '^(\\.\\./)+(areas|workflows)(/|$)', message: 'db/ is shared plumbing: it knows no area and no workflow.' }, { group: ['@temporalio/*'], message: 'db/ never calls Temporal.' }),
    },
    {
      files: ['areas/**/*.ts'],
      ignores: ['areas/*/engine.ts', 'areas/*/engine/*.ts'],
      rules: restrict(upward, workflowsByType, TEMPORAL_CALLS, AREA_INTERNALS, { regex: '^\\.\\./[^./][^/]*/', message: 'Use another area through its index.ts.' }),
    },
    { files: ['areas/*/engine.ts'], rules: restrict(upward, workflowsByType, AREA_INTERNALS, { regex: '^\\.\\./[^./][^/]*/', message: 'Use another area through its index.ts.' }) },
    { files: ['areas/*/engine/*.ts'], rules: restrict(upward, workflowsByType, AREA_INTERNALS, { regex: '^\\.\\./\\.\\./[^./][^/]*/', message: 'Use another area through its index.ts.' }) },
    { files: ['api/**/*.ts'], rules: restrict(AREA_INTERNALS, workflowsByType) },
    { files: ['api/routes/**/*.ts'], rules: restrict(AREA_INTERNALS, workflowsByType, { group: ['@temporalio/*'], message: 'Routes never touch Temporal: call the area, whose engine.ts does.' }) },
    { files: ['activities/**/*.ts'], rules: restrict(AREA_INTERNALS, workflowsByType) },
    {
      files: ['workflows/**/*.ts'],
      rules: {
        '@typescript-eslint/no-restricted-imports': [
          'error',
          {
            paths: nodeBuiltins.map((name) => ({ name, message: 'Node built-ins are not allowed in workflow code.' })),
            patterns: [
              {
                group: ['**/db/**', '**/db', '**/api/**', '**/api', '**/activities/**', '**/activities', '**/areas/**', '**/areas', '**/numscript/**', '**/numscript'],
                allowTypeImports: true,
                message: 'workflows/ may only import types from db/, api/, areas/, numscript/ and activities/ (use proxyActivities).',
              },
            ],
          },
        ],
      },
    },
    { files: ['numscript/**/*.ts'], rules: restrict({ regex: '^(?!\\./)', message: 'numscript/ imports nothing outside itself (no platform code, no package, no Node built-in).' }) },
    { files: ['lib/orchestration/**/*.ts'], rules: restrict({ regex: '^(?!\\./|\\.\\./grammar$)', message: 'lib/orchestration/ is pure: it imports only itself and lib/grammar.ts.' }) },
  ];
}

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
    // calls) goes through lib/json.ts.
    files: ['api/**/*.ts', 'areas/**/*.ts', 'db/**/*.ts', 'activities/**/*.ts', 'workflows/**/*.ts', 'lib/**/*.ts'],
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
  ...layering(),
);
