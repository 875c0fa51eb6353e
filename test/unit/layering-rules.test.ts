import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');

type Rules = Record<string, [unknown, ...any[]] | undefined>;

/**
 * The rules eslint applies to each file, as `eslint.config.mjs` computes them. Asked of a child process: the config is
 * an ES module, which jest's CommonJS registry cannot import.
 */
function rulesFor(files: string[]): Record<string, Rules> {
  const script = `
    import { ESLint } from 'eslint';
    const eslint = new ESLint({ cwd: process.cwd() });
    const out = {};
    for (const file of process.argv.slice(1)) out[file] = (await eslint.calculateConfigForFile(file)).rules;
    process.stdout.write(JSON.stringify(out));`;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script, ...files], { cwd: ROOT, encoding: 'utf8' }));
}

/** Whether `rules` refuse importing `specifier` (the no-restricted-imports patterns, matched as eslint matches a regex or a group name). */
function refuses(rules: Rules, specifier: string): boolean {
  const [, options] = rules['@typescript-eslint/no-restricted-imports'] ?? [];
  const patterns: Array<{ regex?: string; group?: string[] }> = options?.patterns ?? [];
  return patterns.some((p) => (p.regex !== undefined ? new RegExp(p.regex).test(specifier) : (p.group ?? []).includes(specifier)));
}

const refusedImports: Array<[string, string]> = [
  ['lib/logger.ts', '../areas/ledger'],
  ['lib/logger.ts', '../api/app'],
  ['lib/logger.ts', '../db/errors'],
  ['lib/webhooks/settings.ts', '../../db/knex'],
  ['lib/webhooks/settings.ts', '../../activities/webhooks'],
  ['activities/worker.ts', '../api/server'],
  ['activities/ledger/log-hasher.ts', '../../api/context'],
  ['api/routes/ledger/accounts.ts', '../../../activities/ledger'],
];
const allowedImports: Array<[string, string]> = [
  ['lib/logger.ts', './config'],
  ['lib/webhooks/settings.ts', '../config'],
  ['activities/worker.ts', '../areas/payments'],
  ['activities/worker.ts', '../db/knex'],
  ['api/routes/ledger/accounts.ts', '../../../areas/ledger'],
  ['api/server.ts', '../db/shutdown'],
];
const PRODUCTION_FILES = [
  'api/server.ts',
  'areas/ledger/engine.ts',
  'activities/worker.ts',
  'db/knex.ts',
  'lib/logger.ts',
  'lib/json.ts',
  'workflows/index.ts',
];

describe('layering rules (eslint.config.mjs)', () => {
  let rules: Record<string, Rules>;
  beforeAll(() => {
    rules = rulesFor([...new Set([...refusedImports, ...allowedImports].map(([file]) => file).concat(PRODUCTION_FILES, ['lib/config.ts']))]);
  }, 60_000);

  it.each(refusedImports)('%s may not import %s', (file, specifier) => {
    expect(refuses(rules[file], specifier)).toBe(true);
  });

  it.each(allowedImports)('%s may import %s', (file, specifier) => {
    expect(refuses(rules[file], specifier)).toBe(false);
  });

  const readsEnv = (r: Rules) =>
    (r['no-restricted-properties'] ?? [])
      .slice(1)
      .some((p: { object?: string; property?: string }) => p.object === 'process' && p.property === 'env');
  it.each(PRODUCTION_FILES)('%s may not read process.env', (file) => {
    expect(readsEnv(rules[file])).toBe(true);
  });

  it('lets lib/config.ts alone read process.env, and still holds it to lib/json.ts', () => {
    expect(readsEnv(rules['lib/config.ts'])).toBe(false);
    expect(
      (rules['lib/config.ts']['no-restricted-properties'] ?? [])
        .slice(1)
        .map((p: { object: string; property: string }) => `${p.object}.${p.property}`),
    ).toEqual(['JSON.stringify', 'JSON.parse']);
  });
});
