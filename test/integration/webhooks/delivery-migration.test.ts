import type { Knex } from 'knex';
import { migrationSchema } from '../../support/migration-schema';
import * as webhooks from '../../../db/migrations/007-webhooks';
import * as deliveries from '../../../db/migrations/013-webhook-deliveries';

/**
 * Migration 013 converts the deliveries and attempts written before it. It runs here in a schema of its own, over rows
 * as the previous release wrote them, so the shared test database is untouched.
 */
describe("migration 013: deliveries in Formance's shape", () => {
  const { db: connection } = migrationSchema('migration_013', (db) => webhooks.up(db));
  let db: Knex;
  beforeAll(() => {
    db = connection();
  });

  const config = { id: '00000000-0000-4000-8000-000000000001', endpoint: 'https://example.com/hook', active: true };
  const delivery = (n: number, fields: Record<string, unknown>) => ({
    id: `00000000-0000-4000-8000-00000000010${n}`,
    event_id: `00000000-0000-4000-8000-00000000020${n}`,
    config_id: config.id,
    event_type: 'ledger.committed_transactions',
    endpoint: config.endpoint,
    payload: '{}',
    ...fields,
  });
  let seq = 0;
  const attempt = (n: number, retryAttempt: number, status: string, at: string) => ({
    id: `00000000-0000-4000-8000-0000000003${String(++seq).padStart(2, '0')}`,
    delivery_id: delivery(n, {}).id,
    retry_attempt: retryAttempt,
    status_code: status === 'success' ? 200 : 500,
    status,
    config: { endpoint: config.endpoint },
    duration_ms: 5,
    created_at: at,
  });

  it("maps statuses, counts the attempts of the current generation and numbers each attempt's generation", async () => {
    await db('webhook_configs').insert({ ...config, secret: 's', event_types: ['ledger.committed_transactions'] });
    await db('webhook_deliveries').insert([
      delivery(1, { status: 'success', attempts: 1 }),
      delivery(2, { status: 'retrying', attempts: 2 }),
      delivery(3, { status: 'failed', attempts: 1, last_error: 'the config was deactivated' }),
      // Failed twice, replayed, failed again, replayed, then succeeded at its second try: three generations.
      delivery(4, { status: 'success', attempts: 5, replays: 2 }),
      delivery(5, { status: 'pending', attempts: 0 }),
    ]);
    await db('webhook_attempts').insert([
      attempt(1, 0, 'success', '2024-01-01T00:00:01Z'),
      attempt(2, 0, 'to retry', '2024-01-01T00:00:01Z'),
      attempt(2, 1, 'to retry', '2024-01-01T00:00:02Z'),
      attempt(3, 0, 'to retry', '2024-01-01T00:00:01Z'),
      attempt(4, 0, 'to retry', '2024-01-01T00:00:01Z'),
      attempt(4, 1, 'failed', '2024-01-01T00:00:02Z'),
      attempt(4, 0, 'failed', '2024-01-01T00:00:03Z'),
      attempt(4, 0, 'to retry', '2024-01-01T00:00:04Z'),
      attempt(4, 1, 'success', '2024-01-01T00:00:05Z'),
    ]);

    await deliveries.up(db);

    const rows = await db('webhook_deliveries').orderBy('id').select('status', 'attempt_count', 'replay_generation', 'last_attempt_at');
    expect(rows.map((r) => [r.status, r.attempt_count, r.replay_generation, r.last_attempt_at?.toISOString() ?? null])).toEqual([
      ['succeeded', 1, 0, '2024-01-01T00:00:01.000Z'],
      ['pending', 2, 0, '2024-01-01T00:00:02.000Z'],
      ['cancelled', 1, 0, '2024-01-01T00:00:01.000Z'],
      ['succeeded', 2, 2, '2024-01-01T00:00:05.000Z'],
      ['pending', 0, 0, null],
    ]);
    const generations = await db('webhook_attempts')
      .where({ delivery_id: delivery(4, {}).id })
      .orderBy('seq')
      .pluck('replay_generation');
    expect(generations).toEqual([0, 0, 1, 2, 2]);
    await expect(
      db('webhook_deliveries')
        .where({ id: delivery(5, {}).id })
        .update({ status: 'retrying' }),
    ).rejects.toThrow(/webhook_deliveries_status/);

    await deliveries.down(db);
    const restored = await db('webhook_deliveries').orderBy('id').select('status', 'attempts', 'replays');
    expect(restored.map((r) => [r.status, r.attempts, r.replays])).toEqual([
      ['success', 1, 0],
      ['retrying', 2, 0],
      ['failed', 1, 0],
      ['success', 5, 2],
      ['pending', 0, 0],
    ]);
  });
});
