import { randomBytes } from 'node:crypto';
import { parseJson } from '../../../lib/json';
import { api } from '../../support/http';
import { newLedger } from '../../support/ledger';
import { hashedUpTo } from '../../support/ledger-logs';
import { writeLogs } from '../../support/ledger-pipelines';
import { isTruthy, pollUntil } from '../../support/eventually';
import { startReceiver } from '../../support/webhook-receiver';

/** A ledger created with HASH_LOGS DISABLED keeps its log (dense ids, one per change) but gets no hash chain. */
describe('ledger logs with HASH_LOGS DISABLED', () => {
  test('logs are written, never hashed, reported as such, and still exported by a pipeline', async () => {
    const ledger = `nohash-${randomBytes(5).toString('hex')}`;
    expect((await api('POST', `/api/ledger/v2/${ledger}`, { body: { features: { HASH_LOGS: 'DISABLED' } } })).status).toBe(204);
    expect((await api('GET', `/api/ledger/v2/${ledger}`)).body.data.features.HASH_LOGS).toBe('DISABLED');
    await writeLogs(ledger, 6);

    // A hashing ledger written afterwards gets its hashes: the hasher has passed over the one without.
    const hashing = await newLedger('hashing');
    await writeLogs(hashing, 2);
    await hashedUpTo(hashing);
    const logs = (await api('GET', `/api/ledger/v2/${ledger}/logs?pageSize=100`)).body.cursor.data;
    expect(logs.map((l: { id: number }) => l.id).sort((a: number, b: number) => a - b)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(logs.every((l: { hash: string }) => l.hash === '')).toBe(true);

    const chain = (await api('GET', `/api/ledger/v2/${ledger}/logs/chain`)).body.data;
    expect(chain).toMatchObject({ logs: 6, lastHashedLogId: -1, lag: 0, hashing: 'DISABLED' });
    expect((await api('GET', `/api/ledger/v2/${hashing}/logs/chain`)).body.data.hashing).toBe('ASYNC');
    const verify = await api('POST', `/api/ledger/v2/${ledger}/logs/verify`);
    expect(verify.status).toBe(400);
    expect(verify.body.errorMessage).toMatch(/HASH_LOGS DISABLED/);

    const receiver = await startReceiver(() => ({ status: 200 }));
    try {
      const exporter = (await api('POST', '/api/ledger/v2/_/exporters', { body: { driver: 'http', config: { url: receiver.url } } })).body.data;
      expect((await api('POST', `/api/ledger/v2/${ledger}/pipelines`, { body: { exporterID: exporter.id } })).status).toBe(201);
      const exported = await pollUntil(
        () => {
          const ids = receiver.received.flatMap((r) => (parseJson(r.body) as Array<{ id: number; hash: string }>).map((l) => l.id));
          return ids.length >= 6 ? ids : undefined;
        },
        isTruthy,
        { timeoutMs: 30_000, what: 'the pipeline to export the unhashed logs' },
      );
      expect(exported).toEqual([0, 1, 2, 3, 4, 5]);
    } finally {
      await receiver.close();
    }
  }, 60_000);
});
