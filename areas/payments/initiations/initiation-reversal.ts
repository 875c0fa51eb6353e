import { ApiError, validationError } from '../../../lib/errors';
import type { TemporalDeps } from '../../../lib/temporal';
import { inTransaction } from '../../../db/errors';
import type { Db, Executor } from '../../../db/knex';
import { requireCapability } from '../connectors/connector-catalog';
import { getConnectorRow } from '../connectors/connectors';
import { reversalWorkflowId, startReversalExecution } from '../engine';
import { reversalId } from '../ids';
import { addInitiationAdjustment, getPaymentInitiation, type PaymentInitiation } from './initiations';
import { stringifyJson } from '../../../lib/json';
import { failReversal } from './reversal-execute';

type Deps = { db: Db; temporal: TemporalDeps };
export interface ReversalInput {
  reference: string;
  amount: bigint;
  asset: string;
  description: string;
  metadata?: Record<string, string> | null;
}
export interface ReversalStarted {
  paymentInitiationReversalID: string;
  taskID: string;
}

/** An initiation can be reversed once PROCESSED, again after a (partial) reversal or a failed one, never during one. */
const REVERSIBLE = ['PROCESSED', 'REVERSED', 'REVERSE_FAILED'];

/** What earlier reversals took from the initiation: the processed ones and the one under way. */
export async function reversedAmount(db: Executor, paymentInitiationID: string): Promise<bigint> {
  const row = await db('payments_initiation_reversals')
    .where({ payment_initiation_id: paymentInitiationID })
    .whereIn('status', ['PROCESSING', 'PROCESSED'])
    .sum({ total: 'amount' })
    .first();
  return BigInt(row?.total ?? 0);
}

async function checkReversible(trx: Executor, pi: PaymentInitiation, input: ReversalInput): Promise<void> {
  const connector = await getConnectorRow(trx, pi.connectorID);
  if (connector.uninstalled_at) throw validationError(`connector ${pi.connectorID} is uninstalled: it cannot reverse payment initiation ${pi.id}`);
  requireCapability(connector, pi.type === 'PAYOUT' ? 'REVERSE_PAYOUT' : 'REVERSE_TRANSFER');
  if (pi.status === 'REVERSE_PROCESSING')
    throw validationError(`payment initiation ${pi.id}: status is REVERSE_PROCESSING, another reversal is in progress`);
  if (!REVERSIBLE.includes(pi.status)) throw validationError(`payment initiation ${pi.id}: status is ${pi.status}, reverse needs PROCESSED`);
  if (input.asset !== pi.asset) throw validationError(`body.asset: ${input.asset} is not the asset of payment initiation ${pi.id} (${pi.asset})`);
  const remaining = pi.amount - (await reversedAmount(trx, pi.id));
  if (input.amount > remaining) {
    throw validationError(`body.amount: cannot reverse ${input.amount} of payment initiation ${pi.id}: ${remaining} ${pi.asset} remain to reverse`);
  }
}

/**
 * Formance's reversal of a PROCESSED initiation, partial or whole: checked and recorded under the initiation's row
 * lock (a PROCESSING reversal and a REVERSE_PROCESSING adjustment with the reversal's amount and metadata), then
 * executed at the provider by the `payment-initiation-<id>-reversal-<n>` workflow, whose id is the task id. The
 * reference names the reversal within its connector (Formance's reversal id): the same request again answers the
 * same reversal and task, another request with it is 409. Throws NOT_FOUND, VALIDATION (capability, status, asset,
 * amount over what remains), CONFLICT, SERVICE_UNAVAILABLE (the reversal is then REVERSE_FAILED and can be sent again).
 */
export async function reversePaymentInitiation(deps: Deps, id: string, input: ReversalInput): Promise<ReversalStarted> {
  const planned = await inTransaction(deps.db, async (trx) => {
    const pi = await getPaymentInitiation(trx, id, { lock: true });
    const reversalID = reversalId(pi.connectorID, input.reference);
    const existing = await trx('payments_initiation_reversals').where({ id: reversalID }).first();
    if (existing) {
      if (existing.payment_initiation_id !== id || BigInt(existing.amount) !== input.amount || existing.asset !== input.asset) {
        throw new ApiError('CONFLICT', `reversal reference "${input.reference}" is already used on connector ${pi.connectorID} by another reversal`);
      }
      return { pi, reversalID, number: existing.number as number, replay: true };
    }
    await checkReversible(trx, pi, input);
    const [{ next }] = await trx('payments_initiation_reversals')
      .where({ payment_initiation_id: id })
      .select(trx.raw('COALESCE(MAX(number), 0) + 1 AS next'));
    const metadata = input.metadata ?? {};
    await trx('payments_initiation_reversals').insert({
      id: reversalID,
      connector_id: pi.connectorID,
      payment_initiation_id: id,
      number: next,
      reference: input.reference,
      description: input.description,
      amount: input.amount.toString(),
      asset: input.asset,
      metadata: stringifyJson(metadata),
      status: 'PROCESSING',
    });
    await addInitiationAdjustment(trx, pi, 'REVERSE_PROCESSING', { amount: input.amount, metadata });
    return { pi, reversalID, number: Number(next), replay: false };
  });
  const taskID = reversalWorkflowId(id, planned.number);
  if (!planned.replay) {
    const { pi } = planned;
    const summary = `Reverse ${input.amount} ${input.asset} of ${pi.type} "${pi.reference}" (reversal "${input.reference}")`;
    try {
      await startReversalExecution(deps.temporal, {
        paymentInitiationID: id,
        number: planned.number,
        reversalID: planned.reversalID,
        connectorID: pi.connectorID,
        summary,
      });
    } catch (error) {
      await failReversal(deps.db, planned.reversalID, 'could not start the reversal on Temporal');
      throw new ApiError('SERVICE_UNAVAILABLE', 'could not start the reversal; the payment initiation is REVERSE_FAILED and can be reversed again', {
        cause: error,
      });
    }
  }
  return { paymentInitiationReversalID: planned.reversalID, taskID };
}
