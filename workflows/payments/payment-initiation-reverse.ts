import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { PaymentsActivities } from '../../activities/payments';

const { paymentsSendReversal, paymentsFailReversal } = proxyActivities<PaymentsActivities>({
  startToCloseTimeout: '2m',
  retry: {
    initialInterval: '500ms',
    backoffCoefficient: 2,
    maximumInterval: '10s',
    maximumAttempts: 5,
    nonRetryableErrorTypes: ['INVALID_ARGUMENT', 'PROVIDER_REJECTED', 'NOT_INSTALLED'],
  },
});

export interface PaymentInitiationReverseInput {
  reversalID: string;
}

/**
 * Executes one reversal of a processed initiation (id `payment-initiation-<id>-reversal-<n>`): the connector's reversal,
 * idempotent at the provider by the reversal's id so a retried activity never refunds twice, then REVERSED with the
 * resulting payment. When the provider refuses it, or keeps failing past the retries, the initiation becomes
 * REVERSE_FAILED and the amount can be reversed again by a new reversal.
 */
export async function paymentInitiationReverse(
  input: PaymentInitiationReverseInput,
): Promise<{ status: string; paymentID?: string; error?: string }> {
  try {
    const paymentID = await paymentsSendReversal(input.reversalID);
    return { status: 'PROCESSED', paymentID };
  } catch (error) {
    const cause = error instanceof Error ? (error.cause as ApplicationFailure | undefined) : undefined;
    const message = cause?.message ?? String(error);
    await paymentsFailReversal(input.reversalID, message);
    return { status: 'FAILED', error: message };
  }
}
