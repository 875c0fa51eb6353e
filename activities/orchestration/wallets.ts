import type { Db, Executor } from '../../db/knex';
import * as areas from './areas';
import { classified, idempotencyKey } from './failures';

type Amount = { asset: string; amount: bigint };

/**
 * Wallet activities, named as the spec's StageHistoryEntry keys; inputs and outputs in the spec's shapes. `db` is the
 * pool for a read, the step's fence transaction for a write (asSteps): the wallets area runs inside a transaction it
 * is given, its ledger write included.
 */
export function createWalletActivities() {
  // The wallets area takes the pool's type; a transaction is one (it runs every query of the call inside it).
  const asDb = (db: Executor) => db as Db;
  return {
    async GetWallet(input: { id: string }, db: Executor) {
      return { data: await classified(() => areas.getWallet(db, input.id)) };
    },

    async ListWallets(input: { name: string }, db: Executor) {
      const page = await classified(() => areas.listWallets(db, { name: input.name }, { pageSize: 100 }));
      return { cursor: { pageSize: 100, hasMore: page.hasNext, previous: '', next: '', data: page.items } };
    },

    async CreditWallet(
      input: {
        id: string;
        data: {
          amount: Amount;
          metadata?: Record<string, string>;
          sources?: areas.Subject[];
          balance?: string;
          reference?: string;
          timestamp?: string;
        };
      },
      db: Executor,
    ): Promise<void> {
      const { amount, timestamp, ...rest } = input.data;
      await classified(() =>
        areas.creditWallet(
          asDb(db),
          input.id,
          { ...rest, amount: { asset: amount.asset, amount: BigInt(amount.amount) }, ...(timestamp ? { timestamp: new Date(timestamp) } : {}) },
          { idempotencyKey: idempotencyKey() },
        ),
      );
    },

    async DebitWallet(
      input: {
        id: string;
        data: {
          amount: Amount;
          metadata?: Record<string, string>;
          pending?: boolean;
          balances?: string[];
          destination?: areas.Subject;
          description?: string;
          timestamp?: string;
        };
      },
      db: Executor,
    ) {
      const { amount, timestamp, ...rest } = input.data;
      const hold = await classified(() =>
        areas.debitWallet(
          asDb(db),
          input.id,
          { ...rest, amount: { asset: amount.asset, amount: BigInt(amount.amount) }, ...(timestamp ? { timestamp: new Date(timestamp) } : {}) },
          { idempotencyKey: idempotencyKey() },
        ),
      );
      return hold ? { data: hold } : undefined;
    },

    async ConfirmHold(input: { id: string }, db: Executor): Promise<void> {
      await classified(() => areas.confirmHold(asDb(db), input.id, {}, { idempotencyKey: idempotencyKey() }));
    },

    async VoidHold(input: { id: string }, db: Executor): Promise<void> {
      await classified(() => areas.voidHold(asDb(db), input.id, { idempotencyKey: idempotencyKey() }));
    },
  };
}
