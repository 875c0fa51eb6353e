import { randomUUID } from 'node:crypto';
import { createTemporalClient } from '../lib/temporal';
import { platformSelfTest } from '../workflows/self-test';

/**
 * `npm run selftest`: runs the `platformSelfTest` workflow (one activity that reads PostgreSQL) through the worker of a
 * running platform and prints where to see the run in the Temporal Web UI. TEMPORAL_ADDRESS defaults to the dev server
 * of `npm start`.
 */
async function main(): Promise<void> {
  const address = process.env.TEMPORAL_ADDRESS || `127.0.0.1:${process.env.TEMPORAL_PORT || 7233}`;
  const namespace = process.env.TEMPORAL_NAMESPACE || 'default';
  const { client, connection } = await createTemporalClient({ address, namespace });
  try {
    const workflowId = `self-test-${randomUUID()}`;
    const result = await client.workflow.execute(platformSelfTest, {
      taskQueue: process.env.TEMPORAL_TASK_QUEUE || 'financial-platform',
      workflowId,
      args: ['hello from npm run selftest'],
      workflowExecutionTimeout: '30s',
    });
    const ui = process.env.TEMPORAL_UI_URL || `http://127.0.0.1:${process.env.TEMPORAL_UI_PORT || 8233}`;
    console.log(`worker answered: ${JSON.stringify(result)}`);
    console.log(`see the run: ${ui}/namespaces/${namespace}/workflows/${workflowId}`);
  } finally {
    await connection.close();
  }
}

main().catch((error) => {
  console.error(`self-test failed: ${error instanceof Error ? error.message : error}`);
  process.exit(1);
});
