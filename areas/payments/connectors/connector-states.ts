import type { Executor } from '../../../db/knex';
import { stringifyJson } from '../../../lib/json';

/**
 * A connector's states between runs (payments_connector_states): `fetch:<kind>` is a plugin's fetch cursor, written in
 * the transaction that writes the rows fetched up to it, so a run that fails or a worker that restarts resumes after
 * the last rows written, never before them (no gap) and never re-adds them (upserts by reference). `webhooks` holds the
 * endpoints a plugin registered with its provider, with their signing secrets.
 */
export async function getConnectorState<T = unknown>(db: Executor, connectorID: string, kind: string): Promise<T | undefined> {
  const row = await db('payments_connector_states').where({ connector_id: connectorID, kind }).first('state');
  return row ? (row.state as T) : undefined;
}

export async function saveConnectorState(trx: Executor, connectorID: string, kind: string, state: unknown): Promise<void> {
  await trx('payments_connector_states')
    .insert({ connector_id: connectorID, kind, state: stringifyJson(state), updated_at: trx.fn.now() })
    .onConflict(['connector_id', 'kind'])
    .merge(['state', 'updated_at']);
}

/** A reset fetches from scratch: its fetch cursors go (the webhook endpoints stay registered). */
export async function clearFetchStates(db: Executor, connectorID: string): Promise<void> {
  await db('payments_connector_states').where({ connector_id: connectorID }).andWhereLike('kind', 'fetch:%').delete();
}
