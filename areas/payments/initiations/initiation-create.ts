import { conflict, notFound, validationError } from '../../../lib/errors';
import { inTransaction, isUniqueViolation } from '../../../db/errors';
import { withIdempotencyKey } from '../../../db/idempotency';
import type { Db, Executor } from '../../../db/knex';
import { requireCapability } from '../connectors/connector-catalog';
import { getConnectorRow } from '../connectors/connectors';
import { paymentInitiationId } from '../ids';
import type { TemporalDeps } from '../../../lib/temporal';
import { startInitiationWorkflow } from './initiation-workflow';
import { addInitiationAdjustment, emitSavedInitiation, getPaymentInitiation } from './initiations';
import { stringifyJson } from '../../../lib/json';

export interface PaymentInitiationInput {
  reference: string;
  connectorID: string;
  type: 'TRANSFER' | 'PAYOUT';
  amount: bigint;
  asset: string;
  sourceAccountID?: string;
  destinationAccountID: string;
  description?: string;
  scheduledAt?: Date;
  metadata?: Record<string, string>;
}

/** An account named in the body must exist and belong to the initiation's connector. Throws VALIDATION. */
async function assertConnectorAccount(trx: Executor, connectorID: string, id: string, field: string): Promise<void> {
  const account = await trx('payments_accounts').where({ id }).first('connector_id');
  if (!account) throw validationError(`body.${field}: account ${id} does not exist`);
  if (account.connector_id !== connectorID) throw validationError(`body.${field}: account ${id} belongs to another connector`);
}

/**
 * Creates a payment initiation, WAITING_FOR_VALIDATION; with `noValidation` it is scheduled at once and its execution
 * starts on Temporal. Throws NOT_FOUND (connector not installed), VALIDATION (accounts), CONFLICT (reference used
 * on this connector), SERVICE_UNAVAILABLE (Temporal down; the initiation is then FAILED).
 */
export async function createPaymentInitiation(
  deps: { db: Db; temporal: TemporalDeps },
  input: PaymentInitiationInput,
  options: { noValidation?: boolean; idempotencyKey?: string; idempotencyScope?: string } = {},
): Promise<{ paymentInitiationID: string; taskID?: string }> {
  const { value } = await inTransaction(deps.db, (trx) =>
    withIdempotencyKey(
      trx,
      {
        scope: options.idempotencyScope ?? 'payments.payment-initiations',
        key: options.idempotencyKey,
        request: { input, noValidation: !!options.noValidation },
      },
      async () => {
        const connector = await getConnectorRow(trx, input.connectorID, { installed: true }).catch(() => {
          throw notFound(`connector ${input.connectorID} not found or uninstalled`);
        });
        requireCapability(connector, input.type === 'PAYOUT' ? 'CREATE_PAYOUT' : 'CREATE_TRANSFER');
        await assertConnectorAccount(trx, input.connectorID, input.destinationAccountID, 'destinationAccountID');
        if (input.sourceAccountID) await assertConnectorAccount(trx, input.connectorID, input.sourceAccountID, 'sourceAccountID');
        const id = paymentInitiationId(input.connectorID, input.reference);
        try {
          await trx('payments_initiations').insert({
            id,
            connector_id: input.connectorID,
            reference: input.reference,
            type: input.type,
            amount: input.amount.toString(),
            asset: input.asset,
            source_account_id: input.sourceAccountID ?? null,
            destination_account_id: input.destinationAccountID,
            description: input.description ?? '',
            metadata: stringifyJson(input.metadata ?? {}),
            scheduled_at: input.scheduledAt ?? null,
            status: 'WAITING_FOR_VALIDATION',
          });
        } catch (error) {
          if (!isUniqueViolation(error)) throw error;
          throw conflict(`reference "${input.reference}" is already used by a payment initiation of this connector`);
        }
        const initiation = await getPaymentInitiation(trx, id, { lock: true });
        await emitSavedInitiation(trx, initiation);
        await addInitiationAdjustment(trx, initiation, 'WAITING_FOR_VALIDATION');
        if (options.noValidation) await addInitiationAdjustment(trx, initiation, 'SCHEDULED_FOR_PROCESSING', { attempts: 1 });
        return { paymentInitiationID: id, connectorID: input.connectorID };
      },
    ),
  );
  if (!options.noValidation) return { paymentInitiationID: value.paymentInitiationID };
  // Also on an idempotent replay: the deterministic workflow id makes a second start a no-op.
  const taskID = await startInitiationWorkflow(deps.db, deps.temporal, value.paymentInitiationID, 1, value.connectorID);
  return { paymentInitiationID: value.paymentInitiationID, taskID };
}
