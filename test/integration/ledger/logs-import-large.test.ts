import { request } from 'node:http';
import { createDb, type Db } from '../../../db/knex';
import { pollUntil } from '../../support/eventually';
import { api, apiUrl, getToken } from '../../support/http';
import { newLedger, posting } from '../../support/ledger';
import { hashedUpTo } from '../../support/ledger-logs';
import { foreignSigner, newTransaction, signedExport, type ExportLog } from '../../support/log-exports';

const SIZE = 10_000;
const signer = foreignSigner();

/** SIZE logs: transactions 0..SIZE-2 from world to 50 accounts (transaction t pays 100 + t), and a metadata change halfway. */
function largeLogs(): ExportLog[] {
  const logs: ExportLog[] = [];
  for (let t = 0; logs.length < SIZE; t++) {
    if (logs.length === SIZE / 2)
      logs.push({ type: 'SET_METADATA', data: { targetType: 'ACCOUNT', targetId: 'users:1', metadata: { tier: 'gold' } } });
    logs.push({
      type: 'NEW_TRANSACTION',
      data: newTransaction(t, [posting('world', `users:${t % 50}`, 100 + t)], { metadata: { n: String(t) }, reference: `ref-${t}` }),
    });
  }
  return logs;
}

const importPath = (ledger: string) => `/api/ledger/v2/${ledger}/logs/import?publicKey=${signer.publicKey}`;
const post = (ledger: string, text: string) =>
  api('POST', importPath(ledger), { rawBody: text, headers: { 'Content-Type': 'application/octet-stream' } });

/** A large import is streamed and replayed in chunks, in one transaction: all of it or nothing, whatever the client does. */
describe('large ledger log import', () => {
  let db: Db;
  let text: string;

  beforeAll(() => {
    db = createDb(process.env.TEST_DATABASE_URL!, { poolMax: 2 });
    text = signedExport(largeLogs(), signer);
  });
  afterAll(() => db.destroy());

  it(`imports ${SIZE} logs in one request, and the ledger verifies`, async () => {
    const ledger = await newLedger('logs-large');
    const res = await post(ledger, text);
    expect(res.status).toBe(204);
    const chain = await hashedUpTo(ledger);
    expect(chain).toMatchObject({ logs: SIZE, lag: 0 });
    const verified = (await api('POST', `/api/ledger/v2/${ledger}/logs/verify`)).body.data;
    expect(verified).toMatchObject({ valid: true, logs: SIZE, checkpoints: SIZE / 100, lastCheckpointId: SIZE - 1 });
    const account = (await api('GET', `/api/ledger/v2/${ledger}/accounts/users:1?expand=volumes`)).body.data;
    expect(account.metadata).toEqual({ tier: 'gold' });
    // users:1 received 100 + i for every transaction i with i % 50 == 1.
    const expected = Array.from({ length: SIZE - 1 }, (_, i) => i)
      .filter((i) => i % 50 === 1)
      .reduce((sum, i) => sum + 100 + i, 0);
    expect(account.volumes['USD/2'].balance).toBe(expected);
    expect((await api('GET', `/api/ledger/v2/${ledger}/transactions/${SIZE - 2}`)).body.data).toMatchObject({ reference: `ref-${SIZE - 2}` });
  });

  it('refuses a bad log near the end, naming it, and keeps nothing of the logs before it', async () => {
    const ledger = await newLedger('logs-large-bad');
    const logs = largeLogs();
    logs[SIZE - 3] = { type: 'NEW_TRANSACTION', data: newTransaction(SIZE - 4, [posting('world', 'users:1', 1.5)]) };
    const res = await post(ledger, signedExport(logs, signer));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ errorCode: 'IMPORT', errorDetails: { logId: SIZE - 3 } });
    expect((await api('GET', `/api/ledger/v2/${ledger}/logs/chain`)).body.data).toMatchObject({ logs: 0 });
    expect((await api('GET', `/api/ledger/v2/${ledger}/transactions`)).body.cursor.data).toEqual([]);
  });

  it('rolls everything back when the client leaves mid-import', async () => {
    const ledger = await newLedger('logs-large-left');
    const url = new URL(`${apiUrl()}${importPath(ledger)}`);
    const body = Buffer.from(text);
    const client = request(url, {
      method: 'POST',
      headers: { Authorization: `Bearer ${await getToken()}`, 'Content-Type': 'application/octet-stream', 'Content-Length': body.length },
    });
    client.on('error', () => undefined);
    client.write(body.subarray(0, Math.floor(body.length / 2)));
    // The import has written a chunk of rows in its (open) transaction: the client leaves then.
    await pollUntil(
      async () =>
        (
          await db.raw(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE xact_start IS NOT NULL AND query LIKE '%json_to_recordset%' AND query LIKE '%ledger_logs%'`,
          )
        ).rows[0].n,
      (n: number) => n > 0,
      { what: 'the import to write its first chunk' },
    );
    client.destroy();
    // Nothing of the half sent was kept: the same export imports whole into the same ledger (which must be empty).
    const res = await post(ledger, text);
    expect(res.status).toBe(204);
    expect((await api('GET', `/api/ledger/v2/${ledger}/logs/chain`)).body.data).toMatchObject({ logs: SIZE });
  });
});
