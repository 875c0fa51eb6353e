import { notFound } from '../../../lib/errors';
import { inTransaction } from '../../../db/errors';
import type { Db, Executor } from '../../../db/knex';
import { upsertAccounts, upsertBalances, type ProviderAccount, type ProviderBalance } from '../accounts/accounts';
import { getConnectorRow, lockInstalledConnector, type ConnectorRow } from '../connectors/connectors';
import { type ProviderPayment } from '../payments/payments';
import { upsertPayments } from '../payments/payments-upsert';
import { isUuid } from '../ids';

/**
 * The worker side of open banking: what the activities record once the provider answered. Each function is
 * idempotent, because Temporal retries the activity that calls it.
 */

/** The user as the provider learns it, with the connector to forward it to. Throws NOT_FOUND. */
export async function loadPsuForConnector(
  db: Db,
  psuID: string,
  connectorID: string,
): Promise<{ user: { id: string; name: string; email?: string }; connector: ConnectorRow }> {
  const row = isUuid(psuID) ? await db('payments_psus').where({ id: psuID }).first() : undefined;
  if (!row) throw notFound(`payment service user ${psuID} not found`);
  const connector = await getConnectorRow(db, connectorID, { installed: true });
  return { user: { id: row.id, name: row.name, ...(row.contact_details?.email ? { email: row.contact_details.email } : {}) }, connector };
}

export async function recordPsuForward(db: Db, psuID: string, connectorID: string): Promise<void> {
  await db('payments_psu_connectors').insert({ psu_id: psuID, connector_id: connectorID }).onConflict(['psu_id', 'connector_id']).ignore();
}

export interface PendingAttempt {
  id: string;
  psuID: string;
  connectorID: string;
  connectionID: string;
  connector: ConnectorRow;
}

/**
 * The attempt to complete, or undefined when it is no longer pending (already completed, exited or deleted). A new
 * link's connection id derives from the attempt, so a retried completion finds the same connection.
 */
export async function loadPendingAttempt(db: Db, attemptID: string): Promise<PendingAttempt | undefined> {
  const row = await db('payments_psu_link_attempts').where({ id: attemptID, status: 'pending' }).first();
  if (!row) return undefined;
  const connector = await getConnectorRow(db, row.connector_id, { installed: true });
  return { id: row.id, psuID: row.psu_id, connectorID: row.connector_id, connectionID: row.connection_id ?? `conn-${row.id}`, connector };
}

/**
 * Records a consent: the attempt completes, the connection is created (or renewed, for an update link) and its
 * accounts, balances and payments are stored with the user and the connection, all in one transaction, and only while the
 * attempt is still pending (a second completion writes nothing).
 */
export async function recordLinkCompletion(
  db: Db,
  attempt: PendingAttempt,
  data: { accounts: ProviderAccount[]; balances: ProviderBalance[]; payments: ProviderPayment[] },
): Promise<void> {
  await inTransaction(db, async (trx) => {
    // Locked, so a concurrent completion waits here and then finds the attempt no longer pending.
    const pending = await trx('payments_psu_link_attempts').where({ id: attempt.id, status: 'pending' }).forUpdate().first();
    if (!pending) return;
    // The provider was called before this transaction: write its data only if the connector was not uninstalled since.
    if (!(await lockInstalledConnector(trx, attempt.connectorID))) throw notFound(`connector ${attempt.connectorID} not found or uninstalled`);
    await trx('payments_psu_connections')
      .insert({ id: attempt.connectionID, psu_id: attempt.psuID, connector_id: attempt.connectorID, status: 'ACTIVE' })
      .onConflict('id')
      .merge({ status: 'ACTIVE', error: null, updated_at: trx.fn.now(), data_updated_at: trx.fn.now() });
    await trx('payments_psu_link_attempts')
      .where({ id: attempt.id })
      .update({ status: 'completed', connection_id: attempt.connectionID, updated_at: trx.fn.now() });
    await upsertAccounts(trx, attempt.connectorID, attempt.connector.provider, data.accounts);
    const references = data.accounts.map((a) => a.reference);
    if (references.length) {
      await trx('payments_accounts')
        .where({ connector_id: attempt.connectorID })
        .whereIn('reference', references)
        .update({ psu_id: attempt.psuID, open_banking_connection_id: attempt.connectionID });
    }
    await upsertBalances(trx, attempt.connectorID, attempt.connector.provider, data.balances);
    await upsertPayments(trx, attempt.connectorID, data.payments);
    const paymentReferences = data.payments.map((p) => p.reference);
    if (paymentReferences.length) {
      await trx('payments_payments')
        .where({ connector_id: attempt.connectorID })
        .whereIn('reference', paymentReferences)
        .update({ psu_id: attempt.psuID, open_banking_connection_id: attempt.connectionID });
    }
  });
}

/** Marks a pending attempt exited with the reason (the end user refused, or the provider failed for good). */
export async function exitLinkAttempt(db: Db, attemptID: string, error: string): Promise<void> {
  await db('payments_psu_link_attempts').where({ id: attemptID, status: 'pending' }).update({ status: 'exited', error, updated_at: db.fn.now() });
}

export async function connectionsOf(db: Executor, psuID: string, connectorID: string): Promise<string[]> {
  return db('payments_psu_connections').where({ psu_id: psuID, connector_id: connectorID }).orderBy('id').pluck('id');
}

/** The connectors the user is registered at. */
export async function connectorsOfPsu(db: Executor, psuID: string): Promise<string[]> {
  return isUuid(psuID) ? db('payments_psu_connectors').where({ psu_id: psuID }).orderBy('connector_id').pluck('connector_id') : [];
}

/** The connection's psu and connector, or undefined when it is already gone. */
export async function findConnection(db: Executor, connectionID: string): Promise<{ psuID: string; connector: ConnectorRow } | undefined> {
  const row = await db('payments_psu_connections').where({ id: connectionID }).first();
  return row ? { psuID: row.psu_id, connector: await getConnectorRow(db, row.connector_id) } : undefined;
}

/**
 * Deletes a connection and what it gave access to: its payments with their adjustments, its accounts with their
 * balances and pool memberships. A payment or account a payment initiation or a bank account still refers to is kept,
 * detached from the connection, so that history stays readable.
 */
export async function removeConnection(db: Db, connectionID: string): Promise<void> {
  await inTransaction(db, async (trx) => {
    const payments = trx('payments_payments').where({ open_banking_connection_id: connectionID }).select('id');
    const unreferenced = trx('payments_payments')
      .where({ open_banking_connection_id: connectionID })
      .whereNotExists(trx('payments_initiation_payments').whereRaw('payments_initiation_payments.payment_id = payments_payments.id'))
      .select('id');
    await trx('payments_adjustments').whereIn('payment_id', unreferenced.clone()).delete();
    await trx('payments_payments').whereIn('id', unreferenced.clone()).delete();
    await trx('payments_payments').whereIn('id', payments.clone()).update({ open_banking_connection_id: null });
    const accounts = trx('payments_accounts').where({ open_banking_connection_id: connectionID }).select('id');
    await trx('payments_balances').whereIn('account_id', accounts.clone()).delete();
    await trx('payments_pool_accounts').whereIn('account_id', accounts.clone()).delete();
    await trx('payments_accounts')
      .where({ open_banking_connection_id: connectionID })
      .whereNotExists(
        trx('payments_initiations').whereRaw(
          'payments_initiations.source_account_id = payments_accounts.id OR payments_initiations.destination_account_id = payments_accounts.id',
        ),
      )
      .whereNotExists(
        trx('payments_bank_account_related_accounts').whereRaw('payments_bank_account_related_accounts.account_id = payments_accounts.id'),
      )
      .delete();
    await trx('payments_accounts').where({ open_banking_connection_id: connectionID }).update({ open_banking_connection_id: null });
    await trx('payments_psu_connections').where({ id: connectionID }).delete();
  });
}

/** Removes the user's registration at the connector (its link attempts go with it). */
export async function removePsuConnector(db: Db, psuID: string, connectorID: string): Promise<void> {
  await db('payments_psu_connectors').where({ psu_id: psuID, connector_id: connectorID }).delete();
}
