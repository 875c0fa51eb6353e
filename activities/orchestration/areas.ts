/**
 * The one place orchestration's activities reach the other areas (ledger, wallets, payments): in-process calls through
 * the areas' service modules (areas/ledger, areas/wallets, areas/payments/orchestration.ts), never our own HTTP API.
 */

// ---- ledger: areas/ledger/index.ts -----------------------------------------------------------------------------------
export { addAccountMetadata, createTransaction, ensureLedger, getAccount, type Posting } from '../../areas/ledger';

// ---- wallets: areas/wallets/index.ts ---------------------------------------------------------------------------------
export { confirmHold, creditWallet, debitWallet, getWallet, listWallets, voidHold, type Subject } from '../../areas/wallets';

// ---- payments: areas/payments/orchestration.ts -----------------------------------------------------------------------
export { findConnectorByProvider, getPaymentForStage, providerTransfer } from '../../areas/payments/orchestration';
