import { proxyActivities } from '@temporalio/workflow';
import type { PaymentsActivities } from '../../activities/payments';
import { openBankingForgetPsu } from './open-banking';

const { paymentsDeletePaymentServiceUser } = proxyActivities<PaymentsActivities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '500ms', backoffCoefficient: 2, maximumInterval: '5s', maximumAttempts: 5 },
});

/**
 * Deletes a payment service user (id `payment-service-user-<id>-delete`), Formance's asynchronous PSU deletion: first
 * the user leaves every connector it was forwarded to (its bank connections and their accounts go, the providers
 * forget it), then the user and its bank account links go; its bank accounts stay. Retried while the database is
 * briefly unreachable.
 */
export async function paymentServiceUserDelete(input: { paymentServiceUserID: string }): Promise<void> {
  await openBankingForgetPsu(input.paymentServiceUserID);
  await paymentsDeletePaymentServiceUser(input.paymentServiceUserID);
}
