import type { Knex } from 'knex';
import { migrationSchema } from '../../support/migration-schema';
import * as ledger from '../../../db/migrations/003-ledger';
import * as transactionText from '../../../db/migrations/020-ledger-transaction-text';

/**
 * Migration 020 turns a transaction's postings and volume maps from jsonb into the compact json text the writers now
 * store and the read by txid copies as it is. It runs here in a schema of its own, over rows as earlier releases wrote
 * them, so the shared test database is untouched.
 */
describe('migration 020: transactions keep their postings and volumes as text', () => {
  const { schema, db: connection } = migrationSchema('migration_020', (db) => ledger.up(db));
  let db: Knex;
  beforeAll(() => {
    db = connection();
  });

  const big = '1180591620717411303424'; // 2^70, beyond a double
  const stored = {
    // Members out of the output order, and an amount written as a string, as hand-made or imported rows may hold.
    postings: `[{"asset": "USD/2", "amount": ${big}, "source": "world", "destination": "a:b"}, {"source": "a:b", "destination": "c", "amount": "7", "asset": "EUR/2"}]`,
    pre: '{"world": {"USD/2": {"input": 0, "output": 0, "balance": 0}}, "a:b": {"USD/2": {"input": 0, "output": 0, "balance": 0}, "EUR/2": {"input": 7, "output": 0, "balance": 7}}, "c": {"EUR/2": {"input": 0, "output": 0, "balance": 0}}}',
    post: `{"world": {"USD/2": {"input": 0, "output": ${big}, "balance": -${big}}}, "a:b": {"USD/2": {"input": ${big}, "output": 0, "balance": ${big}}, "EUR/2": {"input": 7, "output": 7, "balance": 0}}, "c": {"EUR/2": {"input": 7, "output": 0, "balance": 7}}}`,
  };

  it('rewrites existing rows into compact text with the output member order, exact amounts and no other change', async () => {
    await db('ledgers').insert({ name: 'l' });
    await db.raw(
      `INSERT INTO ledger_transactions (ledger, id, timestamp, postings, pre_commit_volumes, post_commit_volumes, sources, destinations)
       VALUES ('l', 0, now(), ?::jsonb, ?::jsonb, ?::jsonb, '{world,a:b}', '{a:b,c}'), ('l', 1, now(), '[]'::jsonb, '{}'::jsonb, '{}'::jsonb, '{}', '{}')`,
      [stored.postings, stored.pre, stored.post],
    );
    const before = (await db.raw(`SELECT pre_commit_volumes::text AS pre, post_commit_volumes::text AS post FROM ledger_transactions WHERE id = 0`))
      .rows[0];

    // A posting missing a member stops the migration, naming the transaction, before anything is rewritten.
    await db.raw(`INSERT INTO ledger_transactions (ledger, id, timestamp, postings, pre_commit_volumes, post_commit_volumes, sources, destinations)
      VALUES ('l', 2, now(), '[{"source": "a", "destination": "b", "amount": 1}]'::jsonb, '{}'::jsonb, '{}'::jsonb, '{a}', '{b}')`);
    await expect(transactionText.up(db)).rejects.toThrow(
      'migration 020: transaction 2 of ledger "l" has a posting without source, destination, amount or asset',
    );
    expect((await db.raw(`SELECT pg_typeof(postings)::text AS type FROM ledger_transactions WHERE id = 2`)).rows[0].type).toBe('jsonb');
    await db('ledger_transactions').where({ id: 2 }).delete();

    await transactionText.up(db);

    const types = await db.raw(
      `SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = ? AND table_name = 'ledger_transactions' AND column_name IN ('postings', 'metadata', 'pre_commit_volumes', 'post_commit_volumes') ORDER BY column_name`,
      [schema],
    );
    expect(types.rows).toEqual([
      { column_name: 'metadata', data_type: 'jsonb' },
      { column_name: 'post_commit_volumes', data_type: 'json' },
      { column_name: 'postings', data_type: 'json' },
      { column_name: 'pre_commit_volumes', data_type: 'json' },
    ]);
    const rows = (
      await db.raw(
        `SELECT id, postings::text AS postings, pre_commit_volumes::text AS pre, post_commit_volumes::text AS post FROM ledger_transactions ORDER BY id`,
      )
    ).rows;
    expect(rows[0].postings).toBe(
      `[{"source":"world","destination":"a:b","amount":${big},"asset":"USD/2"},{"source":"a:b","destination":"c","amount":7,"asset":"EUR/2"}]`,
    );
    // jsonb's order (shorter keys first) is kept; only the separators lose their spaces.
    expect(rows[0].pre).toBe(before.pre.replace(/": /g, '":').replace(/, "/g, ',"'));
    expect(rows[0].post).toBe(
      `{"c":{"EUR/2":{"input":7,"output":0,"balance":7}},"a:b":{"EUR/2":{"input":7,"output":7,"balance":0},"USD/2":{"input":${big},"output":0,"balance":${big}}},"world":{"USD/2":{"input":0,"output":${big},"balance":-${big}}}}`,
    );
    expect(rows[1]).toEqual({ id: '1', postings: '[]', pre: '{}', post: '{}' });
  });

  it('goes back to jsonb holding the same values', async () => {
    await transactionText.down(db);
    const row = (
      await db.raw(
        `SELECT postings, post_commit_volumes = ?::jsonb AS same_post, pg_typeof(postings)::text AS type FROM ledger_transactions WHERE id = 0`,
        [stored.post],
      )
    ).rows[0];
    expect(row.type).toBe('jsonb');
    expect(row.same_post).toBe(true);
    expect(row.postings[1]).toEqual({ source: 'a:b', destination: 'c', amount: 7, asset: 'EUR/2' });
  });
});
