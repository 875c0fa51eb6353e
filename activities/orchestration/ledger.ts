import type { Executor } from '../../db/knex';
import { INTERNAL_LEDGER } from '../../lib/orchestration/steps';
import * as areas from './areas';
import { classified, idempotencyKey } from './failures';

export interface CreateTransactionRequest {
  ledger: string;
  data: {
    timestamp?: string;
    postings?: areas.Posting[];
    script?: { plain: string; vars?: Record<string, unknown> };
    reference?: string;
    metadata?: Record<string, string>;
  };
}

/** CreateTransaction's output in a stage history: a list of transactions, each with its `txid` (Formance v1 shape). */
export interface CreateTransactionResult {
  data: Array<{ timestamp: Date; postings: areas.Posting[]; reference?: string; metadata: Record<string, string>; txid: bigint }>;
}

/**
 * Ledger activities, named as the spec's StageHistoryEntry keys. `db` is what asSteps gives: the pool for a read, the
 * step's fence transaction for a write (the ledger then writes inside it).
 */
export function createLedgerActivities() {
  return {
    async GetAccount(input: { id: string; ledger: string }, db: Executor) {
      return { data: await classified(() => areas.getAccount(db, input.ledger, input.id)) };
    },

    async AddAccountMetadata(input: { id: string; ledger: string; metadata: Record<string, string> }, db: Executor): Promise<void> {
      await classified(() => areas.addAccountMetadata(db, input.ledger, input.id, input.metadata));
    },

    async CreateTransaction(input: CreateTransactionRequest, db: Executor): Promise<CreateTransactionResult> {
      // Payments entering a workflow are booked on orchestration's own ledger, which nobody else creates.
      if (input.ledger === INTERNAL_LEDGER) await classified(() => areas.ensureLedger(db, INTERNAL_LEDGER));
      const { transaction } = await classified(() =>
        areas.createTransaction(
          db,
          input.ledger,
          {
            postings: input.data.postings?.map((p) => ({ ...p, amount: BigInt(p.amount) })),
            script: input.data.script,
            reference: input.data.reference || undefined,
            metadata: input.data.metadata,
            timestamp: input.data.timestamp ? new Date(input.data.timestamp) : undefined,
          },
          { idempotencyKey: idempotencyKey() },
        ),
      );
      const { id, timestamp, postings, reference, metadata } = transaction;
      return { data: [{ timestamp, postings, ...(reference ? { reference } : {}), metadata, txid: id }] };
    },
  };
}
