/**
 * The one place orchestration's activities reach the other areas (ledger, wallets, payments): in-process calls through
 * the areas' in-process APIs (their index.ts), never our own HTTP API.
 */

// ---- ledger ------------------------------------------------------------------------------------------------------
export { addAccountMetadata, createTransaction, ensureLedger, getAccount, type Posting } from '../../areas/ledger';

// ---- wallets -----------------------------------------------------------------------------------------------------
export { confirmHold, creditWallet, debitWallet, getWallet, listWallets, voidHold, type Subject } from '../../areas/wallets';

// ---- payments ----------------------------------------------------------------------------------------------------
export { findConnectorByProvider, getPaymentForStage, providerTransfer } from '../../areas/payments';
