import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDb } from '../../db/knex';
import { freePort } from '../stack/ports';
import { startPlatform } from '../stack/platform';
import { DrillClient } from './client';
import { postgresRestartDrill, temporalRestartDrill, webhookReceiverDrill, workerKillDrill, type DrillContext, type DrillOutcome } from './drills';
import { sweepAllLedgers } from './sweep';

const DRILLS: Array<[string, (ctx: DrillContext) => Promise<DrillOutcome>]> = [
  ['worker kill -9 during stages', workerKillDrill],
  ['Temporal dev server stop/start', temporalRestartDrill],
  ['PostgreSQL stop/start', postgresRestartDrill],
  ['webhook receiver down, then back', webhookReceiverDrill],
];

/**
 * `npm run drills`: starts a platform on free 127.0.0.1 ports (Temporal on a SQLite file and a persistent PostgreSQL,
 * so both survive a restart), runs each fault drill in turn, ends each with the ledger invariant sweep over every
 * ledger, prints one table and writes bench/results/drills.json. Exit code 0 when every drill passed.
 * DRILL_INSTANCES (default 50) sets the number of orchestration instances per drill; `--only <substring>` picks drills.
 */
async function main(): Promise<void> {
  const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'platform-drills-'));
  fs.chmodSync(dataDir, 0o755);
  const logFile = fs.openSync(path.join(dataDir, 'platform.log'), 'a');
  const say = (line: string) => process.stdout.write(`[drills] ${line}\n`);
  say(`starting the platform (logs: ${dataDir}/platform.log)`);
  const platform = await startPlatform({
    dataDir,
    env: {
      ...process.env,
      LOG_LEVEL: process.env.LOG_LEVEL || 'warn',
      // The receiver drill listens on 127.0.0.1; retries come within a second or two instead of minutes.
      WEBHOOKS_ALLOWED_CIDRS: '127.0.0.0/8',
      WEBHOOKS_RETRY_INITIAL_INTERVAL_MS: '500',
      WEBHOOKS_RETRY_MAX_INTERVAL_MS: '2000',
      WEBHOOKS_RETRY_FOR_MS: '300000',
      EVENTS_POLL_INTERVAL_MS: '500',
    },
    apiPort: await freePort(),
    postgresPort: await freePort(),
    temporalPort: await freePort(),
    temporalSqlite: true,
    persistentPostgres: true,
    log: (part, line) => fs.writeSync(logFile, `${part.padEnd(10)}| ${line}\n`),
  });
  const db = createDb(platform.databaseUrl, { poolMax: 3 });
  const client = new DrillClient(platform.apiUrl, platform.credentials.clientId, platform.credentials.clientSecret);
  const instances = Number(process.env.DRILL_INSTANCES || 50);
  const results: Array<{ drill: string; passed: boolean; seconds: number; facts: Record<string, number | string>; problems: string[] }> = [];
  try {
    for (const [name, drill] of DRILLS) {
      if (only && !name.includes(only)) continue;
      say(`--- ${name}`);
      const started = Date.now();
      let outcome: DrillOutcome;
      try {
        outcome = await drill({ platform, client, db, instances, log: (line) => say(`  ${line}`) });
      } catch (error) {
        outcome = { facts: {}, problems: [`drill failed: ${(error as Error).message}`] };
      }
      const sweep = await sweepAllLedgers(db).catch((error) => [`invariant sweep failed: ${error.message}`]);
      const problems = [...outcome.problems, ...sweep.map((p) => `ledger invariant: ${p}`)];
      const result = {
        drill: name,
        passed: problems.length === 0,
        seconds: Math.round((Date.now() - started) / 1000),
        facts: outcome.facts,
        problems,
      };
      results.push(result);
      say(`  ${result.passed ? 'PASS' : 'FAIL'} in ${result.seconds} s ${JSON.stringify(outcome.facts)}`);
      for (const problem of problems.slice(0, 20)) say(`    ${problem}`);
    }
  } finally {
    await db.destroy();
    await platform.stop();
  }
  process.stdout.write('\n| Drill | Result | Time | Observed |\n|---|---|---|---|\n');
  for (const r of results) {
    const facts = Object.entries(r.facts)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
    process.stdout.write(`| ${r.drill} | ${r.passed ? 'pass' : `FAIL (${r.problems.length})`} | ${r.seconds} s | ${facts} |\n`);
  }
  const out = path.resolve('bench', 'results', 'drills.json');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(
    out,
    JSON.stringify(
      {
        date: new Date().toISOString(),
        machine: `${os.cpus().length} vCPU ${os.cpus()[0]?.model ?? ''}, Node ${process.version}`,
        instances,
        results,
      },
      null,
      2,
    ),
  );
  say(`results in ${out}`);
  const passed = results.every((r) => r.passed);
  if (passed && !process.env.KEEP_DRILL_DATA) fs.rmSync(dataDir, { recursive: true, force: true });
  process.exit(passed ? 0 : 1);
}

main().catch((error) => {
  console.error(`drills failed: ${error instanceof Error ? error.stack : error}`);
  process.exit(1);
});
