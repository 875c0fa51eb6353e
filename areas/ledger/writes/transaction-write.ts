import type { Knex } from 'knex';
import { ApiError } from '../../../lib/errors';
import type { Posting, VolumesByAccount } from '../types';
import { applyPostings, type VolumeMap } from '../reads/volumes';
import { scriptedWrite } from './script';
import type { Settled } from './settle-write';
import { mergeAccountMetadata } from './write-statements';
import type { LedgerWrite } from './write-pipeline';

/**
 * A transaction write's check under the batch's locks (step 5 of write-pipeline.ts): a plain or forced transaction, a
 * script, and the postings a settle (settle-write.ts) or a revert (revert-write.ts) planned.
 */

/** A transaction write that passed its checks against the batch's running volumes, waiting for its txid. */
export interface AcceptedTransaction {
  index: number;
  postings: Posting[];
  metadata: Record<string, string>;
  accountMetadata: Record<string, Record<string, string>>;
  timestamp: Date;
  reference?: string;
  pre: VolumesByAccount;
  post: VolumesByAccount;
  settled?: Settled;
}

/** The (account, asset) pairs of postings, as the batch locks them. */
export const pairsOf = (postings: Posting[]) =>
  postings.flatMap((p): Array<[string, string]> => [
    [p.source, p.asset],
    [p.destination, p.asset],
  ]);

/**
 * Checks one write against the running volumes and, when it passes, applies it to them. Plain postings are
 * funds-checked unless forced; a script runs with the batch's running balances and locks what it reads beyond them.
 * Account metadata a script set is written now, so a later script of the batch reads it.
 */
export async function checkWrite(
  trx: Knex.Transaction,
  ledger: string,
  index: number,
  write: LedgerWrite,
  state: VolumeMap,
  taken: Map<string, string>,
): Promise<AcceptedTransaction> {
  const { request } = write;
  if (request.reference !== undefined && taken.has(request.reference)) {
    throw new ApiError('CONFLICT', `reference "${request.reference}" is already used by ${taken.get(request.reference)} of ledger "${ledger}"`);
  }
  const { postings, metadata, accountMetadata } = request.script
    ? await scriptedWrite(trx, ledger, request.script, request.metadata ?? {}, state)
    : { postings: request.postings ?? [], metadata: request.metadata ?? {}, accountMetadata: {} };
  if (postings.length === 0) throw new ApiError('NO_POSTINGS', 'the transaction has no postings');
  write.check?.(postings);
  const { pre, post, changed } = applyPostings(state, postings, !request.script && !write.force);
  for (const [key, entry] of changed) state.set(key, entry);
  if (request.reference !== undefined) taken.set(request.reference, 'an earlier write of the same batch');
  await mergeAccountMetadata(trx, ledger, accountMetadata);
  return { index, postings, metadata, accountMetadata, timestamp: request.timestamp ?? new Date(), reference: request.reference, pre, post };
}
