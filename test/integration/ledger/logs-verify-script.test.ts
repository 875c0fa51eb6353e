import { createDb, type Db } from '../../../db/knex';
import { api } from '../../support/http';
import { newLedger, postTransaction, posting } from '../../support/ledger';
import { hashedUpTo, verifyScript } from '../../support/ledger-logs';

/** `npm run ledger:verify -- <ledger>` and POST .../logs/verify find a log changed in the database. */
describe('ledger log verification of a tampered database', () => {
  let db: Db;
  beforeAll(() => {
    db = createDb(process.env.TEST_DATABASE_URL!, { poolMax: 2 });
  });
  afterAll(() => db.destroy());

  it('passes on an intact chain and names the first changed log, exiting 1', async () => {
    const ledger = await newLedger('logs-tamper');
    for (let i = 1; i <= 3; i++) expect((await postTransaction(ledger, { postings: [posting('world', `users:${i}`, i)] })).status).toBe(200);
    await hashedUpTo(ledger);
    expect(await verifyScript(ledger)).toMatchObject({
      code: 0,
      report: { ledger, valid: true, logs: 3, hashed: 3, chain: { lag: 0, lastHashedLogId: 2 } },
    });

    await db.raw(`UPDATE ledger_logs SET data = jsonb_set(data, '{transaction,postings,0,amount}', '200') WHERE ledger = ? AND id = 1`, [ledger]);
    const broken = await verifyScript(ledger);
    expect(broken.code).toBe(1);
    expect(broken.report).toMatchObject({ valid: false, firstBroken: { id: 1, reason: expect.stringContaining('does not verify') } });
    expect((await api('POST', `/api/ledger/v2/${ledger}/logs/verify`)).body.data).toMatchObject({ valid: false, firstBroken: { id: 1 } });

    await db('ledger_logs').where({ ledger, id: 2 }).delete();
    expect((await api('POST', `/api/ledger/v2/${ledger}/logs/verify`)).body.data).toMatchObject({ valid: false, firstBroken: { id: 1 } });
    await db.raw(`UPDATE ledger_logs SET data = jsonb_set(data, '{transaction,postings,0,amount}', '2') WHERE ledger = ? AND id = 1`, [ledger]);
    expect((await api('POST', `/api/ledger/v2/${ledger}/logs/verify`)).body.data).toMatchObject({
      valid: false,
      firstBroken: { id: 2, reason: expect.stringContaining('missing') },
    });
  });
});
