import { createDb, type Db } from '../../../db/knex';
import { api } from '../../support/http';
import { ledgerViolations } from '../../support/ledger-invariants';
import { newLedger, posting, postTransaction } from '../../support/ledger';
import { exportLogs, hashedUpTo, importLogs, ledgerState } from '../../support/ledger-logs';

const WRITERS = 32;
const OPS_PER_WRITER = 8;
const USERS = ['users:1', 'users:2', 'users:3', 'users:4'];

/** A small seeded generator, so a failing run can be repeated with its seed. */
function prng(seed: number) {
  let s = seed >>> 0;
  return (n: number) => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return s % n;
  };
}

async function randomOperation(ledger: string, pick: (n: number) => number, writer: number): Promise<void> {
  const user = USERS[pick(USERS.length)];
  const other = USERS[pick(USERS.length)];
  const someTx = pick(40);
  switch (pick(7)) {
    case 0:
      await postTransaction(ledger, { postings: [posting('world', user, 1 + pick(100))], metadata: { writer: String(writer) } });
      return;
    case 1:
      await postTransaction(ledger, { postings: [posting(user, other, 1 + pick(50))] }); // may be INSUFFICIENT_FUND
      return;
    case 2:
      await api('POST', `/api/ledger/v2/${ledger}/accounts/${user}/metadata`, { body: { [`k${pick(3)}`]: `v${pick(1000)}` } });
      return;
    case 3:
      await api('POST', `/api/ledger/v2/${ledger}/transactions/${someTx}/metadata`, { body: { [`t${pick(3)}`]: `v${pick(1000)}` } }); // may be 404
      return;
    case 4:
      await api('DELETE', `/api/ledger/v2/${ledger}/accounts/${user}/metadata/k${pick(3)}`);
      return;
    case 5:
      await api('POST', `/api/ledger/v2/${ledger}/transactions/${someTx}/revert?force=true`); // may be 404 or ALREADY_REVERT
      return;
    default:
      // Dry runs and a failing atomic bulk roll back: they must leave no log id behind.
      await postTransaction(ledger, { postings: [posting('world', user, 5)] }, {}, '?dryRun=true');
      await api('POST', `/api/ledger/v2/${ledger}/_bulk?atomic=true`, {
        body: [
          { action: 'CREATE_TRANSACTION', data: { postings: [posting('world', user, 3)] } },
          { action: 'REVERT_TRANSACTION', data: { id: 9_999_999 } },
        ],
      });
  }
}

describe('ledger logs under 32 concurrent writers', () => {
  let db: Db;
  beforeAll(() => {
    db = createDb(process.env.TEST_DATABASE_URL!, { poolMax: 2 });
  });
  afterAll(() => db.destroy());

  const seed = Number(process.env.LOGS_SEED || Date.now() % 1_000_000);

  it(`keeps logs dense and chained, and an import of the export rebuilds the ledger (seed ${seed})`, async () => {
    const ledger = await newLedger('logs-prop');
    await Promise.all(
      Array.from({ length: WRITERS }, async (_, writer) => {
        const pick = prng(seed * 1000 + writer);
        for (let i = 0; i < OPS_PER_WRITER; i++) await randomOperation(ledger, pick, writer);
      }),
    );

    const ids = (await db('ledger_logs').where({ ledger }).orderBy('id').pluck('id')).map(Number);
    expect(ids.length).toBeGreaterThan(WRITERS);
    expect(ids).toEqual(ids.map((_, i) => i));
    const types = await db('ledger_logs').where({ ledger }).select('type').count<{ type: string; count: string }[]>('* as count').groupBy('type');
    const txLogs = types.filter((t) => t.type === 'NEW_TRANSACTION' || t.type === 'REVERTED_TRANSACTION').reduce((n, t) => n + Number(t.count), 0);
    expect(txLogs).toBe(Number((await db('ledger_transactions').where({ ledger }).count<{ count: string }[]>('* as count'))[0].count));

    expect(await hashedUpTo(ledger)).toMatchObject({ logs: ids.length, lastHashedLogId: ids.length - 1, lag: 0 });
    // The hasher signed a checkpoint every 100 logs.
    expect((await api('POST', `/api/ledger/v2/${ledger}/logs/verify`)).body.data).toMatchObject({
      valid: true,
      logs: ids.length,
      hashed: ids.length,
      checkpoints: Math.floor(ids.length / 100),
    });

    const exported = (await exportLogs(ledger)).text;
    const copy = await newLedger('logs-prop-copy');
    const imported = await importLogs(copy, exported);
    expect(imported.status).toBe(204);
    expect((await api('GET', `/api/ledger/v2/${copy}/logs/chain`)).body.data.logs).toBe(ids.length);
    expect(await ledgerState(copy)).toEqual(await ledgerState(ledger));
    expect(await ledgerViolations(db, copy, (a) => a === 'world' || a.startsWith('users:'))).toEqual([]);
    await hashedUpTo(copy);
    expect((await exportLogs(copy)).text).toBe(exported);

    // One byte of one log changed: the last digit of its date's milliseconds.
    const lines = exported.trim().split('\n');
    const victim = seed % lines.length;
    lines[victim] = lines[victim].replace(/(\d)Z"/, (_m, d: string) => `${(Number(d) + 1) % 10}Z"`);
    const target = await newLedger('logs-prop-tampered');
    const refused = await importLogs(target, lines.join('\n'));
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ errorCode: 'IMPORT', errorDetails: { logId: victim } });
    expect(await db('ledger_logs').where({ ledger: target }).count<{ count: string }[]>('* as count')).toEqual([{ count: '0' }]);
  });
});
