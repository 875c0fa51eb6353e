import fs from 'node:fs';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { createTemporalClient } from '../lib/temporal';
import { historyToFile } from '../test/replay/history-file';
import { startThrowawayPlatform } from './stack/platform';

/**
 * `npm run replay:record`: starts a throw-away platform (own ports, temporary directory), runs every scenario of
 * test/replay/scenarios.ts through the API and writes each recorded workflow's Temporal history, once it has closed,
 * to test/replay/histories/<name>.json. `npm run replay:record -- <scenario>...` runs only the named scenarios.
 */
async function main(): Promise<void> {
  const platform = await startThrowawayPlatform({
    purpose: 'replay-record',
    // As the jest platform: webhooks may reach the local receivers and retry within a second.
    env: {
      ...process.env,
      LOG_LEVEL: 'warn',
      WEBHOOKS_ALLOWED_CIDRS: '127.0.0.0/8',
      WEBHOOKS_RETRY_INITIAL_INTERVAL_MS: '200',
      WEBHOOKS_RETRY_MAX_INTERVAL_MS: '1000',
      EVENTS_POLL_INTERVAL_MS: '500',
    },
  });
  const { dataDir } = platform;
  const { client, connection } = await createTemporalClient({ address: platform.temporalAddress, namespace: 'default' });
  try {
    Object.assign(process.env, {
      TEST_API_URL: platform.apiUrl,
      TEST_CLIENT_ID: platform.credentials.clientId,
      TEST_CLIENT_SECRET: platform.credentials.clientSecret,
      TEST_DATABASE_URL: platform.databaseUrl,
      TEST_TEMPORAL_ADDRESS: platform.temporalAddress,
      TEST_PLATFORM_DATA_DIR: dataDir,
      TEST_TASK_QUEUE: platform.env.TEMPORAL_TASK_QUEUE || 'financial-platform',
    });
    // Loaded after the environment is set: the helpers read it.
    const { scenarios } = require('../test/replay/scenarios') as typeof import('../test/replay/scenarios');
    const outDir = path.join(__dirname, '..', 'test', 'replay', 'histories');
    const only = process.argv.slice(2);
    for (const [scenario, { records, run }] of Object.entries(scenarios)) {
      if (only.length && !only.includes(scenario)) continue;
      const workflowIds = await run();
      if (Object.keys(workflowIds).sort().join() !== [...records].sort().join())
        throw new Error(`${scenario} recorded ${Object.keys(workflowIds)}, declared ${records}`);
      for (const name of records) {
        const handle = client.workflow.getHandle(workflowIds[name]);
        await closed(handle, name);
        const history = await handle.fetchHistory();
        fs.writeFileSync(path.join(outDir, `${name}.json`), historyToFile(history));
        process.stdout.write(`recorded ${name} (${history.events?.length} events)\n`);
      }
    }
  } finally {
    await connection.close();
    await platform.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** A history is recorded once its workflow has closed, so the replay covers the whole run. */
async function closed(handle: WorkflowHandle, name: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while ((await handle.describe()).status.name === 'RUNNING') {
    if (Date.now() > deadline) throw new Error(`${name} (${handle.workflowId}) is still running`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
