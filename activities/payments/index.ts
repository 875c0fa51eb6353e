import { ApplicationFailure } from '@temporalio/common';
import type { Db, Executor } from '../../db/knex';
import { inTransaction } from '../../db/errors';
import { upsertAccounts, upsertBalances } from '../../areas/payments';
import { getBankAccount } from '../../areas/payments';
import { recordForwardedAccount, removePaymentServiceUser } from '../../areas/payments';
import { getConnectorRow, lockInstalledConnector, type ConnectorRow } from '../../areas/payments';
import { failInitiation, loadInitiationForConnector, markInitiationProcessing, recordInitiationPayment } from '../../areas/payments';
import { recreateConnectorSchedules, removeConnectorSchedules, upsertPayments } from '../../areas/payments';
import { failReversal, loadReversalForConnector, recordReversalPayment, upsertConversions, upsertOrders } from '../../areas/payments';
import { getConnectorState, saveConnectorState, type ConnectorWebhooksState, webhookPath } from '../../areas/payments';
import type { TemporalDeps } from '../../lib/temporal';
import type { Logger } from '../../lib/logger';
import { classified } from './classified';
import { registerBuiltInConnectorPlugins } from './plugins';
import { pluginFor } from './plugins/registry';

export function createPaymentsActivities(deps: { db: Db; logger: Logger; dataDir: string; publicUrl: string; temporal: TemporalDeps }) {
  const { db, dataDir } = deps;
  // The worker registers every plugin at start (PAYMENTS_CONNECTOR_PLUGINS too); the built-in ones are here as well for
  // activities built in-process (tests).
  registerBuiltInConnectorPlugins();
  const notInstalled = (connectorID: string) =>
    ApplicationFailure.create({ type: 'NOT_INSTALLED', message: `connector ${connectorID} is uninstalled`, nonRetryable: true });
  const installed = async (connectorID: string): Promise<ConnectorRow> => {
    const row = await getConnectorRow(db, connectorID);
    if (row.uninstalled_at) throw notInstalled(connectorID);
    return row;
  };
  /** Writes what was fetched only if the connector is still installed, and keeps an uninstall waiting meanwhile. */
  const writeWhileInstalled = (connectorID: string, write: (trx: Executor) => Promise<number>): Promise<number> =>
    inTransaction(db, async (trx) => {
      if (!(await lockInstalledConnector(trx, connectorID))) throw notInstalled(connectorID);
      return write(trx);
    });
  const plugin = (row: ConnectorRow) => pluginFor(row.provider, row.config, dataDir, deps.logger);

  return {
    /** Fetch steps: the provider's full view, upserted in one transaction (batched statements); returns how many rows changed. */
    async paymentsFetchAccounts(connectorID: string): Promise<number> {
      return classified(async () => {
        const row = await installed(connectorID);
        const accounts = await plugin(row).fetchAccounts();
        return writeWhileInstalled(connectorID, (trx) => upsertAccounts(trx, connectorID, row.provider, accounts));
      });
    },
    async paymentsFetchBalances(connectorID: string): Promise<number> {
      return classified(async () => {
        const row = await installed(connectorID);
        const balances = await plugin(row).fetchBalances();
        return writeWhileInstalled(connectorID, (trx) => upsertBalances(trx, connectorID, row.provider, balances));
      });
    },
    async paymentsFetchPayments(connectorID: string): Promise<number> {
      return classified(async () => {
        const row = await installed(connectorID);
        const connector = plugin(row);
        if (connector.fetchPaymentsSince) {
          // The cursor is written with the payments it covers: a failed run leaves both as they were.
          const page = await connector.fetchPaymentsSince(await getConnectorState(db, connectorID, 'fetch:payments'));
          return writeWhileInstalled(connectorID, async (trx) => {
            const { changed } = await upsertPayments(trx, connectorID, page.items);
            await saveConnectorState(trx, connectorID, 'fetch:payments', page.state);
            return changed;
          });
        }
        const payments = await connector.fetchPayments();
        return writeWhileInstalled(connectorID, async (trx) => (await upsertPayments(trx, connectorID, payments)).changed);
      });
    },

    /** Conversions and orders: 0 for a plugin without them (an install or reset task fetches every kind). */
    async paymentsFetchConversions(connectorID: string): Promise<number> {
      return classified(async () => {
        const row = await installed(connectorID);
        const fetch = plugin(row).fetchConversions;
        if (!fetch) return 0;
        const conversions = await fetch();
        return writeWhileInstalled(connectorID, (trx) => upsertConversions(trx, connectorID, conversions));
      });
    },
    async paymentsFetchOrders(connectorID: string): Promise<number> {
      return classified(async () => {
        const row = await installed(connectorID);
        const fetch = plugin(row).fetchOrders;
        if (!fetch) return 0;
        const orders = await fetch();
        return writeWhileInstalled(connectorID, (trx) => upsertOrders(trx, connectorID, orders));
      });
    },

    /**
     * CREATE_WEBHOOKS, in the install task: registers the connector's webhook route (under PUBLIC_URL) with the provider
     * and stores the endpoints and their secrets. Registered once: a retry or a second call finds them stored.
     * @returns how many endpoints are registered (0 for a plugin without webhooks).
     */
    async paymentsCreateWebhooks(connectorID: string): Promise<number> {
      return classified(async () => {
        const row = await installed(connectorID);
        const create = plugin(row).createWebhooks;
        if (!create) return 0;
        const stored = await getConnectorState<ConnectorWebhooksState>(db, connectorID, 'webhooks');
        if (stored) return stored.endpoints.length;
        const url = `${deps.publicUrl}${webhookPath(connectorID)}`;
        const endpoints = await create({ url, idempotencyKey: connectorID });
        await writeWhileInstalled(connectorID, async (trx) => {
          await saveConnectorState(trx, connectorID, 'webhooks', { url, endpoints } satisfies ConnectorWebhooksState);
          return 0;
        });
        return endpoints.length;
      });
    },

    /**
     * TRANSLATE_WEBHOOKS for an unsigned callback: the plugin reads the resource back from the provider; the rows are
     * written with the event's id in one transaction, so a second delivery of the same event changes nothing.
     * @returns how many rows changed.
     */
    async paymentsTranslateWebhook(connectorID: string, query: Record<string, string>): Promise<number> {
      return classified(async () => {
        const row = await installed(connectorID);
        const translate = plugin(row).translateWebhook;
        if (!translate)
          throw ApplicationFailure.create({
            type: 'INVALID_ARGUMENT',
            message: `connector ${connectorID} (${row.provider}) does not translate callbacks`,
            nonRetryable: true,
          });
        const rows = await translate({ query });
        return writeWhileInstalled(connectorID, async (trx) => {
          const claimed = await trx('payments_webhook_events')
            .insert({ connector_id: connectorID, event_id: rows.eventID, type: rows.eventType })
            .onConflict(['connector_id', 'event_id'])
            .ignore()
            .returning('event_id');
          if (claimed.length === 0) return 0;
          let changed = await upsertAccounts(trx, connectorID, row.provider, rows.accounts);
          changed += await upsertBalances(trx, connectorID, row.provider, rows.balances);
          return changed + (await upsertPayments(trx, connectorID, rows.payments)).changed;
        });
      });
    },

    /**
     * At uninstall (the connector is already marked): deletes the webhook endpoints the install registered at the
     * provider, then forgets them, so the task running again does nothing. A plugin without webhooks, or a connector
     * that registered none, has nothing to delete.
     * @returns how many endpoints were deleted.
     */
    async paymentsDeleteWebhooks(connectorID: string): Promise<number> {
      return classified(async () => {
        const row = await getConnectorRow(db, connectorID);
        const remove = plugin(row).deleteWebhooks;
        const stored = await getConnectorState<ConnectorWebhooksState>(db, connectorID, 'webhooks');
        if (!remove || !stored || stored.endpoints.length === 0) return 0;
        await remove(stored.endpoints);
        await saveConnectorState(db, connectorID, 'webhooks', { ...stored, endpoints: [] } satisfies ConnectorWebhooksState);
        return stored.endpoints.length;
      });
    },

    /** Connector tasks: the schedules of a connector, through the area's engine (the worker's own Temporal client). */
    async paymentsDeleteConnectorSchedules(connectorID: string): Promise<void> {
      return classified(() => removeConnectorSchedules({ db, temporal: deps.temporal }, connectorID));
    },
    async paymentsRecreateConnectorSchedules(connectorID: string): Promise<void> {
      return classified(() => recreateConnectorSchedules({ db, temporal: deps.temporal }, connectorID));
    },

    async paymentsMarkInitiationProcessing(id: string, attempt: number): Promise<void> {
      return classified(() => markInitiationProcessing(db, id, attempt));
    },
    /** Sends the attempt to the provider with the key `<id>-<attempt>`, so Temporal's retries reach it as one request. */
    async paymentsSendInitiation(id: string, attempt: number): Promise<string> {
      return classified(async () => {
        const { pi, connector, destinationReference, sourceReference } = await loadInitiationForConnector(db, id);
        if (connector.uninstalled_at) throw notInstalled(connector.id);
        const payment = await plugin(connector).initiatePayment({
          idempotencyKey: `${id}-${attempt}`,
          type: pi.type as 'TRANSFER' | 'PAYOUT',
          reference: pi.reference,
          amount: pi.amount,
          asset: pi.asset,
          sourceAccountReference: sourceReference,
          destinationAccountReference: destinationReference,
          description: pi.description,
          metadata: pi.metadata,
        });
        return recordInitiationPayment(db, id, attempt, payment);
      });
    },
    async paymentsFailInitiation(id: string, attempt: number, error: string): Promise<void> {
      return classified(() => failInitiation(db, id, attempt, error));
    },

    /** Sends a reversal to the provider with the reversal's id as key, so Temporal's retries reach it as one request. */
    async paymentsSendReversal(reversalID: string): Promise<string> {
      return classified(async () => {
        const { connector, request } = await loadReversalForConnector(db, reversalID);
        if (connector.uninstalled_at) throw notInstalled(connector.id);
        const reverse = plugin(connector).reversePayment;
        if (!reverse)
          throw ApplicationFailure.create({
            type: 'INVALID_ARGUMENT',
            message: `connector ${connector.id} (${connector.provider}) cannot reverse payments`,
            nonRetryable: true,
          });
        return recordReversalPayment(db, reversalID, await reverse(request));
      });
    },
    async paymentsFailReversal(reversalID: string, error: string): Promise<void> {
      return classified(() => failReversal(db, reversalID, error));
    },

    async paymentsForwardBankAccount(bankAccountID: string, connectorID: string): Promise<string> {
      return classified(async () => {
        const row = await installed(connectorID);
        const bankAccount = await getBankAccount(db, bankAccountID, { unmasked: true });
        const account = await plugin(row).createBankAccount({
          reference: bankAccount.id,
          name: bankAccount.name,
          iban: bankAccount.iban,
          accountNumber: bankAccount.accountNumber,
          swiftBicCode: bankAccount.swiftBicCode,
          country: bankAccount.country,
          metadata: bankAccount.metadata,
        });
        return recordForwardedAccount(db, bankAccountID, connectorID, account);
      });
    },

    /** The PSU deletion's step; deleting a user already gone is done. */
    async paymentsDeletePaymentServiceUser(paymentServiceUserID: string): Promise<void> {
      await removePaymentServiceUser(db, paymentServiceUserID);
    },
  };
}

export type PaymentsActivities = ReturnType<typeof createPaymentsActivities>;
