/**
 * The one place orchestration's activities reach the other areas (ledger, wallets, payments): in-process calls through
 * the areas' service modules (db/ledger, db/wallets, db/payments/orchestration.ts), never our own HTTP API.
 */

// ---- ledger: db/ledger/index.ts -----------------------------------------------------------------------------------
export { addAccountMetadata, createTransaction, ensureLedger, getAccount, type Posting } from '../../db/ledger';

// ---- wallets: db/wallets/index.ts ---------------------------------------------------------------------------------
export { confirmHold, creditWallet, debitWallet, getWallet, listWallets, voidHold, type Subject } from '../../db/wallets';

// ---- payments: db/payments/orchestration.ts -----------------------------------------------------------------------
export { findConnectorByProvider, getPaymentForStage, providerTransfer } from '../../db/payments/orchestration';
