import type { Knex } from 'knex';

/**
 * A transaction's postings and volume maps become `json`: PostgreSQL keeps json as the text it was given, so the read
 * by txid (op 11) copies the compact text the writers store instead of walking jsonb to write it out again, which was
 * most of what that read cost PostgreSQL. Nothing queries inside these columns but the volumes-from-postings list, whose
 * json_array_elements reads json as well; metadata stays jsonb (it is merged, filtered by containment and deleted
 * from in place). Existing rows are rewritten into the text the writers now store: compact, postings' members in the
 * order source, destination, amount, asset with amounts as JSON numbers, volume maps in jsonb's key order.
 */
export async function up(knex: Knex): Promise<void> {
  // ALTER ... USING takes no subquery: the postings' conversion lives in a function for the length of the migration.
  await knex.raw(`
    CREATE FUNCTION pg_temp.postings_text(postings jsonb) RETURNS text LANGUAGE sql IMMUTABLE AS $$
      SELECT '[' || coalesce(string_agg('{"source":' || (p.v->'source')::text || ',"destination":' || (p.v->'destination')::text
        || ',"amount":' || ((p.v->>'amount')::numeric)::text || ',"asset":' || (p.v->'asset')::text || '}', ',' ORDER BY p.n), '') || ']'
      FROM jsonb_array_elements(postings) WITH ORDINALITY AS p(v, n)
    $$`);
  // jsonb writes '": ' after a key and ', "' before the next one; addresses, assets and input/output/balance cannot
  // hold a quote, so those sequences occur nowhere else in a volume map.
  const compact = (column: string) => `replace(replace(${column}::text, '": ', '":'), ', "', ',"')::json`;
  await knex.raw(`
    ALTER TABLE ledger_transactions
      ALTER COLUMN postings TYPE json USING pg_temp.postings_text(postings)::json,
      ALTER COLUMN pre_commit_volumes TYPE json USING ${compact('pre_commit_volumes')},
      ALTER COLUMN post_commit_volumes TYPE json USING ${compact('post_commit_volumes')}`);
  await knex.raw('DROP FUNCTION pg_temp.postings_text(jsonb)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE ledger_transactions
      ALTER COLUMN postings TYPE jsonb USING postings::jsonb,
      ALTER COLUMN pre_commit_volumes TYPE jsonb USING pre_commit_volumes::jsonb,
      ALTER COLUMN post_commit_volumes TYPE jsonb USING post_commit_volumes::jsonb`);
}
