import { withIdempotencyKey } from '../../db/idempotency';
import { emitEvents } from '../../db/outbox';
import { writeAccountMetadata } from './accounts';
import { commitTransaction } from './commit';
import { inWriteTransaction } from './executor';
import { assertPostingsInChart, chartDefaults } from './schema-check';
import type { ParsedSchema } from './schemas';
import { getTransaction } from './transactions';
import type { CreateTransactionInput, Executor, LedgerTransaction } from './types';
import { v2TransactionView } from './views';

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
async function metadataToSet(trx: Executor, ledger: string, transaction: LedgerTransaction, options: CheckedOptions): Promise<Record<string, Record<string, string>>> {
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
 * Commits one transaction in its own database transaction (or the caller's), with the checks and effects the group
 * commit does not have: funds not checked with `force`, a script's postings checked against the schema (a violation
 * rolls everything back), then the account metadata set, each account with its SET_METADATA log after the
 * transaction's log, so an import replays it. The event carries that metadata as its `accountMetadata`.
 */
export async function commitChecked(
  db: Executor,
  ledger: string,
  request: CreateTransactionInput,
  options: CheckedOptions,
): Promise<{ transaction: LedgerTransaction; idempotencyHit: boolean }> {
  // What is hashed for the key includes the options that change the write.
  const hashed = { ...request, force: options.force === true, schemaVersion: options.schema?.version, accountMetadata: options.accountMetadata };
  return inWriteTransaction(db, async (trx) => {
    let created: LedgerTransaction | undefined;
    const claim = await withIdempotencyKey(trx, { scope: `ledger/${ledger}/transactions`, key: options.idempotencyKey, request: hashed }, async () => {
      const { transaction, accountMetadata: fromScript } = await commitTransaction(trx, ledger, request, { force: options.force });
      if (options.schema && request.script) assertPostingsInChart(options.schema, transaction.postings, 'script postings');
      const toSet = await metadataToSet(trx, ledger, transaction, options);
      for (const address of Object.keys(toSet).sort()) await writeAccountMetadata(trx, ledger, address, toSet[address]);
      const accountMetadata = { ...fromScript };
      for (const [address, metadata] of Object.entries(toSet)) accountMetadata[address] = { ...accountMetadata[address], ...metadata };
      await emitEvents(trx, [{ app: 'ledger', type: 'COMMITTED_TRANSACTIONS', payload: { ledger, transactions: [v2TransactionView(transaction)], accountMetadata } }]);
      created = transaction;
      return { id: transaction.id.toString() };
    });
    if (created) return { transaction: created, idempotencyHit: false };
    return { transaction: await getTransaction(trx, ledger, BigInt(claim.value.id)), idempotencyHit: true };
  });
}
