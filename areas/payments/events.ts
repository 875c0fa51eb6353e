import type { Executor } from '../../db/knex';
import { emitEvents } from '../../db/outbox';

/** Payments events carry Formance's `payments` app name and `v3` version. */
export async function emitPaymentsEvents(trx: Executor, events: Array<{ type: string; payload: unknown }>): Promise<void> {
  await emitEvents(
    trx,
    events.map((e) => ({ app: 'payments', version: 'v3', type: e.type, payload: e.payload })),
  );
}
