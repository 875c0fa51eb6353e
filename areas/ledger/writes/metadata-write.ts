import type { Knex } from 'knex';
import type { PlatformEvent } from '../../../db/outbox';
import { validationError } from '../../../lib/errors';
import { assertAddress, assertMetadata } from '../rules/rules';
import { assertAccountInChart } from '../rules/schema-check';
import type { ParsedSchema } from '../rules/schemas';
import type { LogType } from '../logs/log';
import type { LedgerTransaction } from '../types';
import type { LockedTransaction } from './revert-write';
import { lockAccounts, type AccountUpdate, type MetadataChange, type TransactionUpdate } from './write-statements';
import type { BatchWrite } from './write-pipeline';
import type { AcceptedTransaction } from './transaction-write';

/**
 * A metadata write (add or delete metadata, from a route or a bulk element, a log import's SET_METADATA and
 * DELETE_METADATA): keys merged into, or one key deleted from, an account's or a transaction's metadata, with its log
 * (SET_METADATA, DELETE_METADATA) and its event (SAVED_METADATA, DELETED_METADATA).
 */
export interface MetadataWrite extends MetadataChange {
  /** A log import's replay: the original log's date. */
  logDate?: Date;
  /** Whether the pipeline emits the write's event (the default); a log import does not. */
  emit?: boolean;
}

export function assertKey(key: string): void {
  if (typeof key !== 'string' || key.length === 0 || key.length > 1000) throw validationError('key: a metadata key of 1 to 1000 characters');
}

/**
 * A metadata write as the single routes check it: an account's address, the metadata or the key deleted, and with a
 * schema the account set in its chart. @throws ApiError VALIDATION
 */
export function checkedMetadataWrite(target: MetadataChange['target'], change: MetadataChange['change'], schema?: ParsedSchema): MetadataWrite {
  if (target.type === 'ACCOUNT') assertAddress(target.id, 'address');
  if ('set' in change) {
    assertMetadata(change.set, 'metadata');
    if (schema && target.type === 'ACCOUNT') assertAccountInChart(schema, target.id, 'address');
  } else assertKey(change.delete);
  return { target, change };
}

/** Whether a write of a batch is a metadata write (the others are transactions). */
export const isMetadata = (write: BatchWrite): write is MetadataWrite => 'target' in write;

/** A metadata write's log (SET_METADATA, DELETE_METADATA) and, unless `emit` is false, its event (SAVED_METADATA, DELETED_METADATA). */
export function metadataLog(ledger: string, write: MetadataWrite): { log: { type: LogType; date: Date; data: unknown }; event?: PlatformEvent } {
  const { target, change } = write;
  const targetType = target.type;
  const targetId = target.id;
  const [logType, logData, event]: [LogType, unknown, PlatformEvent] =
    'set' in change
      ? [
          'SET_METADATA',
          { targetType, targetId, metadata: change.set },
          { app: 'ledger', type: 'SAVED_METADATA', payload: { ledger, targetType, targetId, metadata: change.set } },
        ]
      : [
          'DELETE_METADATA',
          { targetType, targetId, key: change.delete },
          { app: 'ledger', type: 'DELETED_METADATA', payload: { ledger, targetType, targetId, key: change.delete } },
        ];
  return { log: { type: logType, date: write.logDate ?? new Date(), data: logData }, ...(write.emit === false ? {} : { event }) };
}

/**
 * The metadata of the accounts and transactions a batch of the pipeline changes, as its writes leave them one after
 * the other, and the net change of each row, which the batch's last statement applies (one member per table). The
 * rows were locked and read by the batch (transactions first, accounts after the volume rows); a write's outcome (does
 * the key it deletes exist?) is that of the writes before it.
 */
export class MetadataState {
  private readonly transactionChanges = new Map<string, TransactionUpdate>();
  private readonly accountChanges = new Map<string, AccountUpdate>();

  constructor(
    private readonly ledger: string,
    readonly transactions: Map<string, LockedTransaction>,
    private readonly accounts: Map<string, Record<string, string>>,
  ) {}

  /** An account's metadata now; undefined when it does not exist. */
  account(address: string): Record<string, string> | undefined {
    return this.accounts.get(address);
  }

  /**
   * Applies a metadata write: its log and event, or undefined when it changed nothing (a deleted key that is not
   * there). Its target transaction was found by the batch (a missing one is refused before).
   */
  apply(write: MetadataWrite): ReturnType<typeof metadataLog> | undefined {
    const { target, change } = write;
    const current = target.type === 'ACCOUNT' ? this.accounts.get(target.id) : this.transactions.get(target.id.toString())!.transaction.metadata;
    if ('delete' in change && !(current && Object.hasOwn(current, change.delete))) return undefined;
    if (target.type === 'ACCOUNT') this.changeAccount(target.id, change);
    else this.changeTransaction(target.id, change);
    return metadataLog(this.ledger, write);
  }

  /** Sets keys of an account (a transaction's account metadata). */
  setAccount(address: string, metadata: Record<string, string>): void {
    this.changeAccount(address, { set: metadata });
  }

  /** Marks a transaction reverted at `at`; returns it as marked. */
  revert(id: bigint, at: Date): LedgerTransaction {
    const locked = this.transactions.get(id.toString())!;
    this.changeOf(this.transactionChanges, id.toString(), () => ({ id, set: {}, deleted: [] })).revertedAt = at;
    return { ...locked.transaction, metadata: { ...locked.transaction.metadata }, reverted: true, revertedAt: at };
  }

  /** The net changes, for insertCommitted. */
  updates(): { transactionUpdates: TransactionUpdate[]; accountUpdates: AccountUpdate[] } {
    return { transactionUpdates: [...this.transactionChanges.values()], accountUpdates: [...this.accountChanges.values()] };
  }

  private changeAccount(address: string, change: MetadataChange['change']): void {
    const exists = this.accounts.has(address);
    const metadata = { ...this.accounts.get(address) };
    this.accounts.set(address, metadata);
    apply(
      metadata,
      this.changeOf(this.accountChanges, address, () => ({ address, exists, set: {}, deleted: [] })),
      change,
    );
  }

  private changeTransaction(id: bigint, change: MetadataChange['change']): void {
    const locked = this.transactions.get(id.toString())!;
    // A copy: the views built before this change keep the metadata they had.
    locked.transaction = { ...locked.transaction, metadata: { ...locked.transaction.metadata } };
    apply(
      locked.transaction.metadata,
      this.changeOf(this.transactionChanges, id.toString(), () => ({ id, set: {}, deleted: [] })),
      change,
    );
  }

  private changeOf<T>(changes: Map<string, T>, key: string, create: () => T): T {
    let found = changes.get(key);
    if (!found) changes.set(key, (found = create()));
    return found;
  }
}

/** Applies a change to metadata and to the row's net change (keys set and keys deleted stay disjoint). */
function apply(metadata: Record<string, string>, net: { set: Record<string, string>; deleted: string[] }, change: MetadataChange['change']): void {
  if ('set' in change) {
    Object.assign(metadata, change.set);
    Object.assign(net.set, change.set);
    net.deleted = net.deleted.filter((key) => !Object.hasOwn(change.set, key));
  } else {
    delete metadata[change.delete];
    delete net.set[change.delete];
    if (!net.deleted.includes(change.delete)) net.deleted.push(change.delete);
  }
}

/** An accepted write as the metadata walk (step 6) planned it: how many logs it appends, and what they need. */
export type Planned =
  | { kind: 'transaction'; accepted: AcceptedTransaction; toSet: Record<string, Record<string, string>>; reverted?: LedgerTransaction }
  | { kind: 'metadata'; index: number; change?: ReturnType<MetadataState['apply']> };

/**
 * Step 6: locks the accounts whose metadata the accepted writes change (metadata writes, account metadata, a chart's
 * defaults) and walks the writes in order against them and the locked transactions: what each sets and appends.
 */
export async function planMetadata(
  trx: Knex.Transaction,
  ledger: string,
  writes: BatchWrite[],
  accepted: Array<{ index: number; transaction?: AcceptedTransaction }>,
  locked: Map<string, LockedTransaction>,
): Promise<{ plans: Planned[]; metadata: MetadataState }> {
  const defaultsOf = new Map<number, Record<string, Record<string, string>>>();
  const addresses: string[] = [];
  for (const { index, transaction } of accepted) {
    const write = writes[index];
    if (isMetadata(write)) {
      if (write.target.type === 'ACCOUNT') addresses.push(write.target.id);
      continue;
    }
    addresses.push(...Object.keys(write.accountMetadata ?? {}));
    if (write.defaults) {
      const defaults = write.defaults([...new Set(transaction!.postings.flatMap((p) => [p.source, p.destination]))].sort());
      defaultsOf.set(index, defaults);
      addresses.push(...Object.keys(defaults));
    }
  }
  const metadata = new MetadataState(ledger, locked, await lockAccounts(trx, ledger, addresses));
  const now = new Date();
  const plans = accepted.map(({ index, transaction }): Planned => {
    const write = writes[index];
    if (isMetadata(write)) return { kind: 'metadata', index, change: metadata.apply(write) };
    // The chart's defaults for the keys the accounts lack, under the caller's explicit account metadata.
    const toSet: Record<string, Record<string, string>> = {};
    for (const [address, defaults] of Object.entries(defaultsOf.get(index) ?? {})) {
      const current = metadata.account(address) ?? {};
      const missing = Object.entries(defaults).filter(([key]) => !Object.hasOwn(current, key));
      if (missing.length > 0) toSet[address] = Object.fromEntries(missing);
    }
    for (const [address, explicit] of Object.entries(write.accountMetadata ?? {})) toSet[address] = { ...toSet[address], ...explicit };
    for (const address of Object.keys(toSet).sort()) metadata.setAccount(address, toSet[address]);
    const reverted = write.revert ? metadata.revert(write.revert.id, now) : undefined;
    return { kind: 'transaction', accepted: transaction!, toSet, ...(reverted ? { reverted } : {}) };
  });
  return { plans, metadata };
}
