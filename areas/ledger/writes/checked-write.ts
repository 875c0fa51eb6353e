import { emitEvents } from '../../../db/outbox';
import type { CreatedTransaction } from './create-transaction';
import { inWriteTransaction } from '../executor';
import { assertPostingsInChart, chartDefaults } from '../rules/schema-check';
import type { ParsedSchema } from '../rules/schemas';
import { getTransaction } from '../reads/transactions';
import type { CreateTransactionInput, Executor, LedgerTransaction } from '../types';
import { commitWrite, committedEvent } from './write-pipeline';
import { commitMetadataWrite } from './metadata-write';

export interface CheckedOptions {
  idempotencyKey?: string;
  force?: boolean;
  schema?: ParsedSchema;
  accountMetadata: Record<string, Record<string, string>>;
}

/**
 * Whether a write needs more than the group commit does: `force`, account metadata to set with it, a script checked
 * against a schema (its postings are known only once it ran), or accounts the schema gives default metadata. Such a
 * write runs in a database transaction of its own, where those steps run between the transaction and the commit.
 */
export function needsCheckedWrite(request: CreateTransactionInput, options: CheckedOptions): boolean {
  if (options.force || Object.keys(options.accountMetadata).length > 0) return true;
  if (!options.schema) return false;
  if (request.script) return true;
  const addresses = [...new Set((request.postings ?? []).flatMap((p) => [p.source, p.destination]))];
  return Object.keys(chartDefaults(options.schema, addresses)).length > 0;
}

/**
 * The chart's default metadata of the touched accounts, for the keys they do not have yet, under the caller's explicit
 * `accountMetadata`. The account rows are locked, so a concurrent write of the same key cannot be overwritten by a default.
 */
async function metadataToSet(
  trx: Executor,
  ledger: string,
  transaction: LedgerTransaction,
  options: CheckedOptions,
): Promise<Record<string, Record<string, string>>> {
  const out: Record<string, Record<string, string>> = {};
  if (options.schema) {
    const addresses = [...new Set(transaction.postings.flatMap((p) => [p.source, p.destination]))].sort();
    const defaults = chartDefaults(options.schema, addresses);
    const withDefaults = Object.keys(defaults);
    if (withDefaults.length > 0) {
      const rows: Array<{ address: string; metadata: Record<string, string> }> = await trx('ledger_accounts')
        .where({ ledger })
        .whereIn('address', withDefaults)
        .orderBy('address')
        .forUpdate()
        .select('address', 'metadata');
      const current = new Map(rows.map((r) => [r.address, r.metadata ?? {}]));
      for (const address of withDefaults) {
        const missing = Object.entries(defaults[address]).filter(([key]) => !(key in (current.get(address) ?? {})));
        if (missing.length > 0) out[address] = Object.fromEntries(missing);
      }
    }
  }
  for (const [address, metadata] of Object.entries(options.accountMetadata)) out[address] = { ...out[address], ...metadata };
  return out;
}

/**
 * Commits one transaction through the write pipeline in its own database transaction (or the caller's), with the
 * checks and effects the group commit does not have: funds not checked with `force`, a script's postings checked
 * against the schema (a violation refuses the write), then the account metadata set, each account with its
 * SET_METADATA log after the transaction's log, so an import replays it. The event, emitted last, carries that
 * metadata as its `accountMetadata`.
 */
export async function commitChecked(
  db: Executor,
  ledger: string,
  request: CreateTransactionInput,
  options: CheckedOptions,
): Promise<CreatedTransaction> {
  // What is hashed for the key includes the options that change the write.
  const hashed = { ...request, force: options.force === true, schemaVersion: options.schema?.version, accountMetadata: options.accountMetadata };
  const schema = options.schema;
  const check =
    schema && request.script ? (postings: LedgerTransaction['postings']) => assertPostingsInChart(schema, postings, 'script postings') : undefined;
  return inWriteTransaction(db, async (trx) => {
    const outcome = await commitWrite(trx, ledger, {
      request,
      idempotencyKey: options.idempotencyKey,
      hashed,
      force: options.force,
      check,
      emit: false,
    });
    if ('hitTxid' in outcome)
      return { transaction: await getTransaction(trx, ledger, outcome.hitTxid), idempotencyHit: true, logId: outcome.hitLogId };
    const { transaction, accountMetadata: fromScript, logId } = outcome;
    const toSet = await metadataToSet(trx, ledger, transaction, options);
    for (const address of Object.keys(toSet).sort())
      await commitMetadataWrite(trx, ledger, { target: { type: 'ACCOUNT', id: address }, change: { set: toSet[address] }, emit: false });
    const accountMetadata = { ...fromScript };
    for (const [address, metadata] of Object.entries(toSet)) accountMetadata[address] = { ...accountMetadata[address], ...metadata };
    await emitEvents(trx, [committedEvent(ledger, transaction, accountMetadata)]);
    return { transaction, idempotencyHit: false, logId };
  });
}
