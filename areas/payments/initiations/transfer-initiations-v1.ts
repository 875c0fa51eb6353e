import { randomUUID } from 'node:crypto';
import { ApiError, validationError } from '../../../lib/errors';
import type { TemporalDeps } from '../../../lib/temporal';
import type { Db, Executor } from '../../../db/knex';
import type { Page, PageRequest } from '../../../db/pagination';
import { resolveConnectorV1, v1ProviderName } from '../connectors/connectors-v1';
import { createPaymentInitiation } from './initiation-create';
import { approvePaymentInitiation, deletePaymentInitiation, rejectPaymentInitiation, retryPaymentInitiation } from './initiation-transitions';
import { getPaymentInitiationDetails, listPaymentInitiations, type PaymentInitiation } from './initiations';
import { awaitTaskRun } from '../engine';
import { reversePaymentInitiation, type ReversalInput } from './initiation-reversal';

/**
 * Payments v1's transfer initiations are the platform's payment initiations under v1's names: SCHEDULED_FOR_PROCESSING
 * reads as VALIDATED (approved, its execution queued), `validated: true` at creation skips the validation step, and
 * the provider reads as in v1's connectors (DUMMY-PAY, GENERIC).
 */
type Deps = { db: Db; temporal: TemporalDeps };
const V1_STATUS: Record<string, string> = { SCHEDULED_FOR_PROCESSING: 'VALIDATED' };
const V1_PAYMENT_STATUSES = new Set([
  'PENDING',
  'SUCCEEDED',
  'CANCELLED',
  'FAILED',
  'EXPIRED',
  'REFUNDED',
  'REFUNDED_FAILURE',
  'DISPUTE',
  'DISPUTE_WON',
  'DISPUTE_LOST',
  'OTHER',
]);

export interface TransferInitiationV1 {
  id: string;
  reference: string;
  connectorID: string;
  provider: string;
  createdAt: Date;
  scheduledAt: Date;
  description: string;
  type: string;
  amount: bigint;
  initialAmount: bigint;
  asset: string;
  status: string;
  sourceAccountID: string;
  destinationAccountID: string;
  error?: string;
  metadata: Record<string, string>;
  relatedAdjustments?: Array<{ adjustmentID: string; createdAt: Date; status: string; error?: string; metadata: Record<string, string> }>;
  relatedPayments?: Array<{ paymentID: string; createdAt: Date; status: string }>;
}

const presentV1 = (pi: PaymentInitiation): TransferInitiationV1 => ({
  id: pi.id,
  reference: pi.reference,
  connectorID: pi.connectorID,
  provider: v1ProviderName(pi.provider.toLowerCase()),
  createdAt: pi.createdAt,
  scheduledAt: pi.scheduledAt ?? pi.createdAt,
  description: pi.description,
  type: pi.type,
  amount: pi.amount,
  initialAmount: pi.amount,
  asset: pi.asset,
  status: V1_STATUS[pi.status] ?? pi.status,
  sourceAccountID: pi.sourceAccountID ?? '',
  destinationAccountID: pi.destinationAccountID,
  ...(pi.error ? { error: pi.error } : {}),
  metadata: pi.metadata,
});

/** With its adjustments (newest first) and the payments its executions produced. Throws NOT_FOUND. */
export async function getTransferInitiationV1(db: Executor, id: string): Promise<TransferInitiationV1> {
  const details = await getPaymentInitiationDetails(db, id);
  const payments = details.relatedPaymentIDs.length
    ? await db('payments_payments').whereIn('id', details.relatedPaymentIDs).orderBy('id').select('id', 'created_at', 'status')
    : [];
  return {
    ...withPartial(presentV1(details), await reversedTotals(db, [id])),
    relatedAdjustments: details.adjustments.map((a) => ({
      adjustmentID: a.id,
      createdAt: a.createdAt,
      status: V1_STATUS[a.status] ?? a.status,
      ...(a.error ? { error: a.error } : {}),
      metadata: a.metadata,
    })),
    relatedPayments: payments.map((p: any) => ({
      paymentID: p.id,
      createdAt: p.created_at,
      status: V1_PAYMENT_STATUSES.has(p.status) ? p.status : 'OTHER',
    })),
  };
}

export async function listTransferInitiationsV1(db: Executor, page: PageRequest): Promise<Page<TransferInitiationV1>> {
  const list = await listPaymentInitiations(db, {}, page);
  const reversed = await reversedTotals(
    db,
    list.items.map((i) => i.id),
  );
  return { ...list, items: list.items.map((i) => withPartial(presentV1(i), reversed)) };
}
export const transferInitiationV1Key = (t: TransferInitiationV1): unknown[] => [t.createdAt.toISOString(), t.id];

export interface TransferInitiationInputV1 {
  reference: string;
  connectorID?: string;
  type: 'TRANSFER' | 'PAYOUT';
  amount: bigint;
  asset: string;
  sourceAccountID: string;
  destinationAccountID: string;
  description: string;
  scheduledAt: string;
  validated: boolean;
  metadata?: Record<string, string> | null;
}

/**
 * Without `connectorID` (older v1 clients), the initiation goes through the destination account's connector. Throws
 * NOT_FOUND, VALIDATION, CONFLICT, SERVICE_UNAVAILABLE as creating a payment initiation does.
 */
export async function createTransferInitiationV1(deps: Deps, input: TransferInitiationInputV1): Promise<TransferInitiationV1> {
  const connectorID =
    input.connectorID ?? (await deps.db('payments_accounts').where({ id: input.destinationAccountID }).first('connector_id'))?.connector_id;
  if (!connectorID) throw validationError(`body.destinationAccountID: account ${input.destinationAccountID} does not exist`);
  const { paymentInitiationID } = await createPaymentInitiation(
    deps,
    {
      reference: input.reference,
      connectorID,
      type: input.type,
      amount: input.amount,
      asset: input.asset,
      destinationAccountID: input.destinationAccountID,
      ...(input.sourceAccountID ? { sourceAccountID: input.sourceAccountID } : {}),
      description: input.description,
      scheduledAt: new Date(input.scheduledAt),
      ...(input.metadata ? { metadata: input.metadata } : {}),
    },
    { noValidation: input.validated, idempotencyScope: 'payments.transfer-initiations' },
  );
  return getTransferInitiationV1(deps.db, paymentInitiationID);
}

/** VALIDATED approves (the execution starts on Temporal), REJECTED rejects; both only while WAITING_FOR_VALIDATION. */
export async function updateTransferInitiationStatusV1(deps: Deps, id: string, status: 'VALIDATED' | 'REJECTED'): Promise<void> {
  if (status === 'VALIDATED') await approvePaymentInitiation(deps, id);
  else await rejectPaymentInitiation(deps.db, id);
}

export async function retryTransferInitiationV1(deps: Deps, id: string): Promise<void> {
  await retryPaymentInitiation(deps, id);
}

export async function deleteTransferInitiationV1(db: Db, id: string): Promise<void> {
  await deletePaymentInitiation(db, id);
}

/** v1 answers a reversal once it is done, as Formance's v1 waits for its workflow: the v3 reversal's task, awaited (bounded). */
const REVERSAL_WAIT_MS = 30_000;

/**
 * Throws as the v3 reversal does (NOT_FOUND, VALIDATION, CONFLICT, SERVICE_UNAVAILABLE), plus VALIDATION with the
 * provider's message when it refused the reversal, and SERVICE_UNAVAILABLE when it is still running after the wait.
 */
export async function reverseTransferInitiationV1(deps: Deps, id: string, input: ReversalInput): Promise<void> {
  const { taskID } = await reversePaymentInitiation(deps, id, input);
  const run = await awaitTaskRun(deps.temporal, taskID, REVERSAL_WAIT_MS);
  if (!run) throw new ApiError('SERVICE_UNAVAILABLE', `the reversal is still running (task ${taskID}); read the transfer initiation later`);
  const result = run.result as { status?: string; error?: string } | undefined;
  if (run.error !== undefined || result?.status === 'FAILED')
    throw validationError(`the connector refused the reversal: ${run.error ?? result?.error ?? 'failed'}`);
}

/** v1's PARTIALLY_REVERSED: v3 reads REVERSED after any reversal; v1 tells a partial one apart by what was reversed. */
async function reversedTotals(db: Executor, ids: string[]): Promise<Map<string, bigint>> {
  if (ids.length === 0) return new Map();
  const rows = await db('payments_initiation_reversals')
    .whereIn('payment_initiation_id', ids)
    .where({ status: 'PROCESSED' })
    .groupBy('payment_initiation_id')
    .select('payment_initiation_id', db.raw('SUM(amount) AS total'));
  return new Map(rows.map((r: any) => [r.payment_initiation_id, BigInt(r.total)]));
}
const withPartial = (t: TransferInitiationV1, reversed: Map<string, bigint>): TransferInitiationV1 =>
  t.status === 'REVERSED' && (reversed.get(t.id) ?? 0n) < t.amount ? { ...t, status: 'PARTIALLY_REVERSED' } : t;

/**
 * The v0 transfer (`POST /connectors/{connector}/transfers`): a TRANSFER initiation through the provider's newest
 * installed connector, validated at once, with a generated reference. `source` and `destination` are account ids of
 * that connector. Returns the initiation's id.
 */
export async function connectorTransferV1(
  deps: Deps,
  provider: string,
  input: { amount: bigint; asset: string; destination: string; source?: string },
): Promise<string> {
  const connector = await resolveConnectorV1(deps.db, provider);
  const { paymentInitiationID } = await createPaymentInitiation(
    deps,
    {
      reference: `transfer-${randomUUID()}`,
      connectorID: connector.id,
      type: 'TRANSFER',
      amount: input.amount,
      asset: input.asset,
      destinationAccountID: input.destination,
      ...(input.source ? { sourceAccountID: input.source } : {}),
    },
    { noValidation: true },
  );
  return paymentInitiationID;
}
