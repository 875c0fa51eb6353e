import { ApiError, notFound, validationError } from '../../../lib/errors';
import type { TemporalDeps } from '../../../lib/temporal';
import type { Db, Executor } from '../../../db/knex';
import { keysetPage, type Page, type PageRequest } from '../../../db/pagination';
import { requireOpenBankingCapability, type OpenBankingCapability } from '../connectors/connector-catalog';
import { getConnectorRow, type ConnectorRow } from '../connectors/connectors';
import { runPaymentServiceUserForward, startConnectionDelete, startPsuConnectorDelete } from '../engine';
import { isUuid } from '../ids';
import { getPaymentServiceUser } from './payment-service-users';

/**
 * Formance's open banking for payment service users, API side: forwarding a user to a connector's provider, its bank
 * connections and their deletion. Links and the consent flow are in psu-links.ts; what the worker records, in
 * psu-connections.ts.
 */

/** Formance's connection as its API shows it (the provider's tokens are never part of it). */
export interface OpenBankingConnection {
  connectionID: string;
  connectorID: string;
  createdAt: Date;
  dataUpdatedAt: Date;
  status: string;
  updatedAt: Date;
  error: string | null;
  metadata: Record<string, string>;
}

const presentConnection = (r: any): OpenBankingConnection => ({
  connectionID: r.id,
  connectorID: r.connector_id,
  createdAt: r.created_at,
  dataUpdatedAt: r.data_updated_at,
  status: r.status,
  updatedAt: r.updated_at,
  error: r.error ?? null,
  metadata: r.metadata ?? {},
});

/** The user and the installed connector of an operation, whose plugin must have `capability`. Throws NOT_FOUND, VALIDATION. */
export async function openBankingTarget(db: Executor, psuID: string, connectorID: string, capability: OpenBankingCapability): Promise<ConnectorRow> {
  await getPaymentServiceUser(db, psuID);
  const connector = await getConnectorRow(db, connectorID, { installed: true });
  requireOpenBankingCapability(connector, capability);
  return connector;
}

export async function isForwarded(db: Executor, psuID: string, connectorID: string): Promise<boolean> {
  return Boolean(isUuid(psuID) && (await db('payments_psu_connectors').where({ psu_id: psuID, connector_id: connectorID }).first()));
}

const unavailable = (what: string, error: unknown) => new ApiError('SERVICE_UNAVAILABLE', `could not start ${what} on Temporal`, { cause: error });

/**
 * Registers the user at the connector's provider and answers once it is done (Formance's 204); forwarding again is a
 * no-op. A provider refusal is 400 with its message. Throws NOT_FOUND, VALIDATION, SERVICE_UNAVAILABLE.
 */
export async function forwardPaymentServiceUserToProvider(
  deps: { db: Db; temporal: TemporalDeps },
  psuID: string,
  connectorID: string,
): Promise<void> {
  await openBankingTarget(deps.db, psuID, connectorID, 'CREATE_USER');
  if (await isForwarded(deps.db, psuID, connectorID)) return;
  let run;
  try {
    run = await runPaymentServiceUserForward(deps.temporal, psuID, connectorID, 30_000);
  } catch (error) {
    throw unavailable('the forward', error);
  }
  if (run.outcome === 'failed') throw validationError(`the provider refused the payment service user: ${run.message}`);
  if (run.outcome === 'timeout')
    throw new ApiError('SERVICE_UNAVAILABLE', 'the provider did not answer in time; the forward goes on, retry to see it done');
}

/** Throws NOT_FOUND when the user (or connector) is unknown. */
export async function listConnections(
  db: Executor,
  psuID: string,
  connectorID: string | undefined,
  page: PageRequest,
): Promise<Page<OpenBankingConnection>> {
  await getPaymentServiceUser(db, psuID);
  if (connectorID !== undefined) await getConnectorRow(db, connectorID);
  const query = db('payments_psu_connections').where({ psu_id: psuID }).select('*');
  if (connectorID !== undefined) query.where({ connector_id: connectorID });
  const rows = await keysetPage<any>(query, ['created_at', 'id'], 'desc', page);
  return { ...rows, items: rows.items.map(presentConnection) };
}

export const connectionKey = (c: OpenBankingConnection): unknown[] => [c.createdAt.toISOString(), c.connectionID];

/** The user's connection at that connector. Throws NOT_FOUND. */
export async function getConnection(db: Executor, psuID: string, connectorID: string, connectionID: string): Promise<OpenBankingConnection> {
  const row = isUuid(psuID)
    ? await db('payments_psu_connections').where({ id: connectionID, psu_id: psuID, connector_id: connectorID }).first()
    : undefined;
  if (!row) throw notFound(`connection ${connectionID} not found`);
  return presentConnection(row);
}

/** Formance's 202 with a task: deletes the connection at the provider, then its accounts here. Throws NOT_FOUND, VALIDATION. */
export async function deletePaymentServiceUserConnection(
  deps: { db: Db; temporal: TemporalDeps },
  psuID: string,
  connectorID: string,
  connectionID: string,
): Promise<{ taskID: string }> {
  await openBankingTarget(deps.db, psuID, connectorID, 'DELETE_USER_CONNECTION');
  await getConnection(deps.db, psuID, connectorID, connectionID);
  try {
    return { taskID: await startConnectionDelete(deps.temporal, { psuID, connectorID, connectionID }) };
  } catch (error) {
    throw unavailable('the deletion', error);
  }
}

/**
 * Formance's 202 with a task: removes the user from the connector (each connection, then the user at the provider);
 * the user itself stays. Throws NOT_FOUND (also when the user was never forwarded there), VALIDATION.
 */
export async function deletePaymentServiceUserConnector(
  deps: { db: Db; temporal: TemporalDeps },
  psuID: string,
  connectorID: string,
): Promise<{ taskID: string }> {
  await openBankingTarget(deps.db, psuID, connectorID, 'DELETE_USER');
  if (!(await isForwarded(deps.db, psuID, connectorID)))
    throw notFound(`payment service user ${psuID} is not registered at connector ${connectorID}`);
  try {
    return { taskID: await startPsuConnectorDelete(deps.temporal, psuID, connectorID) };
  } catch (error) {
    throw unavailable('the deletion', error);
  }
}
