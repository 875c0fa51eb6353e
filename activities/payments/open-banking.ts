import { ApplicationFailure } from '@temporalio/common';
import type { Db } from '../../db/knex';
import {
  connectionsOf,
  connectorsOfPsu,
  exitLinkAttempt,
  getConnectorRow,
  findConnection,
  loadPendingAttempt,
  loadPsuForConnector,
  recordLinkCompletion,
  recordPsuForward,
  removeConnection,
  removePsuConnector,
  type ConnectorRow,
} from '../../areas/payments';
import type { OpenBankingPlugin } from './plugins/plugin';
import { classified } from './classified';
import { pluginFor } from './plugins/registry';

/** The open-banking steps of the payments workflows (workflows/payments/open-banking.ts). */
export function createOpenBankingActivities(deps: { db: Db; dataDir: string }) {
  const { db, dataDir } = deps;
  const openBanking = (connector: ConnectorRow): OpenBankingPlugin => {
    const plugin = pluginFor(connector.provider, connector.config, dataDir).openBanking;
    if (!plugin)
      throw ApplicationFailure.create({
        type: 'INVALID_ARGUMENT',
        message: `connector ${connector.id} (${connector.provider}) has no open banking`,
        nonRetryable: true,
      });
    return plugin;
  };

  return {
    async paymentsOpenBankingForward(psuID: string, connectorID: string): Promise<void> {
      return classified(async () => {
        const { user, connector } = await loadPsuForConnector(db, psuID, connectorID);
        await openBanking(connector).createUser(user);
        await recordPsuForward(db, psuID, connectorID);
      });
    },

    /** Reads the connection the end user consented to and records it; an attempt no longer pending is done. */
    async paymentsOpenBankingCompleteLink(attemptID: string): Promise<void> {
      return classified(async () => {
        const attempt = await loadPendingAttempt(db, attemptID);
        if (!attempt) return;
        const data = await openBanking(attempt.connector).completeUserLink({ psuID: attempt.psuID, connectionID: attempt.connectionID, attemptID });
        await recordLinkCompletion(db, attempt, data);
      });
    },
    async paymentsOpenBankingExitLink(attemptID: string, error: string): Promise<void> {
      await exitLinkAttempt(db, attemptID, error);
    },

    async paymentsOpenBankingConnectionsOf(psuID: string, connectorID: string): Promise<string[]> {
      return connectionsOf(db, psuID, connectorID);
    },
    async paymentsOpenBankingConnectorsOf(psuID: string): Promise<string[]> {
      return connectorsOfPsu(db, psuID);
    },
    /** Deletes the connection at the provider, then here; one already gone is done. */
    async paymentsOpenBankingDeleteConnection(connectionID: string): Promise<void> {
      return classified(async () => {
        const connection = await findConnection(db, connectionID);
        if (!connection) return;
        // An uninstalled connector's provider is no longer reached: only our records go.
        if (!connection.connector.uninstalled_at)
          await openBanking(connection.connector).deleteUserConnection({ psuID: connection.psuID, connectionID });
        await removeConnection(db, connectionID);
      });
    },
    async paymentsOpenBankingDeleteUser(psuID: string, connectorID: string): Promise<void> {
      return classified(async () => {
        const connector = await getConnectorRow(db, connectorID);
        if (!connector.uninstalled_at) await openBanking(connector).deleteUser(psuID);
        await removePsuConnector(db, psuID, connectorID);
      });
    },
  };
}

export type OpenBankingActivities = ReturnType<typeof createOpenBankingActivities>;
