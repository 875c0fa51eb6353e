import type { Knex } from 'knex';
import { ApiError, validationError } from '../../../lib/errors';
import { inWriteTransaction } from '../executor';
import { assertLedgerWritable } from '../ledgers';
import { assertAddress, assertMetadata, assertPostings } from '../rules/rules';
import { assertAccountInChart, assertPostingsInChart, chartDefaults, templateScript } from '../rules/schema-check';
import { findSchema, type ParsedSchema } from '../rules/schemas';
import { getTransaction } from '../reads/transactions';
import { groupCommit, groupCommitEnabled } from './group-commit';
import {
  commitWrite,
  commitWrites,
  type BatchOutcome,
  type BatchWrite,
  type Committed,
  type LedgerWrite,
  type MetadataOutcome,
  type WriteOutcome,
} from './write-pipeline';
import type { MetadataWrite } from './metadata-write';
import type { CallerRows, SettleInput } from './settle-write';
import type { CreateTransactionInput, Executor, LedgerTransaction, Posting } from '../types';

/** Formance's V2PostTransaction as the v2 routes take it: a script may name a template of the schema version instead of its text. */
export interface TransactionRequest extends Omit<CreateTransactionInput, 'script'> {
  script?: { plain?: string; template?: string; vars?: Record<string, unknown> };
  /** Metadata to set on accounts with the transaction (Formance's `accountMetadata`). */
  accountMetadata?: Record<string, Record<string, string>>;
}

export interface CreateTransactionOptions {
  dryRun?: boolean;
  idempotencyKey?: string;
  /** The schema version the transaction is checked against (Formance's `schemaVersion`). */
  schemaVersion?: string;
  /** Plain postings may take non-world accounts below zero (Formance's `force`). */
  force?: boolean;
  /** Pairs to lock with the write's own (a script's reads, so its first run is final); the write still joins the group commit. */
  lock?: Array<[string, string]>;
  /** The caller's rows committed with the transaction (a wallet's pending debit writes its hold). */
  rows?: CallerRows;
}

/** Thrown inside a savepoint to undo a dry run after it computed its result. */
class DryRunRollback extends Error {
  constructor(readonly transaction: LedgerTransaction) {
    super('dry run');
  }
}

/** A template becomes its script's text; one is named only with a schema version, and not with a text of its own. */
function resolveTemplate(input: TransactionRequest, schema: ParsedSchema | undefined): CreateTransactionInput {
  const { accountMetadata: _accountMetadata, script, ...rest } = input;
  if (!script) return rest;
  if (script.template === undefined) return { ...rest, script: { plain: script.plain as string, vars: script.vars } };
  if (script.plain !== undefined) throw validationError('script: send either `plain` or `template`, not both');
  return { ...rest, script: { plain: templateScript(schema, script.template), vars: script.vars } };
}

function checkAccountMetadata(accountMetadata: unknown, schema: ParsedSchema | undefined): Record<string, Record<string, string>> {
  if (accountMetadata === undefined) return {};
  if (accountMetadata === null || typeof accountMetadata !== 'object' || Array.isArray(accountMetadata))
    throw validationError('accountMetadata: must be an object');
  for (const [address, metadata] of Object.entries(accountMetadata)) {
    assertAddress(address, 'accountMetadata');
    assertMetadata(metadata, `accountMetadata.${address}`);
    if (schema) assertAccountInChart(schema, address, `accountMetadata.${address}`);
  }
  return accountMetadata as Record<string, Record<string, string>>;
}

/** The request as it is hashed for Idempotency-Key: only what the caller sent (no defaulted timestamp). */
function normalize(input: CreateTransactionInput): CreateTransactionInput {
  if (input.postings !== undefined && input.script !== undefined) throw validationError('send either `postings` or `script`, not both');
  if (input.script === undefined && (input.postings === undefined || input.postings.length === 0)) {
    throw new ApiError('NO_POSTINGS', 'the transaction has no postings: send `postings` or a `script`');
  }
  if (input.postings) assertPostings(input.postings);
  if (input.script && (typeof input.script.plain !== 'string' || input.script.plain.trim() === ''))
    throw validationError('script.plain: must be a non-empty string');
  if (input.metadata !== undefined) assertMetadata(input.metadata, 'metadata');
  if (input.timestamp !== undefined && Number.isNaN(input.timestamp.getTime())) throw validationError('timestamp: invalid date');
  return {
    ...(input.postings ? { postings: input.postings } : {}),
    ...(input.script ? { script: { plain: input.script.plain, vars: input.script.vars ?? {} } } : {}),
    ...(input.reference ? { reference: input.reference } : {}),
    metadata: input.metadata ?? {},
    ...(input.timestamp ? { timestamp: input.timestamp } : {}),
  };
}

/** What a transaction write answers: the transaction, whether its Idempotency-Key replayed it, and the id of its log (none for a dry run). */
export interface CreatedTransaction {
  transaction: LedgerTransaction;
  idempotencyHit: boolean;
  logId?: bigint;
}

/**
 * Creates a transaction from postings or a Numscript script, atomically with its COMMITTED_TRANSACTIONS event, through
 * the write pipeline (write-pipeline.ts). With `idempotencyKey`, the same request again returns the original
 * transaction (`idempotencyHit: true`) and a different request under that key is a CONFLICT; concurrent duplicates
 * queue on the key, so exactly one commits. `dryRun` runs the whole write (funds checks included) and rolls it back:
 * no txid is consumed, no event is sent. Given the pool (not a caller's transaction), the write joins this process's
 * group commit for the ledger, `force`, `accountMetadata` and a schema's checks included (pipelineWrite). With
 * `schemaVersion` it is checked against that schema (plain postings before anything is written, a script once it
 * ran), `script.template` naming one of its templates.
 * @throws ApiError LEDGER_NOT_FOUND, NOT_FOUND (schema version), VALIDATION, INSUFFICIENT_FUND, COMPILATION_FAILED, NO_POSTINGS, CONFLICT, METADATA_OVERRIDE
 */
export async function createTransaction(
  db: Executor,
  ledger: string,
  input: TransactionRequest,
  options: CreateTransactionOptions = {},
): Promise<CreatedTransaction> {
  // A schema version is immutable, so checking plain postings against it before the write is exact.
  const schema = options.schemaVersion !== undefined ? await findSchema(db, ledger, options.schemaVersion) : undefined;
  const write = pipelineWrite(input, { idempotencyKey: options.idempotencyKey, force: options.force, schema });
  await assertLedgerWritable(db, ledger);
  if (options.dryRun) {
    try {
      await inWriteTransaction(db, (trx) =>
        trx.transaction(async (savepoint) => {
          const { transaction } = await commitDryRun(savepoint, ledger, {
            request: write.request,
            force: write.force,
            check: write.check,
            emit: false,
          });
          throw new DryRunRollback(transaction);
        }),
      );
    } catch (error) {
      if (error instanceof DryRunRollback) return { transaction: error.transaction, idempotencyHit: false };
      throw error;
    }
  }
  const outcome = await submit(db, ledger, {
    ...write,
    ...(options.lock ? { lock: options.lock } : {}),
    ...(options.rows ? { rows: options.rows } : {}),
  });
  if ('hitTxid' in outcome) return { transaction: await getTransaction(db, ledger, outcome.hitTxid), idempotencyHit: true, logId: outcome.hitLogId };
  return { transaction: outcome.transaction, idempotencyHit: false, logId: outcome.logId };
}

/**
 * Settles a wallet hold (SettleInput): its postings are planned from what the hold still holds under the batch's
 * locks, committed with its COMMITTED_TRANSACTIONS event, and the hold row closed with them when the plan says so.
 * Given the pool it joins the group commit. @throws the plan's errors, INSUFFICIENT_FUND, LEDGER_NOT_FOUND
 */
export async function settleHold(
  db: Executor,
  ledger: string,
  settle: SettleInput,
): Promise<Committed & { settled: NonNullable<Committed['settled']> }> {
  await assertLedgerWritable(db, ledger);
  const outcome = await submit(db, ledger, { request: { metadata: settle.metadata }, settle });
  if (!('transaction' in outcome) || !outcome.settled) throw new Error('a settle takes no Idempotency-Key');
  return { ...outcome, settled: outcome.settled };
}

/**
 * A write of one through the pipeline: with the pool, in the ledger's group commit; else in the caller's transaction.
 * @throws the write's own error
 */
export async function submit(db: Executor, ledger: string, write: LedgerWrite): Promise<Exclude<WriteOutcome, { error: unknown }>>;
export async function submit(db: Executor, ledger: string, write: MetadataWrite): Promise<MetadataOutcome>;
export async function submit(db: Executor, ledger: string, write: BatchWrite): Promise<Exclude<BatchOutcome, { error: unknown }>> {
  const outcome: BatchOutcome =
    groupCommitEnabled() && !(db as Knex.Transaction).isTransaction
      ? await groupCommit(db as Knex, ledger, write)
      : await inWriteTransaction(db, async (trx) => (await commitWrites(trx, ledger, [write]))[0]);
  if ('error' in outcome) throw outcome.error;
  return outcome;
}

/**
 * Whether a write needs more than plain postings checked for funds: `force`, account metadata to set with it, a script
 * checked against a schema (its postings are known only once it ran), or accounts the schema gives default metadata.
 * Such a write's Idempotency-Key covers those options too.
 */
function isChecked(request: CreateTransactionInput, force: boolean | undefined, schema: ParsedSchema | undefined, accountMetadata: object): boolean {
  if (force || Object.keys(accountMetadata).length > 0) return true;
  return schema !== undefined && hasDefaultsOrScript(request, schema);
}

function hasDefaultsOrScript(request: CreateTransactionInput, schema: ParsedSchema): boolean {
  if (request.script) return true;
  const addresses = [...new Set((request.postings ?? []).flatMap((p) => [p.source, p.destination]))];
  return Object.keys(chartDefaults(schema, addresses)).length > 0;
}

/**
 * The pipeline write of a request, as createTransaction commits it and a bulk element joins its batch: `force`, the
 * schema's check of a script's postings and its chart's default account metadata, and the request's `accountMetadata`.
 * @throws ApiError VALIDATION, NO_POSTINGS (the request's own errors, as createTransaction throws them)
 */
export function pipelineWrite(input: TransactionRequest, options: { idempotencyKey?: string; force?: boolean; schema?: ParsedSchema }): LedgerWrite {
  const { schema, force } = options;
  const request = normalize(resolveTemplate(input, schema));
  const accountMetadata = checkAccountMetadata(input.accountMetadata, schema);
  if (schema && request.postings) assertPostingsInChart(schema, request.postings);
  return {
    request,
    ...(options.idempotencyKey !== undefined ? { idempotencyKey: options.idempotencyKey } : {}),
    // What is hashed for the key includes the options that change the write.
    ...(isChecked(request, force, schema, accountMetadata)
      ? { hashed: { ...request, force: force === true, schemaVersion: schema?.version, accountMetadata } }
      : {}),
    ...(force ? { force: true } : {}),
    ...(Object.keys(accountMetadata).length > 0 ? { accountMetadata } : {}),
    ...(schema && request.script ? { check: (postings: Posting[]) => assertPostingsInChart(schema, postings, 'script postings') } : {}),
    ...(schema && hasDefaultsOrScript(request, schema) ? { defaults: (addresses: string[]) => chartDefaults(schema, addresses) } : {}),
  };
}

/** A dry run's write: never answered from a key, as it takes none. */
async function commitDryRun(
  trx: Knex.Transaction,
  ledger: string,
  write: Parameters<typeof commitWrite>[2],
): Promise<{ transaction: LedgerTransaction }> {
  const outcome = await commitWrite(trx, ledger, write);
  if ('hitTxid' in outcome) throw new Error('a dry run takes no Idempotency-Key');
  return outcome;
}
