import type { Knex } from 'knex';

/**
 * Formance v1's ledger mapping (`PUT /api/ledger/{ledger}/mapping`): the contracts v1 writes check account balances
 * against. One row per ledger that has ever had one (a ledger without a row answers `data: null`, as v1); the contracts
 * are stored as sent, after their expressions parsed (areas/ledger/rules/mapping.ts).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('ledger_mappings', (t) => {
    t.text('ledger').primary().references('name').inTable('ledgers');
    t.jsonb('contracts').notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('ledger_mappings');
}
