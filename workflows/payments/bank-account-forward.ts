import { proxyActivities } from '@temporalio/workflow';
import type { PaymentsActivities } from '../../activities/payments';

const { paymentsForwardBankAccount } = proxyActivities<PaymentsActivities>({
  startToCloseTimeout: '1m',
  retry: {
    initialInterval: '500ms',
    backoffCoefficient: 2,
    maximumInterval: '5s',
    maximumAttempts: 4,
    nonRetryableErrorTypes: ['INVALID_ARGUMENT', 'PROVIDER_REJECTED', 'NOT_INSTALLED'],
  },
});

/**
 * Creates a bank account at a connector's provider (id `bank-account-<id>-forward-<connectorID>`), retried by
 * Temporal when the provider is briefly down, and records the related account. Returns the account id.
 */
export async function bankAccountForward(input: { bankAccountID: string; connectorID: string }): Promise<string> {
  return paymentsForwardBankAccount(input.bankAccountID, input.connectorID);
}
