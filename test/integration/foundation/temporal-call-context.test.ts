import type { AsyncLocalStorage } from 'node:async_hooks';
import { pingTemporal } from '../../../lib/temporal';
import { taskQueue, temporalClient } from '../../support/temporal';

// Node keeps `enabled` on every AsyncLocalStorage; while one is enabled, promise hooks run on every promise.
const enabled = (storage: AsyncLocalStorage<unknown>) => (storage as unknown as { enabled: boolean }).enabled;

describe('Temporal call context', () => {
  it('never leaves an AsyncLocalStorage enabled: not after connect, pings, or namespaced calls', async () => {
    const { client, connection } = await temporalClient();
    try {
      expect(enabled(connection.callContextStorage)).toBe(false);
      await Promise.all([pingTemporal(connection), pingTemporal(connection), pingTemporal(connection)]);
      const handle = await client.workflow.start('platformNoop', { taskQueue: taskQueue(), workflowId: `call-context-${Date.now()}`, args: [] });
      await handle.result();
      expect((await handle.describe()).status.name).toBe('COMPLETED');
      expect(enabled(connection.callContextStorage)).toBe(false);
    } finally {
      await connection.close();
    }
  });

  it('still applies a deadline and metadata to the calls made inside their scope, and only to those', async () => {
    const { connection } = await temporalClient();
    try {
      // A deadline already past fails the call made in its scope instead of waiting for the server.
      await expect(pingTemporal(connection, -1)).rejects.toThrow(/deadline/i);
      await expect(pingTemporal(connection)).resolves.toBeUndefined();
      const seen = await connection.withMetadata({ 'x-probe': 'a' }, () =>
        connection.withDeadline(Date.now() + 5000, () => {
          const context = connection.callContextStorage.getStore();
          return Promise.resolve({ metadata: context?.metadata, deadline: context?.deadline });
        }),
      );
      expect(seen.metadata).toEqual({ 'x-probe': 'a' });
      expect(typeof seen.deadline).toBe('number');
      expect(connection.callContextStorage.getStore()).toBeUndefined();
    } finally {
      await connection.close();
    }
  });
});
