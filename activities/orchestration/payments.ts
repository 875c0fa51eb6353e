import type { Client } from '@temporalio/client';
import { ApiError } from '../../lib/errors';
import type { Db } from '../../db/knex';
import * as areas from './areas';
import { classified, idempotencyKey } from './failures';

/** Payment activities: ProviderTransfer (Formance's StripeTransfer, for any connector) and GetPayment. */
export function createPaymentActivities(deps: { db: Db; temporal: { client: Client; taskQueue: string } }) {
  return {
    async ProviderTransfer(input: {
      connectorID: string;
      amount: bigint;
      asset: string;
      destination: string;
      waitingValidation: boolean;
      metadata: Record<string, string>;
    }) {
      const result = await classified(() => areas.providerTransfer(deps, { ...input, amount: BigInt(input.amount) }, idempotencyKey()));
      return { data: result };
    },

    async GetPayment(input: { id: string }) {
      return { data: await classified(() => areas.getPaymentForStage(deps.db, input.id)) };
    },

    /**
     * Resolves a send stage's `psp` to a connector, the one owning `destination` when several are installed; not a
     * spec activity, so it is named in camelCase.
     */
    async findConnector(input: { psp: string; destination?: string }): Promise<{ connectorID: string }> {
      return classified(async () => {
        const found = await areas.findConnectorByProvider(deps.db, input.psp, input.destination);
        if (!found) throw new ApiError('NOT_FOUND', `no connector installed for provider "${input.psp}"`);
        return found;
      });
    },
  };
}
