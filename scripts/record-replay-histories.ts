import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { dataConverter } from '../lib/temporal';
import { historyToFile } from '../test/replay/history-file';
import { startPlatform } from './stack/platform';
import { freePort } from './stack/ports';

/**
 * `npm run replay:record`: starts a throw-away platform (own ports, temporary directory), runs every scenario of
 * test/replay/scenarios.ts through the API and writes each run's Temporal history to test/replay/histories/<name>.json.
 */
async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'replay-record-'));
  // Embedded PostgreSQL runs as its own user when we are root: it must be able to enter the directory.
  fs.chmodSync(dataDir, 0o755);
  const logFile = fs.openSync(path.join(dataDir, 'platform.log'), 'a');
  const platform = await startPlatform({
    dataDir,
    env: { ...process.env, LOG_LEVEL: 'warn' },
    apiPort: await freePort(),
    postgresPort: await freePort(),
    temporalPort: await freePort(),
    temporalSqlite: false,
    persistentPostgres: false,
    log: (part, line) => fs.writeSync(logFile, `${part.padEnd(10)}| ${line}\n`),
  });
  const connection = await Connection.connect({ address: platform.temporalAddress });
  try {
    Object.assign(process.env, {
      TEST_API_URL: platform.apiUrl,
      TEST_CLIENT_ID: platform.credentials.clientId,
      TEST_CLIENT_SECRET: platform.credentials.clientSecret,
      TEST_DATABASE_URL: platform.databaseUrl,
    });
    // Loaded after the environment is set: the helpers read it.
    const { scenarios } = require('../test/replay/scenarios') as typeof import('../test/replay/scenarios');
    const client = new Client({ connection, dataConverter });
    const outDir = path.join(__dirname, '..', 'test', 'replay', 'histories');
    for (const [name, run] of Object.entries(scenarios)) {
      const workflowId = await run();
      const history = await client.workflow.getHandle(workflowId).fetchHistory();
      fs.writeFileSync(path.join(outDir, `${name}.json`), historyToFile(history));
      process.stdout.write(`recorded ${name} (${history.events?.length} events)\n`);
    }
  } finally {
    await connection.close();
    await platform.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
