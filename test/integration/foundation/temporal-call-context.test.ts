import { pingTemporal } from '../../../lib/temporal';
import { taskQueue, temporalClient } from '../../support/temporal';

/**
 * The API's Temporal connection releases its call context (an AsyncLocalStorage) once each call is built, so Node's
 * promise hooks do not stay on for every later request (lib/temporal.ts, createTemporalClient). What a scope sets still
 * reaches the call made synchronously in it.
 */
describe('Temporal call context', () => {
  it('a scope sees its context until its call is made, and nothing after: the storage is released', async () => {
    const { connection } = await temporalClient();
    try {
      const seen = await connection.withMetadata({ 'x-probe': 'a' }, async () => {
        const before = connection.callContextStorage.getStore();
        await connection.workflowService.getSystemInfo({});
        // An enabled storage would still answer the scope's context in this continuation; a released one answers none.
        return { before: before?.metadata, after: connection.callContextStorage.getStore() };
      });
      expect(seen).toEqual({ before: { 'x-probe': 'a' }, after: undefined });
    } finally {
      await connection.close();
    }
  });

  it('still applies a deadline to the call made in its scope, and namespaced calls still work', async () => {
    const { client, connection } = await temporalClient();
    try {
      // A deadline already past fails the call made in its scope instead of waiting for the server.
      await expect(pingTemporal(connection, -1)).rejects.toThrow(/deadline/i);
      await expect(pingTemporal(connection)).resolves.toBeUndefined();
      const handle = await client.workflow.start('platformNoop', { taskQueue: taskQueue(), workflowId: `call-context-${Date.now()}`, args: [] });
      await handle.result();
      expect((await handle.describe()).status.name).toBe('COMPLETED');
      // Calls made concurrently, each in its own scope, each keep their own deadline.
      const results = await Promise.allSettled([
        pingTemporal(connection, -1),
        pingTemporal(connection),
        pingTemporal(connection, -1),
        pingTemporal(connection),
      ]);
      expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled', 'rejected', 'fulfilled']);
    } finally {
      await connection.close();
    }
  });
});
