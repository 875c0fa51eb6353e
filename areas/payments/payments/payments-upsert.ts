import type { Knex } from 'knex';
import type { Executor } from '../../../db/knex';
import { stringifyJson } from '../../../lib/json';
import { accountId, adjustmentId, paymentId } from '../ids';
import { emitSavedPayments, type ProviderPayment } from './payments';
import { distinctBatches, nullable } from './upsert-batches';

/**
 * One statement per batch: the payment rows (status and amount are the latest state's, metadata merged) and one
 * adjustment per distinct state, from arrays unnested in the input's order. It returns the ids of the payments whose
 * row or adjustments changed, in that order. The adjustments refer to payment rows inserted by the same statement:
 * PostgreSQL checks foreign keys at the end of the statement.
 */
const UPSERT_SQL = `
  WITH input AS (
    SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::numeric[], ?::numeric[], ?::text[], ?::text[],
      ?::timestamptz[], ?::jsonb[], ?::jsonb[], ?::text[], ?::timestamptz[])
      WITH ORDINALITY AS i(id, reference, type, status, scheme, asset, initial_amount, amount, source_account_id, destination_account_id,
        created_at, raw, metadata, adjustment_id, adjusted_at, n)
  ),
  saved AS (
    INSERT INTO payments_payments (id, connector_id, reference, type, status, scheme, asset, initial_amount, amount,
      source_account_id, destination_account_id, created_at, raw, metadata)
    SELECT id, ?, reference, type, status, scheme, asset, initial_amount, amount, source_account_id, destination_account_id, created_at, raw, metadata
    FROM input ORDER BY n
    ON CONFLICT (id) DO UPDATE SET status = excluded.status, amount = excluded.amount, scheme = excluded.scheme,
      raw = excluded.raw, metadata = payments_payments.metadata || excluded.metadata
    WHERE (payments_payments.status, payments_payments.amount, payments_payments.scheme, payments_payments.raw)
        IS DISTINCT FROM (excluded.status, excluded.amount, excluded.scheme, excluded.raw)
      OR NOT payments_payments.metadata @> excluded.metadata
    RETURNING id
  ),
  adjusted AS (
    INSERT INTO payments_adjustments (id, payment_id, reference, created_at, status, amount, raw)
    SELECT adjustment_id, id, reference, adjusted_at, status, amount, raw FROM input ORDER BY n
    ON CONFLICT (id) DO NOTHING
    RETURNING payment_id
  )
  SELECT i.id FROM input i
  WHERE i.id IN (SELECT id FROM saved) OR i.id IN (SELECT payment_id FROM adjusted)
  ORDER BY i.n`;

/**
 * Upserts fetched payment states in batches of one statement each, then emits SAVED_PAYMENT for every payment that
 * changed, in the input's order. Re-fetching the same states changes nothing and emits nothing; a payment listed twice
 * is upserted twice, in order (distinctBatches). Returns every input's payment id (in order) and how many changed.
 */
export async function upsertPayments(trx: Executor, connectorID: string, payments: ProviderPayment[]): Promise<{ ids: string[]; changed: number }> {
  const account = (reference?: string) => (reference ? accountId(connectorID, reference) : null);
  let changed = 0;
  for (const batch of distinctBatches(payments, (p) => p.reference)) {
    const ids = batch.map((p) => paymentId(connectorID, p.reference));
    const column = <T>(value: (p: ProviderPayment, i: number) => T): T[] => batch.map(value);
    const bindings: Knex.Value[] = [
      ids,
      column((p) => p.reference),
      column((p) => p.type),
      column((p) => p.status),
      column((p) => p.scheme),
      column((p) => p.asset),
      column((p) => (p.initialAmount ?? p.amount).toString()),
      column((p) => p.amount.toString()),
      nullable(column((p) => account(p.sourceAccountReference))),
      nullable(column((p) => account(p.destinationAccountReference))),
      column((p) => p.createdAt.toISOString()),
      column((p) => stringifyJson(p.raw ?? {})),
      column((p) => stringifyJson(p.metadata)),
      column((p, i) => adjustmentId(ids[i], p.reference, p.updatedAt ?? p.createdAt, p.status)),
      column((p) => (p.updatedAt ?? p.createdAt).toISOString()),
      connectorID,
    ];
    const { rows } = await trx.raw(UPSERT_SQL, bindings);
    const changedIds = (rows as Array<{ id: string }>).map((r) => r.id);
    await emitSavedPayments(trx, changedIds);
    changed += changedIds.length;
  }
  return { ids: payments.map((p) => paymentId(connectorID, p.reference)), changed };
}

/** One payment state (a manual record, an initiation's result): upsertPayments of one. */
export async function upsertPayment(trx: Executor, connectorID: string, p: ProviderPayment): Promise<{ id: string; changed: boolean }> {
  const { ids, changed } = await upsertPayments(trx, connectorID, [p]);
  return { id: ids[0], changed: changed > 0 };
}
