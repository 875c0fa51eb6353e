import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { PaymentsActivities } from '../../activities/payments';

export type FetchKind = 'accounts' | 'balances' | 'payments' | 'conversions' | 'orders';
export interface ConnectorPollInput {
  connectorID: string;
  kind: FetchKind;
}

const fetches = proxyActivities<PaymentsActivities>({
  // A provider call is bounded by the plugin's own timeout; this one only catches a stuck worker.
  startToCloseTimeout: '2m',
  retry: {
    initialInterval: '500ms',
    backoffCoefficient: 2,
    maximumInterval: '10s',
    maximumAttempts: 5,
    nonRetryableErrorTypes: ['INVALID_ARGUMENT', 'NOT_INSTALLED'],
  },
});
const schedules = proxyActivities<PaymentsActivities>({
  startToCloseTimeout: '30s',
  retry: {
    initialInterval: '500ms',
    backoffCoefficient: 2,
    maximumInterval: '10s',
    maximumAttempts: 10,
    nonRetryableErrorTypes: ['INVALID_ARGUMENT', 'NOT_INSTALLED'],
  },
});

const FETCH = {
  accounts: fetches.paymentsFetchAccounts,
  balances: fetches.paymentsFetchBalances,
  payments: fetches.paymentsFetchPayments,
  conversions: fetches.paymentsFetchConversions,
  orders: fetches.paymentsFetchOrders,
} as const;

const isNotInstalled = (error: unknown): boolean =>
  error instanceof Error && (error.cause as ApplicationFailure | undefined)?.type === 'NOT_INSTALLED';

/**
 * One tick of a connector's schedule for one kind of data (`connector-<provider>-<name>-<ref>-<kind>-<time>`): fetch
 * it once and upsert it. A failure (provider down past the retries, a malformed file) fails this run only, with its
 * message, and the next tick tries again. A run that finds the connector uninstalled ends quietly: its schedule is
 * being deleted.
 */
export async function connectorPoll(input: ConnectorPollInput): Promise<{ changed: number }> {
  try {
    return { changed: await FETCH[input.kind](input.connectorID) };
  } catch (error) {
    if (isNotInstalled(error)) return { changed: 0 };
    throw error;
  }
}

/**
 * The uninstall task (`<connector label>-uninstall`): the row is already marked; deletes the schedules, then the
 * webhook endpoints the install registered at the provider. A provider refusing that deletion leaves the connector
 * uninstalled (nothing is written for it any more; its deliveries get 404) and the task's result says why.
 */
export async function connectorUninstall(input: {
  connectorID: string;
}): Promise<{ connectorID: string; webhooksDeleted?: number; webhooksError?: string }> {
  await schedules.paymentsDeleteConnectorSchedules(input.connectorID);
  try {
    return { connectorID: input.connectorID, webhooksDeleted: await schedules.paymentsDeleteWebhooks(input.connectorID) };
  } catch (error) {
    const cause = error instanceof Error ? (error.cause as ApplicationFailure | undefined)?.message : undefined;
    return { connectorID: input.connectorID, webhooksError: cause ?? String(error) };
  }
}

/**
 * Every kind once, in order: accounts first, which balances refer to (a balance of an unknown account is skipped).
 * Conversions and orders come last; their fetch is 0 for a connector without the capability.
 */
async function fetchAll(connectorID: string): Promise<number> {
  let changed = 0;
  for (const kind of ['accounts', 'balances', 'payments', 'conversions', 'orders'] as const) changed += await FETCH[kind](connectorID);
  return changed;
}

/**
 * The install task (`<connector label>-install`): the first fetch of everything, in order, right after the schedules
 * were created; the schedules' own runs start one polling period later.
 */
export async function connectorInstall(input: {
  connectorID: string;
}): Promise<{ connectorID: string; changed: number; webhooks?: number; webhooksError?: string }> {
  // CREATE_WEBHOOKS first, so events that happen during the first fetch are delivered too. Polling is the safety net:
  // a provider refusing the registration (e.g. a PUBLIC_URL it cannot reach) leaves the connector fetching, and the
  // task's result says why (the failed activity is in the history).
  let webhooks: { webhooks?: number; webhooksError?: string } = {};
  try {
    webhooks = { webhooks: await schedules.paymentsCreateWebhooks(input.connectorID) };
  } catch (error) {
    if (isNotInstalled(error)) throw error;
    webhooks = { webhooksError: (error instanceof Error ? (error.cause as ApplicationFailure | undefined)?.message : undefined) ?? String(error) };
  }
  return { connectorID: input.connectorID, changed: await fetchAll(input.connectorID), ...webhooks };
}

/**
 * The reset task (`<connector label>-reset`): recreates the schedules (unpaused, with the current polling period),
 * then fetches every kind from scratch, in order. It succeeds once the whole provider view has been fetched again.
 */
export async function connectorReset(input: { connectorID: string }): Promise<{ connectorID: string; changed: number }> {
  await schedules.paymentsRecreateConnectorSchedules(input.connectorID);
  return { connectorID: input.connectorID, changed: await fetchAll(input.connectorID) };
}
