import { ApplicationFailure, continueAsNew, log, proxyActivities, sleep } from '@temporalio/workflow';
import type { PaymentsActivities } from '../../activities/payments';

export interface ConnectorFetchInput {
  connectorID: string;
  pollingPeriodMs: number;
  /** Cycles to run before continuing as new, which keeps the event history of a years-long workflow small. */
  cyclesPerRun?: number;
}

const { paymentsFetchAccounts, paymentsFetchBalances, paymentsFetchPayments } = proxyActivities<PaymentsActivities>({
  // A provider call is bounded by the plugin's own timeout; this one only catches a stuck worker.
  startToCloseTimeout: '2m',
  retry: { initialInterval: '500ms', backoffCoefficient: 2, maximumInterval: '10s', maximumAttempts: 5, nonRetryableErrorTypes: ['INVALID_ARGUMENT', 'NOT_INSTALLED'] },
});

const isNotInstalled = (error: unknown): boolean =>
  error instanceof Error && (error.cause as ApplicationFailure | undefined)?.type === 'NOT_INSTALLED';

/**
 * One long-running workflow per installed connector (id `connector-<connectorID>-fetch`): fetch accounts, then
 * balances and payments, sleep for the polling period, repeat. A failed cycle (provider down past the retries, a
 * malformed file) is logged and the next cycle tries again, so one bad poll never stops fetching. Uninstalling the
 * connector cancels the workflow; a cycle that finds the connector uninstalled ends it too.
 */
export async function connectorFetch(input: ConnectorFetchInput): Promise<void> {
  const cycles = input.cyclesPerRun ?? 100;
  for (let cycle = 0; cycle < cycles; cycle++) {
    try {
      await paymentsFetchAccounts(input.connectorID);
      await paymentsFetchBalances(input.connectorID);
      await paymentsFetchPayments(input.connectorID);
    } catch (error) {
      if (isNotInstalled(error)) return;
      log.warn('fetch cycle failed; retrying at the next period', { connectorID: input.connectorID, error: String(error) });
    }
    await sleep(input.pollingPeriodMs);
  }
  await continueAsNew<typeof connectorFetch>(input);
}
