import { proxyActivities } from '@temporalio/workflow';
import type { PaymentsActivities } from '../../activities/payments';

const { paymentsTranslateWebhook } = proxyActivities<PaymentsActivities>({
  startToCloseTimeout: '1m',
  retry: {
    initialInterval: '1s',
    backoffCoefficient: 2,
    maximumInterval: '1m',
    maximumAttempts: 10,
    nonRetryableErrorTypes: ['INVALID_ARGUMENT', 'PROVIDER_REJECTED', 'NOT_INSTALLED'],
  },
});

/**
 * One unsigned provider callback (TRANSLATE_WEBHOOKS, e.g. Mangopay's), id `<connector label>-webhook-<digest>`: the
 * plugin reads the resource back from the provider (retried while the provider is briefly down) and the rows are
 * stored with the event's id. Returns how many rows changed (0 for an event already applied).
 */
export async function connectorCallback(input: { connectorID: string; query: Record<string, string> }): Promise<number> {
  return paymentsTranslateWebhook(input.connectorID, input.query);
}
