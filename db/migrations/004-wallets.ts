import type { Knex } from 'knex';

/**
 * Wallets keep their money in the ledger (ledger `wallets`, chart in docs/wallets.md); these tables hold only what the ledger
 * has no place for: the wallet registry, named balances' settings, and holds with where their funds came from (so a
 * void can return them) and whether they are closed (the row lock that makes confirm/void settle once).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('wallets', (t) => {
    t.bigIncrements('seq', { primaryKey: false }).unique();
    t.uuid('id').primary();
    t.text('name').notNullable();
    t.jsonb('metadata').notNullable().defaultTo('{}');
    t.text('ledger').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['name']);
  });
  await knex.schema.createTable('wallet_balances', (t) => {
    t.uuid('wallet_id').notNullable().references('id').inTable('wallets');
    t.text('name').notNullable();
    t.timestamp('expires_at', { useTz: true });
    t.integer('priority').notNullable().defaultTo(0);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['wallet_id', 'name']);
  });
  await knex.schema.createTable('wallet_holds', (t) => {
    t.bigIncrements('seq', { primaryKey: false }).unique();
    t.uuid('id').primary();
    t.uuid('wallet_id').notNullable().references('id').inTable('wallets');
    t.text('asset').notNullable();
    t.decimal('original_amount', null).notNullable();
    t.text('description').notNullable().defaultTo('');
    t.jsonb('metadata').notNullable().defaultTo('{}');
    t.jsonb('destination').notNullable();
    // [{account, amount}] in debit order: a void sends the remainder back along the same accounts.
    t.jsonb('sources').notNullable();
    t.timestamp('closed_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['wallet_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['wallet_holds', 'wallet_balances', 'wallets']) await knex.schema.dropTable(table);
}
