import { proxyActivities } from '@temporalio/workflow';
import type { OpenBankingActivities } from '../../activities/payments/open-banking';

const NON_RETRYABLE = ['INVALID_ARGUMENT', 'PROVIDER_REJECTED', 'NOT_INSTALLED'];
const provider = proxyActivities<OpenBankingActivities>({
  startToCloseTimeout: '1m',
  retry: { initialInterval: '500ms', backoffCoefficient: 2, maximumInterval: '5s', maximumAttempts: 4, nonRetryableErrorTypes: NON_RETRYABLE },
});
const bookkeeping = proxyActivities<OpenBankingActivities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '500ms', backoffCoefficient: 2, maximumInterval: '5s', maximumAttempts: 10 },
});

/** Registers a payment service user at a connector's provider and records it (id `payment-service-user-<id>-forward-<connectorID>`). */
export async function paymentServiceUserForward(input: { psuID: string; connectorID: string }): Promise<void> {
  await provider.paymentsOpenBankingForward(input.psuID, input.connectorID);
}

/**
 * Completes a link attempt (id `open-banking-link-attempt-<attemptID>`): on approval the provider grants the connection
 * and its accounts are recorded; on refusal, or when the provider fails for good, the attempt is marked exited with
 * the reason, so an attempt never stays pending once the end user decided.
 */
export async function openBankingCompleteLink(input: { attemptID: string; decision: 'approve' | 'reject' }): Promise<void> {
  if (input.decision === 'reject') {
    await bookkeeping.paymentsOpenBankingExitLink(input.attemptID, 'the end user refused the consent');
    return;
  }
  try {
    await provider.paymentsOpenBankingCompleteLink(input.attemptID);
  } catch (error) {
    let cause = error as Error | undefined;
    while (cause?.cause instanceof Error) cause = cause.cause;
    await bookkeeping.paymentsOpenBankingExitLink(input.attemptID, cause?.message || 'the provider could not complete the link');
  }
}

/** Deletes one bank connection at the provider, then its connection and accounts here. */
export async function openBankingDeleteConnection(input: { psuID: string; connectorID: string; connectionID: string }): Promise<void> {
  await provider.paymentsOpenBankingDeleteConnection(input.connectionID);
}

/** Removes a payment service user from a connector: each of its connections, then the user at the provider. */
export async function openBankingDeletePsuConnector(input: { psuID: string; connectorID: string }): Promise<void> {
  for (const connectionID of await bookkeeping.paymentsOpenBankingConnectionsOf(input.psuID, input.connectorID)) {
    await provider.paymentsOpenBankingDeleteConnection(connectionID);
  }
  await provider.paymentsOpenBankingDeleteUser(input.psuID, input.connectorID);
}

/** Removes a payment service user from every connector it was forwarded to (the first step of deleting the user). */
export async function openBankingForgetPsu(psuID: string): Promise<void> {
  for (const connectorID of await bookkeeping.paymentsOpenBankingConnectorsOf(psuID)) await openBankingDeletePsuConnector({ psuID, connectorID });
}
