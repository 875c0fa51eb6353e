import type { Knex } from 'knex';

/**
 * The ledgers the platform writes on its own behalf move to the `_platform` bucket, which cannot be deleted
 * (areas/ledger/ledgers.ts PLATFORM_BUCKET): a client deleting `_default` would otherwise stop every wallet. The names
 * are those areas/wallets and lib/orchestration give them; a deleted flag a bucket delete left on them is cleared.
 */
const PLATFORM_LEDGERS = ['wallets', 'orchestration-000-internal'];

export async function up(knex: Knex): Promise<void> {
  await knex('ledgers').whereIn('name', PLATFORM_LEDGERS).update({ bucket: '_platform', deleted_at: null });
}

export async function down(knex: Knex): Promise<void> {
  await knex('ledgers').whereIn('name', PLATFORM_LEDGERS).update({ bucket: '_default' });
}
