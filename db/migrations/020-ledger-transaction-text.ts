import type { Knex } from 'knex';

/**
 * A transaction's postings and volume maps become `json`: PostgreSQL keeps json as the text it was given, so the read
 * by txid (op 11) copies the compact text the writers store instead of walking jsonb to write it out again, which was
 * most of what that read cost PostgreSQL. Nothing queries inside these columns but the volumes-from-postings list, whose
 * json_array_elements reads json as well; metadata stays jsonb (it is merged, filtered by containment and deleted
 * from in place). Existing rows are rewritten into the text the writers now store: compact, postings' members in the
 * order source, destination, amount, asset with amounts as JSON numbers, volume maps in jsonb's key order.
 * The rewrite holds an exclusive lock on the table while it runs, and processes of the previous release fail on the
 * new column types (their reads call jsonb functions on them): stop them before migrating (docs/operations.md).
 */
export async function up(knex: Knex): Promise<void> {
  // ALTER ... USING takes no subquery: the postings' conversion lives in functions for the length of the migration.
  // A posting without one of its four members would write as NULL, which string_agg would silently drop.
  await knex.raw(`
    CREATE OR REPLACE FUNCTION pg_temp.posting_text(v jsonb) RETURNS text LANGUAGE sql IMMUTABLE AS $$
      SELECT '{"source":' || (v->'source')::text || ',"destination":' || (v->'destination')::text
        || ',"amount":' || ((v->>'amount')::numeric)::text || ',"asset":' || (v->'asset')::text || '}'
    $$;
    CREATE OR REPLACE FUNCTION pg_temp.postings_text(postings jsonb) RETURNS text LANGUAGE sql IMMUTABLE AS $$
      SELECT '[' || coalesce(string_agg(pg_temp.posting_text(p.v), ',' ORDER BY p.n), '') || ']'
      FROM jsonb_array_elements(postings) WITH ORDINALITY AS p(v, n)
    $$`);
  const incomplete = await knex.raw(
    `SELECT t.ledger, t.id FROM ledger_transactions t CROSS JOIN LATERAL jsonb_array_elements(t.postings) AS p(v)
      WHERE pg_temp.posting_text(p.v) IS NULL LIMIT 1`,
  );
  if (incomplete.rows.length > 0) {
    const { ledger, id } = incomplete.rows[0] as { ledger: string; id: string };
    throw new Error(
      `migration 020: transaction ${id} of ledger "${ledger}" has a posting without source, destination, amount or asset; repair it, then migrate again`,
    );
  }
  // jsonb writes '": ' after a key and ', "' before the next one; addresses, assets and input/output/balance cannot
  // hold a quote, so those sequences occur nowhere else in a volume map.
  const compact = (column: string) => `replace(replace(${column}::text, '": ', '":'), ', "', ',"')::json`;
  await knex.raw(`
    ALTER TABLE ledger_transactions
      ALTER COLUMN postings TYPE json USING pg_temp.postings_text(postings)::json,
      ALTER COLUMN pre_commit_volumes TYPE json USING ${compact('pre_commit_volumes')},
      ALTER COLUMN post_commit_volumes TYPE json USING ${compact('post_commit_volumes')}`);
  await knex.raw('DROP FUNCTION pg_temp.postings_text(jsonb); DROP FUNCTION pg_temp.posting_text(jsonb)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE ledger_transactions
      ALTER COLUMN postings TYPE jsonb USING postings::jsonb,
      ALTER COLUMN pre_commit_volumes TYPE jsonb USING pre_commit_volumes::jsonb,
      ALTER COLUMN post_commit_volumes TYPE jsonb USING post_commit_volumes::jsonb`);
}
