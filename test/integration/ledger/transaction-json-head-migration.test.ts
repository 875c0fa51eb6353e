import type { Knex } from 'knex';
import { migrationSchema } from '../../support/migration-schema';
import * as ledger from '../../../db/migrations/003-ledger';
import * as transactionText from '../../../db/migrations/020-ledger-transaction-text';
import * as jsonHead from '../../../db/migrations/022-ledger-transaction-json-head';
import { TRANSACTION_JSON_SQL } from '../../../areas/ledger/reads/transaction-json';

/**
 * Migration 022 stores a transaction's timestamp and postings, which no write changes, as the JSON text the reads by
 * txid write for them. It runs here in a schema of its own, over a row as the previous release wrote it.
 */
describe('migration 022: transactions keep the JSON text of their timestamp and postings', () => {
  const { schema, db: connection } = migrationSchema('migration_022', async (db) => {
    await ledger.up(db);
    await transactionText.up(db);
  });
  let db: Knex;
  beforeAll(() => {
    db = connection();
  });

  const v1Of = async (id: number): Promise<string> =>
    (await db.raw(`SELECT ${TRANSACTION_JSON_SQL.v1} AS json FROM ledger_transactions t WHERE ledger = 'l' AND id = ?`, [id])).rows[0].json;
  const headOf = async (id: number): Promise<string | null> =>
    (await db.raw(`SELECT json_head FROM ledger_transactions WHERE id = ?`, [id])).rows[0].json_head;

  it('adds the column without touching existing rows, which are read as before', async () => {
    await db('ledgers').insert({ name: 'l' });
    await db.raw(
      `INSERT INTO ledger_transactions (ledger, id, timestamp, postings, pre_commit_volumes, post_commit_volumes, sources, destinations)
       VALUES ('l', 0, '2026-03-04T05:06:07.891Z', '[{"source":"world","destination":"a","amount":5,"asset":"USD"}]',
         '{"world":{"USD":{"input":0,"output":0,"balance":0}}}', '{"world":{"USD":{"input":0,"output":5,"balance":-5}}}', '{world}', '{a}')`,
    );
    await jsonHead.up(db);

    expect(await headOf(0)).toBeNull();
    expect(await v1Of(0)).toBe(
      '{"txid":0,"timestamp":"2026-03-04T05:06:07.891Z","postings":[{"source":"world","destination":"a","amount":5,"asset":"USD"}],"reference":"","metadata":{},' +
        '"preCommitVolumes":{"world":{"USD":{"input":0,"output":0,"balance":0}}},"postCommitVolumes":{"world":{"USD":{"input":0,"output":5,"balance":-5}}}}',
    );
  });

  it('reads the stored text, keeps it through a change of metadata, volumes or revert, and clears it when the timestamp or postings change', async () => {
    await db.raw(`UPDATE ledger_transactions SET json_head = '"timestamp":"stored","postings":[]' WHERE id = 0`);
    expect(await v1Of(0)).toMatch(/^\{"txid":0,"timestamp":"stored","postings":\[\],"reference":"","metadata":\{\},"preCommitVolumes":\{"world"/);

    await db.raw(`UPDATE ledger_transactions SET metadata = '{"k":"v"}', reverted_at = now(), pre_commit_volumes = pre_commit_volumes WHERE id = 0`);
    expect(await headOf(0)).toBe('"timestamp":"stored","postings":[]');

    for (const change of [`timestamp = timestamp`, `postings = postings`]) {
      await db.raw(`UPDATE ledger_transactions SET json_head = 'x' WHERE id = 0`);
      await db.raw(`UPDATE ledger_transactions SET ${change} WHERE id = 0`);
      expect([change, await headOf(0)]).toEqual([change, null]);
    }
    expect(await v1Of(0)).toMatch(/^\{"txid":0,"timestamp":"2026-03-04T05:06:07.891Z","postings":\[\{"source":"world".*"metadata":\{"k":"v"\}/);
  });

  it('goes back to the table as it was', async () => {
    await jsonHead.down(db);
    const columns = await db.raw(
      `SELECT column_name FROM information_schema.columns WHERE table_schema = ? AND table_name = 'ledger_transactions' AND column_name = 'json_head'`,
      [schema],
    );
    expect(columns.rows).toEqual([]);
    const triggers = await db.raw(`SELECT tgname FROM pg_trigger WHERE tgrelid = ?::regclass AND NOT tgisinternal`, [
      `${schema}.ledger_transactions`,
    ]);
    expect(triggers.rows).toEqual([]);
    await db.raw(`UPDATE ledger_transactions SET postings = postings WHERE id = 0`);
  });
});
