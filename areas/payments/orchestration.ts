import type { TemporalDeps } from '../../lib/temporal';
import { createHash } from 'node:crypto';
import type { Db, Executor } from '../../db/knex';
import { accountId } from './ids';
import { createPaymentInitiation } from './initiations/initiation-create';
import { getPayment } from './payments/payments';

/**
 * The in-process API the orchestration stages call (ProviderTransfer, GetPayment). Fixed by the contracts brief.
 */

/**
 * Creates a TRANSFER payment initiation through `connectorID` to `destination` (an account id, or the provider's
 * reference of an account of that connector), executed at once unless `waitingValidation`. Idempotent by
 * `idempotencyKey`: a retried activity gets the same initiation and starts no second execution.
 * Throws NOT_FOUND (connector), VALIDATION (destination, amount).
 */
export async function providerTransfer(
  deps: { db: Db; temporal: TemporalDeps },
  input: { connectorID: string; amount: bigint; asset: string; destination: string; waitingValidation: boolean; metadata: Record<string, string> },
  idempotencyKey: string,
): Promise<{ paymentInitiationID: string }> {
  const byReference = accountId(input.connectorID, input.destination);
  const exists = await deps.db('payments_accounts').where({ id: input.destination }).first('id');
  const reference = `orchestration-${createHash('sha256').update(idempotencyKey).digest('hex').slice(0, 32)}`;
  const { paymentInitiationID } = await createPaymentInitiation(
    deps,
    {
      reference,
      connectorID: input.connectorID,
      type: 'TRANSFER',
      amount: input.amount,
      asset: input.asset,
      destinationAccountID: exists ? input.destination : byReference,
      metadata: input.metadata,
      description: 'orchestration ProviderTransfer',
    },
    { noValidation: !input.waitingValidation, idempotencyKey, idempotencyScope: 'payments.orchestration.provider-transfer' },
  );
  return { paymentInitiationID };
}

export interface StageAdjustment {
  status: string;
  amount: bigint;
  date: Date;
  raw: unknown;
  absolute: boolean;
}
export type StagePayment = Omit<Awaited<ReturnType<typeof getPayment>>, 'amount' | 'adjustments'> & { adjustments: StageAdjustment[] };

/** The spec's Payment without `amount`, with string metadata and stage-shaped adjustments. Throws NOT_FOUND. */
export async function getPaymentForStage(db: Executor, id: string): Promise<StagePayment> {
  const { amount: _amount, adjustments, metadata, ...payment } = await getPayment(db, id);
  return {
    ...payment,
    metadata: Object.fromEntries(Object.entries(metadata).map(([k, v]) => [k, String(v)])),
    // Every adjustment the platform records carries the payment's full amount at that state, hence absolute.
    adjustments: adjustments.map((a) => ({ status: a.status, amount: a.amount, date: a.createdAt, raw: a.raw, absolute: true })),
  };
}

/**
 * The installed connector of `provider` (case-insensitive) that a send should pay through, or undefined. With several
 * connectors of one provider installed, the one owning `destination` (an account id, else a provider reference) wins,
 * so the transfer is not sent through a connector that does not know the account; otherwise the oldest one.
 */
export async function findConnectorByProvider(db: Executor, provider: string, destination?: string): Promise<{ connectorID: string } | undefined> {
  const installed = () => db('payments_connectors as c').whereRaw('lower(c.provider) = ?', [provider.toLowerCase()]).whereNull('c.uninstalled_at');
  if (destination) {
    const owner = await installed()
      .join('payments_accounts as a', 'a.connector_id', 'c.id')
      .where((q) => q.where('a.id', destination).orWhere('a.reference', destination))
      // An account id names exactly one connector; a reference may exist on several, then the oldest wins.
      .orderByRaw('(a.id = ?) DESC, c.created_at', [destination])
      .first('c.id');
    if (owner) return { connectorID: owner.id };
  }
  const row = await installed().orderBy('c.created_at').first('c.id');
  return row ? { connectorID: row.id } : undefined;
}
