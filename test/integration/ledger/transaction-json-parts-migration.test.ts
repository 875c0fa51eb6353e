import type { Knex } from 'knex';
import { migrationSchema } from '../../support/migration-schema';
import * as ledger from '../../../db/migrations/003-ledger';
import * as transactionText from '../../../db/migrations/020-ledger-transaction-text';
import * as jsonParts from '../../../db/migrations/022-ledger-transaction-json-parts';
import { TRANSACTION_JSON_SQL } from '../../../areas/ledger/transaction-json';

/**
 * Migration 022 stores a transaction's members that no write changes (its timestamp and postings, its volumes) as the
 * JSON text the reads by txid write. It runs here in a schema of its own, over a row as the previous release wrote it.
 */
describe('migration 022: transactions keep the JSON text of their unchanging members', () => {
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
  const partsOf = async (id: number) => (await db.raw(`SELECT json_head, json_volumes FROM ledger_transactions WHERE id = ?`, [id])).rows[0];

  it('adds the columns without touching existing rows, which are read as before', async () => {
    await db('ledgers').insert({ name: 'l' });
    await db.raw(
      `INSERT INTO ledger_transactions (ledger, id, timestamp, postings, pre_commit_volumes, post_commit_volumes, sources, destinations)
       VALUES ('l', 0, '2026-03-04T05:06:07.891Z', '[{"source":"world","destination":"a","amount":5,"asset":"USD"}]',
         '{"world":{"USD":{"input":0,"output":0,"balance":0}}}', '{"world":{"USD":{"input":0,"output":5,"balance":-5}}}', '{world}', '{a}')`,
    );
    await jsonParts.up(db);

    expect(await partsOf(0)).toEqual({ json_head: null, json_volumes: null });
    expect(await v1Of(0)).toBe(
      '{"txid":0,"timestamp":"2026-03-04T05:06:07.891Z","postings":[{"source":"world","destination":"a","amount":5,"asset":"USD"}],"reference":"","metadata":{},' +
        '"preCommitVolumes":{"world":{"USD":{"input":0,"output":0,"balance":0}}},"postCommitVolumes":{"world":{"USD":{"input":0,"output":5,"balance":-5}}}}',
    );
  });

  it('reads the stored text, keeps it through a change of metadata or a revert, and clears it when a member it holds changes', async () => {
    await db.raw(`UPDATE ledger_transactions SET json_head = '"timestamp":"stored","postings":[]', json_volumes = '"preCommitVolumes":{},"postCommitVolumes":{}' WHERE id = 0`);
    expect(await v1Of(0)).toBe('{"txid":0,"timestamp":"stored","postings":[],"reference":"","metadata":{},"preCommitVolumes":{},"postCommitVolumes":{}}');

    await db.raw(`UPDATE ledger_transactions SET metadata = '{"k":"v"}', reverted_at = now() WHERE id = 0`);
    expect(await partsOf(0)).toEqual({ json_head: '"timestamp":"stored","postings":[]', json_volumes: '"preCommitVolumes":{},"postCommitVolumes":{}' });

    for (const change of [`timestamp = timestamp`, `postings = postings`, `pre_commit_volumes = pre_commit_volumes`, `post_commit_volumes = post_commit_volumes`]) {
      await db.raw(`UPDATE ledger_transactions SET json_head = 'x', json_volumes = 'y' WHERE id = 0`);
      await db.raw(`UPDATE ledger_transactions SET ${change} WHERE id = 0`);
      expect([change, await partsOf(0)]).toEqual([change, { json_head: null, json_volumes: null }]);
    }
    expect(await v1Of(0)).toMatch(/^\{"txid":0,"timestamp":"2026-03-04T05:06:07.891Z","postings":\[\{"source":"world".*"metadata":\{"k":"v"\}/);
  });

  it('goes back to the table as it was', async () => {
    await jsonParts.down(db);
    const columns = await db.raw(`SELECT column_name FROM information_schema.columns WHERE table_schema = ? AND table_name = 'ledger_transactions' AND column_name LIKE 'json_%'`, [schema]);
    expect(columns.rows).toEqual([]);
    const triggers = await db.raw(`SELECT tgname FROM pg_trigger WHERE tgrelid = ?::regclass AND NOT tgisinternal`, [`${schema}.ledger_transactions`]);
    expect(triggers.rows).toEqual([]);
    await db.raw(`UPDATE ledger_transactions SET postings = postings WHERE id = 0`);
  });
});
