import type { Db } from '../../db/knex';
import * as areas from './areas';
import { classified, idempotencyKey } from './failures';

type Amount = { asset: string; amount: bigint };

/** Wallet activities, named as the spec's StageHistoryEntry keys; inputs and outputs in the spec's shapes. */
export function createWalletActivities(db: Db) {
  return {
    async GetWallet(input: { id: string }) {
      return { data: await classified(() => areas.getWallet(db, input.id)) };
    },

    async ListWallets(input: { name: string }) {
      const page = await classified(() => areas.listWallets(db, { name: input.name }, { pageSize: 100 }));
      return { cursor: { pageSize: 100, hasMore: page.hasNext, previous: '', next: '', data: page.items } };
    },

    async CreditWallet(input: {
      id: string;
      data: { amount: Amount; metadata?: Record<string, string>; sources?: areas.Subject[]; balance?: string; reference?: string; timestamp?: string };
    }): Promise<void> {
      const { amount, timestamp, ...rest } = input.data;
      await classified(() =>
        areas.creditWallet(
          db,
          input.id,
          { ...rest, amount: { asset: amount.asset, amount: BigInt(amount.amount) }, ...(timestamp ? { timestamp: new Date(timestamp) } : {}) },
          { idempotencyKey: idempotencyKey() },
        ),
      );
    },

    async DebitWallet(input: {
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
    }) {
      const { amount, timestamp, ...rest } = input.data;
      const hold = await classified(() =>
        areas.debitWallet(
          db,
          input.id,
          { ...rest, amount: { asset: amount.asset, amount: BigInt(amount.amount) }, ...(timestamp ? { timestamp: new Date(timestamp) } : {}) },
          { idempotencyKey: idempotencyKey() },
        ),
      );
      return hold ? { data: hold } : undefined;
    },

    async ConfirmHold(input: { id: string }): Promise<void> {
      await classified(() => areas.confirmHold(db, input.id, {}, { idempotencyKey: idempotencyKey() }));
    },

    async VoidHold(input: { id: string }): Promise<void> {
      await classified(() => areas.voidHold(db, input.id, { idempotencyKey: idempotencyKey() }));
    },
  };
}
