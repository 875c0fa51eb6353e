import { proxyActivities } from '@temporalio/workflow';
import type { PaymentsActivities } from '../../activities/payments';

const { paymentsDeletePaymentServiceUser } = proxyActivities<PaymentsActivities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '500ms', backoffCoefficient: 2, maximumInterval: '5s', maximumAttempts: 5 },
});

/**
 * Deletes a payment service user (id `payment-service-user-<id>-delete`), Formance's asynchronous PSU deletion: the
 * user and its bank account links go, its bank accounts stay. Retried while the database is briefly unreachable.
 */
export async function paymentServiceUserDelete(input: { paymentServiceUserID: string }): Promise<void> {
  await paymentsDeletePaymentServiceUser(input.paymentServiceUserID);
}
