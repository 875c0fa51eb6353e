import { spawnSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..', '..');

/** The processes read their settings first (lib/config.ts): a malformed one stops them before they serve. */
describe('settings at start', () => {
  it.each(['api/server.ts', 'activities/worker.ts'])(
    'stops %s at start on a malformed value, naming the variable',
    (entry) => {
      // Valid locations that nothing listens on: the process must stop on the setting, before it connects anywhere.
      const env = {
        PATH: process.env.PATH,
        DATABASE_URL: 'postgres://127.0.0.1:1/none',
        TEMPORAL_ADDRESS: '127.0.0.1:1',
        LEDGER_GROUP_COMMIT_MAX_BATCH: 'abc',
      };
      const run = spawnSync(process.execPath, ['--import', 'tsx', entry], { cwd: ROOT, env, encoding: 'utf8', timeout: 60_000 });
      expect(run.status).toBe(1);
      expect(run.stderr).toContain('LEDGER_GROUP_COMMIT_MAX_BATCH must be an integer from 1 to 100000, got "abc"');
    },
    70_000,
  );

  it.each(['api/server.ts', 'activities/worker.ts'])(
    'stops %s at start when a connector plugin module breaks the contract, naming the setting',
    (entry) => {
      const plugin = path.join(ROOT, 'test', 'fixtures', 'payments-plugin', 'broken.ts');
      const env = {
        PATH: process.env.PATH,
        DATABASE_URL: 'postgres://127.0.0.1:1/none',
        TEMPORAL_ADDRESS: '127.0.0.1:1',
        PAYMENTS_CONNECTOR_PLUGINS: plugin,
        LOG_LEVEL: 'silent',
      };
      const run = spawnSync(process.execPath, ['--import', 'tsx', entry], { cwd: ROOT, env, encoding: 'utf8', timeout: 60_000 });
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(`PAYMENTS_CONNECTOR_PLUGINS: ${plugin}: not a connector plugin`);
    },
    70_000,
  );
});
