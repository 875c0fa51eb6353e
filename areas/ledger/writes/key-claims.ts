import type { Knex } from 'knex';
import { hashRequest } from '../../../db/idempotency';
import { ApiError } from '../../../lib/errors';
import { parseJson } from '../../../lib/json';
import { isMetadata } from './metadata-write';
import { insertKeys } from './write-statements';
import type { BatchOutcome, BatchWrite } from './write-pipeline';

/**
 * Step 1 of the write pipeline (write-pipeline.ts): the batch's Idempotency-Keys. A fresh key is claimed for its write;
 * a stored one answers its write at once, with the stored transaction when the request is the same, CONFLICT otherwise.
 */

/** Claims the batch's keys in one statement; a key already stored answers its write (hit or CONFLICT) right away. */
export async function claimKeys(
  trx: Knex.Transaction,
  scope: string,
  writes: BatchWrite[],
  outcomes: Array<BatchOutcome | undefined>,
): Promise<Set<number>> {
  const keyed = writes.flatMap((w, index) =>
    !isMetadata(w) && w.idempotencyKey ? [{ index, key: w.idempotencyKey, hash: hashRequest(w.hashed ?? w.request) }] : [],
  );
  const claimed = new Set<number>();
  if (keyed.length === 0) return claimed;
  const { fresh, stored } = await insertKeys(trx, scope, keyed);
  for (const { index, key, hash } of keyed) {
    if (fresh.has(key)) {
      claimed.add(index);
      continue;
    }
    const row = stored.get(key);
    outcomes[index] =
      row && row.request_hash === hash
        ? replayed(parseJson(row.response) as { id: string; logId?: string })
        : { error: new ApiError('CONFLICT', 'Idempotency-Key was already used with a different request') };
  }
  return claimed;
}

/** A stored answer: its txid, and its log (absent from answers stored before they named it). */
const replayed = (answer: { id: string; logId?: string }) => ({
  hitTxid: BigInt(answer.id),
  ...(answer.logId !== undefined ? { hitLogId: BigInt(answer.logId) } : {}),
});
