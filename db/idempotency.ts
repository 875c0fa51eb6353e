import { createHash } from 'node:crypto';
import { ApiError } from '../lib/errors';
import { parseJson, stringifyJson } from '../lib/json';
import type { Knex } from 'knex';

export interface IdempotentResult<T> {
  value: T;
  /** True when the key was seen before and the stored result is returned instead of doing the work again. */
  hit: boolean;
}

export function hashRequest(request: unknown): string {
  return createHash('sha256').update(stringifyJson(request)).digest('hex');
}

/**
 * Claims `key` inside the caller's transaction before doing the work. A concurrent request with the same key blocks
 * on the unique index until the first one commits, then reads its stored result: N parallel requests produce one
 * change. A different request under the same key is a 409, as a reused key is a client bug.
 */
export async function withIdempotencyKey<T>(
  trx: Knex.Transaction,
  claim: { scope: string; key: string | undefined; request: unknown },
  work: () => Promise<T>,
): Promise<IdempotentResult<T>> {
  if (!claim.key) return { value: await work(), hit: false };
  const requestHash = hashRequest(claim.request);
  const inserted = await trx.raw(
    `INSERT INTO idempotency_keys (scope, key, request_hash, response) VALUES (?, ?, ?, '') ON CONFLICT DO NOTHING RETURNING key`,
    [claim.scope, claim.key, requestHash],
  );
  if (inserted.rows.length === 0) {
    const row = await trx('idempotency_keys').where({ scope: claim.scope, key: claim.key }).first();
    if (!row || row.request_hash !== requestHash) {
      throw new ApiError('CONFLICT', 'Idempotency-Key was already used with a different request');
    }
    return { value: parseJson(row.response) as T, hit: true };
  }
  const value = await work();
  await trx('idempotency_keys')
    .where({ scope: claim.scope, key: claim.key })
    .update({ response: stringifyJson(value) });
  return { value, hit: false };
}

/**
 * Forgets a key whose work was committed but could not be completed outside the database (e.g. a Temporal start that
 * failed and was undone), so the client's retry with the same key does the work again instead of answering a result
 * that did not happen.
 */
export async function releaseIdempotencyKey(db: Knex, claim: { scope: string; key: string | undefined }): Promise<void> {
  if (!claim.key) return;
  await db('idempotency_keys').where({ scope: claim.scope, key: claim.key }).delete();
}
