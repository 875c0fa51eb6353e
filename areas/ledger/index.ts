/**
 * The ledger's in-process API: wallets, orchestration and the HTTP routes call these functions.
 * Every function takes `db` or a transaction; given a transaction it runs inside it, so a caller can combine its own
 * rows with a ledger write atomically.
 */
export type { CreateTransactionInput, Executor, LedgerTransaction, Posting, Volume, Volumes, VolumesByAccount } from './types';
export { WORLD } from './types';
export { createTransaction, settleHold, type CreateTransactionOptions, type TransactionRequest } from './writes/create-transaction';
export { callerRows, type CallerRows, type HoldRows, type HoldState, type SettleInput, type Settled } from './writes/settle-write';
export type { SqlStatement } from './writes/write-statements';
export { revertTransaction } from './writes/revert-transaction';
export { getTransaction, getTransactionJson, listTransactions, countTransactions, type TransactionFilters } from './reads/transactions';
export {
  getAccount,
  listAccounts,
  countAccounts,
  aggregateBalances,
  type LedgerAccount,
  type AccountFilters,
  type BalanceOperator,
} from './reads/accounts';
export {
  createLedger,
  deleteBucket,
  deleteLedgerMetadata,
  ensureLedger,
  getLedger,
  listLedgers,
  restoreBucket,
  updateLedgerMetadata,
  type Ledger,
} from './ledgers';
export { getSchema, insertSchema, listSchemas, type LedgerSchema } from './rules/schemas';
export { ledgerMetrics } from './metrics';
export { v1TransactionView, v2TransactionView } from './reads/views';
export { addAccountMetadata, addTransactionMetadata, deleteAccountMetadata, deleteTransactionMetadata } from './writes/single-metadata';
export { runBulk, type BulkElement, type BulkResult } from './writes/bulk';
export { ledgerStats, type LedgerStats } from './reads/stats';
export { listVolumes, type VolumesFilters, type VolumesWithBalance } from './reads/volumes-list';
export { inWriteTransaction } from './executor';
export {
  exportLogs,
  listLogs,
  logChainStatus,
  verifyLogChain,
  type LogChainStatus,
  type LogFilters,
  type LogVerification,
  type StreamedLog,
} from './logs/logs';
export { hashLedgerLogs, hashPendingLogs, logHashLag } from './logs/log-hasher';
export { importLogs, type ImportOptions } from './logs/log-import';
export { CHECKPOINT_EVERY, listLogPublicKeys, rotateLogSigningKey } from './logs/log-signing';
export type { LedgerLog, LogType } from './logs/log';
export { addAccountMetadataV1, addTransactionMetadataV1, createTransactionV1, createTransactionsV1, revertTransactionV1 } from './writes/v1-writes';
export { getMapping, updateMapping, type Contract, type Mapping } from './rules/mapping';
export { ledgerNames, ledgerStorageInfo } from './reads/info';
export { logV1TypesExcluded, v1AccountView, v1AccountWithVolumesView, v1BalancesView, v1LogView } from './reads/v1-views';
export {
  createExporter,
  deleteExporter,
  getExporter,
  listExporters,
  presentExporter,
  updateExporter,
  type Exporter,
  type ExporterRow,
} from './exporters/exporters';
export { type ExporterConfig, type HttpExporterConfig, type PostgresExporterConfig } from './exporters/exporter-config';
export {
  createPipeline,
  deletePipeline,
  getPipeline,
  listPipelines,
  presentPipeline,
  resetPipeline,
  startPipeline,
  stopPipeline,
  type Pipeline,
  type PipelineRow,
} from './exporters/pipelines';
export { advancePipeline, nextPipelineBatch, type ExportedLog, type NextBatch, type PipelineBatch } from './exporters/pipeline-batches';
export { runQuery, type QueryTemplate } from './reads/run-query';
export { aggregateBalancesAt, assertAccountQuery, type PointInTime } from './reads/balances-at';
