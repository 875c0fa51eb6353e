import type { AsyncLocalStorage } from 'node:async_hooks';
import { pingTemporal } from '../../../lib/temporal';
import { temporalClient } from '../../support/temporal';

// Node keeps `enabled` on every AsyncLocalStorage; while one is enabled, promise hooks run on every promise.
const enabled = (storage: AsyncLocalStorage<unknown>) => (storage as unknown as { enabled: boolean }).enabled;

describe('Temporal call context', () => {
  it('leaves the client\'s AsyncLocalStorage disabled after connect and after pings, concurrent ones included', async () => {
    const { connection } = await temporalClient();
    try {
      expect(enabled(connection.callContextStorage)).toBe(false);
      await Promise.all([pingTemporal(connection), pingTemporal(connection), pingTemporal(connection)]);
      expect(enabled(connection.callContextStorage)).toBe(false);
      // A ping still carries its deadline while it runs: one that cannot be met fails instead of waiting.
      await expect(pingTemporal(connection, -1)).rejects.toThrow();
      expect(enabled(connection.callContextStorage)).toBe(false);
    } finally {
      await connection.close();
    }
  });
});
