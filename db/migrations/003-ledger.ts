import type { Knex } from 'knex';

/**
 * The ledger's tables. Amounts are `numeric` (any size, exact). Current balances live in `ledger_volumes`, one row per
 * (ledger, account, asset): writers lock exactly those rows, in sorted order, so transactions on disjoint accounts
 * run in parallel and transactions on shared accounts queue without deadlocking. txids come from `ledgers.next_txid`,
 * a counter updated inside the writing transaction, which is what makes them dense per ledger (a sequence would leave
 * holes on rollback).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('ledgers', (t) => {
    t.bigIncrements('id', { primaryKey: false }).unique();
    t.text('name').primary();
    t.text('bucket').notNullable().defaultTo('_default');
    t.jsonb('metadata').notNullable().defaultTo('{}');
    t.bigInteger('next_txid').notNullable().defaultTo(0);
    t.timestamp('added_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('ledger_transactions', (t) => {
    t.text('ledger').notNullable().references('name').inTable('ledgers');
    t.bigInteger('id').notNullable();
    t.timestamp('timestamp', { useTz: true }).notNullable();
    t.text('reference');
    t.jsonb('postings').notNullable();
    t.jsonb('metadata').notNullable().defaultTo('{}');
    // Both volume maps are stored: a read by txid (op 11) is one row, and the stored values are what the write saw.
    t.jsonb('pre_commit_volumes').notNullable();
    t.jsonb('post_commit_volumes').notNullable();
    // Account lists for the account/source/destination filters (GIN-indexed containment).
    t.specificType('sources', 'text[]').notNullable();
    t.specificType('destinations', 'text[]').notNullable();
    t.timestamp('inserted_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('reverted_at', { useTz: true });
    t.primary(['ledger', 'id']);
  });
  await knex.raw('CREATE UNIQUE INDEX ledger_transactions_reference ON ledger_transactions (ledger, reference) WHERE reference IS NOT NULL');
  await knex.raw('CREATE INDEX ledger_transactions_sources ON ledger_transactions USING gin (sources)');
  await knex.raw('CREATE INDEX ledger_transactions_destinations ON ledger_transactions USING gin (destinations)');
  await knex.raw('CREATE INDEX ledger_transactions_timestamp ON ledger_transactions (ledger, timestamp)');

  await knex.schema.createTable('ledger_volumes', (t) => {
    t.text('ledger').notNullable();
    t.text('address').notNullable();
    t.text('asset').notNullable();
    t.decimal('input', null).notNullable().defaultTo(0);
    t.decimal('output', null).notNullable().defaultTo(0);
    t.primary(['ledger', 'address', 'asset']);
  });

  await knex.schema.createTable('ledger_accounts', (t) => {
    t.text('ledger').notNullable();
    t.text('address').notNullable();
    t.jsonb('metadata').notNullable().defaultTo('{}');
    t.timestamp('first_usage', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['ledger', 'address']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['ledger_accounts', 'ledger_volumes', 'ledger_transactions', 'ledgers']) await knex.schema.dropTable(table);
}
