import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

const restrict = (...patterns) => ({ '@typescript-eslint/no-restricted-imports': ['error', { patterns }] });
const TEMPORAL_CALLS = {
  group: ['@temporalio/client', '@temporalio/worker', '@temporalio/workflow', '@temporalio/activity'],
  message: "An area's Temporal calls live in its engine.ts (or engine/).",
};
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
 * - numscript/ and lib/orchestration/ are pure: nothing outside themselves (lib/orchestration also reads lib/grammar);
 *   the rest of lib/ is shared by every process and imports none of the folders above it.
 * - Routes never import activities/, activities never import api/.
 */
function layering() {
  const upward = { regex: '^(\\.\\./)+(api|activities)(/|$)', message: 'Areas and db/ never import api/ or activities/.' };
  const workflowsByType = { regex: '^(\\.\\./)+workflows(/|$)', allowTypeImports: true, message: 'Only types of workflows/ may be imported here.' };
  return [
    {
      files: ['db/**/*.ts'],
      rules: restrict(
        upward,
        { regex: '^(\\.\\./)+(areas|workflows)(/|$)', message: 'db/ is shared plumbing: it knows no area and no workflow.' },
        { group: ['@temporalio/*'], message: 'db/ never calls Temporal.' },
      ),
    },
    {
      files: ['areas/*/*.ts'],
      ignores: ['areas/*/engine.ts'],
      rules: restrict(upward, workflowsByType, TEMPORAL_CALLS, AREA_INTERNALS, {
        regex: '^\\.\\./[^./][^/]*/',
        message: 'Use another area through its index.ts.',
      }),
    },
    {
      // An area's subfolders (by responsibility) reach each other with ../<folder>/; another area is ../../<area>/.
      files: ['areas/*/*/**/*.ts'],
      ignores: ['areas/*/engine/*.ts'],
      rules: restrict(upward, workflowsByType, TEMPORAL_CALLS, AREA_INTERNALS, {
        regex: '^\\.\\./\\.\\./[^./][^/]*/',
        message: 'Use another area through its index.ts.',
      }),
    },
    {
      files: ['areas/*/engine.ts'],
      rules: restrict(upward, workflowsByType, AREA_INTERNALS, { regex: '^\\.\\./[^./][^/]*/', message: 'Use another area through its index.ts.' }),
    },
    {
      files: ['areas/*/engine/*.ts'],
      rules: restrict(upward, workflowsByType, AREA_INTERNALS, {
        regex: '^\\.\\./\\.\\./[^./][^/]*/',
        message: 'Use another area through its index.ts.',
      }),
    },
    { files: ['api/**/*.ts'], rules: restrict(AREA_INTERNALS, workflowsByType) },
    {
      files: ['api/routes/**/*.ts'],
      rules: restrict(
        AREA_INTERNALS,
        workflowsByType,
        { group: ['@temporalio/*'], message: 'Routes never touch Temporal: call the area, whose engine.ts does.' },
        {
          regex: '^(\\.\\./)+activities(/|$)',
          message: "Routes call areas; activities are the worker's side of Temporal.",
        },
      ),
    },
    {
      files: ['activities/**/*.ts'],
      rules: restrict(AREA_INTERNALS, workflowsByType, { regex: '^(\\.\\./)+api(/|$)', message: 'Activities call areas, never the HTTP layer.' }),
    },
    {
      files: ['lib/**/*.ts'],
      rules: restrict({
        regex: '^(\\.\\./)+(areas|api|db|activities|workflows)(/|$)',
        message: 'lib/ is what every process shares: it knows no area, no HTTP, no database and no workflow.',
      }),
    },
    {
      files: ['workflows/**/*.ts'],
      rules: {
        '@typescript-eslint/no-restricted-imports': [
          'error',
          {
            paths: nodeBuiltins.map((name) => ({ name, message: 'Node built-ins are not allowed in workflow code.' })),
            patterns: [
              {
                group: [
                  '**/db/**',
                  '**/db',
                  '**/api/**',
                  '**/api',
                  '**/activities/**',
                  '**/activities',
                  '**/areas/**',
                  '**/areas',
                  '**/numscript/**',
                  '**/numscript',
                ],
                allowTypeImports: true,
                message: 'workflows/ may only import types from db/, api/, areas/, numscript/ and activities/ (use proxyActivities).',
              },
            ],
          },
        ],
      },
    },
    {
      files: ['numscript/**/*.ts'],
      rules: restrict({ regex: '^(?!\\./)', message: 'numscript/ imports nothing outside itself (no platform code, no package, no Node built-in).' }),
    },
    {
      files: ['lib/orchestration/**/*.ts'],
      rules: restrict({ regex: '^(?!\\./|\\.\\./grammar$)', message: 'lib/orchestration/ is pure: it imports only itself and lib/grammar.ts.' }),
    },
  ];
}

const PRODUCTION = ['api/**/*.ts', 'areas/**/*.ts', 'db/**/*.ts', 'activities/**/*.ts', 'workflows/**/*.ts', 'lib/**/*.ts'];

/**
 * What production code may not call. Amounts are exact integers of any size (BigInt inside): the built-in JSON
 * functions throw on a BigInt or round a big number, so every value that leaves or enters the process (HTTP, SQL JSON,
 * events, webhooks, provider files and calls) goes through lib/json.ts. Settings are read and checked once, by
 * lib/config.ts: a raw process.env read elsewhere would skip that check (and the documentation generated from it).
 * eslint replaces a rule's options per matching object, so the two exempt files each get an object of their own.
 */
function productionRestrictions() {
  const json = [
    { object: 'JSON', property: 'stringify', message: 'Use stringifyJson from lib/json.ts: it writes BigInt amounts exactly.' },
    { object: 'JSON', property: 'parse', message: 'Use parseJson from lib/json.ts: it reads big integers without rounding.' },
  ];
  const env = [
    { object: 'process', property: 'env', message: 'Read settings through lib/config.ts (getConfig()): it validates and documents each one.' },
  ];
  const bodyJson = {
    'no-restricted-syntax': [
      'error',
      {
        selector: "CallExpression[callee.property.name='json'][arguments.length=0]",
        message: 'Read the body as text and parse it with parseJson from lib/json.ts: .json() rounds big integers.',
      },
    ],
  };
  return [
    { files: PRODUCTION, ignores: ['lib/json.ts', 'lib/config.ts'], rules: { 'no-restricted-properties': ['error', ...json, ...env], ...bodyJson } },
    { files: ['lib/json.ts'], rules: { 'no-restricted-properties': ['error', ...env] } },
    { files: ['lib/config.ts'], rules: { 'no-restricted-properties': ['error', ...json], ...bodyJson } },
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
  ...productionRestrictions(),
  ...layering(),
);
