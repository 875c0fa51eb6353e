import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { PaymentsActivities } from '../../activities/payments';

const { paymentsMarkInitiationProcessing, paymentsSendInitiation, paymentsFailInitiation } = proxyActivities<PaymentsActivities>({
  startToCloseTimeout: '2m',
  retry: {
    initialInterval: '500ms',
    backoffCoefficient: 2,
    maximumInterval: '10s',
    maximumAttempts: 5,
    nonRetryableErrorTypes: ['INVALID_ARGUMENT', 'PROVIDER_REJECTED', 'NOT_INSTALLED'],
  },
});

export interface PaymentInitiationInput {
  paymentInitiationID: string;
  attempt: number;
}

/**
 * Executes one attempt of an approved payment initiation (id `payment-initiation-<id>-<attempt>`): PROCESSING, then
 * the connector's transfer or payout, idempotent at the provider by `<id>-<attempt>` so a retried activity never pays
 * twice, then PROCESSED with the resulting payment. When the provider refuses it, or keeps failing past the retries,
 * the initiation becomes FAILED and can be retried by a new attempt.
 */
export async function paymentInitiationExecute(input: PaymentInitiationInput): Promise<{ status: string; paymentID?: string; error?: string }> {
  await paymentsMarkInitiationProcessing(input.paymentInitiationID, input.attempt);
  try {
    const paymentID = await paymentsSendInitiation(input.paymentInitiationID, input.attempt);
    return { status: 'PROCESSED', paymentID };
  } catch (error) {
    const cause = error instanceof Error ? (error.cause as ApplicationFailure | undefined) : undefined;
    const message = cause?.message ?? String(error);
    await paymentsFailInitiation(input.paymentInitiationID, input.attempt, message);
    return { status: 'FAILED', error: message };
  }
}
