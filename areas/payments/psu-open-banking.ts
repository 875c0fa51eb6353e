import { notFound, validationError } from '../../lib/errors';
import type { Executor } from '../../db/knex';
import { getConnectorRow } from './connectors';
import { getPaymentServiceUser } from './payment-service-users';

/**
 * Formance's open-banking side of payment service users (forward a user to a provider, link and update-link flows,
 * link attempts, connections) needs a connector that connects end users' bank accounts (Plaid, Tink, Powens...).
 * Neither plugin does, so after the user and connector are found (404 otherwise) every such operation is 400 naming
 * that, and no link attempt or connection can exist (404).
 */
export async function refuseOpenBanking(db: Executor, psuID: string, connectorID: string): Promise<never> {
  await getPaymentServiceUser(db, psuID);
  const connector = await getConnectorRow(db, connectorID);
  throw validationError(`connector ${connector.id} (${connector.provider}) does not support open banking: its plugin cannot link payment service users`);
}

export async function getLinkAttempt(db: Executor, psuID: string, connectorID: string, attemptID: string): Promise<never> {
  await getPaymentServiceUser(db, psuID);
  await getConnectorRow(db, connectorID);
  throw notFound(`link attempt ${attemptID} not found`);
}
