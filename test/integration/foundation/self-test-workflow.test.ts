import type { Client, Connection } from '@temporalio/client';
import { platformSelfTest } from '../../../workflows/self-test';
import { taskQueue, temporalClient } from '../../support/temporal';

describe('worker on the real Temporal server', () => {
  let client: Client;
  let connection: Connection;
  beforeAll(async () => ({ client, connection } = await temporalClient()));
  afterAll(async () => connection.close());

  it('runs a workflow whose activity reads PostgreSQL', async () => {
    const workflowId = `self-test-${Date.now()}`;
    const result = await client.workflow.execute(platformSelfTest, { taskQueue: taskQueue(), workflowId, args: ['hello'] });
    expect(result.echoed).toBe('hello');
    expect(Date.parse(result.databaseTime)).toBeGreaterThan(Date.now() - 60_000);
    const history = await client.workflow.getHandle(workflowId).fetchHistory();
    const activityTypes = history.events?.map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name).filter(Boolean);
    expect(activityTypes).toEqual(['echo']);
  });
});
